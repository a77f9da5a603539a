// RUN: ge-opt %s -p ge-fuse-matmul-activation --split-input-file | filecheck %s

// Tests a Gemm with bias and Relu, a transposed batched product with Gelu, and a Sigmoid.
// CHECK-LABEL: graph.graph @fused
// CHECK-SAME:    (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>, %[[Q:.*]]: tensor<2x4x8xf32>)
// CHECK-NEXT:    %{{.*}} = graph.fused_mat_mul %[[X]], %[[W]], %[[B]] adj_x2 true activation "relu" {node_name = "/fc1/Gemm"} : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    %{{.*}} = graph.fused_mat_mul %[[Q]], %[[W]], %[[B]] adj_x2 true activation "gelu" : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT:    %{{.*}} = graph.fused_mat_mul %[[X]], %[[W]] adj_x2 true activation "sigmoid" : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    graph.net_output
// CHECK-NOT:     graph.relu
graph.graph @fused(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>, %q: tensor<2x4x8xf32>) -> (tensor<4x16xf32>, tensor<2x4x16xf32>, tensor<4x16xf32>) {
  %m = graph.matmul %x, %w, %b transpose_x2 true {node_name = "/fc1/Gemm"} : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %y = graph.relu %m : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %bm = graph.batch_mat_mul_v2 %q, %w, %b adj_x2 true : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
  %g = graph.gelu %bm : (tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %m2 = graph.matmul %x, %w transpose_x2 true : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %s = graph.sigmoid %m2 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  graph.net_output %y, %g, %s : tensor<4x16xf32>, tensor<2x4x16xf32>, tensor<4x16xf32>
}

// -----

// Tests what stays: a product with another user, a BatchMatMulV2 whose bias widens the product (no fused form).
// CHECK-LABEL: graph.graph @kept
// CHECK-NOT:     graph.fused_mat_mul
// CHECK-COUNT-2: graph.relu
graph.graph @kept(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %v: tensor<1x8xf32>, %wide: tensor<3x1x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<3x1x16xf32>) {
  %m = graph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %y = graph.relu %m : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %bm = graph.batch_mat_mul_v2 %v, %w, %wide : (tensor<1x8xf32>, tensor<8x16xf32>, tensor<3x1x16xf32>) -> tensor<3x1x16xf32>
  %r = graph.relu %bm : (tensor<3x1x16xf32>) -> tensor<3x1x16xf32>
  graph.net_output %y, %m, %r : tensor<4x16xf32>, tensor<4x16xf32>, tensor<3x1x16xf32>
}
