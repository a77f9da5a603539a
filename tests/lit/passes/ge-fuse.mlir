// RUN: ge-opt %s -p ge-fuse --split-input-file | filecheck %s
// RUN: ge-opt %s -p 'ge-fuse{disable=conv-activation,mul-add}' --split-input-file | filecheck %s --check-prefix=PARTIAL
// RUN: ge-opt %S/../../../examples/conv_block.mlir -p ge-fuse | filecheck %s --check-prefix=EXAMPLE

// Tests that conv + bias Add + BatchNorm + Relu ends as one fused convolution, and a Mul/Add tail as FusedMulAdd.
// CHECK-LABEL: graph.graph @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1x4x4xf32>, %[[S:.*]]: tensor<1x2x4x4xf32>)
// CHECK-DAG:     %[[W:.*]] = graph.const {{.*}} : tensor<2x1x1x1xf32>
// CHECK-DAG:     %[[B:.*]] = graph.const {{.*}} : tensor<2xf32>
// CHECK:         %[[C:.*]] = graph.fused_conv2d %[[X]], %[[W]], %[[B]] strides [1, 1, 1, 1] activation "relu" {node_name = "conv"}
// CHECK-NEXT:    %[[Y:.*]] = graph.fused_mul_add %[[C]], %[[S]], %[[S]]
// CHECK-NEXT:    graph.net_output %[[Y]]
// CHECK-NOT:     graph.batch_norm
// PARTIAL-LABEL: graph.graph @chain
// PARTIAL:       %[[C:.*]] = graph.conv2d
// PARTIAL-NEXT:  %[[R:.*]] = graph.relu %[[C]]
// PARTIAL-NEXT:  %[[M:.*]] = graph.mul %[[R]]
// PARTIAL-NEXT:  graph.add %[[M]]
graph.graph @chain(%x: tensor<1x1x4x4xf32>, %s: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = graph.const dense<[[[[2.0]]], [[[3.0]]]]> : tensor<2x1x1x1xf32>
  %bias = graph.const dense<[[[[1.0]], [[-1.0]]]]> : tensor<1x2x1x1xf32>
  %p = graph.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %a = graph.add %c, %bias : (tensor<1x2x4x4xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  %n = graph.batch_norm %a, %p, %p, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %r = graph.relu %n : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %m = graph.mul %r, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %y = graph.add %m, %s : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  graph.net_output %y : tensor<1x2x4x4xf32>
}

// -----

// Tests that the layer norm and GELU patterns run before mul-add takes their Mul/Add pairs.
// CHECK-LABEL: graph.graph @order
// CHECK-NEXT:    %{{.*}}, %{{.*}}, %{{.*}} = graph.layer_norm_v3
// CHECK-NEXT:    %[[G:.*]] = graph.gelu %{{.*}} approximate "tanh"
// CHECK-NEXT:    graph.net_output %[[G]]
// CHECK-NOT:     graph.fused_mul_add
graph.graph @order(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %axes = graph.const dense<-1> : tensor<1xi64>
  %m = graph.reduce_mean %x, %axes keep_dims true : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %d = graph.sub %x, %m : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %two = graph.const dense<2.0> : tensor<f32>
  %p = graph.pow %d, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %v = graph.reduce_mean %p, %axes keep_dims true : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %eps = graph.const dense<1.0e-05> : tensor<f32>
  %ve = graph.add %v, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s = graph.sqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = graph.div %d, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %gn = graph.mul %n, %g : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %h = graph.add %gn, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %sq = graph.mul %h, %h : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %cube = graph.mul %h, %sq : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %k = graph.const dense<4.471500e-02> : tensor<f32>
  %kc = graph.mul %k, %cube : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %sum = graph.add %h, %kc : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %beta = graph.const dense<0.797884583> : tensor<f32>
  %in = graph.mul %beta, %sum : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %t = graph.tanh %in : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %one = graph.const dense<1.0> : tensor<f32>
  %b1 = graph.add %one, %t : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %xm = graph.mul %h, %b1 : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %half = graph.const dense<0.5> : tensor<f32>
  %y = graph.mul %half, %xm : (tensor<f32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  graph.net_output %y : tensor<2x8xf32>
}

// The example: conv1 feeds both bn1 and the skip Mul, so conv1 + bn1 stay; the skip Mul and the merge Add become FusedMulAdd; conv2 + relu2 fuse.
// EXAMPLE-LABEL: graph.graph @conv_block
// EXAMPLE:         %[[CONV1:.*]] = graph.conv2d %{{.*}} {node_name = "conv1"}
// EXAMPLE-NEXT:    %[[BN1:.*]] = graph.batch_norm %[[CONV1]]
// EXAMPLE-NEXT:    %[[RELU1:.*]] = graph.relu %[[BN1]]
// EXAMPLE-NEXT:    %[[MERGE:.*]] = graph.fused_mul_add %[[CONV1]], %{{.*}}, %[[RELU1]] {node_name = "merge"}
// EXAMPLE-NEXT:    %[[SUB:.*]] = graph.sub %[[MERGE]]
// EXAMPLE-NEXT:    %{{.*}} = graph.fused_conv2d %[[SUB]], %{{.*}} strides [1, 1, 2, 2] pads [1, 1, 1, 1] activation "relu" {node_name = "conv2"}
// EXAMPLE-NOT:     graph.mul
