// RUN: ge-opt %s -p ge-fold-trans-data | filecheck %s

// Tests the weights' TransData folded into their Consts: a filter read only by its TransData
// becomes one FRACTAL_Z Const named <const>_FRACTAL_Z; a Const that another node still reads
// in NCHW stays beside its folded 5HD copy; a TransData of a non-constant is left to run.
// CHECK-LABEL: graph.graph @weights
// CHECK:         %[[B:.*]] = graph.const dense<[{{.*}}]> : tensor<1x4x1x1xf32> {node_name = "b"}
// CHECK-NEXT:    %[[X5:.*]] = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0"
// CHECK-NEXT:    %[[W:.*]] = graph.const dense<"0x{{[0-9A-F]+}}"> : tensor<1x1x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [4, 3, 1, 1]>> {node_name = "w_FRACTAL_Z"}
// CHECK-NEXT:    %[[B5:.*]] = graph.const dense<{{\[\[\[\[\[}}1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01, 0.000000e+00, {{.*}}> : tensor<1x1x1x1x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 1, 1]>> {node_name = "b_NC1HWC0"}
// CHECK-NEXT:    %[[C:.*]] = graph.conv2d %[[X5]], %[[W]]
// CHECK-NEXT:    %[[S:.*]] = graph.add %[[C]], %[[B5]]
// CHECK-NEXT:    %[[Y:.*]] = graph.trans_data %[[S]] src_format "NC1HWC0" dst_format "NCHW"
// CHECK-NEXT:    graph.add %[[Y]], %[[B]]
// CHECK-NOT:     graph.const dense<{{.*}}> : tensor<4x3x1x1xf32>
graph.graph @weights(%x: tensor<1x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = graph.const dense<[[[[0.5]], [[-1.0]], [[2.0]]], [[[1.0]], [[0.25]], [[-0.5]]], [[[1.5]], [[1.0]], [[0.0]]], [[[-2.0]], [[0.5]], [[1.0]]]]> : tensor<4x3x1x1xf32> {node_name = "w"}
  %b = graph.const dense<[[[[0.1]], [[0.2]], [[0.3]], [[0.4]]]]> : tensor<1x4x1x1xf32> {node_name = "b"}
  %x5 = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf32>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %wz = graph.trans_data %w src_format "NCHW" dst_format "FRACTAL_Z" : (tensor<4x3x1x1xf32>) -> tensor<1x1x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [4, 3, 1, 1]>>
  %b5 = graph.trans_data %b src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x4x1x1xf32>) -> tensor<1x1x1x1x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 1, 1]>>
  %c = graph.conv2d %x5, %wz strides [1, 1, 1, 1] : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>, tensor<1x1x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [4, 3, 1, 1]>>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
  %s = graph.add %c, %b5 : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>, tensor<1x1x1x1x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 1, 1]>>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
  %y = graph.trans_data %s src_format "NC1HWC0" dst_format "NCHW" : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>) -> tensor<1x4x4x4xf32>
  %z = graph.add %y, %b : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %z : tensor<1x4x4x4xf32>
}
