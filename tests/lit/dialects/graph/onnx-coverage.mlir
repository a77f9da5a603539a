// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests the ops of the ONNX coverage work (issue 21): detection, recurrent layers, fused
// attention, quantisation, losses, grid sampling and the small ones, each round-tripped.

// CHECK-LABEL: graph.graph @detection
// CHECK:         graph.non_max_suppression_v6 %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} center_point_box 1 : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
// CHECK:         graph.roialign %{{.*}}, %{{.*}} spatial_scale 0.5 pooled_height 2 pooled_width 2 roi_end_mode 2 pool_mode "max" : (tensor<1x3x8x8xf32>, tensor<4x5xf32>) -> tensor<4x3x2x2xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "detection"
// GENERIC:       "graph.non_max_suppression_v6"({{.*}}) <{center_point_box = 1 : i64}>
graph.graph @detection(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>, %x: tensor<1x3x8x8xf32>, %r: tensor<4x5xf32>) -> tensor<?x3xi64> {
  %m = graph.const dense<3> : tensor<1xi64>
  %iou = graph.const dense<5.000000e-01> : tensor<1xf32>
  %st = graph.const dense<0.000000e+00> : tensor<1xf32>
  %sel = graph.non_max_suppression_v6 %b, %s, %m, %iou, %st center_point_box 1 : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  %y = graph.roialign %x, %r spatial_scale 0.5 pooled_height 2 pooled_width 2 roi_end_mode 2 pool_mode "max" : (tensor<1x3x8x8xf32>, tensor<4x5xf32>) -> tensor<4x3x2x2xf32>
  graph.net_output %sel : tensor<?x3xi64>
}

// -----

// Tests the three recurrent layers, a sequence-length operand and batch-major layout.

// Unknown dims (`?`) in the states and boxes agree with any size: PyTorch's dynamic-axis LSTM
// export builds its zero states from a Shape chain, `[?, ?, ?]` at import.
// CHECK-LABEL: graph.graph @unknown_dims
// CHECK:         graph.dynamic_rnn {{.*}} : (tensor<?x?x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x24xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<1x9xf32>) -> (tensor<?x1x?x3xf32>, tensor<1x?x3xf32>, tensor<1x?x3xf32>)
// CHECK:         graph.non_max_suppression_v6 {{.*}} : (tensor<?x?x?xf32>, tensor<?x1x?xf32>, tensor<?xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
graph.graph @unknown_dims(%x: tensor<?x?x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>, %b: tensor<1x24xf32>, %h: tensor<?x?x?xf32>, %p: tensor<1x9xf32>, %bx: tensor<?x?x?xf32>, %s: tensor<?x1x?xf32>, %m: tensor<?xi64>) -> tensor<1x?x3xf32> {
  %y, %yh, %yc = graph.dynamic_rnn %x, %w, %r, %b, %h, %h, %p hidden_size 3 activations "Sigmoid,Tanh,Tanh" activation_alpha [0.0, 0.0, 0.0] activation_beta [0.0, 0.0, 0.0] : (tensor<?x?x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x24xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<1x9xf32>) -> (tensor<?x1x?x3xf32>, tensor<1x?x3xf32>, tensor<1x?x3xf32>)
  %iou = graph.const dense<5.000000e-01> : tensor<1xf32>
  %sel = graph.non_max_suppression_v6 %bx, %s, %m, %iou, %iou : (tensor<?x?x?xf32>, tensor<?x1x?xf32>, tensor<?xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  graph.net_output %yh : tensor<1x?x3xf32>
}

// -----

// CHECK-LABEL: graph.graph @recurrent
// CHECK:         graph.dynamic_rnn %{{.*}} input_forget true hidden_size 3 activations "Sigmoid,Tanh,Tanh" activation_alpha [0.0, 0.0, 0.0] activation_beta [0.0, 0.0, 0.0] :
// CHECK:         graph.dynamic_gruv2 %{{.*}} reset_after true hidden_size 3 direction "bidirectional"
// CHECK:         graph.rnn %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} hidden_size 3 activations "Relu" {{.*}} time_major false : {{.*}} -> (tensor<1x2x1x3xf32>, tensor<1x1x3xf32>)
graph.graph @recurrent(%x: tensor<2x1x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>, %b: tensor<1x24xf32>, %h: tensor<1x1x3xf32>, %p: tensor<1x9xf32>, %gw: tensor<2x9x4xf32>, %gr: tensor<2x9x3xf32>, %gb: tensor<2x18xf32>, %gh: tensor<2x1x3xf32>, %rx: tensor<1x2x4xf32>, %rw: tensor<1x3x4xf32>, %rr: tensor<1x3x3xf32>, %rb: tensor<1x6xf32>, %len: tensor<1xi32>) -> tensor<1x1x3xf32> {
  %y, %yh, %yc = graph.dynamic_rnn %x, %w, %r, %b, %h, %h, %p hidden_size 3 activations "Sigmoid,Tanh,Tanh" activation_alpha [0.0, 0.0, 0.0] activation_beta [0.0, 0.0, 0.0] input_forget true : (tensor<2x1x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x24xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x9xf32>) -> (tensor<2x1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>)
  %gy, %gyh = graph.dynamic_gruv2 %x, %gw, %gr, %gb, %gh hidden_size 3 direction "bidirectional" activations "Sigmoid,Tanh,Sigmoid,Tanh" activation_alpha [0.0, 0.0, 0.0, 0.0] activation_beta [0.0, 0.0, 0.0, 0.0] reset_after true : (tensor<2x1x4xf32>, tensor<2x9x4xf32>, tensor<2x9x3xf32>, tensor<2x18xf32>, tensor<2x1x3xf32>) -> (tensor<2x2x1x3xf32>, tensor<2x1x3xf32>)
  %ry, %ryh = graph.rnn %rx, %rw, %rr, %rb, %h, %len hidden_size 3 activations "Relu" activation_alpha [0.0] activation_beta [0.0] time_major false : (tensor<1x2x4xf32>, tensor<1x3x4xf32>, tensor<1x3x3xf32>, tensor<1x6xf32>, tensor<1x1x3xf32>, tensor<1xi32>) -> (tensor<1x2x1x3xf32>, tensor<1x1x3xf32>)
  graph.net_output %yh : tensor<1x1x3xf32>
}

// -----

// Tests fused attention with a mask and a KV cache, 3-D attention with GQA, and RoPE.

// CHECK-LABEL: graph.graph @attention
// CHECK:         graph.fused_infer_attention_score %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} optional_inputs "attn_mask,past_key,past_value" is_causal true qk_matmul_output_mode 3 : {{.*}} -> (tensor<2x3x4x8xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>, tensor<2x3x4x8xf32>)
// CHECK:         graph.fused_infer_attention_score %{{.*}}, %{{.*}}, %{{.*}} num_heads 4 num_key_value_heads 2 scale_value 0.25 softcap 2.0 : (tensor<1x5x32xf32>, tensor<1x6x16xf32>, tensor<1x6x16xf32>) -> (tensor<1x5x32xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x4x5x6xf32>)
// CHECK:         graph.rotary_position_embedding %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} mode 1 num_heads 2 : (tensor<1x3x8xf32>, tensor<9x2xf32>, tensor<9x2xf32>, tensor<1x3xi64>) -> tensor<1x3x8xf32>
graph.graph @attention(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x4x8xf32>, %v: tensor<2x3x4x8xf32>, %mask: tensor<4x8xi1>, %pk: tensor<2x3x4x8xf32>, %pv: tensor<2x3x4x8xf32>, %q3: tensor<1x5x32xf32>, %k3: tensor<1x6x16xf32>, %x: tensor<1x3x8xf32>, %c: tensor<9x2xf32>, %pos: tensor<1x3xi64>) -> tensor<2x3x4x8xf32> {
  %y, %nk, %nv, %qk = graph.fused_infer_attention_score %q, %k, %v, %mask, %pk, %pv optional_inputs "attn_mask,past_key,past_value" is_causal true qk_matmul_output_mode 3 : (tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>, tensor<4x8xi1>, tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) -> (tensor<2x3x4x8xf32>, tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>, tensor<2x3x4x8xf32>)
  %y3, %k4, %v4, %qk3 = graph.fused_infer_attention_score %q3, %k3, %k3 num_heads 4 num_key_value_heads 2 scale_value 0.25 softcap 2.0 : (tensor<1x5x32xf32>, tensor<1x6x16xf32>, tensor<1x6x16xf32>) -> (tensor<1x5x32xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x4x5x6xf32>)
  %r = graph.rotary_position_embedding %x, %c, %c, %pos mode 1 num_heads 2 : (tensor<1x3x8xf32>, tensor<9x2xf32>, tensor<9x2xf32>, tensor<1x3xi64>) -> tensor<1x3x8xf32>
  graph.net_output %y : tensor<2x3x4x8xf32>
}

// -----

// Tests quantisation per axis and in blocks, dequantisation with and without an offset.

// CHECK-LABEL: graph.graph @quant
// CHECK:         graph.quantize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
// CHECK:         graph.quantize %{{.*}}, %{{.*}}, %{{.*}} axis 0 block_size 2 : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2x3xui8>) -> tensor<4x3xui8>
// CHECK:         graph.ascend_anti_quant_v2 %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK:         graph.ascend_anti_quant_v2 %{{.*}}, %{{.*}} dst_type "f16" : (tensor<2x3xi8>, tensor<f32>) -> tensor<2x3xf16>
graph.graph @quant(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>, %o: tensor<3xf32>, %x4: tensor<4x3xf32>, %bs: tensor<2x3xf32>, %bz: tensor<2x3xui8>, %one: tensor<f32>) -> tensor<2x3xf32> {
  %q = graph.quantize %x, %s, %z : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
  %qb = graph.quantize %x4, %bs, %bz axis 0 block_size 2 : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2x3xui8>) -> tensor<4x3xui8>
  %y = graph.ascend_anti_quant_v2 %q, %s, %o : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %h = graph.ascend_anti_quant_v2 %q, %one dst_type "f16" : (tensor<2x3xi8>, tensor<f32>) -> tensor<2x3xf16>
  graph.net_output %y : tensor<2x3xf32>
}

// -----

// Tests the losses, RmsNorm, grid sampling and the elementwise additions.

// CHECK-LABEL: graph.graph @more
// CHECK:         graph.nllloss %{{.*}}, %{{.*}}, %{{.*}} reduction "none" ignore_index 1 : (tensor<3x5x2xf32>, tensor<3x2xi64>, tensor<5xf32>) -> (tensor<3x2xf32>, tensor<f32>)
// CHECK:         graph.rms_norm %{{.*}}, %{{.*}} epsilon 1.0e-05 : (tensor<3x5x2xf32>, tensor<2xf32>) -> (tensor<3x5x2xf32>, tensor<3x5x1xf32>)
// CHECK:         graph.grid_sampler2d %{{.*}}, %{{.*}} interpolation_mode "bicubic" padding_mode "reflection" : (tensor<1x1x4x4xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
// CHECK:         graph.grid_sampler3d %{{.*}}, %{{.*}} align_corners true : (tensor<1x1x2x3x4xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x1x2x2x2xf32>
// CHECK:         graph.cumprod %{{.*}}, %{{.*}} exclusive true : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
// CHECK:         graph.bitcast %{{.*}} type i32 : (tensor<2x3xf32>) -> tensor<2x3xi32>
// CHECK:         graph.swish %{{.*}} scale 1.5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         graph.matrix_determinant %{{.*}} : (tensor<3x5x5xf32>) -> tensor<3xf32>
graph.graph @more(%x: tensor<3x5x2xf32>, %t: tensor<3x2xi64>, %w: tensor<5xf32>, %g: tensor<2xf32>, %img: tensor<1x1x4x4xf32>, %grid: tensor<1x6x6x2xf32>, %vol: tensor<1x1x2x3x4xf32>, %grid3: tensor<1x2x2x2x3xf32>, %m: tensor<2x3xf32>, %a: tensor<i64>) -> tensor<3x2xf32> {
  %l, %tw = graph.nllloss %x, %t, %w reduction "none" ignore_index 1 : (tensor<3x5x2xf32>, tensor<3x2xi64>, tensor<5xf32>) -> (tensor<3x2xf32>, tensor<f32>)
  %n, %rstd = graph.rms_norm %x, %g epsilon 1.0e-05 : (tensor<3x5x2xf32>, tensor<2xf32>) -> (tensor<3x5x2xf32>, tensor<3x5x1xf32>)
  %s = graph.grid_sampler2d %img, %grid interpolation_mode "bicubic" padding_mode "reflection" : (tensor<1x1x4x4xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
  %s3 = graph.grid_sampler3d %vol, %grid3 align_corners true : (tensor<1x1x2x3x4xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x1x2x2x2xf32>
  %c = graph.cumprod %m, %a exclusive true : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  %b = graph.bitcast %m type i32 : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %sw = graph.swish %m scale 1.5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %sq = graph.const dense<1.0> : tensor<3x5x5xf32>
  %d = graph.matrix_determinant %sq : (tensor<3x5x5xf32>) -> tensor<3xf32>
  graph.net_output %l : tensor<3x2xf32>
}
