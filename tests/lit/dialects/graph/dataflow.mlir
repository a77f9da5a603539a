// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests the data-flow ops: a Stack, a push that returns its element, a pop of the top and the
// close, in the custom and the generic form.

// CHECK-LABEL: graph.graph @lifo
// CHECK:         %[[H:.*]] = graph.stack %{{.*}} stack_name "s" : (tensor<i32>) -> tensor<i64>
// CHECK:         %[[E:.*]] = graph.stack_push %[[H]], %{{.*}} swap_memory true : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
// CHECK:         %[[T:.*]] = graph.stack_pop %[[H]] : (tensor<i64>) -> tensor<2xf32>
// CHECK:         graph.stack_close %[[H]] : (tensor<i64>) -> ()
// CHECK:         graph.net_output %[[T]], %[[E]]
// GENERIC-LABEL: "graph.graph"() <{sym_name = "lifo"
// GENERIC:         "graph.stack"(%{{.*}}) <{stack_name = "s"}> : (tensor<i32>) -> tensor<i64>
// GENERIC:         "graph.stack_push"(%{{.*}}, %{{.*}}) <{swap_memory = true}> : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC:         "graph.stack_pop"(%{{.*}}) : (tensor<i64>) -> tensor<2xf32>
// GENERIC:         "graph.stack_close"(%{{.*}}) : (tensor<i64>) -> ()
graph.graph @lifo(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %n = graph.const dense<-1> : tensor<i32>
  %h = graph.stack %n stack_name "s" : (tensor<i32>) -> tensor<i64>
  %e = graph.stack_push %h, %x swap_memory true : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  %t = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
  graph.stack_close %h : (tensor<i64>) -> ()
  graph.net_output %t, %e : tensor<2xf32>, tensor<2xf32>
}

// -----

// Tests a handle passed into a subgraph (a Data input), and a pop of unknown shape.

// CHECK-LABEL: graph.graph @pop_in
// CHECK:         graph.stack_pop %{{.*}} : (tensor<i64>) -> tensor<?xf32>
graph.graph @pop_in(%h: tensor<i64>) -> tensor<?xf32> {
  %t = graph.stack_pop %h : (tensor<i64>) -> tensor<?xf32>
  graph.net_output %t : tensor<?xf32>
}
