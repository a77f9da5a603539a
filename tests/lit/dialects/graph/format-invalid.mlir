// RUN: ge-opt %s --split-input-file --verify-expected-diagnostics
// RUN: not ge-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=PARSE

// Tests an unknown format name: a parse error at its line and column.

graph.graph @g(%x: tensor<1x3x4x4xf16>) {
  // expected-error @below {{unknown data format 'NC1HWC9', expected one of NCHW, NHWC, ND, NC1HWC0, FRACTAL_Z, FRACTAL_NZ}}
  %y = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf16>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC9 origin NCHW [1, 3, 4, 4]>>
  graph.net_output
}
// PARSE: format-invalid.mlir:8:131: error: unknown data format 'NC1HWC9', expected one of NCHW, NHWC, ND, NC1HWC0, FRACTAL_Z, FRACTAL_NZ

// -----

// Tests a heavy format as an origin format.

graph.graph @g(%x: tensor<1x3x4x4xf16>) {
  // expected-error @below {{unknown data format 'NC1HWC0', expected one of NCHW, NHWC, ND}}
  %y = graph.relu %x : (tensor<1x3x4x4xf16>) -> tensor<1x3x4x4xf16, #graph.format<NHWC origin NC1HWC0 [1, 3, 4, 4]>>
  graph.net_output
}

// -----

// Tests a storage shape that does not follow from the origin shape (C1 of 3 channels is 1).

graph.graph @g(%x: tensor<1x3x4x4xf16>) {
  %y = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf16>) -> tensor<1x2x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  // expected-error @above {{'graph.trans_data' op %y: type tensor<1x2x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>: NC1HWC0 storage of NCHW [1, 3, 4, 4] is [1, 1, 4, 4, 16]}}
  graph.net_output
}

// -----

// Tests TransData between incompatible shapes: NC1HWC0 of a rank-2 tensor.

graph.graph @g(%x: tensor<4x8xf32>) {
  %y = graph.trans_data %x src_format "ND" dst_format "NC1HWC0" : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-error @above {{'graph.trans_data' op %y: cannot convert tensor<4x8xf32> from ND to NC1HWC0: NC1HWC0 holds a rank-4 NCHW or NHWC tensor, got ND [4, 8]}}
  graph.net_output
}

// -----

// Tests TransData between incompatible shapes whose storage shapes coincide: 3 and 4
// channels both pack into one C1 block, so only the origin shape tells them apart.

graph.graph @g(%x: tensor<1x3x4x4xf16>) {
  %y = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0" : (tensor<1x3x4x4xf16>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
  // expected-error @above {{'graph.trans_data' op %y: result type tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>> differs from the computed tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>}}
  graph.net_output
}

// -----

// Tests TransData whose result is another tensor than its source.

graph.graph @g(%x: tensor<1x3x4x4xf16>) {
  %y = graph.trans_data %x src_format "NCHW" dst_format "NHWC" : (tensor<1x3x4x4xf16>) -> tensor<1x4x4x3xf16>
  // expected-error @above {{'graph.trans_data' op %y: result type tensor<1x4x4x3xf16> differs from the computed tensor<1x4x4x3xf16, #graph.format<NHWC origin NCHW [1, 3, 4, 4]>>}}
  graph.net_output
}

// -----

// Tests a src_format that is not the source's storage format.

graph.graph @g(%x: tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) {
  %y = graph.trans_data %x src_format "NCHW" dst_format "NHWC" : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x4x4x3xf16, #graph.format<NHWC origin NCHW [1, 3, 4, 4]>>
  // expected-error @above {{'graph.trans_data' op %y: src is in NC1HWC0, src_format says NCHW}}
  graph.net_output
}

// -----

// Tests an unknown dst_format name.

graph.graph @g(%x: tensor<1x3x4x4xf16>) {
  %y = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC9" : (tensor<1x3x4x4xf16>) -> tensor<1x3x4x4xf16>
  // expected-error @above {{'graph.trans_data' op %y: dst_format 'NC1HWC9' is not a data format (NCHW, NHWC, ND, NC1HWC0, FRACTAL_Z, FRACTAL_NZ)}}
  graph.net_output
}

// -----

// Tests an op that is not format-aware fed a heavy format (FE inserts TransData before it).

graph.graph @g(%x: tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) {
  %y = graph.softmax_v2 %x : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x4x4xf16>
  // expected-error @above {{'graph.softmax_v2' op %y: takes origin formats only: x is in NC1HWC0 (insert graph.trans_data)}}
  graph.net_output
}

// -----

// Tests a format-agnostic op whose operands are in different formats.

graph.graph @g(%x: tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>, %z: tensor<1x3x4x4xf16>) {
  %y = graph.add %x, %z : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>, tensor<1x3x4x4xf16>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  // expected-error @above {{'graph.add' op %y: is format-agnostic: x2 is in its origin format, x1 in NC1HWC0}}
  graph.net_output
}

// -----

// Tests a heavy op with a heavy format on a port that takes another.

graph.graph @g(%x: tensor<1x1x5x5x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 5, 5]>>, %w: tensor<20x1x3x3x16xf32, #graph.format<NC1HWC0 origin NCHW [20, 3, 3, 3]>>) {
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x1x5x5x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 5, 5]>>, tensor<20x1x3x3x16xf32, #graph.format<NC1HWC0 origin NCHW [20, 3, 3, 3]>>) -> tensor<1x2x3x3x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 20, 3, 3]>>
  // expected-error @above {{'graph.conv2d' op %c: filter cannot be in NC1HWC0 (it takes FRACTAL_Z)}}
  graph.net_output
}

// -----

// Tests a heavy op with heavy formats on some ports only.

graph.graph @g(%x: tensor<1x1x5x5x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 5, 5]>>, %w: tensor<20x3x3x3xf32>) {
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x1x5x5x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 5, 5]>>, tensor<20x3x3x3xf32>) -> tensor<1x2x3x3x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 20, 3, 3]>>
  // expected-error @above {{'graph.conv2d' op %c: has heavy formats on some ports only: filter must be in FRACTAL_Z too}}
  graph.net_output
}

// -----

// Tests a format-agnostic Cast whose two sides need different C0 (f32 16, i8 32).

graph.graph @g(%x: tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) {
  %y = graph.cast %x dst_type i8 : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>) -> tensor<1x1x4x4x32xi8, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
  // expected-error @above {{'graph.cast' op %y: is format-agnostic but its NC1HWC0 tensors of one shape are stored as [1, 1, 4, 4, 16] and [1, 1, 4, 4, 32] (their C0 differs with the element type)}}
  graph.net_output
}

// -----

// Tests a plain source whose src_format is a heavy format (a plain tensor is in its origin format).

graph.graph @g(%x: tensor<1x3x4x4xf16>) {
  %y = graph.trans_data %x src_format "NC1HWC0" dst_format "NCHW" : (tensor<1x3x4x4xf16>) -> tensor<1x3x4x4xf16>
  // expected-error @above {{'graph.trans_data' op %y: src is in its origin format, so src_format must be one of NCHW, NHWC, ND, got NC1HWC0}}
  graph.net_output
}

// -----

// Tests an encoding that names the origin format as the storage format.

// expected-error @below {{storage format NCHW is the origin format (a tensor in its origin format carries no encoding)}}
graph.graph @g(%x: tensor<1x3x4x4xf16, #graph.format<NCHW origin NCHW [1, 3, 4, 4]>>) {
  graph.net_output
}

// -----

// Tests a subgraph NetOutput in a storage format whose shape does not follow from it.

graph.graph @g(%x: tensor<1x2x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>) -> tensor<1x2x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>> {
  // expected-error @below {{'graph.net_output' op type tensor<1x2x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>: NC1HWC0 storage of NCHW [1, 4, 4, 4] is [1, 1, 4, 4, 16]}}
  graph.net_output %x : tensor<1x2x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
}
