// RUN: ge-opt %s --split-input-file --verify-diagnostics -p ge-convert-graph-to-ascend | filecheck %s
// RUN: not ge-opt %s -p ge-convert-graph-to-ascend 2>&1 | filecheck %s --check-prefix=ERR

// Tests that an If whose cond is not yet GE's int32 scalar (ge-normalize-conds did not run) is
// refused: the label switch reads the cond's bytes in place as one int32.

graph.graph @then(%x: tensor<4xf32>) -> tensor<4xf32> {
  graph.net_output %x : tensor<4xf32>
}
graph.graph @bool_if(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.if %c, %x then_branch @then else_branch @then {node_name = "pick"} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK: ge-convert-graph-to-ascend: 'graph.if' (pick) cond has type tensor<i1>; the label switch reads an int32 scalar in place: run ge-normalize-conds first (GE's CondPass; ge-compile does)
// ERR: error: ge-convert-graph-to-ascend: 'graph.if' (pick) cond has type tensor<i1>; the label switch reads an int32 scalar in place
// ERR-NOT: Traceback

// -----

// Tests that a While whose cond graph gives a bool is refused the same way.

graph.graph @c1(%i: tensor<i32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %b = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %b : tensor<i1>
}
graph.graph @b1(%i: tensor<i32>) -> tensor<i32> {
  graph.net_output %i : tensor<i32>
}
graph.graph @bool_while(%i: tensor<i32>) -> tensor<i32> {
  %r = graph.while %i cond @c1 body @b1 {node_name = "w"} : (tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}

// CHECK: ge-convert-graph-to-ascend: 'graph.while' (w) cond @c1 output has type tensor<i1>; the label switch reads an int32 scalar in place: run ge-normalize-conds first (GE's CondPass; ge-compile does)

// -----

// Tests that a non-scalar int32 cond is refused too (CondPass makes it a Size).

graph.graph @then2(%x: tensor<4xf32>) -> tensor<4xf32> {
  graph.net_output %x : tensor<4xf32>
}
graph.graph @vector_if(%c: tensor<2xi32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.if %c, %x then_branch @then2 else_branch @then2 : (tensor<2xi32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK: ge-convert-graph-to-ascend: 'graph.if' cond has type tensor<2xi32>; the label switch reads an int32 scalar in place

// -----

// Tests that a While carrying a value of unknown shape outside an unknown-shape partition (the
// graph was not partitioned) is refused with the While named.

graph.graph @c3(%x: tensor<?xf32>) -> tensor<i32> {
  %n = graph.const dense<0> : tensor<i32>
  graph.net_output %n : tensor<i32>
}
graph.graph @b3(%x: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %x : tensor<?xf32>
}
graph.graph @unknown_while(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = graph.while %x cond @c3 body @b3 {node_name = "grow"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %r : tensor<?xf32>
}

// CHECK: ge-convert-graph-to-ascend: 'graph.while' (grow) has non-static type tensor<?xf32> outside an unknown-shape partition
