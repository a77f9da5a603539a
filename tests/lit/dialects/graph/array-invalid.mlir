// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a reshape whose result element count differs (allowzero keeps a 0 dim).

graph.graph @reshape_allowzero(%x: tensor<2x3xf32>, %s: tensor<2xi64>) {
  %y = graph.reshape %x, %s allowzero true : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x0xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.reshape' x has 6 elements but the result has 0

// -----

// Tests an identity that changes the type.

graph.graph @identity_type(%x: tensor<2x3xf32>) {
  %y = graph.identity %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.identity' result type tensor<3x2xf32> differs from the operand type tensor<2x3xf32>

// -----

// Tests a flatten axis beyond the rank.

graph.graph @flatten_axis(%x: tensor<2x3xf32>) {
  %y = graph.flatten %x axis 3 : (tensor<2x3xf32>) -> tensor<6x1xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.flatten' axis 3 is out of range for rank 2

// -----

// Tests a flatten result that is not 2-D.

graph.graph @flatten_rank(%x: tensor<2x3xf32>) {
  %y = graph.flatten %x : (tensor<2x3xf32>) -> tensor<6xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.flatten' result must be 2-D, got tensor<6xf32>

// -----

// Tests a flatten result of the wrong shape.

graph.graph @flatten_shape(%x: tensor<2x3x4xf32>) {
  %y = graph.flatten %x axis 2 : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.flatten' result shape [2, 12] differs from the flat shape [6, 4]

// -----

// Tests squeeze axes that are not integers.

graph.graph @squeeze_axes_type(%x: tensor<1x3xf32>, %a: tensor<1xf32>) {
  %y = graph.squeeze_v3 %x, %a : (tensor<1x3xf32>, tensor<1xf32>) -> tensor<3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.squeeze_v3' axes must be an int32 or int64 tensor, got tensor<1xf32>

// -----

// Tests squeezing a dim larger than 1.

graph.graph @squeeze_non_one(%x: tensor<1x3xf32>) {
  %a = graph.const dense<[1]> : tensor<1xi64>
  %y = graph.squeeze_v3 %x, %a : (tensor<1x3xf32>, tensor<1xi64>) -> tensor<1xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.squeeze_v3' cannot squeeze dim 1 of size 3

// -----

// Tests a squeeze result that keeps a size-1 dim.

graph.graph @squeeze_result(%x: tensor<1x3xf32>) {
  %y = graph.squeeze_v3 %x : (tensor<1x3xf32>) -> tensor<1x3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.squeeze_v3' result shape [1, 3] differs from the squeezed shape [3]

// -----

// Tests unsqueeze axes naming one position twice.

graph.graph @unsqueeze_repeat(%x: tensor<3xf32>) {
  %a = graph.const dense<[0, -3]> : tensor<2xi64>
  %y = graph.unsqueeze_v3 %x, %a : (tensor<3xf32>, tensor<2xi64>) -> tensor<1x1x3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.unsqueeze_v3' axes [0, -3] repeat an axis

// -----

// Tests an unsqueeze axis beyond the result rank.

graph.graph @unsqueeze_range(%x: tensor<3xf32>) {
  %a = graph.const dense<[2]> : tensor<1xi64>
  %y = graph.unsqueeze_v3 %x, %a : (tensor<3xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.unsqueeze_v3' axis 2 is out of range for rank 2

// -----

// Tests a concat without inputs.

graph.graph @concat_empty() {
  %y = graph.concat_d concat_dim 0 : () -> tensor<2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.concat_d' needs at least one input

// -----

// Tests concat inputs of two element types.

graph.graph @concat_types(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  %y = graph.concat_d %a, %b concat_dim 0 : (tensor<2xf32>, tensor<2xf16>) -> tensor<4xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.concat_d' requires one element type for inputs and result, got f32, f16, f32

// -----

// Tests concat inputs of two ranks.

graph.graph @concat_rank(%a: tensor<2xf32>, %b: tensor<2x1xf32>) {
  %y = graph.concat_d %a, %b concat_dim 0 : (tensor<2xf32>, tensor<2x1xf32>) -> tensor<4xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.concat_d' inputs differ in rank

// -----

// Tests a concat_dim beyond the rank.

graph.graph @concat_axis(%a: tensor<2xf32>) {
  %y = graph.concat_d %a, %a concat_dim 1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.concat_d' concat_dim 1 is out of range for rank 1

// -----

// Tests a concat result of the wrong length.

graph.graph @concat_result(%a: tensor<2xf32>) {
  %y = graph.concat_d %a, %a concat_dim 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<5xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.concat_d' result shape [5] differs from the concatenated shape [4]

// -----

// Tests a SplitV whose num_split differs from its results.

graph.graph @split_v_count(%x: tensor<4xf32>, %s: tensor<2xi64>, %d: tensor<i64>) {
  %a, %b = graph.split_v %x, %s, %d num_split 3 : (tensor<4xf32>, tensor<2xi64>, tensor<i64>) -> (tensor<?xf32>, tensor<?xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.split_v' num_split 3 differs from the 2 results

// -----

// Tests SplitV sizes that do not add up to the dim.

graph.graph @split_v_sizes(%x: tensor<4xf32>) {
  %s = graph.const dense<[1, 2]> : tensor<2xi64>
  %d = graph.const dense<0> : tensor<i64>
  %a, %b = graph.split_v %x, %s, %d num_split 2 : (tensor<4xf32>, tensor<2xi64>, tensor<i64>) -> (tensor<1xf32>, tensor<2xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.split_v' split sizes [1, 2] do not add up to dim 0 (4)

// -----

// Tests a SplitV split_dim that is a matrix.

graph.graph @split_v_dim(%x: tensor<4xf32>, %s: tensor<2xi64>, %d: tensor<1x1xi64>) {
  %a, %b = graph.split_v %x, %s, %d num_split 2 : (tensor<4xf32>, tensor<2xi64>, tensor<1x1xi64>) -> (tensor<?xf32>, tensor<?xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.split_v' split_dim must be 0-D or 1-D, got tensor<1x1xi64>

// -----

// Tests a SplitD result of the wrong shape.

graph.graph @split_d_result(%x: tensor<4xf32>) {
  %a, %b = graph.split_d %x split_dim 0 num_split 2 : (tensor<4xf32>) -> (tensor<2xf32>, tensor<3xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.split_d' result 1 shape [3] differs from [2]

// -----

// Tests a SplitD result of another element type.

graph.graph @split_d_type(%x: tensor<4xf32>) {
  %a, %b = graph.split_d %x split_dim 0 num_split 2 : (tensor<4xf32>) -> (tensor<2xf32>, tensor<2xf16>)
  graph.net_output
}
// CHECK-LABEL: 'graph.split_d' result 1 has element type f16, x has tensor<4xf32>

// -----

// Tests a shape result of floats.

graph.graph @shape_type(%x: tensor<2x3xf32>) {
  %y = graph.shape %x : (tensor<2x3xf32>) -> tensor<2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.shape' result must be an int32 or int64 tensor, got tensor<2xf32>

// -----

// Tests a shape result whose length is not the rank.

graph.graph @shape_length(%x: tensor<2x3xf32>) {
  %y = graph.shape %x : (tensor<2x3xf32>) -> tensor<3xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.shape' result shape [3] differs from the rank of x [2]

// -----

// Tests a size result that is not a scalar.

graph.graph @size_rank(%x: tensor<2x3xf32>) {
  %y = graph.size %x : (tensor<2x3xf32>) -> tensor<1xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.size' result must be 0-D, got tensor<1xi64>

// -----

// Tests an expand to an incompatible shape.

graph.graph @expand_shape(%x: tensor<3x2xf32>) {
  %s = graph.const dense<[4, 3]> : tensor<2xi64>
  %y = graph.expand %x, %s : (tensor<3x2xf32>, tensor<2xi64>) -> tensor<4x3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.expand' cannot expand [3, 2] to [4, 3]

// -----

// Tests an expand result of the wrong shape.

graph.graph @expand_result(%x: tensor<3x1xf32>) {
  %s = graph.const dense<[3, 4]> : tensor<2xi64>
  %y = graph.expand %x, %s : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x1xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.expand' result shape [3, 1] differs from the expanded shape [3, 4]

// -----

// Tests tile multiples that do not match the rank.

graph.graph @tile_length(%x: tensor<3x1xf32>, %m: tensor<3xi64>) {
  %y = graph.tile %x, %m : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.tile' multiples has 3 values for rank 2

// -----

// Tests a negative tile multiple.

graph.graph @tile_negative(%x: tensor<3x1xf32>) {
  %m = graph.const dense<[1, -1]> : tensor<2xi64>
  %y = graph.tile %x, %m : (tensor<3x1xf32>, tensor<2xi64>) -> tensor<3x1xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.tile' multiples [1, -1] has a negative value

// -----

// Tests an unknown pad mode.

graph.graph @pad_mode(%x: tensor<3xf32>, %p: tensor<2xi64>, %v: tensor<f32>) {
  %y = graph.pad_v3 %x, %p, %v mode "symmetric" : (tensor<3xf32>, tensor<2xi64>, tensor<f32>) -> tensor<?xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.pad_v3' mode must be one of constant, reflect, edge, wrap, got "symmetric"

// -----

// Tests a pad constant_values with two elements.

graph.graph @pad_value(%x: tensor<3xf32>, %p: tensor<2xi64>, %v: tensor<2xf32>) {
  %y = graph.pad_v3 %x, %p, %v : (tensor<3xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<?xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.pad_v3' constant_values must hold one value, got tensor<2xf32>

// -----

// Tests pads of the wrong length.

graph.graph @pad_count(%x: tensor<3xf32>, %v: tensor<f32>) {
  %p = graph.const dense<[1, 1, 1]> : tensor<3xi64>
  %y = graph.pad_v3 %x, %p, %v : (tensor<3xf32>, tensor<3xi64>, tensor<f32>) -> tensor<5xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.pad_v3' paddings has 3 values for 1 axes

// -----

// Tests negative pads that remove more than the dim.

graph.graph @pad_crop(%x: tensor<3xf32>, %v: tensor<f32>) {
  %p = graph.const dense<[-2, -2]> : tensor<2xi64>
  %y = graph.pad_v3 %x, %p, %v : (tensor<3xf32>, tensor<2xi64>, tensor<f32>) -> tensor<0xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.pad_v3' paddings [-2, -2] remove more than dim 0 holds

// -----

// Tests a pad value of another element type.

graph.graph @pad_types(%x: tensor<3xf32>, %p: tensor<2xi64>, %v: tensor<i32>) {
  %y = graph.pad_v3 %x, %p, %v : (tensor<3xf32>, tensor<2xi64>, tensor<i32>) -> tensor<?xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.pad_v3' requires one element type for x, constant_values and result, got f32, i32, f32

// -----

// Tests a fill value with several elements.

graph.graph @fill_value(%d: tensor<2xi64>, %v: tensor<2xf32>) {
  %y = graph.fill %d, %v : (tensor<2xi64>, tensor<2xf32>) -> tensor<?x?xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.fill' value must hold one element, got tensor<2xf32>

// -----

// Tests fill dims with a negative dim.

graph.graph @fill_negative(%v: tensor<f32>) {
  %d = graph.const dense<[2, -1]> : tensor<2xi64>
  %y = graph.fill %d, %v : (tensor<2xi64>, tensor<f32>) -> tensor<2x?xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.fill' dims [2, -1] has a negative dim

// -----

// Tests a fill result that is not dims.

graph.graph @fill_result(%v: tensor<f32>) {
  %d = graph.const dense<[2, 3]> : tensor<2xi64>
  %y = graph.fill %d, %v : (tensor<2xi64>, tensor<f32>) -> tensor<3x2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.fill' result shape [3, 2] differs from dims [2, 3]

// -----

// Tests a range limit that is not a scalar.

graph.graph @range_scalar(%s: tensor<i64>, %l: tensor<1xi64>) {
  %y = graph.range %s, %l, %s : (tensor<i64>, tensor<1xi64>, tensor<i64>) -> tensor<?xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.range' limit must be a scalar, got tensor<1xi64>

// -----

// Tests a zero range delta.

graph.graph @range_delta() {
  %s = graph.const dense<0> : tensor<i64>
  %y = graph.range %s, %s, %s : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.range' delta must not be 0

// -----

// Tests a range result of the wrong length.

graph.graph @range_length() {
  %s = graph.const dense<0> : tensor<i64>
  %l = graph.const dense<5> : tensor<i64>
  %d = graph.const dense<2> : tensor<i64>
  %y = graph.range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<2xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.range' result shape [2] differs from the range length [3]

// -----

// Tests a trilu of a vector.

graph.graph @trilu_rank(%x: tensor<3xf32>) {
  %y = graph.trilu %x : (tensor<3xf32>) -> tensor<3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.trilu' x must have rank 2 or more, got tensor<3xf32>

// -----

// Tests a trilu k that is a vector.

graph.graph @trilu_k(%x: tensor<3x3xf32>, %k: tensor<2xi64>) {
  %y = graph.trilu %x, %k : (tensor<3x3xf32>, tensor<2xi64>) -> tensor<3x3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.trilu' k must be 0-D, got tensor<2xi64>

// -----

// Tests slice operands of different lengths.

graph.graph @slice_lengths(%x: tensor<4xf32>, %b: tensor<1xi64>, %e: tensor<2xi64>) {
  %y = graph.strided_slice_v2 %x, %b, %e, %b, %b : (tensor<4xf32>, tensor<1xi64>, tensor<2xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.strided_slice_v2' begin, end, axes and strides differ in length

// -----

// Tests a zero slice stride.

graph.graph @slice_stride(%x: tensor<4xf32>) {
  %b = graph.const dense<[0]> : tensor<1xi64>
  %y = graph.strided_slice_v2 %x, %b, %b, %b, %b : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<0xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.strided_slice_v2' strides must not be 0

// -----

// Tests a slice result of the wrong shape.

graph.graph @slice_result(%x: tensor<4xf32>) {
  %b = graph.const dense<[1]> : tensor<1xi64>
  %a = graph.const dense<[0]> : tensor<1xi64>
  %y = graph.strided_slice_v2 %x, %a, %b, %a, %b : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.strided_slice_v2' result shape [2] differs from the sliced shape [1]

// -----

// Tests a gather axis beyond the rank.

graph.graph @gather_axis(%x: tensor<4xf32>, %i: tensor<2xi64>) {
  %y = graph.gather_v2d %x, %i axis 1 : (tensor<4xf32>, tensor<2xi64>) -> tensor<2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.gather_v2d' axis 1 is out of range for rank 1

// -----

// Tests gather indices of floats.

graph.graph @gather_indices(%x: tensor<4xf32>, %i: tensor<2xf32>) {
  %y = graph.gather_v2d %x, %i : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.gather_v2d' indices must be an int32 or int64 tensor, got tensor<2xf32>

// -----

// Tests a gather result of the wrong shape.

graph.graph @gather_result(%x: tensor<4x5xf32>, %i: tensor<2xi64>) {
  %y = graph.gather_v2d %x, %i : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.gather_v2d' result shape [2] differs from the gathered shape [2, 5]

// -----

// Tests gather_elements indices of another rank.

graph.graph @gather_elements_rank(%x: tensor<4x5xf32>, %i: tensor<2xi64>) {
  %y = graph.gather_elements %x, %i : (tensor<4x5xf32>, tensor<2xi64>) -> tensor<2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.gather_elements' index rank 1 differs from x rank 2

// -----

// Tests gather_nd indices deeper than x.

graph.graph @gather_nd_depth(%x: tensor<4xf32>, %i: tensor<3x2xi64>) {
  %y = graph.gather_nd %x, %i : (tensor<4xf32>, tensor<3x2xi64>) -> tensor<3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.gather_nd' indices of depth 2 after 0 batch dims exceed the rank of x

// -----

// Tests gather_nd batch_dims beyond the rank.

graph.graph @gather_nd_batch(%x: tensor<4xf32>, %i: tensor<4x1xi64>) {
  %y = graph.gather_nd %x, %i batch_dims 1 : (tensor<4xf32>, tensor<4x1xi64>) -> tensor<4xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.gather_nd' batch_dims 1 is out of range

// -----

// Tests an unknown scatter reduction.

graph.graph @scatter_reduction(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  %y = graph.scatter_elements %x, %i, %u reduction "sub" : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.scatter_elements' reduction must be one of none, add, mul, max, min, got "sub"

// -----

// Tests scatter indices and updates of different shapes.

graph.graph @scatter_shapes(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<3xf32>) {
  %y = graph.scatter_elements %x, %i, %u : (tensor<4xf32>, tensor<2xi64>, tensor<3xf32>) -> tensor<4xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.scatter_elements' indices shape [2] differs from updates shape [3]

// -----

// Tests scatter_nd updates of the wrong shape.

graph.graph @scatter_nd_updates(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) {
  %y = graph.tensor_scatter_update %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.tensor_scatter_update' updates shape [2, 4] differs from [2, 3]

// -----

// Tests a non_zero result with more than rank rows.

graph.graph @non_zero_layout(%x: tensor<4x5xf32>) {
  %y = graph.non_zero %x : (tensor<4x5xf32>) -> tensor<5x3xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.non_zero' result shape [5, 3] differs from the index layout [2, ?]

// -----

// Tests a non_zero of a 1-d input declared in the transposed layout ?x1: the wildcard rank dim
// let it pass, and the run gave [1, n] (fuzz finding nonzero-result-shape).

graph.graph @non_zero_static_count(%x: tensor<4xi64>) {
  %y = graph.non_zero %x : (tensor<4xi64>) -> tensor<?x1xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.non_zero' result shape [?, 1] differs from the index layout [1, ?]: dim 1 counts the non-zeros, which depends on the data, so it must be ?

// -----

// Tests a transposed non_zero whose count dim (dim 0) is static.

graph.graph @non_zero_static_count_transposed(%x: tensor<4x5xf32>) {
  %y = graph.non_zero %x transpose true : (tensor<4x5xf32>) -> tensor<3x2xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.non_zero' result shape [3, 2] differs from the index layout [?, 2]: dim 0 counts the non-zeros, which depends on the data, so it must be ?

// -----

// Tests a one_hot on_value that is a vector.

graph.graph @one_hot_scalar(%x: tensor<2xi64>, %d: tensor<i64>, %v: tensor<2xf32>, %o: tensor<f32>) {
  %y = graph.one_hot %x, %d, %v, %o : (tensor<2xi64>, tensor<i64>, tensor<2xf32>, tensor<f32>) -> tensor<2x?xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.one_hot' on_value must be a scalar, got tensor<2xf32>

// -----

// Tests a one_hot result whose depth is not the constant depth.

graph.graph @one_hot_depth(%x: tensor<2xi64>, %v: tensor<f32>) {
  %d = graph.const dense<3> : tensor<i64>
  %y = graph.one_hot %x, %d, %v, %v : (tensor<2xi64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<2x4xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.one_hot' result shape [2, 4] differs from the one-hot shape [2, 3]

// -----

// Tests reverse_sequence with seq_dim equal to batch_dim.

graph.graph @reverse_dims(%x: tensor<4x5xf32>, %l: tensor<4xi64>) {
  %y = graph.reverse_sequence %x, %l seq_dim 0 : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<4x5xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.reverse_sequence' seq_dim and batch_dim must differ

// -----

// Tests reverse_sequence lengths that do not match the batch.

graph.graph @reverse_lengths(%x: tensor<4x5xf32>, %l: tensor<3xi64>) {
  %y = graph.reverse_sequence %x, %l seq_dim 1 : (tensor<4x5xf32>, tensor<3xi64>) -> tensor<4x5xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.reverse_sequence' seq_lengths has 3 values for a batch of 4
