// RUN: ge-opt %s --split-input-file -p ge-merge-trans-op-depth | filecheck %s

// Tests a chain NCHW -> NC1HWC0 -> FRACTAL_NZ collapsing to one TransData NCHW -> FRACTAL_NZ.
// CHECK-LABEL: graph.graph @two_transfers
// CHECK-NEXT:    %[[T:.*]] = graph.trans_data %x src_format "NCHW" dst_format "FRACTAL_NZ" {node_name = "t0"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>
// CHECK-NEXT:    "test.op"(%[[T]])
graph.graph @two_transfers(%x: tensor<1x3x4x4xf32>) {
  %a = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" {node_name = "t0"} : (tensor<1x3x4x4xf32>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %b = graph.trans_data %a src_format "NC1HWC0" dst_format "FRACTAL_NZ" {node_name = "t1"} : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>
  "test.op"(%b) : (tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>) -> ()
  graph.net_output
}

// -----

// Tests NC1HWC0 -> NCHW -> Cast -> NC1HWC0 becoming one Cast on the 5HD storage (f32 and f16 share C0 16).
// CHECK-LABEL: graph.graph @cast_between
// CHECK-NEXT:    %[[C:.*]] = graph.cast %x dst_type f16 : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
// CHECK-NEXT:    "test.op"(%[[C]])
// CHECK-NOT:     graph.trans_data
graph.graph @cast_between(%x: tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) {
  %a = graph.trans_data %x src_format "NC1HWC0" dst_format "NCHW" : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x4x4xf32>
  %c = graph.cast %a dst_type f16 : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf16>
  %b = graph.trans_data %c src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf16>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  "test.op"(%b) : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> ()
  graph.net_output
}

// -----

// Tests that a chain read in the middle is not a chain, and that two Casts stay (precision check).
// CHECK-LABEL: graph.graph @kept
// CHECK-COUNT-2: graph.trans_data
// CHECK:         graph.cast
// CHECK:         graph.cast
graph.graph @kept(%x: tensor<1x3x4x4xf32>, %y: tensor<4xf32>) {
  %a = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf32>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %b = graph.trans_data %a src_format "NC1HWC0" dst_format "FRACTAL_NZ" : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>
  %c = graph.cast %y dst_type f16 : (tensor<4xf32>) -> tensor<4xf16>
  %d = graph.cast %c dst_type f32 : (tensor<4xf16>) -> tensor<4xf32>
  "test.op"(%b, %a, %d) : (tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>, tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>, tensor<4xf32>) -> ()
  graph.net_output
}

// -----

// Tests a chain without a net change of format disappearing (the symmetry case reached by depth).
// CHECK-LABEL: graph.graph @round_trip
// CHECK-NEXT:    "test.op"(%x)
graph.graph @round_trip(%x: tensor<1x3x4x4xf32>) {
  %a = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf32>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %b = graph.trans_data %a src_format "NC1HWC0" dst_format "FRACTAL_NZ" : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>
  %c = graph.trans_data %b src_format "FRACTAL_NZ" dst_format "NCHW" : (tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x4x4xf32>
  "test.op"(%c) : (tensor<1x3x4x4xf32>) -> ()
  graph.net_output
}
