// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests entry block arguments that differ from the function type.

"graph.graph"() <{sym_name = "args", function_type = (tensor<2xf32>) -> ()}> ({
^bb0(%a: tensor<3xf32>):
  "graph.net_output"() : () -> ()
}) : () -> ()
// CHECK-LABEL: 'graph.graph' @args: entry block argument types must match the function type inputs

// -----

// Tests arg_attrs with more entries than the graph has inputs.

"graph.graph"() <{sym_name = "arg_attrs", function_type = (tensor<2xf32>) -> (), arg_attrs = [{}, {}]}> ({
^bb0(%a: tensor<2xf32>):
  "graph.net_output"() : () -> ()
}) : () -> ()
// CHECK-LABEL: 'graph.graph' @arg_attrs: arg_attrs has 2 entries for 1 values

// -----

// Tests two inputs with the same node_name.

graph.graph @dup_inputs(%a: tensor<2xf32> {node_name = "x"}, %b: tensor<2xf32> {node_name = "x"}) {
  graph.net_output
}
// CHECK-LABEL: 'graph.graph' @dup_inputs: duplicate input name 'x'

// -----

// Tests two outputs with the same node_name.

graph.graph @dup_outputs(%a: tensor<2xf32>) -> (tensor<2xf32> {node_name = "y"}, tensor<2xf32> {node_name = "y"}) {
  graph.net_output %a, %a : tensor<2xf32>, tensor<2xf32>
}
// CHECK-LABEL: 'graph.graph' @dup_outputs: duplicate output name 'y'

// -----

// Tests a use before the definition: graph ops must be in topological order.

graph.graph @order(%a: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.relu %later : (tensor<2xf32>) -> tensor<2xf32>
  %later = graph.relu %a : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
// CHECK-LABEL: 'graph.graph' @order: operand of 'graph.relu' is used before it is defined; graph ops must be in topological order

// -----

// Tests a net_output whose types differ from the graph's results.

graph.graph @net_output(%a: tensor<2xf32>) -> tensor<2xf16> {
  graph.net_output %a : tensor<2xf32>
  // CHECK-LABEL: 'graph.net_output' types (tensor<2xf32>) do not match the outputs of @net_output (tensor<2xf16>)
}

// -----

// Tests a const whose result type is not its value's type.

graph.graph @const() -> tensor<3xf32> {
  %c = "graph.const"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>
  // CHECK-LABEL: 'graph.const' result type tensor<3xf32> differs from its value's type tensor<2xf32>
  graph.net_output %c : tensor<3xf32>
}

// -----

// Tests elementwise operands of different element types.

graph.graph @add_types(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  %y = graph.add %a, %b : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  // CHECK-LABEL: 'graph.add' requires one element type for operands and result, got f32, i32, f32
  graph.net_output
}

// -----

// Tests elementwise operands whose shapes do not broadcast.

graph.graph @sub_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  %y = graph.sub %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  // CHECK-LABEL: 'graph.sub' operand shapes [2, 3] and [4] do not broadcast
  graph.net_output
}

// -----

// Tests an elementwise result that is not the broadcast shape.

graph.graph @mul_result(%a: tensor<?x3xf32>, %b: tensor<2x1xf32>) {
  %y = graph.mul %a, %b : (tensor<?x3xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  // CHECK-LABEL: 'graph.mul' result shape [2, 1] differs from the broadcast shape [2, 3]
  graph.net_output
}

// -----

// Tests a unary op whose result type differs from its operand.

graph.graph @relu(%a: tensor<2x3xf32>) {
  %y = graph.relu %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK-LABEL: 'graph.relu' result type tensor<3x2xf32> differs from the operand type tensor<2x3xf32>
  graph.net_output
}

// -----

// Tests matmul operands of different element types.

graph.graph @matmul_types(%a: tensor<2x3xf32>, %b: tensor<3x4xf16>) {
  %y = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf16>) -> tensor<2x4xf32>
  // CHECK-LABEL: 'graph.matmul' requires one element type for operands and result, got f32, f16, f32
  graph.net_output
}

// -----

// Tests a batched (3-D) matmul operand: that is GE's BatchMatMul.

graph.graph @matmul_rank(%a: tensor<5x2x3xf32>, %b: tensor<3x4xf32>) {
  %y = graph.matmul %a, %b : (tensor<5x2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  // CHECK-LABEL: 'graph.matmul' x1 must be 2-D, got tensor<5x2x3xf32>
  graph.net_output
}

// -----

// Tests a matmul result that is not 2-D.

graph.graph @matmul_result_rank(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  %y = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<8xf32>
  // CHECK-LABEL: 'graph.matmul' the result must be 2-D, got tensor<8xf32>
  graph.net_output
}

// -----

// Tests contracted dims that differ once transpose_x2 is applied.

graph.graph @matmul_k(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  %y = graph.matmul %a, %b transpose_x2 true : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
  // CHECK-LABEL: 'graph.matmul' contracts K = 3 of x1 with K = 4 of x2
  graph.net_output
}

// -----

// Tests a matmul result that is not [M, N].

graph.graph @matmul_mn(%a: tensor<3x2xf32>, %b: tensor<3x4xf32>) {
  %y = graph.matmul %a, %b transpose_x1 true : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  // CHECK-LABEL: 'graph.matmul' result shape [3, 4] differs from [M, N] = [2, 4]
  graph.net_output
}

// -----

// Tests a matmul bias that is not 1-D.

graph.graph @matmul_bias_rank(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) {
  %y = graph.matmul %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  // CHECK-LABEL: 'graph.matmul' bias must be 1-D, got tensor<2x4xf32>
  graph.net_output
}

// -----

// Tests a matmul bias whose length is neither N nor 1.

graph.graph @matmul_bias_len(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<3xf32>) {
  %y = graph.matmul %a, %b, %c : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  // CHECK-LABEL: 'graph.matmul' bias has length 3, expected N = 4 (or 1)
  graph.net_output
}

// -----

// Tests the training form of BatchNorm, which is not modelled.

graph.graph @bn_training(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) {
  %y = graph.batch_norm %x, %p, %p, %p, %p is_training true
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-LABEL: 'graph.batch_norm' is_training = true is not supported: only inference BatchNorm is modelled
  graph.net_output
}

// -----

// Tests an unknown batch_norm data_format.

graph.graph @bn_format(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) {
  %y = graph.batch_norm %x, %p, %p, %p, %p data_format "NC1HWC0"
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-LABEL: 'graph.batch_norm' data_format must be "NCHW" or "NHWC", got "NC1HWC0"
  graph.net_output
}

// -----

// Tests a negative epsilon.

graph.graph @bn_epsilon(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) {
  %y = graph.batch_norm %x, %p, %p, %p, %p epsilon -0.5
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-LABEL: 'graph.batch_norm' epsilon must be non-negative, got -0.5
  graph.net_output
}

// -----

// Tests a batch_norm result type that differs from x.

graph.graph @bn_result(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>) {
  %y = graph.batch_norm %x, %p, %p, %p, %p
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf16>
  // CHECK-LABEL: 'graph.batch_norm' result type tensor<1x2x4x4xf16> differs from the type tensor<1x2x4x4xf32> of x
  graph.net_output
}

// -----

// Tests batch_norm parameters of different element types.

graph.graph @bn_param_types(%x: tensor<1x2x4x4xf16>, %p: tensor<2xf32>, %q: tensor<2xf16>) {
  %y = graph.batch_norm %x, %p, %q, %p, %p
      : (tensor<1x2x4x4xf16>, tensor<2xf32>, tensor<2xf16>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf16>
  // CHECK-LABEL: 'graph.batch_norm' requires one element type for scale, offset, mean and variance, got f32, f16, f32, f32
  graph.net_output
}

// -----

// Tests a 3-D batch_norm input in NHWC (channels-first inputs may have any rank >= 2).

graph.graph @bn_rank(%x: tensor<1x2x4xf32>, %p: tensor<4xf32>) {
  %y = graph.batch_norm %x, %p, %p, %p, %p data_format "NHWC"
      : (tensor<1x2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x2x4xf32>
  // CHECK-LABEL: 'graph.batch_norm' x must be 2-D, 4-D, or [N, C, ...] in NCHW, got tensor<1x2x4xf32>
  graph.net_output
}

// -----

// Tests a batch_norm parameter that is not 1-D.

graph.graph @bn_param_rank(%x: tensor<1x2x4x4xf32>, %p: tensor<2xf32>, %q: tensor<1x2xf32>) {
  %y = graph.batch_norm %x, %p, %p, %q, %p
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1x2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-LABEL: 'graph.batch_norm' mean must be 1-D, got tensor<1x2xf32>
  graph.net_output
}

// -----

// Tests a batch_norm parameter whose length is not C (the last dim in NHWC).

graph.graph @bn_param_len(%x: tensor<1x4x4x2xf32>, %p: tensor<2xf32>, %q: tensor<4xf32>) {
  %y = graph.batch_norm %x, %p, %p, %p, %q data_format "NHWC"
      : (tensor<1x4x4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<4xf32>) -> tensor<1x4x4x2xf32>
  // CHECK-LABEL: 'graph.batch_norm' variance has length 4, expected C = 2
  graph.net_output
}

// -----

// Tests an unknown conv2d data_format.

graph.graph @conv_format(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] data_format "HWCN"
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-LABEL: 'graph.conv2d' data_format must be "NCHW" or "NHWC", got "HWCN"
  graph.net_output
}

// -----

// Tests strides given for the two spatial dims only (GE wants all four).

graph.graph @conv_strides_len(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1] : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-LABEL: 'graph.conv2d' strides must have 4 values, got [1, 1]
  graph.net_output
}

// -----

// Tests a zero stride.

graph.graph @conv_strides_zero(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 0, 1] : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-LABEL: 'graph.conv2d' strides must be positive, got [1, 1, 0, 1]
  graph.net_output
}

// -----

// Tests a dilation in the C dim of an NHWC convolution.

graph.graph @conv_dilations_c(%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x2xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] dilations [1, 1, 1, 2] data_format "NHWC"
      : (tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x4x4x2xf32>
  // CHECK-LABEL: 'graph.conv2d' dilations must be 1 in the N and C dims, got [1, 1, 1, 2]
  graph.net_output
}

// -----

// Tests a negative pad.

graph.graph @conv_pads(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] pads [0, -1, 0, 0]
      : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x4xf32>
  // CHECK-LABEL: 'graph.conv2d' pads must be non-negative, got [0, -1, 0, 0]
  graph.net_output
}

// -----

// Tests zero groups.

graph.graph @conv_groups(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] groups 0 : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-LABEL: 'graph.conv2d' groups must be positive, got 0
  graph.net_output
}

// -----

// Tests a filter of another element type than x.

graph.graph @conv_types(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x1x1xf16>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf16>) -> tensor<1x2x4x4xf32>
  // CHECK-LABEL: 'graph.conv2d' requires one element type for operands and result, got f32, f16, f32
  graph.net_output
}

// -----

// Tests a 3-D conv2d input.

graph.graph @conv_rank(%x: tensor<2x4x4xf32>, %w: tensor<2x2x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<2x4x4xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x4x4xf32>
  // CHECK-LABEL: 'graph.conv2d' x must be 4-D, got tensor<2x4x4xf32>
  graph.net_output
}

// -----

// Tests groups that do not divide the input channels.

graph.graph @conv_groups_in(%x: tensor<1x3x4x4xf32>, %w: tensor<4x1x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] groups 2 : (tensor<1x3x4x4xf32>, tensor<4x1x1x1xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-LABEL: 'graph.conv2d' groups = 2 does not divide the 3 input channels
  graph.net_output
}

// -----

// Tests groups that do not divide the output channels.

graph.graph @conv_groups_out(%x: tensor<1x4x4x4xf32>, %w: tensor<3x2x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] groups 2 : (tensor<1x4x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>
  // CHECK-LABEL: 'graph.conv2d' groups = 2 does not divide the 3 output channels
  graph.net_output
}

// -----

// Tests a filter whose I dim is not C_in / groups.

graph.graph @conv_filter_in(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] groups 2 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  // CHECK-LABEL: 'graph.conv2d' filter has 4 input channels, expected C_in / groups = 2
  graph.net_output
}

// -----

// Tests a bias whose length is not C_out.

graph.graph @conv_bias(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>, %b: tensor<2xf32>) {
  %y = graph.conv2d %x, %w, %b strides [1, 1, 1, 1]
      : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<2xf32>) -> tensor<1x3x4x4xf32>
  // CHECK-LABEL: 'graph.conv2d' bias has length 2, expected C_out = 3
  graph.net_output
}

// -----

// Tests a dilated kernel larger than the padded input.

graph.graph @conv_window(%x: tensor<1x2x4x4xf32>, %w: tensor<2x2x3x3xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] dilations [1, 1, 2, 1]
      : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x1x2xf32>
  // CHECK-LABEL: 'graph.conv2d' dilated 5x3 kernel exceeds the padded 4x4 input
  graph.net_output
}

// -----

// Tests a conv2d result that is not the computed output shape.

graph.graph @conv_result(%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  %y = graph.conv2d %x, %w strides [1, 1, 2, 2] pads [1, 1, 1, 1]
      : (tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x4xf32>
  // CHECK-LABEL: 'graph.conv2d' result shape [1, 4, 3, 4] differs from the computed shape [1, 4, 4, 4]
  graph.net_output
}

// -----

// Tests a reshape that changes the element type.

graph.graph @reshape_types(%x: tensor<2x3xf32>, %s: tensor<1xi64>) {
  %y = graph.reshape %x, %s : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xi32>
  // CHECK-LABEL: 'graph.reshape' requires one element type for x and result, got f32, i32
  graph.net_output
}

// -----

// Tests a floating-point shape operand.

graph.graph @reshape_shape(%x: tensor<2x3xf32>, %s: tensor<1xf32>) {
  %y = graph.reshape %x, %s : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<6xf32>
  // CHECK-LABEL: 'graph.reshape' shape must be a 1-D int32 or int64 tensor, got tensor<1xf32>
  graph.net_output
}

// -----

// Tests a result rank that differs from the length of the shape operand.

graph.graph @reshape_rank(%x: tensor<2x3xf32>, %s: tensor<2xi32>) {
  %y = graph.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<6xf32>
  // CHECK-LABEL: 'graph.reshape' result rank 1 differs from the length 2 of shape
  graph.net_output
}

// -----

// Tests a reshape that changes the element count.

graph.graph @reshape_count(%x: tensor<2x3xf32>, %s: tensor<2xi64>) {
  %y = graph.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  // CHECK-LABEL: 'graph.reshape' x has 6 elements but the result has 8
  graph.net_output
}

// -----

// Tests a transpose that changes the element type.

graph.graph @transpose_types(%x: tensor<2x3xf32>) {
  %y = graph.transpose %x perm [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf16>
  // CHECK-LABEL: 'graph.transpose' requires one element type for x and result, got f32, f16
  graph.net_output
}

// -----

// Tests a perm that repeats a dim.

graph.graph @transpose_perm(%x: tensor<2x3x4xf32>) {
  %y = graph.transpose %x perm [0, 2, 2] : (tensor<2x3x4xf32>) -> tensor<2x4x4xf32>
  // CHECK-LABEL: 'graph.transpose' perm [0, 2, 2] is not a permutation of the 3 dims
  graph.net_output
}

// -----

// Tests a transpose result that is not the permuted input shape.

graph.graph @transpose_result(%x: tensor<2x3x4xf32>) {
  %y = graph.transpose %x perm [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  // CHECK-LABEL: 'graph.transpose' result shape [4, 3, 2] differs from the permuted shape [4, 2, 3]
  graph.net_output
}
