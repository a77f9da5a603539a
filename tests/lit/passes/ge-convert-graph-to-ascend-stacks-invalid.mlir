// RUN: ge-opt %s --verify-diagnostics -p ge-convert-graph-to-ascend | filecheck %s

// Tests that a stack whose ops run in an unknown-shape partition and then in a known one is
// refused in one line (ge-partition-dynamic-shape makes all ops of such a handle unknown).

// CHECK: ge-convert-graph-to-ascend: 'graph.stack_pop' acts on a stack whose earlier ops run in an unknown-shape partition, from a known one: the ops of one stack must all be known or all unknown

graph.graph @unk(%h: tensor<i64>) -> tensor<?xf32> {
  %t = graph.stack_pop %h : (tensor<i64>) -> tensor<?xf32>
  graph.net_output %t : tensor<?xf32>
}
graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %n = graph.const dense<-1> : tensor<i32>
  %h = graph.stack %n : (tensor<i32>) -> tensor<i64>
  %a = partition.partitioned_call @unk(%h) {_is_unknown_shape = true} : (tensor<i64>) -> tensor<?xf32>
  %b = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
  graph.net_output %b : tensor<2xf32>
}
