// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests GE DecodeImage: RGB (the default channels, elided) and grayscale, from byte tensors
// of known and unknown length.

// CHECK-LABEL: graph.graph @decode
// CHECK:         graph.decode_image %{{.*}} : (tensor<312xui8>) -> tensor<?x?x3xui8>
// CHECK:         graph.decode_image %{{.*}} channels 1 : (tensor<?xui8>) -> tensor<?x?x1xui8>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "decode"
// GENERIC:         "graph.decode_image"(%{{.*}}) <{channels = 3 : i64}>
// GENERIC:         "graph.decode_image"(%{{.*}}) <{channels = 1 : i64}>
graph.graph @decode(%x: tensor<312xui8>, %g: tensor<?xui8>) -> (tensor<?x?x3xui8>, tensor<?x?x1xui8>) {
  %rgb = graph.decode_image %x : (tensor<312xui8>) -> tensor<?x?x3xui8>
  %gray = graph.decode_image %g channels 1 : (tensor<?xui8>) -> tensor<?x?x1xui8>
  graph.net_output %rgb, %gray : tensor<?x?x3xui8>, tensor<?x?x1xui8>
}
