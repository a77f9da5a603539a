// RUN: ge-opt %s -p ge-partition-dynamic-shape | filecheck %s

// Tests GE's data-flow check and re-partition (DynamicDataFlowPartitionerPass in
// ReDynamicShapePartitioner): the Stack and its push would join the known cluster of the
// elementwise chain and the pop of unknown shape an unknown one; the stack is split, so all
// its ops get _force_unknown_shape and the graph is clustered again: they share the unknown
// partition, and the known partition keeps only the chain.

// CHECK-LABEL: graph.graph @main_sub_1_know
// CHECK-NOT:     graph.stack
// CHECK:         graph.net_output
// CHECK-LABEL: graph.graph @main_sub_2_unknow
// CHECK:         %[[H:.*]] = graph.stack %{{.*}} stack_name "s" {_force_unknown_shape = true
// CHECK:         graph.stack_push %[[H]], %{{.*}} {_force_unknown_shape = true
// CHECK:         graph.stack_pop %[[H]] {_force_unknown_shape = true
// CHECK:         graph.stack_close %{{.*}} {_force_unknown_shape = true
graph.graph @main(%x: tensor<2xf32>, %k: tensor<?xf32>) -> (tensor<2xf32>, tensor<?xf32>) {
  %n = graph.const dense<-1> : tensor<i32>
  %h = graph.stack %n stack_name "s" : (tensor<i32>) -> tensor<i64>
  %a = graph.mul %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = graph.add %a, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c = graph.mul %b, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %d = graph.sub %c, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %e = graph.add %d, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %p = graph.stack_push %h, %e : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  %k2 = graph.relu %k : (tensor<?xf32>) -> tensor<?xf32>
  %t = graph.stack_pop %h : (tensor<i64>) -> tensor<?xf32>
  %s = graph.add %t, %k2 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %after = graph.identity %h, %s : (tensor<i64>, tensor<?xf32>) -> tensor<i64>
  graph.stack_close %after : (tensor<i64>) -> ()
  graph.net_output %p, %s : tensor<2xf32>, tensor<?xf32>
}
