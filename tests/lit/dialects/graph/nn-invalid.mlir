// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a Conv3D data_format of the 2-D convolution.

graph.graph @g(%x: tensor<1x2x4x4x4xf32>, %w: tensor<2x2x1x1x1xf32>) {
  %y = graph.conv3d %x, %w strides [1, 1, 1, 1, 1] data_format "NCHW" : (tensor<1x2x4x4x4xf32>, tensor<2x2x1x1x1xf32>) -> tensor<1x2x4x4x4xf32>
  // CHECK: 'graph.conv3d' data_format must be "NCDHW" or "NDHWC", got "NCHW"
  graph.net_output
}

// -----

// Tests Conv3D pads with the 2-D count.

graph.graph @g(%x: tensor<1x2x4x4x4xf32>, %w: tensor<2x2x1x1x1xf32>) {
  %y = graph.conv3d %x, %w strides [1, 1, 1, 1, 1] pads [0, 0, 0, 0] : (tensor<1x2x4x4x4xf32>, tensor<2x2x1x1x1xf32>) -> tensor<1x2x4x4x4xf32>
  // CHECK: 'graph.conv3d' pads must have 6 values, got [0, 0, 0, 0]
  graph.net_output
}

// -----

// Tests a 4-D Conv3D input.

graph.graph @g(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1x1xf32>) {
  %y = graph.conv3d %x, %w strides [1, 1, 1, 1, 1] : (tensor<1x2x4x4xf32>, tensor<2x2x1x1x1xf32>) -> tensor<1x2x4x4x4xf32>
  // CHECK: 'graph.conv3d' x must be 5-D, got tensor<1x2x4x4xf32>
  graph.net_output
}

// -----

// Tests a Conv3D kernel larger than the padded input.

graph.graph @g(%x: tensor<1x2x2x4x4xf32>, %w: tensor<2x2x3x1x1xf32>) {
  %y = graph.conv3d %x, %w strides [1, 1, 1, 1, 1] : (tensor<1x2x2x4x4xf32>, tensor<2x2x3x1x1xf32>) -> tensor<1x2x1x4x4xf32>
  // CHECK: 'graph.conv3d' dilated 3x1x1 kernel exceeds the padded 2x4x4 input
  graph.net_output
}

// -----

// Tests a Conv3D result of the wrong shape.

graph.graph @g(%x: tensor<1x2x4x4x4xf32>, %w: tensor<3x2x3x3x3xf32>) {
  %y = graph.conv3d %x, %w strides [1, 1, 1, 1, 1] : (tensor<1x2x4x4x4xf32>, tensor<3x2x3x3x3xf32>) -> tensor<1x3x4x4x4xf32>
  // CHECK: 'graph.conv3d' result shape [1, 3, 4, 4, 4] differs from the computed shape [1, 3, 2, 2, 2]
  graph.net_output
}

// -----

// Tests a transposed convolution with too few output_padding values.

graph.graph @g(%s: tensor<4xi64>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>) {
  %y = graph.conv2d_transpose %s, %x, %w strides [1, 1, 1, 1] output_padding [1, 1] : (tensor<4xi64>, tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x6x6xf32>
  // CHECK: 'graph.conv2d_transpose' output_padding must have 4 values, got [1, 1]
  graph.net_output
}

// -----

// Tests a negative output_padding.

graph.graph @g(%s: tensor<4xi64>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>) {
  %y = graph.conv2d_transpose %s, %x, %w strides [1, 1, 1, 1] output_padding [0, 0, -1, 0] : (tensor<4xi64>, tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x5x6xf32>
  // CHECK: 'graph.conv2d_transpose' output_padding must be non-negative, got [0, 0, -1, 0]
  graph.net_output
}

// -----

// Tests a float input_size.

graph.graph @g(%s: tensor<4xf32>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>) {
  %y = graph.conv2d_transpose %s, %x, %w strides [1, 1, 1, 1] : (tensor<4xf32>, tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x6x6xf32>
  // CHECK: 'graph.conv2d_transpose' input_size must be a 4-element integer tensor, got tensor<4xf32>
  graph.net_output
}

// -----

// Tests a filter whose first dim is not C_in.

graph.graph @g(%s: tensor<4xi64>, %x: tensor<1x2x4x4xf32>, %w: tensor<3x1x3x3xf32>) {
  %y = graph.conv2d_transpose %s, %x, %w strides [1, 1, 1, 1] : (tensor<4xi64>, tensor<1x2x4x4xf32>, tensor<3x1x3x3xf32>) -> tensor<1x1x6x6xf32>
  // CHECK: 'graph.conv2d_transpose' filter has 3 input channels, expected C_in = 2
  graph.net_output
}

// -----

// Tests groups that do not divide the input channels of a transposed convolution.

graph.graph @g(%s: tensor<4xi64>, %x: tensor<1x3x4x4xf32>, %w: tensor<3x1x3x3xf32>) {
  %y = graph.conv2d_transpose %s, %x, %w strides [1, 1, 1, 1] groups 2 : (tensor<4xi64>, tensor<1x3x4x4xf32>, tensor<3x1x3x3xf32>) -> tensor<1x2x6x6xf32>
  // CHECK: 'graph.conv2d_transpose' groups = 2 does not divide the 3 input channels
  graph.net_output
}

// -----

// Tests a transposed-convolution bias that is not C_out long.

graph.graph @g(%s: tensor<4xi64>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>, %b: tensor<2xf32>) {
  %y = graph.conv2d_transpose %s, %x, %w, %b strides [1, 1, 1, 1] : (tensor<4xi64>, tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x1x6x6xf32>
  // CHECK: 'graph.conv2d_transpose' bias has length 2, expected C_out = 1
  graph.net_output
}

// -----

// Tests pads that crop the whole output.

graph.graph @g(%s: tensor<4xi64>, %x: tensor<1x2x1x1xf32>, %w: tensor<2x1x1x1xf32>) {
  %y = graph.conv2d_transpose %s, %x, %w strides [1, 1, 1, 1] pads [1, 0, 0, 0] : (tensor<4xi64>, tensor<1x2x1x1xf32>, tensor<2x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  // CHECK: 'graph.conv2d_transpose' pads leave no output: computed shape [1, 1, 0, 1]
  graph.net_output
}

// -----

// Tests a constant input_size that differs from the computed shape.

graph.graph @g(%x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>) {
  %s = graph.const dense<[1, 1, 7, 6]> : tensor<4xi64>
  %y = graph.conv2d_transpose %s, %x, %w strides [1, 1, 1, 1] : (tensor<4xi64>, tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x6x6xf32>
  // CHECK: 'graph.conv2d_transpose' input_size [1, 1, 7, 6] differs from the computed shape [1, 1, 6, 6]
  graph.net_output
}

// -----

// Tests a transposed convolution result that is not the computed shape.

graph.graph @g(%s: tensor<4xi64>, %x: tensor<1x2x4x4xf32>, %w: tensor<2x1x3x3xf32>) {
  %y = graph.conv2d_transpose %s, %x, %w strides [1, 1, 2, 2] : (tensor<4xi64>, tensor<1x2x4x4xf32>, tensor<2x1x3x3xf32>) -> tensor<1x1x6x6xf32>
  // CHECK: 'graph.conv2d_transpose' result shape [1, 1, 6, 6] differs from the computed shape [1, 1, 9, 9]
  graph.net_output
}

// -----

// Tests an unknown resize mode.

graph.graph @g(%x: tensor<1x1x2x2xf32>) {
  %y = graph.resize_d %x sizes [1, 1, 4, 4] mode "area" : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: 'graph.resize_d' mode "area" is not one of nearest, linear, cubic
  graph.net_output
}

// -----

// Tests an unknown coordinate_transformation_mode.

graph.graph @g(%x: tensor<1x1x2x2xf32>) {
  %y = graph.resize_d %x sizes [1, 1, 4, 4] coordinate_transformation_mode "center" : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: 'graph.resize_d' coordinate_transformation_mode "center" is not one of half_pixel, half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric, tf_crop_and_resize
  graph.net_output
}

// -----

// Tests an unknown nearest_mode.

graph.graph @g(%x: tensor<1x1x2x2xf32>) {
  %y = graph.resize_d %x sizes [1, 1, 4, 4] nearest_mode "round" : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: 'graph.resize_d' nearest_mode "round" is not one of round_prefer_floor, round_prefer_ceil, floor, ceil
  graph.net_output
}

// -----

// Tests antialias with nearest interpolation.

graph.graph @g(%x: tensor<1x1x4x4xf32>) {
  %y = graph.resize_d %x sizes [1, 1, 2, 2] antialias 1 : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  // CHECK: 'graph.resize_d' antialias applies to linear and cubic modes only
  graph.net_output
}

// -----

// Tests a resize with neither sizes nor scales.

graph.graph @g(%x: tensor<1x1x2x2xf32>) {
  %y = graph.resize_d %x : (tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  // CHECK: 'graph.resize_d' needs sizes or scales
  graph.net_output
}

// -----

// Tests a negative size.

graph.graph @g(%x: tensor<1x1x2x2xf32>) {
  %y = graph.resize_d %x sizes [1, 1, -4, 4] : (tensor<1x1x2x2xf32>) -> tensor<1x1x?x4xf32>
  // CHECK: 'graph.resize_d' sizes must be non-negative, got [1, 1, -4, 4]
  graph.net_output
}

// -----

// Tests a zero scale.

graph.graph @g(%x: tensor<1x1x2x2xf32>) {
  %y = graph.resize_d %x scales [1.0, 1.0, 0.0, 2.0] : (tensor<1x1x2x2xf32>) -> tensor<1x1x0x4xf32>
  // CHECK: 'graph.resize_d' scales must be positive, got [1.0, 1.0, 0.0, 2.0]
  graph.net_output
}

// -----

// Tests an infinite scale (make fuzz seed 2026120119: an internal OverflowError before).

graph.graph @g(%x: tensor<1x1x3x3xf32>) {
  %y = graph.resize_d %x scales [1.0, 1.0, 1.5, 0x7F800000] : (tensor<1x1x3x3xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: 'graph.resize_d' scales must be finite, got [1.0, 1.0, 1.5, inf]
  graph.net_output
}

// -----

// Tests a NaN scale.

graph.graph @g(%x: tensor<1x1x3x3xf32>) {
  %y = graph.resize_d %x scales [1.0, 1.0, 0x7FC00000, 1.0] : (tensor<1x1x3x3xf32>) -> tensor<1x1x4x3xf32>
  // CHECK: 'graph.resize_d' scales must be finite, got [1.0, 1.0, nan, 1.0]
  graph.net_output
}

// -----

// Tests sizes and scales of different lengths.

graph.graph @g(%x: tensor<1x1x2x2xf32>) {
  %y = graph.resize_d %x sizes [1, 1, 4, 4] scales [2.0, 2.0] : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: 'graph.resize_d' has 4 sizes but 2 scales
  graph.net_output
}

// -----

// Tests sizes for another rank than x.

graph.graph @g(%x: tensor<1x1x2x2xf32>) {
  %y = graph.resize_d %x sizes [4, 4] : (tensor<1x1x2x2xf32>) -> tensor<4x4xf32>
  // CHECK: 'graph.resize_d' has 2 sizes/scales for the 4 dims of x
  graph.net_output
}

// -----

// Tests a roi of the wrong length.

graph.graph @g(%x: tensor<1x1x2x2xf32>) {
  %y = graph.resize_d %x sizes [1, 1, 4, 4] roi [0.0, 1.0] coordinate_transformation_mode "tf_crop_and_resize" : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  // CHECK: 'graph.resize_d' roi must have 8 values, got 2
  graph.net_output
}

// -----

// Tests a resize result that is not floor(in * scale).

graph.graph @g(%x: tensor<1x1x3x3xf32>) {
  %y = graph.resize_d %x scales [1.0, 1.0, 1.5, 1.5] : (tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32>
  // CHECK: 'graph.resize_d' result shape [1, 1, 5, 5] differs from the resized shape [1, 1, 4, 4]
  graph.net_output
}

// -----

// Tests an unknown keep_aspect_ratio_policy.

graph.graph @g(%x: tensor<1x1x2x2xf32>, %r: tensor<0xf32>, %s: tensor<0xf32>, %z: tensor<2xi64>) {
  %y = graph.resize %x, %r, %s, %z axes [2, 3] keep_aspect_ratio_policy "fit" : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<0xf32>, tensor<2xi64>) -> tensor<?x?x?x?xf32>
  // CHECK: 'graph.resize' keep_aspect_ratio_policy "fit" is not one of stretch, not_larger, not_smaller
  graph.net_output
}

// -----

// Tests float sizes for a run-time resize.

graph.graph @g(%x: tensor<1x1x2x2xf32>, %r: tensor<0xf32>, %s: tensor<0xf32>, %z: tensor<4xf32>) {
  %y = graph.resize %x, %r, %s, %z : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<0xf32>, tensor<4xf32>) -> tensor<?x?x?x?xf32>
  // CHECK: 'graph.resize' sizes must be an integer tensor, got tensor<4xf32>
  graph.net_output
}

// -----

// Tests a run-time resize that changes the rank.

graph.graph @g(%x: tensor<1x1x2x2xf32>, %r: tensor<0xf32>, %s: tensor<4xf32>, %z: tensor<0xi64>) {
  %y = graph.resize %x, %r, %s, %z : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<4xf32>, tensor<0xi64>) -> tensor<?x?xf32>
  // CHECK: 'graph.resize' result rank 2 differs from the rank 4 of x
  graph.net_output
}

// -----

// Tests repeated resize axes.

graph.graph @g(%x: tensor<1x1x2x2xf32>, %r: tensor<0xf32>, %s: tensor<2xf32>, %z: tensor<0xi64>) {
  %y = graph.resize %x, %r, %s, %z axes [2, -2] : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<2xf32>, tensor<0xi64>) -> tensor<?x?x?x?xf32>
  // CHECK: 'graph.resize' axes [2, -2] are not distinct dims of x
  graph.net_output
}

// -----

// Tests an unknown DepthToSpace mode.

graph.graph @g(%x: tensor<1x8x2x3xf32>) {
  %y = graph.depth_to_space %x block_size 2 mode "RCD" : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  // CHECK: 'graph.depth_to_space' mode must be "DCR" or "CRD", got "RCD"
  graph.net_output
}

// -----

// Tests a zero block size.

graph.graph @g(%x: tensor<1x8x2x3xf32>) {
  %y = graph.depth_to_space %x block_size 0 : (tensor<1x8x2x3xf32>) -> tensor<1x8x2x3xf32>
  // CHECK: 'graph.depth_to_space' block_size must be positive, got 0
  graph.net_output
}

// -----

// Tests an NCDHW DepthToSpace.

graph.graph @g(%x: tensor<1x8x2x3xf32>) {
  %y = graph.depth_to_space %x block_size 2 data_format "NCDHW" : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  // CHECK: 'graph.depth_to_space' data_format must be "NCHW" or "NHWC", got "NCDHW"
  graph.net_output
}

// -----

// Tests a 3-D DepthToSpace input.

graph.graph @g(%x: tensor<8x2x3xf32>) {
  %y = graph.depth_to_space %x block_size 2 : (tensor<8x2x3xf32>) -> tensor<2x4x6xf32>
  // CHECK: 'graph.depth_to_space' x must be 4-D, got tensor<8x2x3xf32>
  graph.net_output
}

// -----

// Tests channels that are not a multiple of block_size^2.

graph.graph @g(%x: tensor<1x6x2x3xf32>) {
  %y = graph.depth_to_space %x block_size 2 : (tensor<1x6x2x3xf32>) -> tensor<1x1x4x6xf32>
  // CHECK: 'graph.depth_to_space' 6 channels are not a multiple of block_size^2 = 4
  graph.net_output
}

// -----

// Tests spatial dims that are not a multiple of block_size.

graph.graph @g(%x: tensor<1x2x4x5xf32>) {
  %y = graph.space_to_depth %x block_size 2 : (tensor<1x2x4x5xf32>) -> tensor<1x8x2x2xf32>
  // CHECK: 'graph.space_to_depth' spatial dim 5 is not a multiple of block_size 2
  graph.net_output
}

// -----

// Tests a SpaceToDepth result of the wrong shape.

graph.graph @g(%x: tensor<1x2x4x6xf32>) {
  %y = graph.space_to_depth %x block_size 2 data_format "NHWC" : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  // CHECK: 'graph.space_to_depth' result shape [1, 8, 2, 3] differs from the rearranged shape [1, 1, 2, 24]
  graph.net_output
}
