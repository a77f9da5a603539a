// RUN: ge-opt %s -p ge-fuse-matmul-transpose --split-input-file | filecheck %s

// Tests a Transpose of the weights (Gemm transB) and of a batched operand's last two dims becoming the transpose flags.
// CHECK-LABEL: graph.graph @flags
// CHECK-SAME:    (%[[A:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[Q:.*]]: tensor<2x3x5xf32>, %[[K:.*]]: tensor<2x7x5xf32>)
// CHECK-NEXT:    %[[Y:.*]] = graph.matmul %[[A]], %[[W]] transpose_x2 true : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.batch_mat_mul_v2 %[[Q]], %[[K]] adj_x2 true : (tensor<2x3x5xf32>, tensor<2x7x5xf32>) -> tensor<2x3x7xf32>
// CHECK-NEXT:    graph.net_output %[[Y]], %[[S]]
// CHECK-NOT:     graph.transpose
graph.graph @flags(%a: tensor<4x8xf32>, %w: tensor<16x8xf32>, %q: tensor<2x3x5xf32>, %k: tensor<2x7x5xf32>) -> (tensor<4x16xf32>, tensor<2x3x7xf32>) {
  %wt = graph.transpose %w perm [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
  %y = graph.matmul %a, %wt : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %kt = graph.transpose %k perm [0, 2, 1] : (tensor<2x7x5xf32>) -> tensor<2x5x7xf32>
  %s = graph.batch_mat_mul_v2 %q, %kt : (tensor<2x3x5xf32>, tensor<2x5x7xf32>) -> tensor<2x3x7xf32>
  graph.net_output %y, %s : tensor<4x16xf32>, tensor<2x3x7xf32>
}

// -----

// Tests that a transposed x1 with transpose_x1 already set clears the flag, and that other permutations and shared transposes stay.
// CHECK-LABEL: graph.graph @others
// CHECK:         graph.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
// CHECK-COUNT-2: graph.transpose
graph.graph @others(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %q: tensor<5x2x3xf32>, %k: tensor<2x3x4xf32>) -> (tensor<4x3xf32>, tensor<2x5x4xf32>, tensor<8x4xf32>, tensor<8x8xf32>) {
  %at = graph.transpose %a perm [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %y = graph.matmul %at, %b transpose_x1 true : (tensor<8x4xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %qt = graph.transpose %q perm [1, 0, 2] : (tensor<5x2x3xf32>) -> tensor<2x5x3xf32>
  %s = graph.batch_mat_mul_v2 %qt, %k : (tensor<2x5x3xf32>, tensor<2x3x4xf32>) -> tensor<2x5x4xf32>
  %at2 = graph.transpose %a perm [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %z = graph.matmul %at2, %a : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  graph.net_output %y, %s, %at2, %z : tensor<4x3xf32>, tensor<2x5x4xf32>, tensor<8x4xf32>, tensor<8x8xf32>
}
