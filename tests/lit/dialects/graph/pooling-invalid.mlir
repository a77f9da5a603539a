// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests an unknown pooling data_format.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.max_pool_v3 %x ksize [1, 1, 2, 2] strides [1, 1, 1, 1] data_format "HWCN" : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32>
  // CHECK: 'graph.max_pool_v3' data_format must be "NCHW" or "NHWC", got "HWCN"
  graph.net_output
}

// -----

// Tests a ksize with a single entry.

graph.graph @g(%x: tensor<4xf32>) {
  %y = graph.max_pool_v3 %x ksize [2] strides [1] : (tensor<4xf32>) -> tensor<3xf32>
  // CHECK: 'graph.max_pool_v3' ksize must have one entry per dim of a 3-D or higher x, got [2]
  graph.net_output
}

// -----

// Tests strides of another length than ksize.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.max_pool_v3 %x ksize [1, 1, 2, 2] strides [2, 2] : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  // CHECK: 'graph.max_pool_v3' strides must have 4 values, got [2, 2]
  graph.net_output
}

// -----

// Tests a zero window dim.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.avg_pool_v2 %x ksize [1, 1, 0, 2] strides [1, 1, 1, 1] : (tensor<1x2x4x4xf32>) -> tensor<1x2x3x3xf32>
  // CHECK: 'graph.avg_pool_v2' ksize must be positive, got [1, 1, 0, 2]
  graph.net_output
}

// -----

// Tests a window over the channels.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.max_pool_v3 %x ksize [1, 2, 2, 2] strides [1, 1, 1, 1] : (tensor<1x2x4x4xf32>) -> tensor<1x1x3x3xf32>
  // CHECK: 'graph.max_pool_v3' ksize must be 1 in the N and C dims, got [1, 2, 2, 2]
  graph.net_output
}

// -----

// Tests a negative pad.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.max_pool_v3 %x ksize [1, 1, 2, 2] strides [1, 1, 1, 1] pads [0, -1, 0, 0] : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x3xf32>
  // CHECK: 'graph.max_pool_v3' pads must be non-negative, got [0, -1, 0, 0]
  graph.net_output
}

// -----

// Tests a pad as large as the window.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.max_pool_v3 %x ksize [1, 1, 2, 2] strides [1, 1, 1, 1] pads [2, 0, 0, 0] : (tensor<1x2x4x4xf32>) -> tensor<1x2x5x3xf32>
  // CHECK: 'graph.max_pool_v3' pads [2, 0, 0, 0] must be smaller than the window [1, 1, 2, 2]
  graph.net_output
}

// -----

// Tests an input whose rank differs from ksize.

graph.graph @g(%x: tensor<1x2x4xf32>) {
  %y = graph.max_pool_v3 %x ksize [1, 1, 2, 2] strides [1, 1, 1, 1] : (tensor<1x2x4xf32>) -> tensor<1x2x3xf32>
  // CHECK: 'graph.max_pool_v3' x has rank 3, but ksize has 4 entries
  graph.net_output
}

// -----

// Tests a window larger than the input.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.max_pool_v3 %x ksize [1, 1, 5, 2] strides [1, 1, 1, 1] : (tensor<1x2x4x4xf32>) -> tensor<1x2x0x3xf32>
  // CHECK: 'graph.max_pool_v3' the window does not fit the padded input [1, 2, 4, 4]
  graph.net_output
}

// -----

// Tests a pooled result of the wrong shape.

graph.graph @g(%x: tensor<1x2x5x5xf32>) {
  %y = graph.max_pool_v3 %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] ceil_mode true : (tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32>
  // CHECK: 'graph.max_pool_v3' result shape [1, 2, 2, 2] differs from the pooled shape [1, 2, 3, 3]
  graph.net_output
}

// -----

// Tests a pooled result of another element type.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.max_pool_v3 %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf16>
  // CHECK: 'graph.max_pool_v3' requires one element type for x and result, got f32, f16
  graph.net_output
}

// -----

// Tests MaxPoolWithArgmax in NHWC.

graph.graph @g(%x: tensor<1x4x4x2xf32>) {
  %y, %i = graph.max_pool_with_argmax %x ksize [1, 2, 2, 1] strides [1, 2, 2, 1] data_format "NHWC" : (tensor<1x4x4x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  // CHECK: 'graph.max_pool_with_argmax' supports data_format "NCHW" only
  graph.net_output
}

// -----

// Tests an unknown storage_order.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y, %i = graph.max_pool_with_argmax %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] storage_order 2 : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  // CHECK: 'graph.max_pool_with_argmax' storage_order must be 0 or 1, got 2
  graph.net_output
}

// -----

// Tests i32 argmax indices.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y, %i = graph.max_pool_with_argmax %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi32>)
  // CHECK: 'graph.max_pool_with_argmax' argmax must be an i64 tensor, got tensor<1x2x2x2xi32>
  graph.net_output
}

// -----

// Tests argmax indices of another shape than y.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y, %i = graph.max_pool_with_argmax %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x4xi64>)
  // CHECK: 'graph.max_pool_with_argmax' argmax type tensor<1x2x4xi64> differs from the shape of y tensor<1x2x2x2xf32>
  graph.net_output
}

// -----

// Tests a negative divisor_override.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.avg_pool_v2 %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] divisor_override -1 : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  // CHECK: 'graph.avg_pool_v2' divisor_override must be >= 0, got -1
  graph.net_output
}

// -----

// Tests a zero p.

graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.lp_pool %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] p 0.0 : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  // CHECK: 'graph.lp_pool' p must be positive, got 0.0
  graph.net_output
}

// -----

// Tests a global pool of a 2-D input.

graph.graph @g(%x: tensor<2x3xf32>) {
  %y = graph.global_average_pool %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: 'graph.global_average_pool' x must be N, C and at least one spatial dim, got tensor<2x3xf32>
  graph.net_output
}

// -----

// Tests a global pool that drops the spatial dims.

graph.graph @g(%x: tensor<2x3x4x4xf32>) {
  %y = graph.global_max_pool %x : (tensor<2x3x4x4xf32>) -> tensor<2x3xf32>
  // CHECK: 'graph.global_max_pool' result shape [2, 3] differs from the pooled shape [2, 3, 1, 1]
  graph.net_output
}

// -----

// Tests a negative GlobalLpPool p.

graph.graph @g(%x: tensor<2x3x4x4xf32>) {
  %y = graph.global_lp_pool %x p -1.0 : (tensor<2x3x4x4xf32>) -> tensor<2x3x1x1xf32>
  // CHECK: 'graph.global_lp_pool' p must be positive, got -1.0
  graph.net_output
}
