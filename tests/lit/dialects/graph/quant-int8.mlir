// RUN: ge-opt %s --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s

// Tests GE's int8 Conv2D (ui8 x, i8 filter, i32 bias and result, offset_x) and AscendDequant with a per-channel scale and relu_flag.
// CHECK-LABEL: graph.graph @conv
// CHECK:         %[[C:.*]] = graph.conv2d %{{.*}}, %{{.*}}, %{{.*}} strides [1, 1, 1, 1] pads [1, 1, 1, 1] offset_x 3 : (tensor<1x2x3x3xui8>, tensor<4x2x3x3xi8>, tensor<4xi32>) -> tensor<1x4x3x3xi32>
// CHECK:         graph.ascend_dequant %[[C]], %{{.*}} relu_flag true : (tensor<1x4x3x3xi32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x3xf32>
graph.graph @conv(%x: tensor<1x2x3x3xui8>, %w: tensor<4x2x3x3xi8>) -> tensor<1x4x3x3xf32> {
  %b = graph.const dense<[1, 2, 3, 4]> : tensor<4xi32>
  %c = graph.conv2d %x, %w, %b strides [1, 1, 1, 1] pads [1, 1, 1, 1] offset_x 3 : (tensor<1x2x3x3xui8>, tensor<4x2x3x3xi8>, tensor<4xi32>) -> tensor<1x4x3x3xi32>
  %s = graph.const dense<[[[[0.5]], [[0.25]], [[1.0]], [[2.0]]]]> : tensor<1x4x1x1xf32>
  %y = graph.ascend_dequant %c, %s relu_flag true : (tensor<1x4x3x3xi32>, tensor<1x4x1x1xf32>) -> tensor<1x4x3x3xf32>
  graph.net_output %y : tensor<1x4x3x3xf32>
}

// -----

// Tests GE's int8 MatMul and AscendDequant with one scale (scalar) and one per N (the last dim).
// CHECK-LABEL: graph.graph @matmul
// CHECK:         graph.matmul %{{.*}}, %{{.*}} transpose_x2 true : (tensor<2x3xi8>, tensor<4x3xi8>) -> tensor<2x4xi32>
// CHECK:         graph.ascend_dequant %{{.*}}, %{{.*}} : (tensor<2x4xi32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK:         graph.ascend_dequant %{{.*}}, %{{.*}} : (tensor<2x4xi32>, tensor<4xf16>) -> tensor<2x4xf16>
graph.graph @matmul(%a: tensor<2x3xi8>, %w: tensor<4x3xi8>, %s: tensor<f32>, %n: tensor<4xf16>) -> (tensor<2x4xf32>, tensor<2x4xf16>) {
  %m = graph.matmul %a, %w transpose_x2 true : (tensor<2x3xi8>, tensor<4x3xi8>) -> tensor<2x4xi32>
  %y = graph.ascend_dequant %m, %s : (tensor<2x4xi32>, tensor<f32>) -> tensor<2x4xf32>
  %z = graph.ascend_dequant %m, %n : (tensor<2x4xi32>, tensor<4xf16>) -> tensor<2x4xf16>
  graph.net_output %y, %z : tensor<2x4xf32>, tensor<2x4xf16>
}
