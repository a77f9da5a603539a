// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests Conv3D: bias, strides and pads, NDHWC with groups and dilations, unknown dims.
// CHECK-LABEL: graph.graph @conv
// CHECK-SAME:    (%[[X:.*]]: tensor<1x2x4x8x8xf32>, %[[W:.*]]: tensor<4x2x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>, %[[XH:.*]]: tensor<1x8x8x8x2xf32>, %[[WH:.*]]: tensor<3x3x3x1x4xf32>, %[[D:.*]]: tensor<?x2x?x?x?xf32>) -> tensor<1x4x4x4x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.conv3d %[[X]], %[[W]], %[[B]] strides [1, 1, 1, 2, 2] pads [1, 1, 1, 1, 1, 1] : (tensor<1x2x4x8x8xf32>, tensor<4x2x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = graph.conv3d %[[XH]], %[[WH]] strides [1, 1, 1, 1, 1] dilations [1, 2, 1, 1, 1] groups 2 data_format "NDHWC" : (tensor<1x8x8x8x2xf32>, tensor<3x3x3x1x4xf32>) -> tensor<1x4x6x6x4xf32>
// CHECK-NEXT:    %[[U:.*]] = graph.conv3d %[[D]], %[[W]] strides [1, 1, 1, 1, 1] : (tensor<?x2x?x?x?xf32>, tensor<4x2x3x3x3xf32>) -> tensor<?x4x?x?x?xf32>
// CHECK-NEXT:    graph.net_output %[[Y]] : tensor<1x4x4x4x4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "conv"
// GENERIC:       %{{.*}} = "graph.conv3d"(%{{.*}}, %{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1, 1, 1>, dilations = array<i64: 1, 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCDHW"}> : (tensor<1x2x4x8x8xf32>, tensor<4x2x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4x4xf32>
// GENERIC:       %{{.*}} = "graph.conv3d"(%{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 1, 1, 1>, dilations = array<i64: 1, 2, 1, 1, 1>, groups = 2 : i64, data_format = "NDHWC", pads = array<i64: 0, 0, 0, 0, 0, 0>}> : (tensor<1x8x8x8x2xf32>, tensor<3x3x3x1x4xf32>) -> tensor<1x4x6x6x4xf32>
// GENERIC:       %{{.*}} = "graph.conv3d"(%{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCDHW"}> : (tensor<?x2x?x?x?xf32>, tensor<4x2x3x3x3xf32>) -> tensor<?x4x?x?x?xf32>

graph.graph @conv(%x: tensor<1x2x4x8x8xf32>, %w: tensor<4x2x3x3x3xf32>, %b: tensor<4xf32>,
    %xh: tensor<1x8x8x8x2xf32>, %wh: tensor<3x3x3x1x4xf32>, %d: tensor<?x2x?x?x?xf32>)
    -> tensor<1x4x4x4x4xf32> {
  %y = graph.conv3d %x, %w, %b strides [1, 1, 1, 2, 2] pads [1, 1, 1, 1, 1, 1] : (tensor<1x2x4x8x8xf32>, tensor<4x2x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4x4xf32>
  %z = graph.conv3d %xh, %wh strides [1, 1, 1, 1, 1] dilations [1, 2, 1, 1, 1] groups 2 data_format "NDHWC" : (tensor<1x8x8x8x2xf32>, tensor<3x3x3x1x4xf32>) -> tensor<1x4x6x6x4xf32>
  %u = graph.conv3d %d, %w strides [1, 1, 1, 1, 1] : (tensor<?x2x?x?x?xf32>, tensor<4x2x3x3x3xf32>) -> tensor<?x4x?x?x?xf32>
  graph.net_output %y : tensor<1x4x4x4x4xf32>
}

// -----

// Tests Conv2DTranspose/Conv3DTranspose: a const input_size fixing the result, a run-time one, output_padding,
// dilations, NHWC groups.
// CHECK-LABEL: graph.graph @conv_transpose
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x4x4xf32>, %[[W:.*]]: tensor<3x2x3x3xf32>, %[[B:.*]]: tensor<2xf32>, %[[X3:.*]]: tensor<1x1x3x3x3xf32>, %[[W3:.*]]: tensor<1x2x3x3x3xf32>, %[[XH:.*]]: tensor<1x4x4x3xf32>, %[[WH:.*]]: tensor<3x3x1x3xf32>, %[[S:.*]]: tensor<4xi32>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    %[[SIZE:.*]] = graph.const dense<[1, 2, 8, 8]> : tensor<4xi64>
// CHECK-NEXT:    %[[Y:.*]] = graph.conv2d_transpose %[[SIZE]], %[[X]], %[[W]], %[[B]] strides [1, 1, 2, 2] pads [0, 1, 0, 1] : (tensor<4xi64>, tensor<1x3x4x4xf32>, tensor<3x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
// CHECK-NEXT:    %[[Y2:.*]] = graph.conv2d_transpose %[[S]], %[[X]], %[[W]] strides [1, 1, 2, 2] pads [1, 1, 1, 1] dilations [1, 1, 2, 1] output_padding [0, 0, 1, 1] : (tensor<4xi32>, tensor<1x3x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x10x8xf32>
// CHECK-NEXT:    %[[YH:.*]] = graph.conv2d_transpose %[[S]], %[[XH]], %[[WH]] strides [1, 1, 1, 1] groups 3 data_format "NHWC" : (tensor<4xi32>, tensor<1x4x4x3xf32>, tensor<3x3x1x3xf32>) -> tensor<1x6x6x3xf32>
// CHECK-NEXT:    %[[SIZE3:.*]] = graph.const dense<[1, 2, 5, 5, 5]> : tensor<5xi64>
// CHECK-NEXT:    %[[Y3:.*]] = graph.conv3d_transpose %[[SIZE3]], %[[X3]], %[[W3]] strides [1, 1, 1, 1, 1] : (tensor<5xi64>, tensor<1x1x3x3x3xf32>, tensor<1x2x3x3x3xf32>) -> tensor<1x2x5x5x5xf32>
// CHECK-NEXT:    graph.net_output %[[Y]] : tensor<1x2x8x8xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "conv_transpose"
// GENERIC:       %{{.*}} = "graph.conv2d_transpose"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 0, 1, 0, 1>, dilations = array<i64: 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCHW", output_padding = array<i64: 0, 0, 0, 0>}> : (tensor<4xi64>, tensor<1x3x4x4xf32>, tensor<3x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
// GENERIC:       %{{.*}} = "graph.conv2d_transpose"(%{{.*}}, %{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1, 2, 1>, output_padding = array<i64: 0, 0, 1, 1>, groups = 1 : i64, data_format = "NCHW"}> : (tensor<4xi32>, tensor<1x3x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x10x8xf32>
// GENERIC:       %{{.*}} = "graph.conv2d_transpose"(%{{.*}}, %{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 1, 1>, groups = 3 : i64, data_format = "NHWC", pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1>, output_padding = array<i64: 0, 0, 0, 0>}> : (tensor<4xi32>, tensor<1x4x4x3xf32>, tensor<3x3x1x3xf32>) -> tensor<1x6x6x3xf32>
// GENERIC:       %{{.*}} = "graph.conv3d_transpose"(%{{.*}}, %{{.*}}, %{{.*}}) <{strides = array<i64: 1, 1, 1, 1, 1>, pads = array<i64: 0, 0, 0, 0, 0, 0>, dilations = array<i64: 1, 1, 1, 1, 1>, groups = 1 : i64, data_format = "NCDHW", output_padding = array<i64: 0, 0, 0, 0, 0>}> : (tensor<5xi64>, tensor<1x1x3x3x3xf32>, tensor<1x2x3x3x3xf32>) -> tensor<1x2x5x5x5xf32>

graph.graph @conv_transpose(%x: tensor<1x3x4x4xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<2xf32>,
    %x3: tensor<1x1x3x3x3xf32>, %w3: tensor<1x2x3x3x3xf32>, %xh: tensor<1x4x4x3xf32>, %wh: tensor<3x3x1x3xf32>,
    %s: tensor<4xi32>) -> tensor<1x2x8x8xf32> {
  %size = graph.const dense<[1, 2, 8, 8]> : tensor<4xi64>
  %y = graph.conv2d_transpose %size, %x, %w, %b strides [1, 1, 2, 2] pads [0, 1, 0, 1] : (tensor<4xi64>, tensor<1x3x4x4xf32>, tensor<3x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x8x8xf32>
  %y2 = graph.conv2d_transpose %s, %x, %w strides [1, 1, 2, 2] pads [1, 1, 1, 1] dilations [1, 1, 2, 1] output_padding [0, 0, 1, 1] : (tensor<4xi32>, tensor<1x3x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x10x8xf32>
  %yh = graph.conv2d_transpose %s, %xh, %wh strides [1, 1, 1, 1] groups 3 data_format "NHWC" : (tensor<4xi32>, tensor<1x4x4x3xf32>, tensor<3x3x1x3xf32>) -> tensor<1x6x6x3xf32>
  %size3 = graph.const dense<[1, 2, 5, 5, 5]> : tensor<5xi64>
  %y3 = graph.conv3d_transpose %size3, %x3, %w3 strides [1, 1, 1, 1, 1] : (tensor<5xi64>, tensor<1x1x3x3x3xf32>, tensor<1x2x3x3x3xf32>) -> tensor<1x2x5x5x5xf32>
  graph.net_output %y : tensor<1x2x8x8xf32>
}

// -----

// Tests ResizeD (linear with scales, nearest/align_corners/ceil, cubic antialias over unknown dims, tf_crop_and_resize
// on integers) and Resize with run-time scales, axes and an aspect policy.
// CHECK-LABEL: graph.graph @resize
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1x2x2xf32>, %[[D:.*]]: tensor<?x1x?x?xf32>, %[[I:.*]]: tensor<1x3x4x4xui8>, %[[ROI:.*]]: tensor<0xf32>, %[[SCALES:.*]]: tensor<4xf32>, %[[SIZES:.*]]: tensor<0xi64>) -> tensor<1x1x4x4xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.resize_d %[[X]] sizes [1, 1, 4, 4] scales [1.0, 1.0, 2.0, 2.0] mode "linear" : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
// CHECK-NEXT:    %[[N:.*]] = graph.resize_d %[[X]] sizes [1, 1, 3, 5] coordinate_transformation_mode "align_corners" nearest_mode "ceil" : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x5xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.resize_d %[[D]] scales [1.0, 1.0, 0.5, 0.5] cubic_coeff_a -0.5 exclude_outside 1 mode "cubic" antialias 1 : (tensor<?x1x?x?xf32>) -> tensor<?x1x?x?xf32>
// CHECK-NEXT:    %[[T:.*]] = graph.resize_d %[[I]] sizes [1, 3, 2, 2] roi [0.0, 0.0, 0.25, 0.25, 1.0, 1.0, 0.75, 0.75] coordinate_transformation_mode "tf_crop_and_resize" extrapolation_value 10.0 mode "linear" : (tensor<1x3x4x4xui8>) -> tensor<1x3x2x2xui8>
// CHECK-NEXT:    %[[R:.*]] = graph.resize %[[X]], %[[ROI]], %[[SCALES]], %[[SIZES]] mode "linear" axes [2, 3] keep_aspect_ratio_policy "not_larger" : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<4xf32>, tensor<0xi64>) -> tensor<?x?x?x?xf32>
// CHECK-NEXT:    graph.net_output %[[Y]] : tensor<1x1x4x4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "resize"
// GENERIC:       %{{.*}} = "graph.resize_d"(%{{.*}}) <{sizes = array<i64: 1, 1, 4, 4>, scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>, mode = "linear", roi = array<f32>, coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = 0 : i64, extrapolation_value = 0.000000e+00 : f32, nearest_mode = "round_prefer_floor", antialias = 0 : i64}> : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
// GENERIC:       %{{.*}} = "graph.resize_d"(%{{.*}}) <{sizes = array<i64: 1, 1, 3, 5>, coordinate_transformation_mode = "align_corners", mode = "nearest", nearest_mode = "ceil", scales = array<f32>, roi = array<f32>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = 0 : i64, extrapolation_value = 0.000000e+00 : f32, antialias = 0 : i64}> : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x5xf32>
// GENERIC:       %{{.*}} = "graph.resize_d"(%{{.*}}) <{scales = array<f32: 1.000000e+00, 1.000000e+00, 5.000000e-01, 5.000000e-01>, cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = 1 : i64, mode = "cubic", antialias = 1 : i64, sizes = array<i64>, roi = array<f32>, coordinate_transformation_mode = "half_pixel", extrapolation_value = 0.000000e+00 : f32, nearest_mode = "round_prefer_floor"}> : (tensor<?x1x?x?xf32>) -> tensor<?x1x?x?xf32>
// GENERIC:       %{{.*}} = "graph.resize_d"(%{{.*}}) <{sizes = array<i64: 1, 3, 2, 2>, roi = array<f32: 0.000000e+00, 0.000000e+00, 2.500000e-01, 2.500000e-01, 1.000000e+00, 1.000000e+00, 7.500000e-01, 7.500000e-01>, coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 1.000000e+01 : f32, mode = "linear", scales = array<f32>, cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = 0 : i64, nearest_mode = "round_prefer_floor", antialias = 0 : i64}> : (tensor<1x3x4x4xui8>) -> tensor<1x3x2x2xui8>
// GENERIC:       %{{.*}} = "graph.resize"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{mode = "linear", axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_larger", coordinate_transformation_mode = "half_pixel", cubic_coeff_a = -7.500000e-01 : f32, exclude_outside = 0 : i64, extrapolation_value = 0.000000e+00 : f32, nearest_mode = "round_prefer_floor", antialias = 0 : i64}> : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<4xf32>, tensor<0xi64>) -> tensor<?x?x?x?xf32>

graph.graph @resize(%x: tensor<1x1x2x2xf32>, %d: tensor<?x1x?x?xf32>, %i: tensor<1x3x4x4xui8>,
    %roi: tensor<0xf32>, %scales: tensor<4xf32>, %sizes: tensor<0xi64>) -> tensor<1x1x4x4xf32> {
  %y = graph.resize_d %x sizes [1, 1, 4, 4] scales [1.0, 1.0, 2.0, 2.0] mode "linear" : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  %n = graph.resize_d %x sizes [1, 1, 3, 5] coordinate_transformation_mode "align_corners" mode "nearest" nearest_mode "ceil" : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x5xf32>
  %c = graph.resize_d %d scales [1.0, 1.0, 0.5, 0.5] cubic_coeff_a -0.5 exclude_outside 1 mode "cubic" antialias 1 : (tensor<?x1x?x?xf32>) -> tensor<?x1x?x?xf32>
  %t = graph.resize_d %i sizes [1, 3, 2, 2] roi [0.0, 0.0, 0.25, 0.25, 1.0, 1.0, 0.75, 0.75] coordinate_transformation_mode "tf_crop_and_resize" extrapolation_value 10.0 mode "linear" : (tensor<1x3x4x4xui8>) -> tensor<1x3x2x2xui8>
  %r = graph.resize %x, %roi, %scales, %sizes mode "linear" axes [2, 3] keep_aspect_ratio_policy "not_larger" : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<4xf32>, tensor<0xi64>) -> tensor<?x?x?x?xf32>
  graph.net_output %y : tensor<1x1x4x4xf32>
}

// -----

// Tests DepthToSpace (DCR, CRD, NHWC on integers) and SpaceToDepth (DCR, CRD).
// CHECK-LABEL: graph.graph @depth_space
// CHECK-SAME:    (%[[X:.*]]: tensor<1x8x2x3xf32>, %[[H:.*]]: tensor<1x2x3x8xi32>, %[[S:.*]]: tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:    %[[Y:.*]] = graph.depth_to_space %[[X]] block_size 2 : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.depth_to_space %[[X]] block_size 2 mode "CRD" : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
// CHECK-NEXT:    %[[N:.*]] = graph.depth_to_space %[[H]] block_size 2 data_format "NHWC" : (tensor<1x2x3x8xi32>) -> tensor<1x4x6x2xi32>
// CHECK-NEXT:    %[[Z:.*]] = graph.space_to_depth %[[S]] block_size 2 : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
// CHECK-NEXT:    %[[ZC:.*]] = graph.space_to_depth %[[S]] block_size 2 mode "CRD" : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
// CHECK-NEXT:    graph.net_output %[[Y]] : tensor<1x2x4x6xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "depth_space"
// GENERIC:       %{{.*}} = "graph.depth_to_space"(%{{.*}}) <{block_size = 2 : i64, mode = "DCR", data_format = "NCHW"}> : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
// GENERIC:       %{{.*}} = "graph.depth_to_space"(%{{.*}}) <{block_size = 2 : i64, mode = "CRD", data_format = "NCHW"}> : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
// GENERIC:       %{{.*}} = "graph.depth_to_space"(%{{.*}}) <{block_size = 2 : i64, data_format = "NHWC", mode = "DCR"}> : (tensor<1x2x3x8xi32>) -> tensor<1x4x6x2xi32>
// GENERIC:       %{{.*}} = "graph.space_to_depth"(%{{.*}}) <{block_size = 2 : i64, mode = "DCR", data_format = "NCHW"}> : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
// GENERIC:       %{{.*}} = "graph.space_to_depth"(%{{.*}}) <{block_size = 2 : i64, mode = "CRD", data_format = "NCHW"}> : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>

graph.graph @depth_space(%x: tensor<1x8x2x3xf32>, %h: tensor<1x2x3x8xi32>, %s: tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xf32> {
  %y = graph.depth_to_space %x block_size 2 : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %c = graph.depth_to_space %x block_size 2 mode "CRD" : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
  %n = graph.depth_to_space %h block_size 2 data_format "NHWC" : (tensor<1x2x3x8xi32>) -> tensor<1x4x6x2xi32>
  %z = graph.space_to_depth %s block_size 2 : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  %zc = graph.space_to_depth %s block_size 2 mode "CRD" : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
  graph.net_output %y : tensor<1x2x4x6xf32>
}
