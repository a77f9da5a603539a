// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests NC1HWC0 (5HD) with C0 16 for f16: 3 channels pad to one C1 block of 16.
// CHECK-LABEL: graph.graph @nc1hwc0_f16
// CHECK-NEXT:    %[[Y:.*]] = graph.trans_data %{{.*}} src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf16>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[Y]] : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
// CHECK-NEXT:    %{{.*}} = graph.trans_data %[[R]] src_format "NC1HWC0" dst_format "NCHW" : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x4x4xf16>
// GENERIC-LABEL: sym_name = "nc1hwc0_f16"
// GENERIC:       "graph.trans_data"(%{{.*}}) <{src_format = "NCHW", dst_format = "NC1HWC0"}> : (tensor<1x3x4x4xf16>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
graph.graph @nc1hwc0_f16(%x: tensor<1x3x4x4xf16>) -> tensor<1x3x4x4xf16> {
  %y = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf16>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %r = graph.relu %y : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %z = graph.trans_data %r src_format "NC1HWC0" dst_format "NCHW" : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x4x4xf16>
  graph.net_output %z : tensor<1x3x4x4xf16>
}

// -----

// Tests C0 32 for int8 and an NHWC origin: [2, 5, 5, 40] is C1 = ceil(40 / 32) = 2.
// CHECK-LABEL: graph.graph @nc1hwc0_i8_nhwc
// CHECK-NEXT:    graph.trans_data %{{.*}} src_format "NHWC" dst_format "NC1HWC0" : (tensor<2x5x5x40xi8>) -> tensor<2x2x5x5x32xi8, #graph.format<NC1HWC0 origin NHWC [2, 5, 5, 40]>>
graph.graph @nc1hwc0_i8_nhwc(%x: tensor<2x5x5x40xi8>) {
  %y = graph.trans_data %x src_format "NHWC" dst_format "NC1HWC0" : (tensor<2x5x5x40xi8>) -> tensor<2x2x5x5x32xi8, #graph.format<NC1HWC0 origin NHWC [2, 5, 5, 40]>>
  graph.net_output
}

// -----

// Tests FRACTAL_Z of a conv filter [20, 3, 3, 3]: [C1*H*W, N1, 16, C0] = [9, 2, 16, 16].
// CHECK-LABEL: graph.graph @fractal_z
// CHECK-NEXT:    graph.trans_data %{{.*}} src_format "NCHW" dst_format "FRACTAL_Z" : (tensor<20x3x3x3xf32>) -> tensor<9x2x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [20, 3, 3, 3]>>
graph.graph @fractal_z(%w: tensor<20x3x3x3xf32>) {
  %z = graph.trans_data %w src_format "NCHW" dst_format "FRACTAL_Z" : (tensor<20x3x3x3xf32>) -> tensor<9x2x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [20, 3, 3, 3]>>
  graph.net_output
}

// -----

// Tests FRACTAL_NZ of [2, 20, 33]: [..., ceil(W/16), ceil(H/16), 16, 16] = [2, 3, 2, 16, 16], and of a 1-D [5].
// CHECK-LABEL: graph.graph @fractal_nz
// CHECK-NEXT:    graph.trans_data %{{.*}} src_format "ND" dst_format "FRACTAL_NZ" : (tensor<2x20x33xf32>) -> tensor<2x3x2x16x16xf32, #graph.format<FRACTAL_NZ origin ND [2, 20, 33]>>
// CHECK-NEXT:    graph.trans_data %{{.*}} src_format "ND" dst_format "FRACTAL_NZ" : (tensor<5xf16>) -> tensor<1x1x16x16xf16, #graph.format<FRACTAL_NZ origin ND [5]>>
graph.graph @fractal_nz(%a: tensor<2x20x33xf32>, %b: tensor<5xf16>) {
  %z = graph.trans_data %a src_format "ND" dst_format "FRACTAL_NZ" : (tensor<2x20x33xf32>) -> tensor<2x3x2x16x16xf32, #graph.format<FRACTAL_NZ origin ND [2, 20, 33]>>
  %v = graph.trans_data %b src_format "ND" dst_format "FRACTAL_NZ" : (tensor<5xf16>) -> tensor<1x1x16x16xf16, #graph.format<FRACTAL_NZ origin ND [5]>>
  graph.net_output
}

// -----

// Tests NCHW -> NHWC storage of an NCHW tensor and a heavy-format Conv2D (x/y NC1HWC0, filter FRACTAL_Z).
// CHECK-LABEL: graph.graph @conv_5hd
// CHECK:         graph.trans_data %{{.*}} src_format "NCHW" dst_format "NHWC" : (tensor<1x3x5x5xf32>) -> tensor<1x5x5x3xf32, #graph.format<NHWC origin NCHW [1, 3, 5, 5]>>
// CHECK:         graph.conv2d %{{.*}}, %{{.*}} strides [1, 1, 1, 1] : (tensor<1x1x5x5x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 5, 5]>>, tensor<9x2x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [20, 3, 3, 3]>>) -> tensor<1x2x3x3x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 20, 3, 3]>>
graph.graph @conv_5hd(%x: tensor<1x3x5x5xf32>, %w: tensor<20x3x3x3xf32>) {
  %h = graph.trans_data %x src_format "NCHW" dst_format "NHWC" : (tensor<1x3x5x5xf32>) -> tensor<1x5x5x3xf32, #graph.format<NHWC origin NCHW [1, 3, 5, 5]>>
  %x5 = graph.trans_data %h src_format "NHWC" dst_format "NC1HWC0" : (tensor<1x5x5x3xf32, #graph.format<NHWC origin NCHW [1, 3, 5, 5]>>) -> tensor<1x1x5x5x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 5, 5]>>
  %wz = graph.trans_data %w src_format "NCHW" dst_format "FRACTAL_Z" : (tensor<20x3x3x3xf32>) -> tensor<9x2x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [20, 3, 3, 3]>>
  %c = graph.conv2d %x5, %wz strides [1, 1, 1, 1] : (tensor<1x1x5x5x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 5, 5]>>, tensor<9x2x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [20, 3, 3, 3]>>) -> tensor<1x2x3x3x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 20, 3, 3]>>
  graph.net_output
}

// -----

// Tests a constant stored in NC1HWC0 (a folded weight TransData) keeps its padded bytes.
// CHECK-LABEL: graph.graph @const_5hd
// CHECK-NEXT:    graph.const dense<{{.*}}> : tensor<1x1x1x1x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 2, 1, 1]>>
graph.graph @const_5hd() {
  %c = graph.const dense<[[[[[1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]]]> : tensor<1x1x1x1x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 2, 1, 1]>>
  graph.net_output
}
