// RUN: ge-opt %s -p ge-fold-trans-data | filecheck %s

// Tests a weight's whole trans-node chain folded (ge-select-formats' Cast -> TransData under
// force_fp16): the Cast of the Const, on its way into a TransData, folds first, then the
// TransData: one float16 FRACTAL_Z Const; a Cast of a Const read by other nodes stays.
// CHECK-LABEL: graph.graph @chain
// CHECK:         %[[W:.*]] = graph.const dense<"0x{{[0-9A-F]+}}"> : tensor<1x1x16x16xf16, #graph.format<FRACTAL_Z origin NCHW [4, 3, 1, 1]>> {node_name = "w_Cast_FRACTAL_Z"}
// CHECK:         graph.conv2d %{{.*}}, %[[W]]
// CHECK:         graph.cast %{{.*}} dst_type f16 : (tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf16>
// CHECK-NOT:     graph.trans_data %{{.*}} src_format "NCHW" dst_format "FRACTAL_Z"
graph.graph @chain(%x: tensor<1x3x4x4xf16>) -> (tensor<1x4x4x4xf16>, tensor<1x4x1x1xf16>) {
  %w = graph.const dense<0.5> : tensor<4x3x1x1xf32> {node_name = "w"}
  %b = graph.const dense<0.25> : tensor<1x4x1x1xf32> {node_name = "b"}
  %x5 = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf16>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %wh = graph.cast %w dst_type f16 : (tensor<4x3x1x1xf32>) -> tensor<4x3x1x1xf16>
  %wz = graph.trans_data %wh src_format "NCHW" dst_format "FRACTAL_Z" : (tensor<4x3x1x1xf16>) -> tensor<1x1x16x16xf16, #graph.format<FRACTAL_Z origin NCHW [4, 3, 1, 1]>>
  %c = graph.conv2d %x5, %wz strides [1, 1, 1, 1] : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>, tensor<1x1x16x16xf16, #graph.format<FRACTAL_Z origin NCHW [4, 3, 1, 1]>>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
  %y = graph.trans_data %c src_format "NC1HWC0" dst_format "NCHW" : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>) -> tensor<1x4x4x4xf16>
  %bh = graph.cast %b dst_type f16 : (tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf16>
  graph.net_output %y, %bh : tensor<1x4x4x4xf16>, tensor<1x4x1x1xf16>
}
