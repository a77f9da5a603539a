// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests an int8 x with a float filter.

graph.graph @g(%x: tensor<1x1x2x2xi8>, %w: tensor<1x1x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x1x2x2xi8>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xi32>
  // CHECK: 'graph.conv2d' an 8-bit integer x takes an i8 weight, got f32
  graph.net_output
}

// -----

// Tests an int8 Conv2D whose result is not the int32 accumulator.

graph.graph @g(%x: tensor<1x1x2x2xi8>, %w: tensor<1x1x1x1xi8>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x1x2x2xi8>, tensor<1x1x1x1xi8>) -> tensor<1x1x2x2xi8>
  // CHECK: 'graph.conv2d' result element type must be i32, got i8
  graph.net_output
}

// -----

// Tests an int8 MatMul with a float bias.

graph.graph @g(%a: tensor<2x2xui8>, %w: tensor<2x2xi8>, %b: tensor<2xf32>) {
  %y = graph.matmul %a, %w, %b : (tensor<2x2xui8>, tensor<2x2xi8>, tensor<2xf32>) -> tensor<2x2xi32>
  // CHECK: 'graph.matmul' the bias of an 8-bit integer product must be i32, got f32
  graph.net_output
}

// -----

// Tests offset_x on a float convolution.

graph.graph @g(%x: tensor<1x1x2x2xf32>, %w: tensor<1x1x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] offset_x 2 : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32>
  // CHECK: 'graph.conv2d' offset_x 2 needs an 8-bit integer x, got tensor<1x1x2x2xf32>
  graph.net_output
}

// -----

// Tests AscendDequant of a float accumulator.

graph.graph @g(%x: tensor<2x2xf32>, %s: tensor<f32>) {
  %y = graph.ascend_dequant %x, %s : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  // CHECK: 'graph.ascend_dequant' x must be an i32 tensor, got tensor<2x2xf32>
  graph.net_output
}

// -----

// Tests an AscendDequant scale along two dims.

graph.graph @g(%x: tensor<1x2x3x3xi32>, %s: tensor<1x2x3x1xf32>) {
  %y = graph.ascend_dequant %x, %s : (tensor<1x2x3x3xi32>, tensor<1x2x3x1xf32>) -> tensor<1x2x3x3xf32>
  // CHECK: deq_scale [1, 2, 3, 1] is neither one value, [3] nor one per index of one dim of x [1, 2, 3, 3]
  graph.net_output
}
