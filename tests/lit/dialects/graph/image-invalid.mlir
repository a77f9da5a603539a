// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests DecodeImage on float contents (ONNX's ImageDecoder takes uint8 bytes).

graph.graph @float_contents(%x: tensor<8xf32>) {
  %y = graph.decode_image %x : (tensor<8xf32>) -> tensor<?x?x3xui8>
  graph.net_output
}
// CHECK-LABEL: 'graph.decode_image' contents must be a uint8 byte tensor, got tensor<8xf32>

// -----

// Tests DecodeImage on a 2-D byte tensor.

graph.graph @matrix_contents(%x: tensor<2x8xui8>) {
  %y = graph.decode_image %x : (tensor<2x8xui8>) -> tensor<?x?x3xui8>
  graph.net_output
}
// CHECK-LABEL: 'graph.decode_image' contents must be 1-D, got tensor<2x8xui8>

// -----

// Tests GE's channels 4 (RGBA), which is not modelled.

graph.graph @rgba(%x: tensor<8xui8>) {
  %y = graph.decode_image %x channels 4 : (tensor<8xui8>) -> tensor<?x?x4xui8>
  graph.net_output
}
// CHECK-LABEL: 'graph.decode_image' channels must be 1 (grayscale) or 3 (RGB), got 4 (GE's 0 and 4 are not modelled)

// -----

// Tests a channel count other than the attribute's.

graph.graph @gray_as_rgb(%x: tensor<8xui8>) {
  %y = graph.decode_image %x channels 1 : (tensor<8xui8>) -> tensor<?x?x3xui8>
  graph.net_output
}
// CHECK-LABEL: 'graph.decode_image' result shape [?, ?, 3] differs from the image layout [?, ?, 1]

// -----

// Tests a static image size, which would claim the encoded data.

graph.graph @static_size(%x: tensor<312xui8>) {
  %y = graph.decode_image %x : (tensor<312xui8>) -> tensor<32x32x3xui8>
  graph.net_output
}
// CHECK-LABEL: 'graph.decode_image' image shape [32, 32, 3]: height and width are in the encoded data, so they must be ?

// -----

// Tests a float image (GE's dtype attribute is not modelled: uint8 only).

graph.graph @float_image(%x: tensor<312xui8>) {
  %y = graph.decode_image %x : (tensor<312xui8>) -> tensor<?x?x3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.decode_image' image must be a uint8 tensor, got tensor<?x?x3xf32>
