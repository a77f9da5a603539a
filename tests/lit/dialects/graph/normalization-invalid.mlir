// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests InstanceNorm in NHWC.

graph.graph @g(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) {
  %y = graph.instance_norm %x, %p, %p data_format "NHWC" : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  // CHECK: 'graph.instance_norm' supports data_format "NCHW" only, got "NHWC"
  graph.net_output
}

// -----

// Tests a negative InstanceNorm epsilon.

graph.graph @g(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) {
  %y = graph.instance_norm %x, %p, %p epsilon -1.0 : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  // CHECK: 'graph.instance_norm' epsilon must be non-negative, got -1.0
  graph.net_output
}

// -----

// Tests an InstanceNorm result of another type.

graph.graph @g(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) {
  %y = graph.instance_norm %x, %p, %p : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf16>
  // CHECK: 'graph.instance_norm' result type tensor<1x2x4x4xf16> differs from the type tensor<1x2x4x4xf32> of x
  graph.net_output
}

// -----

// Tests gamma and beta of different element types.

graph.graph @g(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>, %q: tensor<2xf16>) {
  %y = graph.instance_norm %x, %p, %q : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf16>) -> tensor<1x2x4x4xf32>
  // CHECK: 'graph.instance_norm' requires one element type for gamma and beta, got f32, f16
  graph.net_output
}

// -----

// Tests a 2-D InstanceNorm input.

graph.graph @g(%x: tensor<2x3xf32>, %p: tensor<3xf32>) {
  %y = graph.instance_norm %x, %p, %p : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: 'graph.instance_norm' x must be [N, C, spatial...], got tensor<2x3xf32>
  graph.net_output
}

// -----

// Tests a gamma that is not C long.

graph.graph @g(%x: tensor<1x2x4x4xf32>, %p: tensor<3xf32>) {
  %y = graph.instance_norm %x, %p, %p : (tensor<1x2x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<1x2x4x4xf32>
  // CHECK: 'graph.instance_norm' gamma has length 3, expected C = 2
  graph.net_output
}

// -----

// Tests zero groups.

graph.graph @g(%x: tensor<1x4x4x4xf32>, %p: tensor<4xf32>) {
  %y = graph.group_norm %x, %p, %p num_groups 0 : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: 'graph.group_norm' num_groups must be positive, got 0
  graph.net_output
}

// -----

// Tests groups that do not divide the channels.

graph.graph @g(%x: tensor<1x4x4x4xf32>, %p: tensor<4xf32>) {
  %y = graph.group_norm %x, %p, %p num_groups 3 : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: 'graph.group_norm' num_groups = 3 does not divide the 4 channels
  graph.net_output
}

// -----

// Tests GroupNorm in NHWC.

graph.graph @g(%x: tensor<1x4x4x4xf32>, %p: tensor<4xf32>) {
  %y = graph.group_norm %x, %p, %p num_groups 2 data_format "NHWC" : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: 'graph.group_norm' supports data_format "NCHW" only, got "NHWC"
  graph.net_output
}

// -----

// Tests a begin_norm_axis past the rank.

graph.graph @g(%x: tensor<2x5xf32>, %p: tensor<5xf32>) {
  %y, %m, %r = graph.layer_norm_v3 %x, %p, %p begin_norm_axis 2 begin_params_axis -1 : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  // CHECK: 'graph.layer_norm_v3' begin_norm_axis 2 is out of range for the 2 dims of x
  graph.net_output
}

// -----

// Tests a gamma that is not the normalised shape.

graph.graph @g(%x: tensor<2x5xf32>, %p: tensor<2x5xf32>) {
  %y, %m, %r = graph.layer_norm_v3 %x, %p, %p begin_norm_axis -1 begin_params_axis -1 : (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  // CHECK: 'graph.layer_norm_v3' gamma shape [2, 5] differs from the normalised dims
  graph.net_output
}

// -----

// Tests a mean that keeps the normalised dims.

graph.graph @g(%x: tensor<2x5xf32>, %p: tensor<5xf32>) {
  %y, %m, %r = graph.layer_norm_v3 %x, %p, %p begin_norm_axis -1 begin_params_axis -1 : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x1xf32>)
  // CHECK: 'graph.layer_norm_v3' mean shape [2, 5] differs from [2, 1]
  graph.net_output
}

// -----

// Tests mean and rstd of different element types.

graph.graph @g(%x: tensor<2x5xf32>, %p: tensor<5xf32>) {
  %y, %m, %r = graph.layer_norm_v3 %x, %p, %p begin_norm_axis -1 begin_params_axis -1 : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x1xf16>)
  // CHECK: 'graph.layer_norm_v3' requires one element type for mean and rstd, got f32, f16
  graph.net_output
}

// -----

// Tests empty softmax axes.

graph.graph @g(%x: tensor<2x5xf32>) {
  %y = graph.softmax_v2 %x axes [] : (tensor<2x5xf32>) -> tensor<2x5xf32>
  // CHECK: 'graph.softmax_v2' axes must not be empty
  graph.net_output
}

// -----

// Tests a softmax axis past the rank.

graph.graph @g(%x: tensor<2x5xf32>) {
  %y = graph.log_softmax_v2 %x axes [2] : (tensor<2x5xf32>) -> tensor<2x5xf32>
  // CHECK: 'graph.log_softmax_v2' axes [2] are out of range for the 2 dims of x
  graph.net_output
}

// -----

// Tests repeated softmax axes.

graph.graph @g(%x: tensor<2x5xf32>) {
  %y = graph.hardmax %x axes [1, -1] : (tensor<2x5xf32>) -> tensor<2x5xf32>
  // CHECK: 'graph.hardmax' axes [1, -1] repeat a dim
  graph.net_output
}

// -----

// Tests a softmax result of another shape.

graph.graph @g(%x: tensor<2x5xf32>) {
  %y = graph.softmax_v2 %x : (tensor<2x5xf32>) -> tensor<5x2xf32>
  // CHECK: 'graph.softmax_v2' result type tensor<5x2xf32> differs from the operand type tensor<2x5xf32>
  graph.net_output
}

// -----

// Tests an LRN within channels.

graph.graph @g(%x: tensor<1x5x4x4xf32>) {
  %y = graph.lrn %x norm_region "WITHIN_CHANNEL" : (tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
  // CHECK: 'graph.lrn' supports norm_region "ACROSS_CHANNELS" only, got "WITHIN_CHANNEL"
  graph.net_output
}

// -----

// Tests a negative LRN depth_radius.

graph.graph @g(%x: tensor<1x5x4x4xf32>) {
  %y = graph.lrn %x depth_radius -1 : (tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
  // CHECK: 'graph.lrn' depth_radius must be non-negative, got -1
  graph.net_output
}

// -----

// Tests a 2-D LRN input.

graph.graph @g(%x: tensor<5x4xf32>) {
  %y = graph.lrn %x : (tensor<5x4xf32>) -> tensor<5x4xf32>
  // CHECK: 'graph.lrn' x must be [N, C, spatial...], got tensor<5x4xf32>
  graph.net_output
}
