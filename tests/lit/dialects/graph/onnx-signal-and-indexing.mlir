// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests the ops of the second ONNX coverage round (issue 21): the spectral ops, each
// round-tripped through the custom and the generic form.

// CHECK-LABEL: graph.graph @spectral
// CHECK:         graph.dft %{{.*}} axis 1 onesided true : (tensor<1x10x1xf32>) -> tensor<1x6x2xf32>
// CHECK:         graph.dft %{{.*}} axis 1 inverse true onesided true : (tensor<1x6x2xf32>) -> tensor<1x10x1xf32>
// CHECK:         graph.dft %{{.*}} axis -2 dft_length 16 inverse true : (tensor<1x6x2xf32>) -> tensor<1x16x2xf32>
// CHECK:         graph.stft %{{.*}}, %{{.*}} frame_step 8 frame_length 16 : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
// CHECK:         graph.stft %{{.*}} frame_step 4 frame_length 8 onesided false : (tensor<2x16x2xf32>) -> tensor<2x3x8x2xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "spectral"
// GENERIC:       "graph.dft"(%{{.*}}) <{axis = 1 : i64, {{.*}}onesided = true{{.*}}}>
// GENERIC:       "graph.stft"(%{{.*}}, %{{.*}}) <{{{.*}}frame_length = 16 : i64{{.*}}}>
graph.graph @spectral(%x: tensor<1x10x1xf32>, %s: tensor<1x128x1xf32>, %w: tensor<16xf32>, %c: tensor<2x16x2xf32>) -> tensor<1x6x2xf32> {
  %f = graph.dft %x axis 1 onesided true : (tensor<1x10x1xf32>) -> tensor<1x6x2xf32>
  %r = graph.dft %f axis 1 inverse true onesided true : (tensor<1x6x2xf32>) -> tensor<1x10x1xf32>
  %p = graph.dft %f axis -2 dft_length 16 inverse true : (tensor<1x6x2xf32>) -> tensor<1x16x2xf32>
  %st = graph.stft %s, %w frame_step 8 frame_length 16 : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  %full = graph.stft %c frame_step 4 frame_length 8 onesided false : (tensor<2x16x2xf32>) -> tensor<2x3x8x2xf32>
  graph.net_output %f : tensor<1x6x2xf32>
}
