// RUN: ge-opt %s -p ge-fuse-matmul-bias --split-input-file | filecheck %s

// Tests nn.Linear on 3-D input (BatchMatMulV2 then Add(bias, product), bias first) and a Gemm with a [1, N] C summed into an existing bias.
// CHECK-LABEL: graph.graph @linear
// CHECK-SAME:    (%[[X:.*]]: tensor<2x5x8xf32>, %[[W:.*]]: tensor<8x4xf32>, %[[A:.*]]: tensor<3x8xf32>)
// CHECK:         %[[B:.*]] = graph.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32> {node_name = "qkv/MatMul/bias"}
// CHECK-NEXT:    %[[Y:.*]] = graph.batch_mat_mul_v2 %[[X]], %[[W]], %[[B]] {node_name = "qkv/MatMul"} : (tensor<2x5x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<2x5x4xf32>
// CHECK:         %[[C:.*]] = graph.const dense<[1.500000e+00, 2.500000e+00, 3.500000e+00, 4.500000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[Z:.*]] = graph.matmul %[[A]], %[[W]], %[[C]] : (tensor<3x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    graph.net_output %[[Y]], %[[Z]]
// CHECK-NOT:     graph.add
graph.graph @linear(%x: tensor<2x5x8xf32>, %w: tensor<8x4xf32>, %a: tensor<3x8xf32>) -> (tensor<2x5x4xf32>, tensor<3x4xf32>) {
  %mm = graph.batch_mat_mul_v2 %x, %w {node_name = "qkv/MatMul"} : (tensor<2x5x8xf32>, tensor<8x4xf32>) -> tensor<2x5x4xf32>
  %bias = graph.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = graph.add %bias, %mm {node_name = "qkv/Add"} : (tensor<4xf32>, tensor<2x5x4xf32>) -> tensor<2x5x4xf32>
  %half = graph.const dense<0.5> : tensor<4xf32>
  %g = graph.matmul %a, %w, %half : (tensor<3x8xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %c = graph.const dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %z0 = graph.add %g, %c : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  graph.net_output %y, %z0 : tensor<2x5x4xf32>, tensor<3x4xf32>
}

// -----

// Tests what stays: a residual Add (varies along every dim), a product with another user, a Gemm C of shape [M, 1].
// CHECK-LABEL: graph.graph @kept
// CHECK-COUNT-3: graph.add
graph.graph @kept(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>, %r: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %m1 = graph.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %a1 = graph.add %m1, %r : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %bias = graph.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %m2 = graph.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %a2 = graph.add %m2, %bias : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %col = graph.const dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %m3 = graph.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %a3 = graph.add %m3, %col : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  graph.net_output %a1, %a2, %m2, %a3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
