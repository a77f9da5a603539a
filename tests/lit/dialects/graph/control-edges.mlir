// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests GE control edges: the operands of graph.identity after the first are control inputs
// (no data, only order). GE's While variable rule (SplitVariableIntoSubgraphPass): the
// consumer of the While output is fed by the variable %v itself plus a control edge from the
// While; a Const that must wait for `leaf` gets an Identity with the edge.

graph.graph @cond(%i: tensor<i32> {_parent_node_index = 0 : i64}, %v: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32> {_parent_node_index = 0 : i64}, %v: tensor<4xf32> {_parent_node_index = 1 : i64}) -> (tensor<i32>, tensor<4xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %j, %v : tensor<i32>, tensor<4xf32>
}
graph.graph @main(%i: tensor<i32>, %v: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<i32>, tensor<2xf32>) {
  %w:2 = graph.while %i, %v cond @cond body @body {node_name = "loop"} : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  %u = graph.identity %v, %w#1 {node_name = "var_after_loop"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = graph.add %u, %x {node_name = "use"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = graph.relu %x {node_name = "leaf"} : (tensor<4xf32>) -> tensor<4xf32>
  %k = graph.const dense<[1.0, 2.0]> : tensor<2xf32> {node_name = "k"}
  %ka = graph.identity %k, %r {node_name = "k_after_leaf"} : (tensor<2xf32>, tensor<4xf32>) -> tensor<2xf32>
  graph.net_output %y, %w#0, %ka : tensor<4xf32>, tensor<i32>, tensor<2xf32>
}

// CHECK-LABEL: graph.graph @main
// CHECK:         %[[W:.*]], %[[W1:.*]] = graph.while %{{.*}}, %[[V:.*]] cond @cond body @body
// CHECK-NEXT:    %[[U:.*]] = graph.identity %[[V]], %[[W1]] {node_name = "var_after_loop"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    graph.add %[[U]], %{{.*}} {node_name = "use"}
// CHECK:         %[[R:.*]] = graph.relu
// CHECK:         %[[K:.*]] = graph.const
// CHECK-NEXT:    graph.identity %[[K]], %[[R]] {node_name = "k_after_leaf"} : (tensor<2xf32>, tensor<4xf32>) -> tensor<2xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "main"
// GENERIC:         "graph.identity"(%{{.*}}, %{{.*}}) {node_name = "var_after_loop"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
