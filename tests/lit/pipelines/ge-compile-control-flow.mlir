// Control flow has no task lowering yet (GE's label makers are not modelled): ge-compile
// refuses it with one line naming the op rather than emitting If/While/For kernel tasks that
// would run nothing. The graph level runs it (tests/test_control_flow.py).
// RUN: ge-opt %s --split-input-file --verify-diagnostics -p ge-compile | filecheck %s
// RUN: not ge-opt %s -p ge-compile 2>&1 | filecheck %s --check-prefix=ERR
// RUN: ge-opt %s --split-input-file -p ge-verify-graph | filecheck %s --check-prefix=VERIFY

// CHECK-LABEL: ge-convert-graph-to-ascend: 'graph.if' (branch) in @if_main: GE If has no task lowering yet (GE's label makers are not modelled); run the graph level with ge-run
// ERR: error: ge-convert-graph-to-ascend: 'graph.if' (branch) in @if_main: GE If has no task lowering yet
// ERR-NOT: Traceback
// VERIFY-LABEL: graph.graph @if_main
graph.graph @then(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @if_main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.if %c, %x then_branch @then else_branch @then {node_name = "branch"} : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// CHECK-LABEL: ge-convert-graph-to-ascend: 'graph.while' in @while_main: GE While has no task lowering yet
// VERIFY-LABEL: graph.graph @while_main
graph.graph @c(%i: tensor<i32>) -> tensor<i32> {
  graph.net_output %i : tensor<i32>
}
graph.graph @while_main(%i: tensor<i32>) -> tensor<i32> {
  %r = graph.while %i cond @c body @c : (tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}

// -----

// CHECK-LABEL: ge-convert-graph-to-ascend: 'graph.for' in @for_main: GE For has no task lowering yet
// VERIFY-LABEL: graph.graph @for_main
graph.graph @b(%v: tensor<i32>, %x: tensor<i32>) -> tensor<i32> {
  graph.net_output %x : tensor<i32>
}
graph.graph @for_main(%i: tensor<i32>) -> tensor<i32> {
  %r = graph.for %i, %i, %i, %i body @b : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}
