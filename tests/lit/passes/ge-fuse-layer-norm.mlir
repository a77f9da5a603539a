// RUN: ge-opt %s -p ge-fuse-layer-norm --split-input-file | filecheck %s

// Tests PyTorch's opset-13 export of nn.LayerNorm(64): the whole chain becomes one LayerNormV3 (epsilon 1e-05 is the default, not printed).
// CHECK-LABEL: graph.graph @torch_export
// CHECK-SAME:    (%[[X:.*]]: tensor<4x64xf32>, %[[G:.*]]: tensor<64xf32>, %[[B:.*]]: tensor<64xf32>)
// CHECK-NEXT:    %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_norm_v3 %[[X]], %[[G]], %[[B]] begin_norm_axis -1 begin_params_axis -1 {node_name = "/norm/Add_1"} : (tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<4x64xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK-NEXT:    graph.net_output %[[Y]]
// CHECK-NOT:     graph.reduce_mean
// CHECK-NOT:     graph.sqrt
graph.graph @torch_export(%x: tensor<4x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<4x64xf32> {
  %axes = graph.const dense<-1> : tensor<1xi64>
  %m = graph.reduce_mean %x, %axes keep_dims true : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %d = graph.sub %x, %m : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %two = graph.const dense<2.0> : tensor<f32>
  %p = graph.pow %d, %two : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %axes2 = graph.const dense<-1> : tensor<1xi64>
  %v = graph.reduce_mean %p, %axes2 keep_dims true : (tensor<4x64xf32>, tensor<1xi64>) -> tensor<4x1xf32>
  %eps = graph.const dense<1.0e-05> : tensor<f32>
  %ve = graph.add %v, %eps : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %s = graph.sqrt %ve : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %n = graph.div %d, %s : (tensor<4x64xf32>, tensor<4x1xf32>) -> tensor<4x64xf32>
  %gn = graph.mul %n, %g : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %y = graph.add %gn, %b {node_name = "/norm/Add_1"} : (tensor<4x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  graph.net_output %y : tensor<4x64xf32>
}

// -----

// Tests a hand-written layer norm over the last two dims: Mul(d, d), eps first, gamma first, a splat constant beta, no keep of other dims.
// CHECK-LABEL: graph.graph @hand_written
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>, %[[G:.*]]: tensor<3x4xf32>)
// CHECK:         %[[B:.*]] = graph.const dense<5.000000e-01> : tensor<3x4xf32>
// CHECK-NEXT:    %[[Y:.*]], %{{.*}}, %{{.*}} = graph.layer_norm_v3 %[[X]], %[[G]], %[[B]] begin_norm_axis -2 begin_params_axis -2 epsilon 0.001
// CHECK-NEXT:    graph.net_output %[[Y]]
graph.graph @hand_written(%x: tensor<2x3x4xf32>, %g: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %axes = graph.const dense<[1, 2]> : tensor<2xi64>
  %m = graph.reduce_mean %x, %axes keep_dims true : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %d = graph.sub %x, %m : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %sq = graph.mul %d, %d : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %v = graph.reduce_mean %sq, %axes keep_dims true : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x1x1xf32>
  %eps = graph.const dense<1.0e-03> : tensor<1xf32>
  %ve = graph.add %eps, %v : (tensor<1xf32>, tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %s = graph.sqrt %ve : (tensor<2x1x1xf32>) -> tensor<2x1x1xf32>
  %n = graph.div %d, %s : (tensor<2x3x4xf32>, tensor<2x1x1xf32>) -> tensor<2x3x4xf32>
  %gn = graph.mul %g, %n : (tensor<3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %half = graph.const dense<0.5> : tensor<1x1xf32>
  %y = graph.add %half, %gn : (tensor<1x1xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  graph.net_output %y : tensor<2x3x4xf32>
}

// -----

// Tests a layer norm without affine part: ones and zeros become gamma and beta.
// CHECK-LABEL: graph.graph @no_affine
// CHECK-DAG:     %[[G:.*]] = graph.const dense<1.000000e+00> : tensor<8xf32>
// CHECK-DAG:     %[[B:.*]] = graph.const dense<0.000000e+00> : tensor<8xf32>
// CHECK:         graph.layer_norm_v3 %{{.*}}, %[[G]], %[[B]] begin_norm_axis -1 begin_params_axis -1 :
// CHECK-NOT:     graph.div
graph.graph @no_affine(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %axes = graph.const dense<1> : tensor<1xi64>
  %m = graph.reduce_mean %x, %axes keep_dims true : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %d = graph.sub %x, %m : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %two = graph.const dense<2.0> : tensor<f32>
  %p = graph.pow %d, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %v = graph.reduce_mean %p, %axes keep_dims true : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %eps = graph.const dense<1.0e-05> : tensor<f32>
  %ve = graph.add %v, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s = graph.sqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = graph.div %d, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  graph.net_output %n : tensor<2x8xf32>
}

// -----

// Tests what blocks the fusion: the variance used elsewhere, axes that are not the last dims, and a Pow of 3.
// CHECK-LABEL: graph.graph @blocked
// CHECK-NOT:     graph.layer_norm_v3
// CHECK-COUNT-3: graph.div
graph.graph @blocked(%x: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %axes = graph.const dense<1> : tensor<1xi64>
  %two = graph.const dense<2.0> : tensor<f32>
  %eps = graph.const dense<1.0e-05> : tensor<f32>
  %m = graph.reduce_mean %x, %axes keep_dims true : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %d = graph.sub %x, %m : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %p = graph.pow %d, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %v = graph.reduce_mean %p, %axes keep_dims true : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %ve = graph.add %v, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s = graph.sqrt %ve : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = graph.div %d, %s : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %axes0 = graph.const dense<0> : tensor<1xi64>
  %m0 = graph.reduce_mean %x, %axes0 keep_dims true : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<1x8xf32>
  %d0 = graph.sub %x, %m0 : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %p0 = graph.pow %d0, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %v0 = graph.reduce_mean %p0, %axes0 keep_dims true : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<1x8xf32>
  %ve0 = graph.add %v0, %eps : (tensor<1x8xf32>, tensor<f32>) -> tensor<1x8xf32>
  %s0 = graph.sqrt %ve0 : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %n0 = graph.div %d0, %s0 : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %three = graph.const dense<3.0> : tensor<f32>
  %m3 = graph.reduce_mean %x, %axes keep_dims true : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %d3 = graph.sub %x, %m3 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %p3 = graph.pow %d3, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %v3 = graph.reduce_mean %p3, %axes keep_dims true : (tensor<2x8xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %ve3 = graph.add %v3, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %s3 = graph.sqrt %ve3 : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n3 = graph.div %d3, %s3 : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  graph.net_output %n, %v, %n0, %n3 : tensor<2x8xf32>, tensor<2x1xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
