// RUN: ge-opt %s --split-input-file -p ge-merge-trans-op-breadth | filecheck %s

// Tests two equal TransData on one output merging onto the first.
// CHECK-LABEL: graph.graph @two_readers
// CHECK-NEXT:    %[[A:.*]] = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" {node_name = "t0"}
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[A]]
// CHECK-NEXT:    %[[S:.*]] = graph.sigmoid %[[A]]
// CHECK-NOT:     "t1"
graph.graph @two_readers(%x: tensor<1x3x4x4xf32>) {
  %a = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" {node_name = "t0"} : (tensor<1x3x4x4xf32>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %r = graph.relu %a : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %b = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" {node_name = "t1"} : (tensor<1x3x4x4xf32>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %s = graph.sigmoid %b : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  "test.op"(%r, %s) : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>, tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> ()
  graph.net_output
}

// -----

// Tests that trans ops with different ids (another dst_format, another dtype) stay apart.
// CHECK-LABEL: graph.graph @different
// CHECK-COUNT-2: graph.trans_data
// CHECK-COUNT-2: graph.cast
graph.graph @different(%x: tensor<1x3x4x4xf32>) {
  %a = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf32>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %b = graph.trans_data %x src_format "NCHW" dst_format "FRACTAL_NZ" : (tensor<1x3x4x4xf32>) -> tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>
  %c = graph.cast %x dst_type f16 : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf16>
  %d = graph.cast %x dst_type i32 : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xi32>
  "test.op"(%a, %b, %c, %d) : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>, tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>, tensor<1x3x4x4xf16>, tensor<1x3x4x4xi32>) -> ()
  graph.net_output
}

// -----

// Tests equal Casts of a graph input merging too.
// CHECK-LABEL: graph.graph @casts
// CHECK-NEXT:    %[[C:.*]] = graph.cast %x dst_type f16
// CHECK-NEXT:    "test.op"(%[[C]], %[[C]])
graph.graph @casts(%x: tensor<4xf32>) {
  %a = graph.cast %x dst_type f16 : (tensor<4xf32>) -> tensor<4xf16>
  %b = graph.cast %x dst_type f16 : (tensor<4xf32>) -> tensor<4xf16>
  "test.op"(%a, %b) : (tensor<4xf16>, tensor<4xf16>) -> ()
  graph.net_output
}
