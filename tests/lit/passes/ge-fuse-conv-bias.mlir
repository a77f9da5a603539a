// RUN: ge-opt %s -p ge-fuse-conv-bias --split-input-file | filecheck %s

// Tests an NCHW per-channel [1, C, 1, 1] constant added to a convolution without bias, then a [C, 1, 1] one summed with it.
// CHECK-LABEL: graph.graph @nchw
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x4x4xf32>, %[[W:.*]]: tensor<2x3x1x1xf32>)
// CHECK:         %[[B:.*]] = graph.const dense<[1.500000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.conv2d %[[X]], %[[W]], %[[B]] strides [1, 1, 1, 1] {node_name = "conv"}
// CHECK-NEXT:    graph.net_output %[[Y]]
// CHECK-NOT:     graph.add
graph.graph @nchw(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b1 = graph.const dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %a1 = graph.add %c, %b1 : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %b2 = graph.const dense<[[[0.5]], [[-1.0]]]> : tensor<2x1x1xf32>
  %a2 = graph.add %b2, %a1 : (tensor<2x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  graph.net_output %a2 : tensor<1x2x4x4xf32>
}

// -----

// Tests NHWC: a run-time [C] vector becomes the bias as it is.
// CHECK-LABEL: graph.graph @nhwc
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4x4x3xf32>, %[[W:.*]]: tensor<1x1x3x2xf32>, %[[V:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %[[Y:.*]] = graph.conv2d %[[X]], %[[W]], %[[V]] strides [1, 1, 1, 1] data_format "NHWC"
// CHECK-NEXT:    graph.net_output %[[Y]]
graph.graph @nhwc(%x: tensor<1x4x4x3xf32>, %w: tensor<1x1x3x2xf32>, %v: tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] data_format "NHWC" : (tensor<1x4x4x3xf32>, tensor<1x1x3x2xf32>) -> tensor<1x4x4x2xf32>
  %a = graph.add %c, %v : (tensor<1x4x4x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32>
  graph.net_output %a : tensor<1x4x4x2xf32>
}

// -----

// Tests what stays: a [C] constant on NCHW (it broadcasts along W), an addend varying along H, a run-time NCHW addend, a convolution with another user.
// CHECK-LABEL: graph.graph @kept
// CHECK-COUNT-4: graph.add
graph.graph @kept(%x: tensor<1x3x2x2xf32>, %w: tensor<2x3x1x1xf32>, %r: tensor<1x2x1x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %v = graph.const dense<[1.0, 2.0]> : tensor<2xf32>
  %h = graph.const dense<[[[[1.0], [2.0]], [[3.0], [4.0]]]]> : tensor<1x2x2x1xf32>
  %c1 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x2x2xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x2x2xf32>
  %a1 = graph.add %c1, %v : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %c2 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x2x2xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x2x2xf32>
  %a2 = graph.add %c2, %h : (tensor<1x2x2x2xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  %c3 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x2x2xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x2x2xf32>
  %a3 = graph.add %c3, %r : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %c4 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x2x2xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x2x2xf32>
  %b4 = graph.const dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %a4 = graph.add %c4, %b4 : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  graph.net_output %a1, %a2, %a3, %a4, %c4 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}
