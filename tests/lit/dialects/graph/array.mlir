// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests the reshaping, concat/split and shape ops with non-default properties.

// CHECK-LABEL: graph.graph @reshaping
// CHECK:         %[[S:.*]] = graph.const dense<[3, 0]> : tensor<2xi64>
// CHECK:         graph.reshape %{{.*}}, %[[S]] allowzero true : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<3x0xf32>
// CHECK:         graph.transpose %{{.*}} perm [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK:         graph.identity %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         graph.flatten %{{.*}} axis 0 : (tensor<2x3xf32>) -> tensor<1x6xf32>
// CHECK:         graph.squeeze_v3 %{{.*}}, %{{.*}} : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<1x3xf32>
// CHECK:         graph.squeeze_v3 %{{.*}} : (tensor<1x3x1xf32>) -> tensor<3xf32>
// CHECK:         graph.unsqueeze_v3 %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
// CHECK:         graph.shape %{{.*}} : (tensor<2x?xf32>) -> tensor<2xi64>
// CHECK:         graph.size %{{.*}} dtype i32 : (tensor<2x3xf32>) -> tensor<i32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "reshaping"
// GENERIC:       "graph.reshape"(%{{.*}}, %{{.*}}) <{allowzero = true}> : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<3x0xf32>
// GENERIC:       "graph.flatten"(%{{.*}}) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> tensor<1x6xf32>
// GENERIC:       "graph.squeeze_v3"(%{{.*}}) : (tensor<1x3x1xf32>) -> tensor<3xf32>
graph.graph @reshaping(%e: tensor<0x3xf32>, %x: tensor<2x3xf32>, %o: tensor<1x3x1xf32>, %d: tensor<2x?xf32>) -> tensor<3x0xf32> {
  %s = graph.const dense<[3, 0]> : tensor<2xi64>
  %a = graph.const dense<[-1]> : tensor<1xi64>
  %r = graph.reshape %e, %s allowzero true : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<3x0xf32>
  %t = graph.transpose %x perm [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %i = graph.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %f = graph.flatten %x axis 0 : (tensor<2x3xf32>) -> tensor<1x6xf32>
  %q = graph.squeeze_v3 %o, %a : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<1x3xf32>
  %qa = graph.squeeze_v3 %o : (tensor<1x3x1xf32>) -> tensor<3xf32>
  %u = graph.unsqueeze_v3 %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>
  %sh = graph.shape %d : (tensor<2x?xf32>) -> tensor<2xi64>
  %n = graph.size %x dtype i32 : (tensor<2x3xf32>) -> tensor<i32>
  graph.net_output %r : tensor<3x0xf32>
}

// -----

// Tests concatenation and both split forms with several results.

// CHECK-LABEL: graph.graph @concat_split
// CHECK:         graph.concat_d %{{.*}}, %{{.*}} concat_dim -1 : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
// CHECK:         %{{.*}}, %{{.*}} = graph.split_v %{{.*}}, %{{.*}}, %{{.*}} num_split 2 : (tensor<2x6xf32>, tensor<2xi64>, tensor<i64>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
// CHECK:         %{{.*}}, %{{.*}}, %{{.*}} = graph.split_d %{{.*}} split_dim 1 num_split 3 : (tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>)
// GENERIC-LABEL: "graph.graph"() <{sym_name = "concat_split"
// GENERIC:       "graph.concat_d"(%{{.*}}, %{{.*}}) <{concat_dim = -1 : i64}>
// GENERIC:       "graph.split_v"(%{{.*}}, %{{.*}}, %{{.*}}) <{num_split = 2 : i64}>
// GENERIC:       "graph.split_d"(%{{.*}}) <{{.*}}num_split = 3 : i64{{.*}}}>
graph.graph @concat_split(%x: tensor<2x3xf32>, %y: tensor<2x?xf32>, %z: tensor<2x6xf32>, %w: tensor<2x7xf32>) -> tensor<2x?xf32> {
  %sizes = graph.const dense<[2, -1]> : tensor<2xi64>
  %dim = graph.const dense<1> : tensor<i64>
  %c = graph.concat_d %x, %y concat_dim -1 : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
  %a, %b = graph.split_v %z, %sizes, %dim num_split 2 : (tensor<2x6xf32>, tensor<2xi64>, tensor<i64>) -> (tensor<2x2xf32>, tensor<2x4xf32>)
  %p:3 = graph.split_d %w split_dim 1 num_split 3 : (tensor<2x7xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>)
  graph.net_output %c : tensor<2x?xf32>
}

// -----

// Tests broadcasting, tiling, padding and generated tensors.

// CHECK-LABEL: graph.graph @broadcast
// CHECK:         graph.expand %{{.*}}, %{{.*}} : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
// CHECK:         graph.tile %{{.*}}, %{{.*}} : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<6x1xf32>
// CHECK:         graph.pad_v3 %{{.*}}, %{{.*}}, %{{.*}} mode "reflect" paddings_contiguous false : (tensor<3x1xf32>, tensor<4xi64>, tensor<f32>) -> tensor<?x?xf32>
// CHECK:         graph.pad_v3 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mode "wrap" : (tensor<3x1xf32>, tensor<2xi64>, tensor<f32>, tensor<1xi64>) -> tensor<6x1xf32>
// CHECK:         graph.fill %{{.*}}, %{{.*}} : (tensor<2xi64>, tensor<f32>) -> tensor<?x?xf32>
// CHECK:         graph.range %{{.*}}, %{{.*}}, %{{.*}} : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
// CHECK:         graph.trilu %{{.*}}, %{{.*}} upper false : (tensor<3x1xf32>, tensor<i64>) -> tensor<3x1xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "broadcast"
// GENERIC:       "graph.pad_v3"(%{{.*}}, %{{.*}}, %{{.*}}) <{{.*}}paddings_contiguous = false{{.*}}}>
// GENERIC:       "graph.trilu"(%{{.*}}, %{{.*}}) <{upper = false}>
graph.graph @broadcast(%x: tensor<3x1xf32>, %p: tensor<4xi64>, %dims: tensor<2xi64>, %n: tensor<i64>) -> tensor<2x3x4xf32> {
  %s = graph.const dense<[2, 1, 4]> : tensor<3xi64>
  %m = graph.const dense<[2, 1]> : tensor<2xi64>
  %pw = graph.const dense<[1, 2]> : tensor<2xi64>
  %ax = graph.const dense<[0]> : tensor<1xi64>
  %v = graph.const dense<0.0> : tensor<f32>
  %e = graph.expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %t = graph.tile %x, %m : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<6x1xf32>
  %r = graph.pad_v3 %x, %p, %v mode "reflect" paddings_contiguous false : (tensor<3x1xf32>, tensor<4xi64>, tensor<f32>) -> tensor<?x?xf32>
  %w = graph.pad_v3 %x, %pw, %v, %ax mode "wrap" : (tensor<3x1xf32>, tensor<2xi64>, tensor<f32>, tensor<1xi64>) -> tensor<6x1xf32>
  %f = graph.fill %dims, %v : (tensor<2xi64>, tensor<f32>) -> tensor<?x?xf32>
  %g = graph.range %n, %n, %n : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %l = graph.trilu %x, %n upper false : (tensor<3x1xf32>, tensor<i64>) -> tensor<3x1xf32>
  graph.net_output %e : tensor<2x3x4xf32>
}

// -----

// Tests slicing, gathering, scattering and the index-generating ops.

// CHECK-LABEL: graph.graph @indexing
// CHECK:         graph.strided_slice_v2 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x3xf32>
// CHECK:         graph.gather_v2d %{{.*}}, %{{.*}} axis 1 : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x2xf32>
// CHECK:         graph.gather_elements %{{.*}}, %{{.*}} dim 1 : (tensor<4x6xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
// CHECK:         graph.gather_nd %{{.*}}, %{{.*}} batch_dims 1 : (tensor<4x6xf32>, tensor<4x1xi64>) -> tensor<4xf32>
// CHECK:         graph.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} axis 1 reduction "add" : (tensor<4x6xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x6xf32>
// CHECK:         graph.tensor_scatter_update %{{.*}}, %{{.*}}, %{{.*}} reduction "max" : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2x6xf32>) -> tensor<4x6xf32>
// CHECK:         graph.non_zero %{{.*}} transpose true : (tensor<4x6xf32>) -> tensor<?x2xi64>
// CHECK:         graph.one_hot %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} axis 0 : (tensor<2xi64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<5x2xf32>
// CHECK:         graph.reverse_sequence %{{.*}}, %{{.*}} seq_dim 1 : (tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "indexing"
// GENERIC:       "graph.gather_v2d"(%{{.*}}, %{{.*}}) <{axis = 1 : i64}>
// GENERIC:       "graph.scatter_elements"(%{{.*}}, %{{.*}}, %{{.*}}) <{{.*}}reduction = "add"{{.*}}}>
// GENERIC:       "graph.one_hot"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{axis = 0 : i64}>
// GENERIC:       "graph.reverse_sequence"(%{{.*}}, %{{.*}}) <{{.*}}seq_dim = 1 : i64{{.*}}}>
graph.graph @indexing(%x: tensor<4x6xf32>, %i: tensor<2xi64>, %ie: tensor<4x2xi64>, %in: tensor<4x1xi64>, %u: tensor<4x2xf32>, %is: tensor<2x1xi64>, %us: tensor<2x6xf32>, %l: tensor<4xi64>, %on: tensor<f32>) -> tensor<4x3xf32> {
  %b = graph.const dense<[-1]> : tensor<1xi64>
  %e = graph.const dense<[-9223372036854775808]> : tensor<1xi64>
  %a = graph.const dense<[1]> : tensor<1xi64>
  %st = graph.const dense<[-2]> : tensor<1xi64>
  %d = graph.const dense<5> : tensor<i64>
  %s = graph.strided_slice_v2 %x, %b, %e, %a, %st : (tensor<4x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4x3xf32>
  %g = graph.gather_v2d %x, %i axis 1 : (tensor<4x6xf32>, tensor<2xi64>) -> tensor<4x2xf32>
  %ge = graph.gather_elements %x, %ie dim 1 : (tensor<4x6xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  %gn = graph.gather_nd %x, %in batch_dims 1 : (tensor<4x6xf32>, tensor<4x1xi64>) -> tensor<4xf32>
  %se = graph.scatter_elements %x, %ie, %u axis 1 reduction "add" : (tensor<4x6xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x6xf32>
  %sn = graph.tensor_scatter_update %x, %is, %us reduction "max" : (tensor<4x6xf32>, tensor<2x1xi64>, tensor<2x6xf32>) -> tensor<4x6xf32>
  %nz = graph.non_zero %x transpose true : (tensor<4x6xf32>) -> tensor<?x2xi64>
  %oh = graph.one_hot %i, %d, %on, %on axis 0 : (tensor<2xi64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<5x2xf32>
  %rs = graph.reverse_sequence %x, %l seq_dim 1 : (tensor<4x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
  graph.net_output %s : tensor<4x3xf32>
}
