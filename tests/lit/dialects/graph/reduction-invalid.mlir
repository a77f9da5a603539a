// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a reduction that changes the element type.

graph.graph @reduce_types(%x: tensor<2x3xf32>) {
  %y = graph.reduce_sum %x : (tensor<2x3xf32>) -> tensor<i32>
  graph.net_output
}
// CHECK-LABEL: 'graph.reduce_sum' requires one element type for x and result, got f32, i32

// -----

// Tests reduction axes of floats.

graph.graph @reduce_axes_type(%x: tensor<2x3xf32>, %a: tensor<1xf32>) {
  %y = graph.reduce_mean %x, %a : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<?xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.reduce_mean' axes must be an int32 or int64 tensor, got tensor<1xf32>

// -----

// Tests a reduction axis beyond the rank.

graph.graph @reduce_axis_range(%x: tensor<2x3xf32>) {
  %a = graph.const dense<[2]> : tensor<1xi64>
  %y = graph.reduce_max %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.reduce_max' axis 2 is out of range for rank 2

// -----

// Tests a reduction result without the kept dim.

graph.graph @reduce_keep_dims(%x: tensor<2x3xf32>) {
  %a = graph.const dense<[1]> : tensor<1xi64>
  %y = graph.reduce_min %x, %a keep_dims true : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.reduce_min' result shape [2] differs from the reduced shape [2, 1]

// -----

// Tests an arg-reduction dimension beyond the rank.

graph.graph @arg_dimension(%x: tensor<2x3xf32>) {
  %y = graph.arg_max_d %x dimension 2 : (tensor<2x3xf32>) -> tensor<2xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.arg_max_d' dimension 2 is out of range for rank 2

// -----

// Tests an arg-reduction with float indices.

graph.graph @arg_result_type(%x: tensor<2x3xf32>) {
  %y = graph.arg_min_d %x : (tensor<2x3xf32>) -> tensor<3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.arg_min_d' result must be an int32 or int64 tensor, got tensor<3xf32>

// -----

// Tests an arg-reduction result of the wrong shape.

graph.graph @arg_result_shape(%x: tensor<2x3xf32>) {
  %y = graph.arg_min_d %x dimension 1 : (tensor<2x3xf32>) -> tensor<3xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.arg_min_d' result shape [3] differs from the reduced shape [2]

// -----

// Tests a TopK k larger than the dim.

graph.graph @topk_k(%x: tensor<2x3xf32>) {
  %k = graph.const dense<[4]> : tensor<1xi64>
  %v, %i = graph.top_kv2 %x, %k : (tensor<2x3xf32>, tensor<1xi64>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  graph.net_output
}
// CHECK-LABEL: 'graph.top_kv2' k 4 exceeds dim 1 (3)

// -----

// Tests a TopK k that is a matrix.

graph.graph @topk_k_rank(%x: tensor<2x3xf32>, %k: tensor<1x1xi64>) {
  %v, %i = graph.top_kv2 %x, %k : (tensor<2x3xf32>, tensor<1x1xi64>) -> (tensor<2x?xf32>, tensor<2x?xi64>)
  graph.net_output
}
// CHECK-LABEL: 'graph.top_kv2' k must be 0-D or 1-D, got tensor<1x1xi64>

// -----

// Tests TopK indices of floats.

graph.graph @topk_indices(%x: tensor<2x3xf32>, %k: tensor<1xi64>) {
  %v, %i = graph.top_kv2 %x, %k : (tensor<2x3xf32>, tensor<1xi64>) -> (tensor<2x?xf32>, tensor<2x?xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.top_kv2' indices must be an int32 or int64 tensor, got tensor<2x?xf32>

// -----

// Tests TopK values and indices of different shapes.

graph.graph @topk_shapes(%x: tensor<2x3xf32>, %k: tensor<1xi64>) {
  %v, %i = graph.top_kv2 %x, %k : (tensor<2x3xf32>, tensor<1xi64>) -> (tensor<2x?xf32>, tensor<2x2xi64>)
  graph.net_output
}
// CHECK-LABEL: 'graph.top_kv2' indices type tensor<2x2xi64> differs in shape from the values

// -----

// Tests TopK values of the wrong shape.

graph.graph @topk_result(%x: tensor<2x3xf32>) {
  %k = graph.const dense<2> : tensor<i64>
  %v, %i = graph.top_kv2 %x, %k : (tensor<2x3xf32>, tensor<i64>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  graph.net_output
}
// CHECK-LABEL: 'graph.top_kv2' result shape [2, 3] differs from the top-k shape [2, 2]

// -----

// Tests a cumsum that changes the type.

graph.graph @cumsum_type(%x: tensor<2x3xf32>, %a: tensor<i64>) {
  %y = graph.cumsum %x, %a : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf16>
  graph.net_output
}
// CHECK-LABEL: 'graph.cumsum' result type tensor<2x3xf16> differs from the operand type tensor<2x3xf32>

// -----

// Tests a cumsum axis beyond the rank.

graph.graph @cumsum_axis(%x: tensor<2x3xf32>) {
  %a = graph.const dense<-3> : tensor<i64>
  %y = graph.cumsum %x, %a : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.cumsum' axis -3 is out of range for rank 2
