// RUN: ge-opt %s --split-input-file -p ge-place-engines | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-place-engines,ge-partition-dynamic-shape | filecheck %s --check-prefix=DYN

// Tests that the detection ops land on AI CPU as GE places them (NonMaxSuppressionV6 for its
// data-dependent output, ROIAlign as an AI-CPU-only op), the recurrent layers and fused
// attention on AI Core, and that the selected boxes partition as unknown-shape.

graph.graph @detection_head(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>, %x: tensor<1x3x8x8xf32>, %r: tensor<4x5xf32>) -> (tensor<?x3xi64>, tensor<4x3x2x2xf32>) {
  %m = graph.const dense<3> : tensor<1xi64>
  %iou = graph.const dense<5.000000e-01> : tensor<1xf32>
  %sel = graph.non_max_suppression_v6 %b, %s, %m, %iou : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>) -> tensor<?x3xi64>
  %y = graph.roialign %x, %r spatial_scale 0.5 pooled_height 2 pooled_width 2 roi_end_mode 2 : (tensor<1x3x8x8xf32>, tensor<4x5xf32>) -> tensor<4x3x2x2xf32>
  graph.net_output %sel, %y : tensor<?x3xi64>, tensor<4x3x2x2xf32>
}

// CHECK-LABEL: graph.graph @detection_head
// CHECK:         graph.non_max_suppression_v6 {{.*}} {_engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.roialign {{.*}} {_engine_name = "DNN_VM_AICPU"}

// DYN-LABEL: graph.graph @detection_head
// DYN:         graph.non_max_suppression_v6 {{.*}}_is_unknown_shape = true

// -----

graph.graph @sequence(%x: tensor<2x1x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x3xf32>, %b: tensor<1x24xf32>, %h: tensor<1x1x3xf32>, %p: tensor<1x9xf32>, %q: tensor<1x2x3x4xf32>) -> (tensor<1x1x3xf32>, tensor<1x2x3x4xf32>) {
  %y, %yh, %yc = graph.dynamic_rnn %x, %w, %r, %b, %h, %h, %p hidden_size 3 activations "Sigmoid,Tanh,Tanh" activation_alpha [0.0, 0.0, 0.0] activation_beta [0.0, 0.0, 0.0] : (tensor<2x1x4xf32>, tensor<1x12x4xf32>, tensor<1x12x3xf32>, tensor<1x24xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x9xf32>) -> (tensor<2x1x1x3xf32>, tensor<1x1x3xf32>, tensor<1x1x3xf32>)
  %a, %k, %v, %qk = graph.fused_infer_attention_score %q, %q, %q is_causal true : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x3xf32>)
  graph.net_output %yh, %a : tensor<1x1x3xf32>, tensor<1x2x3x4xf32>
}

// CHECK-LABEL: graph.graph @sequence
// CHECK:         graph.dynamic_rnn {{.*}} {_engine_name = "AIcoreEngine"}
// CHECK:         graph.fused_infer_attention_score {{.*}} {_engine_name = "AIcoreEngine"}

// -----

// Tests that Unique's data-dependent outputs put it on AI CPU in an unknown-shape partition,
// beside a static-shape op on AI Core.

graph.graph @unique(%x: tensor<6xf32>) -> (tensor<?xf32>, tensor<6xf32>) {
  %y, %i, %inv, %n = graph.unique_with_counts_and_sorting %x : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  %r = graph.relu %x : (tensor<6xf32>) -> tensor<6xf32>
  graph.net_output %y, %r : tensor<?xf32>, tensor<6xf32>
}

// CHECK-LABEL: graph.graph @unique
// CHECK:         graph.unique_with_counts_and_sorting {{.*}} {_engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.relu {{.*}} {_engine_name = "AIcoreEngine"}

// DYN-LABEL: graph.graph @unique
// DYN:         graph.unique_with_counts_and_sorting {{.*}}_is_unknown_shape = true

// -----

// Tests that GRU (GE DynamicGRUV2) and RNN (GE RNN) land on AI Core beside the LSTM's DynamicRNN.

graph.graph @gru_and_rnn(%x: tensor<2x1x4xf32>, %wg: tensor<1x9x4xf32>, %rg: tensor<1x9x3xf32>, %bg: tensor<1x18xf32>, %h: tensor<1x1x3xf32>, %wr: tensor<1x3x4xf32>, %rr: tensor<1x3x3xf32>, %br: tensor<1x6xf32>) -> (tensor<1x1x3xf32>, tensor<1x1x3xf32>) {
  %y, %yh = graph.dynamic_gruv2 %x, %wg, %rg, %bg, %h hidden_size 3 activations "Sigmoid,Tanh" activation_alpha [0.0, 0.0] activation_beta [0.0, 0.0] : (tensor<2x1x4xf32>, tensor<1x9x4xf32>, tensor<1x9x3xf32>, tensor<1x18xf32>, tensor<1x1x3xf32>) -> (tensor<2x1x1x3xf32>, tensor<1x1x3xf32>)
  %z, %zh = graph.rnn %x, %wr, %rr, %br, %h hidden_size 3 activations "Tanh" activation_alpha [0.0] activation_beta [0.0] : (tensor<2x1x4xf32>, tensor<1x3x4xf32>, tensor<1x3x3xf32>, tensor<1x6xf32>, tensor<1x1x3xf32>) -> (tensor<2x1x1x3xf32>, tensor<1x1x3xf32>)
  graph.net_output %yh, %zh : tensor<1x1x3xf32>, tensor<1x1x3xf32>
}

// CHECK-LABEL: graph.graph @gru_and_rnn
// CHECK:         graph.dynamic_gruv2 {{.*}} {_engine_name = "AIcoreEngine"}
// CHECK:         graph.rnn {{.*}} {_engine_name = "AIcoreEngine"}

// -----

// Tests that ge-fuse-quant's int8 Conv2D, MatMul and BatchMatMulV2 (int8/uint8 x, int8 weight, int32 bias and
// result) and AscendDequant land on AI Core, while a Conv2D on int32 tensors, which no TBE
// convolution takes, falls to AI CPU.

graph.graph @int8_products(%x: tensor<1x2x3x3xui8>, %w: tensor<4x2x1x1xi8>, %b: tensor<4xi32>, %a: tensor<2x3xi8>, %m: tensor<3x4xi8>, %s: tensor<4xf32>, %xi: tensor<1x2x3x3xi32>, %wi: tensor<4x2x1x1xi32>) -> (tensor<1x4x3x3xi32>, tensor<2x4xf32>, tensor<1x4x3x3xi32>, tensor<2x4xi32>) {
  %c = graph.conv2d %x, %w, %b strides [1, 1, 1, 1] offset_x 128 : (tensor<1x2x3x3xui8>, tensor<4x2x1x1xi8>, tensor<4xi32>) -> tensor<1x4x3x3xi32>
  %p = graph.matmul %a, %m, %b : (tensor<2x3xi8>, tensor<3x4xi8>, tensor<4xi32>) -> tensor<2x4xi32>
  %y = graph.ascend_dequant %p, %s relu_flag true : (tensor<2x4xi32>, tensor<4xf32>) -> tensor<2x4xf32>
  %ci = graph.conv2d %xi, %wi strides [1, 1, 1, 1] : (tensor<1x2x3x3xi32>, tensor<4x2x1x1xi32>) -> tensor<1x4x3x3xi32>
  %bm = graph.batch_mat_mul_v2 %a, %m : (tensor<2x3xi8>, tensor<3x4xi8>) -> tensor<2x4xi32>
  graph.net_output %c, %y, %ci, %bm : tensor<1x4x3x3xi32>, tensor<2x4xf32>, tensor<1x4x3x3xi32>, tensor<2x4xi32>
}

// CHECK-LABEL: graph.graph @int8_products
// CHECK:         graph.conv2d {{.*}} offset_x 128 {_engine_name = "AIcoreEngine"}
// CHECK:         graph.matmul {{.*}} {_engine_name = "AIcoreEngine"}
// CHECK:         graph.ascend_dequant {{.*}} {_engine_name = "AIcoreEngine"}
// CHECK:         graph.conv2d {{.*}} {_engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.batch_mat_mul_v2 {{.*}} {_engine_name = "AIcoreEngine"}
