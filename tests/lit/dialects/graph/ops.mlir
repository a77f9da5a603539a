// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests every graph op in one graph: named inputs and outputs, constants, discardable attributes.

// CHECK-LABEL: graph.graph @main
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x8x8xf32> {node_name = "image"}, %[[M:.*]]: tensor<4x16xf32>)
// CHECK-SAME:    -> (tensor<4x4xf32> {node_name = "logits"}, tensor<1x16x4x4xf32>)
// CHECK-NEXT:    %[[W:.*]] = graph.const dense<1.000000e+00> : tensor<16x3x3x3xf32> {node_name = "conv1.weight"}
// CHECK-NEXT:    %[[B:.*]] = graph.const dense<5.000000e-01> : tensor<16xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.const dense<[0, -1]> : tensor<2xi64>
// CHECK-NEXT:    %[[B4:.*]] = graph.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.conv2d %[[X]], %[[W]], %[[B]] strides [1, 1, 2, 2] pads [1, 1, 1, 1] {node_name = "conv1", _stream_label = "s0"} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    %[[N:.*]] = graph.batch_norm %[[C]], %[[B]], %[[B]], %[[B]], %[[B]] epsilon 0.001 {_stage_level = 1 : i64} : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[N]] : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
// CHECK-NEXT:    %[[F:.*]] = graph.reshape %[[R]], %[[S]] : (tensor<1x16x4x4xf32>, tensor<2xi64>) -> tensor<1x256xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[R]] perm [0, 2, 3, 1] : (tensor<1x16x4x4xf32>) -> tensor<1x4x4x16xf32>
// CHECK-NEXT:    %[[MM:.*]] = graph.matmul %[[M]], %[[M]], %[[B4]] transpose_x2 true : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.add %[[MM]], %[[MM]] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %[[SB:.*]] = graph.sub %[[A]], %[[MM]] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %[[ML:.*]] = graph.mul %[[SB]], %[[B4]] : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    graph.net_output %[[ML]], %[[R]] : tensor<4x4xf32>, tensor<1x16x4x4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "main", function_type = (tensor<1x3x8x8xf32>, tensor<4x16xf32>) -> (tensor<4x4xf32>, tensor<1x16x4x4xf32>), arg_attrs = [{node_name = "image"}, {}], res_attrs = [{node_name = "logits"}, {}]}> ({
// GENERIC:       "graph.const"() <{value = dense<1.000000e+00> : tensor<16x3x3x3xf32>}> {node_name = "conv1.weight"} : () -> tensor<16x3x3x3xf32>
// GENERIC:       "graph.conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCHW"}> {node_name = "conv1", _stream_label = "s0"} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
// GENERIC:       "graph.batch_norm"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 1.000000e-03 : f32, data_format = "NCHW", is_training = false}> {_stage_level = 1 : i64}
// GENERIC:       "graph.relu"(%{{.*}}) : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
// GENERIC:       "graph.reshape"(%{{.*}}, %{{.*}}) <{allowzero = false}> : (tensor<1x16x4x4xf32>, tensor<2xi64>) -> tensor<1x256xf32>
// GENERIC:       "graph.transpose"(%{{.*}}) <{perm = array<i64: 0, 2, 3, 1>}>
// GENERIC:       "graph.matmul"(%{{.*}}, %{{.*}}, %{{.*}}) <{{.*}}transpose_x2 = true{{.*}}}>
// GENERIC:       "graph.add"(%{{.*}}, %{{.*}}) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// GENERIC:       "graph.sub"(%{{.*}}, %{{.*}})
// GENERIC:       "graph.mul"(%{{.*}}, %{{.*}})
// GENERIC:       "graph.net_output"(%{{.*}}, %{{.*}}) : (tensor<4x4xf32>, tensor<1x16x4x4xf32>) -> ()
graph.graph @main(%x: tensor<1x3x8x8xf32> {node_name = "image"}, %m: tensor<4x16xf32>)
    -> (tensor<4x4xf32> {node_name = "logits"}, tensor<1x16x4x4xf32>) {
  %w = graph.const dense<1.0> : tensor<16x3x3x3xf32> {node_name = "conv1.weight"}
  %b = graph.const dense<0.5> : tensor<16xf32>
  %s = graph.const dense<[0, -1]> : tensor<2xi64>
  %b4 = graph.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %c = graph.conv2d %x, %w, %b strides [1, 1, 2, 2] pads [1, 1, 1, 1] {node_name = "conv1", _stream_label = "s0"}
      : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  %n = graph.batch_norm %c, %b, %b, %b, %b epsilon 0.001 {_stage_level = 1 : i64}
      : (tensor<1x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  %r = graph.relu %n : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %f = graph.reshape %r, %s : (tensor<1x16x4x4xf32>, tensor<2xi64>) -> tensor<1x256xf32>
  %t = graph.transpose %r perm [0, 2, 3, 1] : (tensor<1x16x4x4xf32>) -> tensor<1x4x4x16xf32>
  %mm = graph.matmul %m, %m, %b4 transpose_x2 true : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %a = graph.add %mm, %mm : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %sb = graph.sub %a, %mm : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %ml = graph.mul %sb, %b4 : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  graph.net_output %ml, %r : tensor<4x4xf32>, tensor<1x16x4x4xf32>
}

// -----

// Tests that properties left at their defaults are not printed, and every non-default one is.

// CHECK-LABEL: graph.graph @conv_props
// CHECK:         graph.conv2d %{{.*}}, %{{.*}} strides [1, 1, 1, 1] : (tensor<1x4x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x3x3xf32>
// CHECK:         graph.conv2d %{{.*}}, %{{.*}} strides [1, 2, 2, 1] pads [0, 1, 2, 3] dilations [1, 2, 2, 1] groups 2 data_format "NHWC" : (tensor<1x9x9x4xf32>, tensor<3x3x2x8xf32>) -> tensor<1x3x5x8xf32>
// CHECK:         graph.matmul %{{.*}}, %{{.*}} transpose_x1 true : (tensor<3x2xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
// CHECK:         graph.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} data_format "NHWC" : (tensor<2x6x6x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x6x6x4xf16>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "conv_props"
// GENERIC:       "graph.conv2d"(%{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCHW"}>
// GENERIC:       "graph.conv2d"(%{{.*}}, %{{.*}}) <{strides = array<i64: 1, 2, 2, 1>, pads = array<i64: 0, 1, 2, 3>, dilations = array<i64: 1, 2, 2, 1>, groups = 2 : i64, data_format = "NHWC"}>
// GENERIC:       "graph.batch_norm"({{.*}}) <{{.*}}epsilon = 1.000000e-04 : f32{{.*}}}>
graph.graph @conv_props(%x: tensor<1x4x5x5xf32>, %w: tensor<8x4x3x3xf32>, %xh: tensor<1x9x9x4xf32>,
    %wh: tensor<3x3x2x8xf32>, %a: tensor<3x2xf32>, %b: tensor<3x5xf32>, %bn: tensor<2x6x6x4xf16>,
    %p: tensor<4xf32>) -> tensor<1x8x3x3xf32> {
  %y = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x4x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x3x3xf32>
  %z = graph.conv2d %xh, %wh strides [1, 2, 2, 1] pads [0, 1, 2, 3] dilations [1, 2, 2, 1] groups 2 data_format "NHWC"
      : (tensor<1x9x9x4xf32>, tensor<3x3x2x8xf32>) -> tensor<1x3x5x8xf32>
  %m = graph.matmul %a, %b transpose_x1 true : (tensor<3x2xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %n = graph.batch_norm %bn, %p, %p, %p, %p data_format "NHWC"
      : (tensor<2x6x6x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x6x6x4xf16>
  graph.net_output %y : tensor<1x8x3x3xf32>
}

// -----

// Tests unknown dims (`?`) and unknown ranks, which GE graphs carry before shape inference.

// CHECK-LABEL: graph.graph @dynamic
// CHECK:         graph.add %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK:         graph.mul %{{.*}}, %{{.*}} : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
// CHECK:         graph.sub %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK:         graph.relu %{{.*}} : (tensor<*xf32>) -> tensor<*xf32>
// CHECK:         graph.reshape %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<?xi32>) -> tensor<*xf32>
// CHECK:         graph.transpose %{{.*}} perm [1, 0] : (tensor<?x3xf32>) -> tensor<3x?xf32>
// CHECK:         graph.matmul %{{.*}}, %{{.*}} : (tensor<?x3xf32>, tensor<*xf32>) -> tensor<?x?xf32>
// CHECK:         graph.conv2d %{{.*}}, %{{.*}} strides [1, 1, 1, 1] : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32>
graph.graph @dynamic(%a: tensor<?x3xf32>, %b: tensor<3xf32>, %u: tensor<*xf32>, %c: tensor<2x1xf32>,
    %s: tensor<?xi32>, %x: tensor<?x3x?x?xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x3xf32> {
  %0 = graph.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %1 = graph.mul %u, %b : (tensor<*xf32>, tensor<3xf32>) -> tensor<*xf32>
  %2 = graph.sub %a, %c : (tensor<?x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  %3 = graph.relu %u : (tensor<*xf32>) -> tensor<*xf32>
  %4 = graph.reshape %a, %s : (tensor<?x3xf32>, tensor<?xi32>) -> tensor<*xf32>
  %5 = graph.transpose %a perm [1, 0] : (tensor<?x3xf32>) -> tensor<3x?xf32>
  %6 = graph.matmul %a, %u : (tensor<?x3xf32>, tensor<*xf32>) -> tensor<?x?xf32>
  %7 = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32>
  graph.net_output %0 : tensor<?x3xf32>
}
