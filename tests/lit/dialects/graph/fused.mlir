// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests FusedConv2D with each activation form, FusedMatMul with adjoints, a batch and a bias, and FusedMulAdd broadcasting three operands.
// CHECK-LABEL: graph.graph @fused
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>, %[[A:.*]]: tensor<2x4x8xf32>, %[[M:.*]]: tensor<16x8xf32>, %[[V:.*]]: tensor<16xf32>, %[[I:.*]]: tensor<3x1xi32>, %[[J:.*]]: tensor<4xi32>)
// CHECK-NEXT:    %[[C1:.*]] = graph.fused_conv2d %[[X]], %[[W]], %[[B]] strides [1, 1, 1, 1] pads [1, 1, 1, 1] activation "relu" : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[C2:.*]] = graph.fused_conv2d %[[X]], %[[W]] strides [1, 1, 2, 2] activation "clip" clip_min -1.0 clip_max 2.5 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NEXT:    %[[C3:.*]] = graph.fused_conv2d %[[X]], %[[W]] strides [1, 1, 1, 1] activation "hard_swish" : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK-NEXT:    %[[MM:.*]] = graph.fused_mat_mul %[[A]], %[[M]], %[[V]] adj_x2 true activation "gelu_tanh" : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT:    %[[MV:.*]] = graph.fused_mat_mul %[[M]], %[[A]] adj_x2 true activation "relu6" : (tensor<16x8xf32>, tensor<2x4x8xf32>) -> tensor<2x16x4xf32>
// CHECK-NEXT:    %[[F:.*]] = graph.fused_mul_add %[[MM]], %[[V]], %[[V]] : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT:    %[[G:.*]] = graph.fused_mul_add %[[I]], %[[J]], %[[J]] : (tensor<3x1xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<3x4xi32>
// CHECK-NEXT:    graph.net_output %[[C1]] : tensor<1x4x8x8xf32>

// GENERIC-LABEL: "graph.graph"() <{sym_name = "fused"
// GENERIC:       "graph.fused_conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, activation = "relu", dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCHW"}>
// GENERIC:       "graph.fused_conv2d"(%{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 2, 2>, activation = "clip", clip_min = -1.000000e+00 : f32, clip_max = 2.500000e+00 : f32,
// GENERIC:       "graph.fused_mat_mul"(%{{.*}}, %{{.*}}, %{{.*}}) <{adj_x2 = true, activation = "gelu_tanh", adj_x1 = false}> : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
// GENERIC:       "graph.fused_mul_add"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>

graph.graph @fused(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %a: tensor<2x4x8xf32>, %m: tensor<16x8xf32>, %v: tensor<16xf32>, %i: tensor<3x1xi32>, %j: tensor<4xi32>) -> tensor<1x4x8x8xf32> {
  %c1 = graph.fused_conv2d %x, %w, %b strides [1, 1, 1, 1] pads [1, 1, 1, 1] activation "relu" : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %c2 = graph.fused_conv2d %x, %w strides [1, 1, 2, 2] activation "clip" clip_min -1.0 clip_max 2.5 : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
  %c3 = graph.fused_conv2d %x, %w strides [1, 1, 1, 1] activation "hard_swish" : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  %mm = graph.fused_mat_mul %a, %m, %v adj_x2 true activation "gelu_tanh" : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %mv = graph.fused_mat_mul %m, %a adj_x2 true activation "relu6" : (tensor<16x8xf32>, tensor<2x4x8xf32>) -> tensor<2x16x4xf32>
  %f = graph.fused_mul_add %mm, %v, %v : (tensor<2x4x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %g = graph.fused_mul_add %i, %j, %j : (tensor<3x1xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<3x4xi32>
  graph.net_output %c1 : tensor<1x4x8x8xf32>
}
