// RUN: ge-opt %s -p ge-fuse-conv-activation --split-input-file | filecheck %s

// Tests each activation a convolution absorbs: Relu, Relu6 (ClipByValue 0..6), ClipByValue, Sigmoid, HardSwish, Gelu.
// CHECK-LABEL: graph.graph @activations
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x4x4xf32>, %[[W:.*]]: tensor<2x3x1x1xf32>, %[[B:.*]]: tensor<2xf32>)
// CHECK-NEXT:    %{{.*}} = graph.fused_conv2d %[[X]], %[[W]], %[[B]] strides [1, 1, 1, 1] activation "relu" {node_name = "conv"} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %{{.*}} = graph.fused_conv2d %[[X]], %[[W]] strides [1, 1, 1, 1] activation "relu6" :
// CHECK-NEXT:    %{{.*}} = graph.fused_conv2d %[[X]], %[[W]] strides [1, 1, 1, 1] activation "clip" clip_min -1.0 clip_max 1.0 :
// CHECK-NEXT:    %{{.*}} = graph.fused_conv2d %[[X]], %[[W]] strides [1, 1, 1, 1] activation "sigmoid" :
// CHECK-NEXT:    %{{.*}} = graph.fused_conv2d %[[X]], %[[W]] strides [1, 1, 1, 1] activation "hard_swish" :
// CHECK-NEXT:    %{{.*}} = graph.fused_conv2d %[[X]], %[[W]] strides [1, 1, 1, 1] activation "gelu_tanh" :
// CHECK-NEXT:    graph.net_output
// CHECK-NOT:     graph.clip_by_value
graph.graph @activations(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %b: tensor<2xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %c1 = graph.conv2d %x, %w, %b strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %y1 = graph.relu %c1 {node_name = "relu"} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %zero = graph.const dense<0.0> : tensor<f32>
  %six = graph.const dense<6.0> : tensor<f32>
  %c2 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y2 = graph.clip_by_value %c2, %zero, %six : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %lo = graph.const dense<-1.0> : tensor<f32>
  %hi = graph.const dense<1.0> : tensor<f32>
  %c3 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y3 = graph.clip_by_value %c3, %lo, %hi : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %c4 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y4 = graph.sigmoid %c4 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c5 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y5 = graph.hard_swish %c5 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c6 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y6 = graph.gelu %c6 approximate "tanh" : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  graph.net_output %y1, %y2, %y3, %y4, %y5, %y6 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}

// -----

// Tests what stays: a convolution with another user, a clip with run-time bounds, a clip with min > max, an activation that is not fused (Tanh).
// CHECK-LABEL: graph.graph @kept
// CHECK-NOT:     graph.fused_conv2d
// CHECK-COUNT-4: graph.conv2d
graph.graph @kept(%x: tensor<1x3x4x4xf32>, %w: tensor<2x3x1x1xf32>, %lo: tensor<f32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %c1 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y1 = graph.relu %c1 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %hi = graph.const dense<1.0> : tensor<f32>
  %c2 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y2 = graph.clip_by_value %c2, %lo, %hi : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %two = graph.const dense<2.0> : tensor<f32>
  %c3 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y3 = graph.clip_by_value %c3, %two, %hi : (tensor<1x2x4x4xf32>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %c4 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32>
  %y4 = graph.tanh %c4 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  graph.net_output %y1, %c1, %y2, %y3, %y4 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
