// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests MatMul with a bias, BatchMatMulV2 with broadcast batch dims, adjoints, vectors and a bias, and Einsum.
// CHECK-LABEL: graph.graph @matrix
// CHECK-SAME:    (%[[A:.*]]: tensor<8x4x16xf32>, %[[B:.*]]: tensor<1x5x16xf32>, %[[V:.*]]: tensor<16xf32>, %[[M:.*]]: tensor<4x16xf32>, %[[BIAS:.*]]: tensor<5xf32>, %[[D:.*]]: tensor<?x?x3xi32>, %[[E:.*]]: tensor<3x2xi32>) -> tensor<8x4x5xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.batch_mat_mul_v2 %[[A]], %[[B]] adj_x2 true : (tensor<8x4x16xf32>, tensor<1x5x16xf32>) -> tensor<8x4x5xf32>
// CHECK-NEXT:    %[[Z:.*]] = graph.batch_mat_mul_v2 %[[A]], %[[V]] : (tensor<8x4x16xf32>, tensor<16xf32>) -> tensor<8x4xf32>
// CHECK-NEXT:    %[[W:.*]] = graph.batch_mat_mul_v2 %[[M]], %[[B]], %[[BIAS]] adj_x2 true : (tensor<4x16xf32>, tensor<1x5x16xf32>, tensor<5xf32>) -> tensor<1x4x5xf32>
// CHECK-NEXT:    %[[I:.*]] = graph.batch_mat_mul_v2 %[[D]], %[[E]] : (tensor<?x?x3xi32>, tensor<3x2xi32>) -> tensor<?x?x2xi32>
// CHECK-NEXT:    %[[MM:.*]] = graph.matmul %[[M]], %[[M]], %[[V]] transpose_x1 true : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.einsum %[[A]], %[[B]] equation "bij,ckj->bik" N 2 : (tensor<8x4x16xf32>, tensor<1x5x16xf32>) -> tensor<8x4x5xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.einsum %[[D]] equation "...ii->...i" N 1 : (tensor<?x?x3xi32>) -> tensor<*xi32>
// CHECK-NEXT:    %[[U:.*]] = graph.einsum %[[M]] equation "ij" N 1 : (tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT:    %[[K:.*]] = graph.einsum %[[V]], %[[V]] equation "i,i" N 2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
// CHECK-NEXT:    graph.net_output %[[Y]] : tensor<8x4x5xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "matrix"
// GENERIC:       %{{.*}} = "graph.batch_mat_mul_v2"(%{{.*}}, %{{.*}}) <{adj_x2 = true, adj_x1 = false}> : (tensor<8x4x16xf32>, tensor<1x5x16xf32>) -> tensor<8x4x5xf32>
// GENERIC:       %{{.*}} = "graph.batch_mat_mul_v2"(%{{.*}}, %{{.*}}) <{adj_x1 = false, adj_x2 = false}> : (tensor<8x4x16xf32>, tensor<16xf32>) -> tensor<8x4xf32>
// GENERIC:       %{{.*}} = "graph.batch_mat_mul_v2"(%{{.*}}, %{{.*}}, %{{.*}}) <{adj_x1 = false, adj_x2 = true}> : (tensor<4x16xf32>, tensor<1x5x16xf32>, tensor<5xf32>) -> tensor<1x4x5xf32>
// GENERIC:       %{{.*}} = "graph.batch_mat_mul_v2"(%{{.*}}, %{{.*}}) <{adj_x1 = false, adj_x2 = false}> : (tensor<?x?x3xi32>, tensor<3x2xi32>) -> tensor<?x?x2xi32>
// GENERIC:       %{{.*}} = "graph.matmul"(%{{.*}}, %{{.*}}, %{{.*}}) <{transpose_x1 = true, transpose_x2 = false}> : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
// GENERIC:       %{{.*}} = "graph.einsum"(%{{.*}}, %{{.*}}) <{equation = "bij,ckj->bik", N = 2 : i64}> : (tensor<8x4x16xf32>, tensor<1x5x16xf32>) -> tensor<8x4x5xf32>
// GENERIC:       %{{.*}} = "graph.einsum"(%{{.*}}) <{equation = "...ii->...i", N = 1 : i64}> : (tensor<?x?x3xi32>) -> tensor<*xi32>
// GENERIC:       %{{.*}} = "graph.einsum"(%{{.*}}) <{equation = "ij", N = 1 : i64}> : (tensor<4x16xf32>) -> tensor<4x16xf32>
// GENERIC:       %{{.*}} = "graph.einsum"(%{{.*}}, %{{.*}}) <{equation = "i,i", N = 2 : i64}> : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>

graph.graph @matrix(%a: tensor<8x4x16xf32>, %b: tensor<1x5x16xf32>, %v: tensor<16xf32>, %m: tensor<4x16xf32>, %bias: tensor<5xf32>, %d: tensor<?x?x3xi32>, %e: tensor<3x2xi32>) -> tensor<8x4x5xf32> {
  %y = graph.batch_mat_mul_v2 %a, %b adj_x2 true : (tensor<8x4x16xf32>, tensor<1x5x16xf32>) -> tensor<8x4x5xf32>
  %z = graph.batch_mat_mul_v2 %a, %v : (tensor<8x4x16xf32>, tensor<16xf32>) -> tensor<8x4xf32>
  %w = graph.batch_mat_mul_v2 %m, %b, %bias adj_x1 false adj_x2 true : (tensor<4x16xf32>, tensor<1x5x16xf32>, tensor<5xf32>) -> tensor<1x4x5xf32>
  %i = graph.batch_mat_mul_v2 %d, %e : (tensor<?x?x3xi32>, tensor<3x2xi32>) -> tensor<?x?x2xi32>
  %mm = graph.matmul %m, %m, %v transpose_x1 true : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<16xf32>) -> tensor<16x16xf32>
  %s = graph.einsum %a, %b equation "bij,ckj->bik" N 2 : (tensor<8x4x16xf32>, tensor<1x5x16xf32>) -> tensor<8x4x5xf32>
  %t = graph.einsum %d equation "...ii->...i" N 1 : (tensor<?x?x3xi32>) -> tensor<*xi32>
  %u = graph.einsum %m equation "ij" N 1 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %k = graph.einsum %v, %v equation "i,i" N 2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
  graph.net_output %y : tensor<8x4x5xf32>
}
