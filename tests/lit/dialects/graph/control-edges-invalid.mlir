// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests that an Identity's result takes the type of its data input, not of a control input.

// CHECK: 'graph.identity' result type tensor<2xi32> differs from the operand type tensor<4xf32>
graph.graph @g(%x: tensor<4xf32>, %c: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{'graph.identity' result type tensor<2xi32> differs from the operand type tensor<4xf32>}}
  %y = graph.identity %x, %c : (tensor<4xf32>, tensor<2xi32>) -> tensor<2xi32>
  graph.net_output %y : tensor<2xi32>
}
