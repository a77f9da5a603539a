// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a static count of selected boxes (the data decides it).

graph.graph @nms_static_count(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>, %m: tensor<1xi64>, %t: tensor<1xf32>) {
  %sel = graph.non_max_suppression_v6 %b, %s, %m, %t : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<3x3xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.non_max_suppression_v6' the number of selected boxes depends on the data: its dim must be ?

// -----

// Tests boxes without four coordinates.

graph.graph @nms_boxes(%b: tensor<1x6x5xf32>, %s: tensor<1x1x6xf32>, %m: tensor<1xi64>, %t: tensor<1xf32>) {
  %sel = graph.non_max_suppression_v6 %b, %s, %m, %t : (tensor<1x6x5xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<?x3xi64>
  graph.net_output
}
// CHECK-LABEL: 'graph.non_max_suppression_v6' boxes must be [batch, boxes, 4], got [1, 6, 5]

// -----

// Tests a roi_end_mode that is not modelled.

graph.graph @roi_mode(%x: tensor<1x3x8x8xf32>, %r: tensor<4x5xf32>) {
  %y = graph.roialign %x, %r spatial_scale 0.5 pooled_height 2 pooled_width 2 roi_end_mode 1 : (tensor<1x3x8x8xf32>, tensor<4x5xf32>) -> tensor<4x3x2x2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.roialign' roi_end_mode must be 0 (align=False) or 2 (align=True)

// -----

// Tests LSTM weights of the wrong gate count.

graph.graph @lstm_weights(%x: tensor<2x1x4xf32>, %w: tensor<1x8x4xf32>, %r: tensor<1x12x3xf32>, %b: tensor<1x24xf32>, %h: tensor<1x1x3xf32>, %p: tensor<1x9xf32>) {
  %y, %yh, %yc = graph.dynamic_rnn %x, %w, %r, %b, %h, %h, %p hidden_size 3 activations "Sigmoid,Tanh,Tanh" activation_alpha [0.0, 0.0, 0.0] activation_beta [0.0, 0.0, 0.0] : (tensor<2x1x4xf32>, tensor<1x8x4xf32>, tensor<1x12x3xf32>, tensor<1x24xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x9xf32>) -> (tensor<2x1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.dynamic_rnn' w must be [1, 12, 4], got [1, 8, 4]

// -----

// Tests initial states whose known hidden dim differs (the unknown dims print as `?`).

graph.graph @lstm_state(%x: tensor<2x1x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>, %b: tensor<1x24xf32>, %h: tensor<?x?x5xf32>, %p: tensor<1x9xf32>) {
  %y, %yh, %yc = graph.dynamic_rnn %x, %w, %r, %b, %h, %h, %p hidden_size 3 activations "Sigmoid,Tanh,Tanh" activation_alpha [0.0, 0.0, 0.0] activation_beta [0.0, 0.0, 0.0] : (tensor<2x1x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x24xf32>, tensor<?x?x5xf32>, tensor<?x?x5xf32>, tensor<1x9xf32>) -> (tensor<2x1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.dynamic_rnn' init_h must be [dirs, batch, hidden], got [?, ?, 5]

// -----

// Tests an activation ONNX does not name.

graph.graph @rnn_activation(%x: tensor<2x1x4xf32>, %w: tensor<1x3x4xf32>, %r: tensor<1x3x3xf32>, %b: tensor<1x6xf32>, %h: tensor<1x1x3xf32>) {
  %y, %yh = graph.rnn %x, %w, %r, %b, %h hidden_size 3 activations "Gelu" activation_alpha [0.0] activation_beta [0.0] : (tensor<2x1x4xf32>, tensor<1x3x4xf32>, tensor<1x3x3xf32>, tensor<1x6xf32>, tensor<1x1x3xf32>) -> (tensor<2x1x1x3xf32>, tensor<1x1x3xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.rnn' activation "Gelu" is not one of Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus

// -----

// Tests an unknown optional attention input.

graph.graph @attention_names(%q: tensor<1x2x3x4xf32>, %m: tensor<3x3xf32>) {
  %y, %k, %v, %qk = graph.fused_infer_attention_score %q, %q, %q, %m optional_inputs "bias" : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x3xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.fused_infer_attention_score' optional input "bias" is none of attn_mask, past_key, past_value, nonpad_kv_seqlen

// -----

// Tests 3-D attention without head counts.

graph.graph @attention_heads(%q: tensor<1x3x12xf32>) {
  %y, %k, %v, %qk = graph.fused_infer_attention_score %q, %q, %q : (tensor<1x3x12xf32>, tensor<1x3x12xf32>, tensor<1x3x12xf32>) -> (tensor<1x3x12xf32>, tensor<1x1x3x12xf32>, tensor<1x1x3x12xf32>, tensor<1x1x3x3xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.fused_infer_attention_score' 3-D Q, K, V need num_heads and num_key_value_heads

// -----

// Tests a float zero point.

graph.graph @quantize_float_zero(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<f32>) {
  %q = graph.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.quantize' zero_points must be an 8, 16 or 32-bit integer tensor, got f32

// -----

// Tests a per-axis scale of the wrong length.

graph.graph @quantize_axis_scale(%x: tensor<2x3xf32>, %s: tensor<4xf32>, %z: tensor<4xi8>) {
  %q = graph.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<2x3xi8>
  graph.net_output
}
// CHECK-LABEL: 'graph.quantize' scale [4] is neither one value nor [3]

// -----

// Tests a target that does not match x.

graph.graph @nll_target(%x: tensor<3x5xf32>, %t: tensor<4xi64>) {
  %y, %w = graph.nllloss %x, %t : (tensor<3x5xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<f32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.nllloss' target shape [4] does not match x shape [3, 5] without C

// -----

// Tests a gamma that does not broadcast.

graph.graph @rms_gamma(%x: tensor<2x5xf32>, %g: tensor<4xf32>) {
  %y, %r = graph.rms_norm %x, %g : (tensor<2x5xf32>, tensor<4xf32>) -> (tensor<2x5xf32>, tensor<2x1xf32>)
  graph.net_output
}
// CHECK-LABEL: 'graph.rms_norm' gamma shape [4] does not broadcast to the normalised dims [5]

// -----

// Tests a grid of the wrong rank.

graph.graph @grid_rank(%x: tensor<1x1x4x4xf32>, %g: tensor<1x6x6x3xf32>) {
  %y = graph.grid_sampler2d %x, %g : (tensor<1x1x4x4xf32>, tensor<1x6x6x3xf32>) -> tensor<1x1x6x6xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.grid_sampler2d' grid must be [N, out, out, 2], got [1, 6, 6, 3]

// -----

// Tests a bitcast between widths.

graph.graph @bitcast_width(%x: tensor<2xf32>) {
  %y = graph.bitcast %x type i8 : (tensor<2xf32>) -> tensor<2xi8>
  graph.net_output
}
// CHECK-LABEL: 'graph.bitcast' type i8 must have the width of f32

// -----

// Tests caches that do not match the rotary dim.

graph.graph @rope_dim(%x: tensor<1x2x3x4xf32>, %c: tensor<1x3x3xf32>) {
  %y = graph.rotary_position_embedding %x, %c, %c : (tensor<1x2x3x4xf32>, tensor<1x3x3xf32>, tensor<1x3x3xf32>) -> tensor<1x2x3x4xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.rotary_position_embedding' cos must end in rotary_dim / 2 = 2
