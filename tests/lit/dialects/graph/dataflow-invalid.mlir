// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a Stack whose max_size is not a scalar int32.

// CHECK-LABEL: 'graph.stack' takes max_size of type tensor<2xi32>; GE's Stack takes a scalar tensor<i32>
graph.graph @g(%n: tensor<2xi32>) -> tensor<i64> {
  %h = graph.stack %n : (tensor<2xi32>) -> tensor<i64>
  graph.net_output %h : tensor<i64>
}

// -----

// Tests a handle made by another op than a Stack.

// CHECK-LABEL: 'graph.stack_push' takes its handle from 'graph.const' (%h): a stack handle comes from a graph.stack
graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %h = graph.const dense<1> : tensor<i64>
  %e = graph.stack_push %h, %x : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %e : tensor<2xf32>
}

// -----

// Tests a handle of another type.

// CHECK-LABEL: 'graph.stack_pop' takes a handle of type tensor<i32>; a stack handle is tensor<i64>
graph.graph @g(%h: tensor<i32>) -> tensor<2xf32> {
  %t = graph.stack_pop %h : (tensor<i32>) -> tensor<2xf32>
  graph.net_output %t : tensor<2xf32>
}

// -----

// Tests a push whose result is not its element's type.

// CHECK-LABEL: 'graph.stack_push' returns tensor<3xf32> but pushes tensor<2xf32>: it returns its element
graph.graph @g(%n: tensor<i32>, %x: tensor<2xf32>) -> tensor<3xf32> {
  %h = graph.stack %n : (tensor<i32>) -> tensor<i64>
  %e = graph.stack_push %h, %x : (tensor<i64>, tensor<2xf32>) -> tensor<3xf32>
  graph.net_output %e : tensor<3xf32>
}
