// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s
// RUN: xdsl-opt %s --split-input-file | xdsl-opt --split-input-file | filecheck %s

// Tests that infinities and NaNs in float constants print as their bit pattern and read back
// as those bits (xDSL 0.74 alone reads 0xFF800000 as 4286578688.0), NaN payloads included.

// CHECK-LABEL: graph.graph @non_finite
// CHECK-NEXT:    graph.const dense<[0xff800000, 0x7fc00000, 1.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    graph.const dense<[0x7f800001, 0xffc12345, -0.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    graph.const dense<[0x7e01, 0xfc00, 1.000000e+00]> : tensor<3xf16>
// CHECK-NEXT:    graph.const dense<[0x7ff0000000000001, 0xfff0000000000000, 4.940660e-324]> : tensor<3xf64>
// CHECK-NEXT:    graph.const dense<[0x7fc1, 0xff80]> : tensor<2xbf16>
// CHECK-NEXT:    graph.const dense<[0x4CEB79A3, 1.000000e+00]> : tensor<2xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "non_finite"
// GENERIC:         "graph.const"() <{value = dense<[0xff800000, 0x7fc00000, 1.000000e+00]> : tensor<3xf32>}>
graph.graph @non_finite() {
  %a = graph.const dense<[0xFF800000, 0x7FC00000, 1.0]> : tensor<3xf32>
  %b = graph.const dense<[0x7F800001, 0xFFC12345, -0.0]> : tensor<3xf32>
  %c = graph.const dense<[0x7E01, 0xFC00, 1.0]> : tensor<3xf16>
  %d = graph.const dense<[0x7FF0000000000001, 0xFFF0000000000000, 4.9406564584124654e-324]> : tensor<3xf64>
  %e = graph.const dense<[0x7FC1, 0xFF80]> : tensor<2xbf16>
  %f = graph.const dense<[123456792.0, 1.0]> : tensor<2xf32>
  graph.net_output
}

// -----

// Tests splats: found by bytes (0.0 and -0.0 differ), hex splats, 0-d and empty tensors.

// CHECK-LABEL: graph.graph @splats
// CHECK-NEXT:    graph.const dense<[0.000000e+00, -0.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    graph.const dense<0xff800000> : tensor<2x3xf32>
// CHECK-NEXT:    graph.const dense<-0.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    graph.const dense<[0x7fc00000, 0x7fc00001]> : tensor<2xf32>
// CHECK-NEXT:    graph.const dense<true> : tensor<3xi1>
// CHECK-NEXT:    graph.const dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    graph.const dense<> : tensor<2x0xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "splats"
graph.graph @splats() {
  %a = graph.const dense<[0.0, -0.0]> : tensor<2xf32>
  %b = graph.const dense<"0x000080FF"> : tensor<2x3xf32>
  %c = graph.const dense<-0.0> : tensor<4xf32>
  %d = graph.const dense<[0x7FC00000, 0x7FC00001]> : tensor<2xf32>
  %e = graph.const dense<true> : tensor<3xi1>
  %f = graph.const dense<0.5> : tensor<f32>
  %g = graph.const dense<> : tensor<2x0xf32>
  graph.net_output
}

// -----

// Tests integer extremes of every width, signed and unsigned.

// CHECK-LABEL: graph.graph @integers
// CHECK-NEXT:    graph.const dense<[-128, 127]> : tensor<2xi8>
// CHECK-NEXT:    graph.const dense<[0, 255]> : tensor<2xui8>
// CHECK-NEXT:    graph.const dense<[-32768, 32767]> : tensor<2xi16>
// CHECK-NEXT:    graph.const dense<[0, 65535]> : tensor<2xui16>
// CHECK-NEXT:    graph.const dense<[-2147483648, 2147483647]> : tensor<2xi32>
// CHECK-NEXT:    graph.const dense<[0, 4294967295]> : tensor<2xui32>
// CHECK-NEXT:    graph.const dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
// CHECK-NEXT:    graph.const dense<[0, 18446744073709551615]> : tensor<2xui64>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "integers"
graph.graph @integers() {
  %a = graph.const dense<[-128, 127]> : tensor<2xi8>
  %b = graph.const dense<[0, 255]> : tensor<2xui8>
  %c = graph.const dense<[-32768, 32767]> : tensor<2xi16>
  %d = graph.const dense<[0, 65535]> : tensor<2xui16>
  %e = graph.const dense<[-2147483648, 2147483647]> : tensor<2xi32>
  %f = graph.const dense<[0, 4294967295]> : tensor<2xui32>
  %g = graph.const dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>
  %h = graph.const dense<[0, 18446744073709551615]> : tensor<2xui64>
  graph.net_output
}

// -----

// Tests strings with quotes, backslashes, control characters and non-ASCII text, and f32
// properties at infinity in the node syntax.

// CHECK-LABEL: graph.graph @strings_and_properties
// CHECK-NEXT:    graph.const dense<1.000000e+00> : tensor<1xf32> {node_name = "q\22b\\s\0A\C3\A9"}
// CHECK-NEXT:    graph.fused_conv2d %{{.*}}, %{{.*}} strides [1, 1, 1, 1] activation "clip" clip_min 0xFF800000 clip_max 0x7F800000 :
// GENERIC-LABEL: "graph.graph"() <{sym_name = "strings_and_properties"
// GENERIC:         clip_min = 0xff800000 : f32, clip_max = 0x7f800000 : f32
graph.graph @strings_and_properties(%x: tensor<1x1x2x2xf32>, %w: tensor<1x1x1x1xf32>) {
  %a = graph.const dense<1.0> : tensor<1xf32> {node_name = "q\22b\\s\0A\C3\A9"}
  %c = graph.fused_conv2d %x, %w strides [1, 1, 1, 1] activation "clip" clip_min 0xFF800000 clip_max 0x7F800000 : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32>
  graph.net_output
}
