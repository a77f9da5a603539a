// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests graph.get_next in sink mode: N data outputs, then their N int32 shapes; a scalar's
// shape is tensor<0xi32>.
// CHECK-LABEL: graph.graph @fed
// CHECK-NEXT:    %[[X:.*]], %[[S:.*]], %{{.*}}, %{{.*}} = graph.get_next output_names ["x", "s"] {node_name = "IteratorGetNext"} : () -> (tensor<?x3xf32>, tensor<i32>, tensor<2xi32>, tensor<0xi32>)
// CHECK-NEXT:    graph.net_output %[[X]], %[[S]] : tensor<?x3xf32>, tensor<i32>
// GENERIC: "graph.get_next"() <{output_names = ["x", "s"]}> {node_name = "IteratorGetNext"} : () -> (tensor<?x3xf32>, tensor<i32>, tensor<2xi32>, tensor<0xi32>)

graph.graph @fed() -> (tensor<?x3xf32> {node_name = "y"}, tensor<i32> {node_name = "t"}) {
  %x, %s, %xs, %ss = graph.get_next output_names ["x", "s"] {node_name = "IteratorGetNext"} : () -> (tensor<?x3xf32>, tensor<i32>, tensor<2xi32>, tensor<0xi32>)
  graph.net_output %x, %s : tensor<?x3xf32>, tensor<i32>
}
