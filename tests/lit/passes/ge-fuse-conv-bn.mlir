// RUN: ge-opt %s -p ge-fuse-conv-bn --split-input-file | filecheck %s

// Tests the folding with hand-computed numbers: s = scale / sqrt(var + eps) = [0.5, 2], W' = W * s = [1, 6], b' = (b - mean) * s + offset = [0.5, -4].
// CHECK-LABEL: graph.graph @fold
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1x4x4xf32>)
// CHECK-DAG:     %[[W:.*]] = graph.const dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}6.000000e+00]]]]> : tensor<2x1x1x1xf32> {node_name = "conv/bn_weight"}
// CHECK-DAG:     %[[B:.*]] = graph.const dense<[5.000000e-01, -4.000000e+00]> : tensor<2xf32> {node_name = "conv/bn_bias"}
// CHECK:         %[[Y:.*]] = graph.conv2d %[[X]], %[[W]], %[[B]] strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    graph.net_output %[[Y]]
// CHECK-NOT:     graph.batch_norm
graph.graph @fold(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.const dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %b = graph.const dense<[1.0, -1.0]> : tensor<2xf32>
  %scale = graph.const dense<[1.0, 2.0]> : tensor<2xf32>
  %offset = graph.const dense<[0.5, 0.0]> : tensor<2xf32>
  %mean = graph.const dense<[1.0, 1.0]> : tensor<2xf32>
  %var = graph.const dense<[3.0, 0.0]> : tensor<2xf32>
  %c = graph.conv2d %x, %w, %b strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.batch_norm %c, %scale, %offset, %mean, %var epsilon 1.0 {node_name = "bn"} : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  graph.net_output %y : tensor<1x2x4x4xf32>
}

// -----

// Tests NHWC (HWIO filter, channels last) without a conv bias: the bias is created.
// CHECK-LABEL: graph.graph @nhwc
// CHECK:         %[[B:.*]] = graph.const dense<[-5.000000e-01, 0.000000e+00]> : tensor<2xf32>
// CHECK:         graph.conv2d %{{.*}}, %{{.*}}, %[[B]] strides [1, 1, 1, 1] data_format "NHWC"
// CHECK-NOT:     graph.batch_norm
graph.graph @nhwc(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x2xf32> {
  %w = graph.const dense<[[[[2.0, 3.0]]]]> : tensor<1x1x1x2xf32>
  %one = graph.const dense<1.0> : tensor<2xf32>
  %zero = graph.const dense<[0.0, 0.0]> : tensor<2xf32>
  %mean = graph.const dense<[0.5, 0.0]> : tensor<2xf32>
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] data_format "NHWC" : (tensor<1x4x4x1xf32>, tensor<1x1x1x2xf32>) -> tensor<1x4x4x2xf32>
  %y = graph.batch_norm %c, %one, %zero, %mean, %one epsilon 0.0 data_format "NHWC" : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  graph.net_output %y : tensor<1x4x4x2xf32>
}

// -----

// Tests what blocks the folding: a convolution with another user, run-time weights, run-time BatchNorm statistics.
// CHECK-LABEL: graph.graph @blocked
// CHECK-COUNT-3: graph.batch_norm
graph.graph @blocked(%x: tensor<1x1x4x4xf32>, %wr: tensor<2x1x1x1xf32>, %mr: tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %w = graph.const dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %p = graph.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.batch_norm %c, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %c2 = graph.conv2d %x, %wr strides [1, 1, 1, 1] : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y2 = graph.batch_norm %c2, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %c3 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y3 = graph.batch_norm %c3, %p, %p, %mr, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  graph.net_output %y, %c, %y2, %y3 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
