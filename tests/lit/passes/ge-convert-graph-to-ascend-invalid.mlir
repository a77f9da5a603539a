// RUN: ge-opt %s --split-input-file --verify-diagnostics -p ge-convert-graph-to-ascend | filecheck %s
// RUN: not ge-opt %s -p ge-convert-graph-to-ascend 2>&1 | filecheck %s --check-prefix=ERR

// Tests that a dynamic shape outside an unknown-shape partition (the graph was not partitioned)
// stops task generation with the node named.

graph.graph @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = graph.relu %x {node_name = "act"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  graph.net_output %r : tensor<?x4xf32>
}

// CHECK: ge-convert-graph-to-ascend: 'graph.relu' (act) reads a value of unknown shape outside an unknown-shape partition; run ge-partition-dynamic-shape first (ge-compile does)
// ERR: error: ge-convert-graph-to-ascend: 'graph.relu' (act) reads a value of unknown shape outside an unknown-shape partition; run ge-partition-dynamic-shape first (ge-compile does)
// ERR-NOT: Traceback

// -----

// Tests that a case branch whose input is not static is refused.

graph.graph @gears(%i: tensor<i32>, %v: tensor<4xf32>) -> tensor<4xf32> {
  %r = multibatch.case %i, %v branches [@same, @smaller] : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @same(%a: tensor<4xf32>) -> tensor<4xf32> {
  graph.net_output %a : tensor<4xf32>
}
graph.graph @smaller(%a: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %a : tensor<?xf32>
}

// CHECK: ge-convert-graph-to-ascend: 'graph.graph' reads tensor<?xf32> from a buffer of type tensor<4xf32>; task generation needs the static shapes to agree

// -----

// Tests that a PlaceHolder whose End has not run yet is refused.

graph.graph @early() -> tensor<4xf32> {
  %p = partition.place_holder peerIndex 7 {node_name = "pld"} : () -> tensor<4xf32>
  graph.net_output %p : tensor<4xf32>
}

// CHECK: ge-convert-graph-to-ascend: 'partition.place_holder' (pld) with peerIndex 7 runs before its partition.end

// -----

// Tests that an op with no GE semantics is refused.

graph.graph @foreign(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = "test.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}

// CHECK: ge-convert-graph-to-ascend: 'test.op' has no lowering to the ascend dialect

// -----

// Tests a writer whose ref_var_src_var_name (GE's VariableRefDeleteOpPass) names another
// variable than the one it writes.

// CHECK: ge-convert-graph-to-ascend: 'graph.assign_add' has ref_var_src_var_name "v" but writes the variable "w"
graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<0.0> : tensor<2xf32>
  %w1 = graph.assign_add %w, %x {ref_var_src_var_name = "v"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}
