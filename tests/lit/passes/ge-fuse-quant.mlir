// RUN: ge-opt %s -p ge-fuse-quant --split-input-file | filecheck %s
// RUN: ge-opt %s -p ge-fuse-quant --split-input-file -vv 2>&1 >/dev/null | filecheck %s --check-prefix=LOG

// Tests a uint8 activation with zero point 128, a per-channel int8 filter, a padded window, a QDQ int32 bias and a ReLU: offset_x is the zero point, the bias is b_q - 128 * sum(w_q[o]), deq_scale = x_scale * w_scale, the ReLU is relu_flag.
// CHECK-LABEL: graph.graph @conv_per_channel
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x4x4xui8>)
// CHECK:         %[[W:.*]] = graph.const {{.*}} : tensor<3x2x3x3xi8>
// CHECK-NEXT:    %[[B:.*]] = graph.const dense<[-758, -1172, -98]> : tensor<3xi32> {node_name = "conv/bias"}
// CHECK-NEXT:    %[[C:.*]] = graph.conv2d %[[X]], %[[W]], %[[B]] strides [1, 1, 1, 1] pads [1, 1, 1, 1] offset_x 128 {node_name = "conv"} : (tensor<1x2x4x4xui8>, tensor<3x2x3x3xi8>, tensor<3xi32>) -> tensor<1x3x4x4xi32>
// CHECK-NEXT:    %[[S:.*]] = graph.const dense<{{\[\[\[\[}}1.250000e-01]], {{\[\[}}6.250000e-02]], {{\[\[}}2.500000e-01]]]]> : tensor<1x3x1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.ascend_dequant %[[C]], %[[S]] relu_flag true {node_name = "conv/dequant"}
// CHECK-NEXT:    graph.net_output %[[Y]]
// CHECK-NOT:     graph.ascend_anti_quant_v2
graph.graph @conv_per_channel(%xq: tensor<1x2x4x4xui8>) -> tensor<1x3x4x4xf32> {
  %sx = graph.const dense<0.5> : tensor<f32>
  %ox = graph.const dense<-128.0> : tensor<f32>
  %x = graph.ascend_anti_quant_v2 %xq, %sx, %ox : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %wq = graph.const dense<[[[[1, -2, 3], [0, 1, 0], [2, 2, -1]], [[1, 1, 1], [0, 0, 0], [-1, -1, -1]]], [[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[2, 0, 0], [0, 2, 0], [0, 0, 2]]], [[[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], [[0, 0, 0], [0, 1, 0], [0, 0, 0]]]]> : tensor<3x2x3x3xi8>
  %sw = graph.const dense<[0.25, 0.125, 0.5]> : tensor<3xf32>
  %w = graph.ascend_anti_quant_v2 %wq, %sw axis 0 : (tensor<3x2x3x3xi8>, tensor<3xf32>) -> tensor<3x2x3x3xf32>
  %bq = graph.const dense<[10, -20, 30]> : tensor<3xi32>
  %sb = graph.const dense<[0.125, 0.0625, 0.25]> : tensor<3xf32>
  %b = graph.ascend_anti_quant_v2 %bq, %sb axis 0 : (tensor<3xi32>, tensor<3xf32>) -> tensor<3xf32>
  %c = graph.conv2d %x, %w, %b strides [1, 1, 1, 1] pads [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  %r = graph.relu %c : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  graph.net_output %r : tensor<1x3x4x4xf32>
}

// -----

// Tests a symmetric int8 activation shared by two strided convolutions with one scale each and no bias: both fuse (bias 0, no offset_x), the activation's dequantisation goes with the second.
// CHECK-LABEL: graph.graph @conv_per_tensor_shared
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1x5x5xi8>)
// CHECK:         %[[B1:.*]] = graph.const dense<0> : tensor<2xi32>
// CHECK-NEXT:    %[[C1:.*]] = graph.conv2d %[[X]], %{{.*}}, %[[B1]] strides [1, 1, 2, 2] : (tensor<1x1x5x5xi8>, tensor<2x1x2x2xi8>, tensor<2xi32>) -> tensor<1x2x2x2xi32>
// CHECK-NEXT:    %[[S1:.*]] = graph.const dense<7.500000e-01> : tensor<f32>
// CHECK-NEXT:    %[[Y1:.*]] = graph.ascend_dequant %[[C1]], %[[S1]] :
// CHECK:         graph.conv2d %[[X]], %{{.*}}, %{{.*}} strides [1, 1, 2, 2] : (tensor<1x1x5x5xi8>, tensor<2x1x2x2xi8>, tensor<2xi32>) -> tensor<1x2x2x2xi32>
// CHECK:         graph.ascend_dequant
// CHECK-NOT:     graph.ascend_anti_quant_v2
graph.graph @conv_per_tensor_shared(%xq: tensor<1x1x5x5xi8>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %sx = graph.const dense<1.5> : tensor<f32>
  %x = graph.ascend_anti_quant_v2 %xq, %sx : (tensor<1x1x5x5xi8>, tensor<f32>) -> tensor<1x1x5x5xf32>
  %wq = graph.const dense<[[[[1, 2], [3, 4]]], [[[-4, 3], [-2, 1]]]]> : tensor<2x1x2x2xi8>
  %sw = graph.const dense<0.5> : tensor<f32>
  %w = graph.ascend_anti_quant_v2 %wq, %sw : (tensor<2x1x2x2xi8>, tensor<f32>) -> tensor<2x1x2x2xf32>
  %c1 = graph.conv2d %x, %w strides [1, 1, 2, 2] : (tensor<1x1x5x5xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  %sw2 = graph.const dense<0.25> : tensor<f32>
  %w2 = graph.ascend_anti_quant_v2 %wq, %sw2 : (tensor<2x1x2x2xi8>, tensor<f32>) -> tensor<2x1x2x2xf32>
  %c2 = graph.conv2d %x, %w2 strides [1, 1, 2, 2] : (tensor<1x1x5x5xf32>, tensor<2x1x2x2xf32>) -> tensor<1x2x2x2xf32>
  graph.net_output %c1, %c2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Tests a Gemm (transB) with a uint8 activation of zero point 3, per-row (N) weight scales and a QDQ bias: the zero point's correction -3 * sum_k(w_q[n, k]) joins the bias, deq_scale is 1-D of N.
// CHECK-LABEL: graph.graph @gemm_per_channel
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xui8>)
// CHECK:         %[[B:.*]] = graph.const dense<[-17, 2]> : tensor<2xi32>
// CHECK-NEXT:    %[[M:.*]] = graph.matmul %[[A]], %{{.*}}, %[[B]] transpose_x2 true {node_name = "fc"} : (tensor<2x3xui8>, tensor<2x3xi8>, tensor<2xi32>) -> tensor<2x2xi32>
// CHECK-NEXT:    %[[S:.*]] = graph.const dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.ascend_dequant %[[M]], %[[S]] {node_name = "fc/dequant"}
// CHECK-NEXT:    graph.net_output %[[Y]]
graph.graph @gemm_per_channel(%aq: tensor<2x3xui8>) -> tensor<2x2xf32> {
  %sa = graph.const dense<0.5> : tensor<f32>
  %oa = graph.const dense<-3.0> : tensor<f32>
  %a = graph.ascend_anti_quant_v2 %aq, %sa, %oa : (tensor<2x3xui8>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
  %wq = graph.const dense<[[1, 2, 3], [-1, 0, 1]]> : tensor<2x3xi8>
  %sw = graph.const dense<[0.2, 0.4]> : tensor<2xf32>
  %w = graph.ascend_anti_quant_v2 %wq, %sw axis 0 : (tensor<2x3xi8>, tensor<2xf32>) -> tensor<2x3xf32>
  %bq = graph.const dense<[1, 2]> : tensor<2xi32>
  %sb = graph.const dense<[0.1, 0.2]> : tensor<2xf32>
  %b = graph.ascend_anti_quant_v2 %bq, %sb axis 0 : (tensor<2xi32>, tensor<2xf32>) -> tensor<2xf32>
  %y = graph.matmul %a, %w, %b transpose_x2 true {node_name = "fc"} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  graph.net_output %y : tensor<2x2xf32>
}

// -----

// Tests a MatMul [K, N] weight with one scale and no bias.
// CHECK-LABEL: graph.graph @matmul_per_tensor
// CHECK:         graph.matmul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x3xi8>, tensor<3x2xi8>, tensor<2xi32>) -> tensor<4x2xi32>
// CHECK-NEXT:    graph.const dense<1.250000e-01> : tensor<f32>
// CHECK-NEXT:    graph.ascend_dequant
graph.graph @matmul_per_tensor(%aq: tensor<4x3xi8>) -> tensor<4x2xf32> {
  %sa = graph.const dense<0.25> : tensor<f32>
  %a = graph.ascend_anti_quant_v2 %aq, %sa : (tensor<4x3xi8>, tensor<f32>) -> tensor<4x3xf32>
  %wq = graph.const dense<[[1, -1], [2, -2], [3, -3]]> : tensor<3x2xi8>
  %sw = graph.const dense<0.5> : tensor<f32>
  %w = graph.ascend_anti_quant_v2 %wq, %sw : (tensor<3x2xi8>, tensor<f32>) -> tensor<3x2xf32>
  %y = graph.matmul %a, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  graph.net_output %y : tensor<4x2xf32>
}

// -----

// Tests what stays, each with its reason in the debug log: a weight zero point, a run-time bias, per-axis activation scales, a run-time weight, a MatMul weight scale along K, a float16 product.
// CHECK-LABEL: graph.graph @kept
// CHECK-NOT:     graph.ascend_dequant
// CHECK-COUNT-2: graph.conv2d %{{.*}} : (tensor<1x2x3x3xf32>
// CHECK-NOT:     graph.ascend_dequant
// LOG-DAG: ge-fuse-quant: 'zero_w' not fused: the weight zero point is not 0
// LOG-DAG: ge-fuse-quant: 'runtime_bias' not fused: the bias is neither constant nor dequantised
// LOG-DAG: ge-fuse-quant: 'axis_x' not fused: the activation scale is not one constant value (per-axis activations)
// LOG-DAG: ge-fuse-quant: 'runtime_w' not fused: the weight is not a constant int8 tensor
// LOG-DAG: ge-fuse-quant: 'k_scale' not fused: the weight scale is per-axis on axis 0, not 1
// LOG-DAG: ge-fuse-quant: 'half' not fused: the activation is f16, not float32
graph.graph @kept(%xq: tensor<1x2x3x3xi8>, %rw: tensor<2x2x1x1xi8>, %aq: tensor<2x2xi8>, %fb: tensor<2xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<2x2xf32>, tensor<2x2xf16>) {
  %sx = graph.const dense<0.5> : tensor<f32>
  %x = graph.ascend_anti_quant_v2 %xq, %sx : (tensor<1x2x3x3xi8>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %wq = graph.const dense<[[[[1]], [[2]]], [[[3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %sw = graph.const dense<0.25> : tensor<f32>
  %ow = graph.const dense<-1.0> : tensor<f32>
  %wz = graph.ascend_anti_quant_v2 %wq, %sw, %ow : (tensor<2x2x1x1xi8>, tensor<f32>, tensor<f32>) -> tensor<2x2x1x1xf32>
  %c1 = graph.conv2d %x, %wz strides [1, 1, 1, 1] {node_name = "zero_w"} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %w = graph.ascend_anti_quant_v2 %wq, %sw : (tensor<2x2x1x1xi8>, tensor<f32>) -> tensor<2x2x1x1xf32>
  %c2 = graph.conv2d %x, %w, %fb strides [1, 1, 1, 1] {node_name = "runtime_bias"} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %sxc = graph.const dense<[0.5, 0.25]> : tensor<2xf32>
  %xc = graph.ascend_anti_quant_v2 %xq, %sxc : (tensor<1x2x3x3xi8>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %c3 = graph.conv2d %xc, %w strides [1, 1, 1, 1] {node_name = "axis_x"} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %rwd = graph.ascend_anti_quant_v2 %rw, %sw : (tensor<2x2x1x1xi8>, tensor<f32>) -> tensor<2x2x1x1xf32>
  %c4 = graph.conv2d %x, %rwd strides [1, 1, 1, 1] {node_name = "runtime_w"} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  %sa = graph.const dense<0.5> : tensor<f32>
  %a = graph.ascend_anti_quant_v2 %aq, %sa : (tensor<2x2xi8>, tensor<f32>) -> tensor<2x2xf32>
  %mq = graph.const dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %sk = graph.const dense<[0.5, 0.25]> : tensor<2xf32>
  %m = graph.ascend_anti_quant_v2 %mq, %sk axis 0 : (tensor<2x2xi8>, tensor<2xf32>) -> tensor<2x2xf32>
  %y = graph.matmul %a, %m {node_name = "k_scale"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %sh = graph.const dense<0.5> : tensor<f16>
  %ah = graph.ascend_anti_quant_v2 %aq, %sh : (tensor<2x2xi8>, tensor<f16>) -> tensor<2x2xf16>
  %mh = graph.ascend_anti_quant_v2 %mq, %sh : (tensor<2x2xi8>, tensor<f16>) -> tensor<2x2xf16>
  %h = graph.matmul %ah, %mh {node_name = "half"} : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
  graph.net_output %c1, %c2, %c3, %c4, %y, %h : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<2x2xf32>, tensor<2x2xf16>
}

// -----

// Tests a float constant bias (PyTorch's QDQ exports) and an int32 bias of another scale: each is added in float after AscendDequant, as the float graph adds it (the second in the values AscendAntiQuantV2 gives, 3 * 0.5 and 4 * 0.5).
// CHECK-LABEL: graph.graph @float_biases
// CHECK:         %[[C:.*]] = graph.conv2d %{{.*}}, %{{.*}}, %{{.*}} strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x2x3x3xi8>, tensor<2x2x1x1xi8>, tensor<2xi32>) -> tensor<1x2x3x3xi32>
// CHECK:         %[[D:.*]] = graph.ascend_dequant %[[C]], %{{.*}} {node_name = "conv/dequant"}
// CHECK-NEXT:    %[[B:.*]] = graph.const dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}1.500000e+00]]]]> : tensor<1x2x1x1xf32> {node_name = "conv/float_bias"}
// CHECK-NEXT:    %[[Y:.*]] = graph.add %[[D]], %[[B]] {node_name = "conv/bias_add"}
// CHECK:         %[[M:.*]] = graph.matmul
// CHECK:         %[[E:.*]] = graph.ascend_dequant %[[M]]
// CHECK-NEXT:    %[[F:.*]] = graph.const dense<[1.500000e+00, 2.000000e+00]> : tensor<2xf32> {node_name = "fc/float_bias"}
// CHECK-NEXT:    %[[Z:.*]] = graph.add %[[E]], %[[F]]
// CHECK-NEXT:    graph.net_output %[[Y]], %[[Z]]
// CHECK-NOT:     graph.ascend_anti_quant_v2
graph.graph @float_biases(%xq: tensor<1x2x3x3xi8>, %aq: tensor<2x2xi8>) -> (tensor<1x2x3x3xf32>, tensor<2x2xf32>) {
  %sx = graph.const dense<0.5> : tensor<f32>
  %x = graph.ascend_anti_quant_v2 %xq, %sx : (tensor<1x2x3x3xi8>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %wq = graph.const dense<[[[[1]], [[2]]], [[[3]], [[4]]]]> : tensor<2x2x1x1xi8>
  %sw = graph.const dense<0.25> : tensor<f32>
  %w = graph.ascend_anti_quant_v2 %wq, %sw : (tensor<2x2x1x1xi8>, tensor<f32>) -> tensor<2x2x1x1xf32>
  %fb = graph.const dense<[0.5, 1.5]> : tensor<2xf32>
  %c = graph.conv2d %x, %w, %fb strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %a = graph.ascend_anti_quant_v2 %aq, %sx : (tensor<2x2xi8>, tensor<f32>) -> tensor<2x2xf32>
  %mq = graph.const dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
  %m = graph.ascend_anti_quant_v2 %mq, %sw : (tensor<2x2xi8>, tensor<f32>) -> tensor<2x2xf32>
  %bq = graph.const dense<[3, 4]> : tensor<2xi32>
  %b = graph.ascend_anti_quant_v2 %bq, %sx : (tensor<2xi32>, tensor<f32>) -> tensor<2xf32>
  %y = graph.matmul %a, %m, %b {node_name = "fc"} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  graph.net_output %c, %y : tensor<1x2x3x3xf32>, tensor<2x2xf32>
}

// -----

// Tests a float weight quantised in the graph (Quantize -> AscendAntiQuantV2, as fake-quantised exports write it): the int8 weight is computed at rewrite time (0.5, 1.0, -0.25, 2.0 in steps of 0.25) and the Quantize goes.
// CHECK-LABEL: graph.graph @quantized_in_graph
// CHECK:         %[[W:.*]] = graph.const dense<{{\[\[\[\[}}2]], {{\[\[}}4]]], {{\[\[\[}}-1]], {{\[\[}}8]]]]> : tensor<2x2x1x1xi8> {node_name = "conv/filter"}
// CHECK-NEXT:    graph.conv2d %{{.*}}, %[[W]], %{{.*}} strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x2x3x3xi8>, tensor<2x2x1x1xi8>, tensor<2xi32>) -> tensor<1x2x3x3xi32>
// CHECK-NOT:     graph.quantize
graph.graph @quantized_in_graph(%xq: tensor<1x2x3x3xi8>) -> tensor<1x2x3x3xf32> {
  %sx = graph.const dense<0.5> : tensor<f32>
  %x = graph.ascend_anti_quant_v2 %xq, %sx : (tensor<1x2x3x3xi8>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %wf = graph.const dense<[[[[0.5]], [[1.0]]], [[[-0.25]], [[2.0]]]]> : tensor<2x2x1x1xf32>
  %sw = graph.const dense<0.25> : tensor<f32>
  %zw = graph.const dense<0> : tensor<i8>
  %wq = graph.quantize %wf, %sw, %zw : (tensor<2x2x1x1xf32>, tensor<f32>, tensor<i8>) -> tensor<2x2x1x1xi8>
  %w = graph.ascend_anti_quant_v2 %wq, %sw : (tensor<2x2x1x1xi8>, tensor<f32>) -> tensor<2x2x1x1xf32>
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  graph.net_output %c : tensor<1x2x3x3xf32>
}

// -----

// Tests a batch of activations by one weight (ONNX MatMul of [B, S, K]: BatchMatMulV2) with a uint8 zero point 2 and per-N scales: the same correction, deq_scale on the last dim.
// CHECK-LABEL: graph.graph @batch_matmul
// CHECK:         %[[B:.*]] = graph.const dense<[-12, 0]> : tensor<2xi32>
// CHECK-NEXT:    %[[M:.*]] = graph.batch_mat_mul_v2 %{{.*}}, %{{.*}}, %[[B]] : (tensor<2x3x3xui8>, tensor<3x2xi8>, tensor<2xi32>) -> tensor<2x3x2xi32>
// CHECK-NEXT:    %[[S:.*]] = graph.const dense<[2.500000e-01, 1.250000e-01]> : tensor<2xf32>
// CHECK-NEXT:    graph.ascend_dequant %[[M]], %[[S]] : (tensor<2x3x2xi32>, tensor<2xf32>) -> tensor<2x3x2xf32>
graph.graph @batch_matmul(%aq: tensor<2x3x3xui8>) -> tensor<2x3x2xf32> {
  %sa = graph.const dense<0.5> : tensor<f32>
  %oa = graph.const dense<-2.0> : tensor<f32>
  %a = graph.ascend_anti_quant_v2 %aq, %sa, %oa : (tensor<2x3x3xui8>, tensor<f32>, tensor<f32>) -> tensor<2x3x3xf32>
  %wq = graph.const dense<[[1, -1], [2, 0], [3, 1]]> : tensor<3x2xi8>
  %sw = graph.const dense<[0.5, 0.25]> : tensor<2xf32>
  %w = graph.ascend_anti_quant_v2 %wq, %sw axis 1 : (tensor<3x2xi8>, tensor<2xf32>) -> tensor<3x2xf32>
  %y = graph.batch_mat_mul_v2 %a, %w : (tensor<2x3x3xf32>, tensor<3x2xf32>) -> tensor<2x3x2xf32>
  graph.net_output %y : tensor<2x3x2xf32>
}
