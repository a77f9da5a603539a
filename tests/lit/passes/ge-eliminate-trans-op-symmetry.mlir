// RUN: ge-opt %s --split-input-file -p ge-eliminate-trans-op-symmetry | filecheck %s

// Tests that NCHW -> NC1HWC0 -> NCHW cancels: both TransData go and Relu reads the input.
// CHECK-LABEL: graph.graph @trans_data_pair
// CHECK-NEXT:    %[[R:.*]] = graph.relu %x
// CHECK-NEXT:    "test.op"(%[[R]])
// CHECK-NOT:     graph.trans_data
graph.graph @trans_data_pair(%x: tensor<1x3x4x4xf32>) {
  %a = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf32>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %b = graph.trans_data %a src_format "NC1HWC0" dst_format "NCHW" : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x4x4xf32>
  %r = graph.relu %b : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  "test.op"(%r) : (tensor<1x3x4x4xf32>) -> ()
  graph.net_output
}

// -----

// Tests that the first TransData stays while another node reads it.
// CHECK-LABEL: graph.graph @first_still_read
// CHECK-NEXT:    %[[A:.*]] = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0"
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[A]]
// CHECK-NEXT:    "test.op"(%x, %[[R]])
graph.graph @first_still_read(%x: tensor<1x3x4x4xf32>) {
  %a = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf32>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %b = graph.trans_data %a src_format "NC1HWC0" dst_format "NCHW" : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x4x4xf32>
  %r = graph.relu %a : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  "test.op"(%b, %r) : (tensor<1x3x4x4xf32>, tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> ()
  graph.net_output
}

// -----

// Tests that TransData pairs that do not return to the input stay (NCHW -> NC1HWC0 -> FRACTAL_NZ).
// CHECK-LABEL: graph.graph @not_inverse
// CHECK-COUNT-2: graph.trans_data
graph.graph @not_inverse(%x: tensor<1x3x4x4xf32>) {
  %a = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf32>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  %b = graph.trans_data %a src_format "NC1HWC0" dst_format "FRACTAL_NZ" : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>
  "test.op"(%b) : (tensor<1x3x1x1x16x16xf32, #graph.format<FRACTAL_NZ origin NCHW [1, 3, 4, 4]>>) -> ()
  graph.net_output
}

// -----

// Tests a widening Cast pair (f16 -> f32 -> f16) cancelling, and a narrowing one (f32 -> f16 -> f32) kept: it rounds.
// CHECK-LABEL: graph.graph @casts
// CHECK-NEXT:    %[[N1:.*]] = graph.cast %y dst_type f16
// CHECK-NEXT:    %[[N2:.*]] = graph.cast %[[N1]] dst_type f32
// CHECK-NEXT:    "test.op"(%x, %[[N2]])
graph.graph @casts(%x: tensor<4xf16>, %y: tensor<4xf32>) {
  %a = graph.cast %x dst_type f32 : (tensor<4xf16>) -> tensor<4xf32>
  %b = graph.cast %a dst_type f16 : (tensor<4xf32>) -> tensor<4xf16>
  %c = graph.cast %y dst_type f16 : (tensor<4xf32>) -> tensor<4xf16>
  %d = graph.cast %c dst_type f32 : (tensor<4xf16>) -> tensor<4xf32>
  "test.op"(%b, %d) : (tensor<4xf16>, tensor<4xf32>) -> ()
  graph.net_output
}

// -----

// Tests Transpose pairs: inverse permutations cancel, two equal non-involutive ones stay.
// CHECK-LABEL: graph.graph @transposes
// CHECK-NEXT:    %[[T1:.*]] = graph.transpose %y perm [1, 2, 0]
// CHECK-NEXT:    %[[T2:.*]] = graph.transpose %[[T1]] perm [1, 2, 0]
// CHECK-NEXT:    "test.op"(%x, %[[T2]])
graph.graph @transposes(%x: tensor<2x3x4xf32>, %y: tensor<2x2x2xf32>) {
  %a = graph.transpose %x perm [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %b = graph.transpose %a perm [2, 0, 1] : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
  %c = graph.transpose %y perm [1, 2, 0] : (tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %d = graph.transpose %c perm [1, 2, 0] : (tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  "test.op"(%b, %d) : (tensor<2x3x4xf32>, tensor<2x2x2xf32>) -> ()
  graph.net_output
}

// -----

// Tests the kinds ge-select-formats inserts besides TransData: a TransposeD round trip
// through NHWC storage and a Reshape round trip (with its shape Consts) go, a Cast pair
// f16 -> f32 -> f16 goes (exact), f32 -> f16 -> f32 stays (float16 rounds).
// CHECK-LABEL: graph.graph @new_kinds
// CHECK-NEXT:    %[[H:.*]] = graph.cast %x dst_type f16 : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf16>
// CHECK-NEXT:    %[[F:.*]] = graph.cast %[[H]] dst_type f32 : (tensor<1x3x4x4xf16>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    graph.net_output %x, %[[F]], %h, %h : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<2x20x5xf16>, tensor<2x20x5xf16>
graph.graph @new_kinds(%x: tensor<1x3x4x4xf32>, %h: tensor<2x20x5xf16>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<2x20x5xf16>, tensor<2x20x5xf16>) {
  %p = graph.transpose %x perm [0, 2, 3, 1] : (tensor<1x3x4x4xf32>) -> tensor<1x4x4x3xf32, #graph.format<NHWC origin NCHW [1, 3, 4, 4]>>
  %q = graph.transpose %p perm [0, 3, 1, 2] : (tensor<1x4x4x3xf32, #graph.format<NHWC origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x4x4xf32>
  %a = graph.cast %x dst_type f16 : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf16>
  %b = graph.cast %a dst_type f32 : (tensor<1x3x4x4xf16>) -> tensor<1x3x4x4xf32>
  %s4 = graph.const dense<[2, 20, 5, 1]> : tensor<4xi64>
  %r = graph.reshape %h, %s4 : (tensor<2x20x5xf16>, tensor<4xi64>) -> tensor<2x20x5x1xf16>
  %s3 = graph.const dense<[2, 20, 5]> : tensor<3xi64>
  %t = graph.reshape %r, %s3 : (tensor<2x20x5x1xf16>, tensor<3xi64>) -> tensor<2x20x5xf16>
  %c = graph.cast %h dst_type f32 : (tensor<2x20x5xf16>) -> tensor<2x20x5xf32>
  %d = graph.cast %c dst_type f16 : (tensor<2x20x5xf32>) -> tensor<2x20x5xf16>
  graph.net_output %q, %b, %t, %d : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<2x20x5xf16>, tensor<2x20x5xf16>
}

// -----

// Tests that a Reshape pair on `?` dims stays: the types agree, but the second Reshape's
// shape operand decides the shape at run time (x of [2, 12] and s of [3, 8] give [3, 8]).
// CHECK-LABEL: graph.graph @dynamic_reshapes
// CHECK:         %[[A:.*]] = graph.reshape %x, %flat
// CHECK-NEXT:    %[[B:.*]] = graph.reshape %[[A]], %s
// CHECK-NEXT:    graph.net_output %[[B]]
graph.graph @dynamic_reshapes(%x: tensor<?x?xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  %flat = graph.const dense<-1> : tensor<1xi64>
  %a = graph.reshape %x, %flat : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?xf32>
  %b = graph.reshape %a, %s : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  graph.net_output %b : tensor<?x?xf32>
}
