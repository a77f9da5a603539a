// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests an unknown activation.

graph.graph @g(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %y = graph.fused_conv2d %x, %w strides [1, 1, 1, 1] activation "swish" : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  // CHECK: 'graph.fused_conv2d' activation must be one of "relu", "relu6", "clip", "sigmoid", "hard_swish", "gelu", "gelu_tanh", got "swish"
  graph.net_output
}

// -----

// Tests a clip activation without bounds.

graph.graph @g(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %y = graph.fused_conv2d %x, %w strides [1, 1, 1, 1] activation "clip" clip_min 0.0 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  // CHECK: 'graph.fused_conv2d' activation "clip" needs clip_min and clip_max
  graph.net_output
}

// -----

// Tests clip bounds in the wrong order.

graph.graph @g(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %y = graph.fused_conv2d %x, %w strides [1, 1, 1, 1] activation "clip" clip_min 2.0 clip_max 1.0 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  // CHECK: 'graph.fused_conv2d' clip_min 2.0 exceeds clip_max 1.0
  graph.net_output
}

// -----

// Tests clip bounds on another activation.

graph.graph @g(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  %y = graph.fused_conv2d %x, %w strides [1, 1, 1, 1] activation "relu" clip_max 1.0 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  // CHECK: 'graph.fused_conv2d' clip_min and clip_max are only for activation "clip", not "relu"
  graph.net_output
}

// -----

// Tests a float activation on an integer result.

graph.graph @g(%a: tensor<4x8xi32>, %b: tensor<8x2xi32>) {
  %y = graph.fused_mat_mul %a, %b activation "sigmoid" : (tensor<4x8xi32>, tensor<8x2xi32>) -> tensor<4x2xi32>
  // CHECK: 'graph.fused_mat_mul' activation "sigmoid" needs a floating-point result, got i32
  graph.net_output
}

// -----

// Tests the convolution checks of graph.conv2d on a fused convolution.

graph.graph @g(%x: tensor<1x3x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  %y = graph.fused_conv2d %x, %w strides [1, 1, 1, 1] activation "relu" : (tensor<1x3x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  // CHECK: 'graph.fused_conv2d' filter has 2 input channels, expected C_in / groups = 3
  graph.net_output
}

// -----

// Tests FusedMatMul operands of different element types.

graph.graph @g(%a: tensor<4x8xf32>, %b: tensor<8x2xf16>) {
  %y = graph.fused_mat_mul %a, %b activation "relu" : (tensor<4x8xf32>, tensor<8x2xf16>) -> tensor<4x2xf32>
  // CHECK: 'graph.fused_mat_mul' requires one element type for operands and result, got f32, f16, f32
  graph.net_output
}

// -----

// Tests a 0-D FusedMatMul operand.

graph.graph @g(%a: tensor<f32>, %b: tensor<8x2xf32>) {
  %y = graph.fused_mat_mul %a, %b activation "relu" : (tensor<f32>, tensor<8x2xf32>) -> tensor<2xf32>
  // CHECK: 'graph.fused_mat_mul' x1 must have at least one dim
  graph.net_output
}

// -----

// Tests contracted dims that differ.

graph.graph @g(%a: tensor<4x8xf32>, %b: tensor<7x2xf32>) {
  %y = graph.fused_mat_mul %a, %b activation "relu" : (tensor<4x8xf32>, tensor<7x2xf32>) -> tensor<4x2xf32>
  // CHECK: 'graph.fused_mat_mul' contracts K = 8 of x1 with K = 7 of x2
  graph.net_output
}

// -----

// Tests a result shape that is not the product's.

graph.graph @g(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) {
  %y = graph.fused_mat_mul %a, %b activation "relu" : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x3xf32>
  // CHECK: 'graph.fused_mat_mul' result shape [4, 3] differs from the product shape [4, 2]
  graph.net_output
}

// -----

// Tests a bias that does not broadcast.

graph.graph @g(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>, %c: tensor<3xf32>) {
  %y = graph.fused_mat_mul %a, %b, %c activation "relu" : (tensor<4x8xf32>, tensor<8x2xf32>, tensor<3xf32>) -> tensor<4x2xf32>
  // CHECK: 'graph.fused_mat_mul' bias of type tensor<3xf32> does not broadcast to the product
  graph.net_output
}

// -----

// Tests a bias that would enlarge the product.

graph.graph @g(%a: tensor<1x8xf32>, %b: tensor<8x2xf32>, %c: tensor<5x2xf32>) {
  %y = graph.fused_mat_mul %a, %b, %c activation "relu" : (tensor<1x8xf32>, tensor<8x2xf32>, tensor<5x2xf32>) -> tensor<1x2xf32>
  // CHECK: 'graph.fused_mat_mul' bias of type tensor<5x2xf32> would enlarge the product
  graph.net_output
}

// -----

// Tests FusedMulAdd operands of different element types.

graph.graph @g(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf16>) {
  %y = graph.fused_mul_add %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  // CHECK: 'graph.fused_mul_add' requires one element type for operands and result, got f32, f32, f16, f32
  graph.net_output
}

// -----

// Tests a FusedMulAdd on booleans.

graph.graph @g(%a: tensor<4xi1>) {
  %y = graph.fused_mul_add %a, %a, %a : (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: 'graph.fused_mul_add' requires a numeric (integer or floating-point, not i1) element type for x1, got i1
  graph.net_output
}

// -----

// Tests FusedMulAdd operands that do not broadcast.

graph.graph @g(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<3xf32>) {
  %y = graph.fused_mul_add %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  // CHECK: 'graph.fused_mul_add' operand shapes [4] and [3] do not broadcast
  graph.net_output
}

// -----

// Tests a FusedMulAdd result that is not the broadcast shape.

graph.graph @g(%a: tensor<4x1xf32>, %b: tensor<3xf32>, %c: tensor<3xf32>) {
  %y = graph.fused_mul_add %a, %b, %c : (tensor<4x1xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x1xf32>
  // CHECK: 'graph.fused_mul_add' result shape [4, 1] differs from the broadcast shape [4, 3]
  graph.net_output
}
