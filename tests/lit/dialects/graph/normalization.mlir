// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests BatchNorm on a 3-D channels-first input, InstanceNorm, GroupNorm and LayerNormV3 with f32 statistics of f16 data.
// CHECK-LABEL: graph.graph @norm
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4x5xf32>, %[[P:.*]]: tensor<4xf32>, %[[IMG:.*]]: tensor<2x4x3x3xf32>, %[[H:.*]]: tensor<2x5x6xf16>, %[[G:.*]]: tensor<6xf16>, %[[Q:.*]]: tensor<3xf32>) -> tensor<2x4x5xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.batch_norm %[[X]], %[[P]], %[[P]], %[[P]], %[[P]] epsilon 1.0e-05 : (tensor<2x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.instance_norm %[[IMG]], %[[P]], %[[P]] epsilon 1.0e-05 : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.group_norm %[[IMG]], %[[P]], %[[P]] num_groups 2 eps 1.0e-05 : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
// CHECK-NEXT:    %[[Y:.*]], %[[M:.*]], %[[R:.*]] = graph.layer_norm_v3 %[[H]], %[[G]], %[[G]] begin_norm_axis -1 begin_params_axis -1 epsilon 0.001 : (tensor<2x5x6xf16>, tensor<6xf16>, tensor<6xf16>) -> (tensor<2x5x6xf16>, tensor<2x5x1xf32>, tensor<2x5x1xf32>)
// CHECK-NEXT:    %[[Y2:.*]], %[[M2:.*]], %[[R2:.*]] = graph.layer_norm_v3 %[[IMG]], %[[Q]], %[[Q]] begin_norm_axis 1 begin_params_axis 3 : (tensor<2x4x3x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2x1x1x1xf32>)
// CHECK-NEXT:    graph.net_output %[[A]] : tensor<2x4x5xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "norm"
// GENERIC:       %{{.*}} = "graph.batch_norm"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 1.000000e-05 : f32, data_format = "NCHW", is_training = false}> : (tensor<2x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5xf32>
// GENERIC:       %{{.*}} = "graph.instance_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{epsilon = 1.000000e-05 : f32, data_format = "NCHW"}> : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
// GENERIC:       %{{.*}} = "graph.group_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{num_groups = 2 : i64, eps = 1.000000e-05 : f32, data_format = "NCHW"}> : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
// GENERIC:       %{{.*}}, %{{.*}}, %{{.*}} = "graph.layer_norm_v3"(%{{.*}}, %{{.*}}, %{{.*}}) <{begin_norm_axis = -1 : i64, begin_params_axis = -1 : i64, epsilon = 1.000000e-03 : f32}> : (tensor<2x5x6xf16>, tensor<6xf16>, tensor<6xf16>) -> (tensor<2x5x6xf16>, tensor<2x5x1xf32>, tensor<2x5x1xf32>)
// GENERIC:       %{{.*}}, %{{.*}}, %{{.*}} = "graph.layer_norm_v3"(%{{.*}}, %{{.*}}, %{{.*}}) <{begin_norm_axis = 1 : i64, begin_params_axis = 3 : i64, epsilon = 1.000000e-05 : f32}> : (tensor<2x4x3x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2x1x1x1xf32>)

graph.graph @norm(%x: tensor<2x4x5xf32>, %p: tensor<4xf32>, %img: tensor<2x4x3x3xf32>, %h: tensor<2x5x6xf16>, %g: tensor<6xf16>, %q: tensor<3xf32>) -> tensor<2x4x5xf32> {
  %a = graph.batch_norm %x, %p, %p, %p, %p epsilon 1.0e-05 : (tensor<2x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x5xf32>
  %b = graph.instance_norm %img, %p, %p epsilon 1.0e-05 : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  %c = graph.group_norm %img, %p, %p num_groups 2 eps 1.0e-05 : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  %y, %m, %r = graph.layer_norm_v3 %h, %g, %g begin_norm_axis -1 begin_params_axis -1 epsilon 0.001 : (tensor<2x5x6xf16>, tensor<6xf16>, tensor<6xf16>) -> (tensor<2x5x6xf16>, tensor<2x5x1xf32>, tensor<2x5x1xf32>)
  %y2, %m2, %r2 = graph.layer_norm_v3 %img, %q, %q begin_norm_axis 1 begin_params_axis 3 : (tensor<2x4x3x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x1x1x1xf32>, tensor<2x1x1x1xf32>)
  graph.net_output %a : tensor<2x4x5xf32>
}

// -----

// Tests SoftmaxV2 (default axes, joint trailing axes as ONNX opset < 13 imports), LogSoftmaxV2, Hardmax and LRN.
// CHECK-LABEL: graph.graph @softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>, %[[U:.*]]: tensor<*xf32>, %[[IMG:.*]]: tensor<1x5x4x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.softmax_v2 %[[X]] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.softmax_v2 %[[X]] axes [1, 2] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.log_softmax_v2 %[[U]] axes [0] : (tensor<*xf32>) -> tensor<*xf32>
// CHECK-NEXT:    %[[D:.*]] = graph.hardmax %[[X]] axes [-2] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[E:.*]] = graph.lrn %[[IMG]] depth_radius 1 bias 2.0 alpha 3.3e-05 beta 0.75 : (tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
// CHECK-NEXT:    graph.net_output %[[B]] : tensor<2x3x4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "softmax"
// GENERIC:       %{{.*}} = "graph.softmax_v2"(%{{.*}}) <{axes = array<i64: -1>}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC:       %{{.*}} = "graph.softmax_v2"(%{{.*}}) <{axes = array<i64: 1, 2>}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC:       %{{.*}} = "graph.log_softmax_v2"(%{{.*}}) <{axes = array<i64: 0>}> : (tensor<*xf32>) -> tensor<*xf32>
// GENERIC:       %{{.*}} = "graph.hardmax"(%{{.*}}) <{axes = array<i64: -2>}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC:       %{{.*}} = "graph.lrn"(%{{.*}}) <{depth_radius = 1 : i64, bias = 2.000000e+00 : f32, alpha = 3.300000e-05 : f32, beta = 7.500000e-01 : f32, norm_region = "ACROSS_CHANNELS"}> : (tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>

graph.graph @softmax(%x: tensor<2x3x4xf32>, %u: tensor<*xf32>, %img: tensor<1x5x4x4xf32>) -> tensor<2x3x4xf32> {
  %a = graph.softmax_v2 %x : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %b = graph.softmax_v2 %x axes [1, 2] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %c = graph.log_softmax_v2 %u axes [0] : (tensor<*xf32>) -> tensor<*xf32>
  %d = graph.hardmax %x axes [-2] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %e = graph.lrn %img depth_radius 1 bias 2.0 alpha 3.3e-05 beta 0.75 : (tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
  graph.net_output %b : tensor<2x3x4xf32>
}
