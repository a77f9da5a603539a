// RUN: not ge-opt %s -p ge-partition-dynamic-shape 2>&1 | filecheck %s

// Tests that a subgraph shared by a known and an unknown control-flow node is refused (GE
// gives each node its own subgraph instance; one graph cannot run both ways).

graph.graph @shared_t(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  graph.net_output %x : tensor<4xf32>
}
graph.graph @other_t(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  %u = graph.relu %x {_force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %u : tensor<4xf32>
}
graph.graph @shared(%c: tensor<i1>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  %k = graph.if %c, %b then_branch @shared_t else_branch @shared_t {node_name = "known_if"} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  %d = graph.abs %k : (tensor<4xf32>) -> tensor<4xf32>
  %u = graph.if %c, %x then_branch @other_t else_branch @shared_t {node_name = "unknown_if"} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %d, %u : tensor<4xf32>, tensor<4xf32>
}

// CHECK: error: ge-partition-dynamic-shape: @shared_t is a subgraph of known and of unknown control-flow nodes (the last 'unknown_if'); give each its own copy
