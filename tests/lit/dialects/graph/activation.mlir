// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests every activation with its defaults (printed in the generic form) and an integer Relu.

// CHECK-LABEL: graph.graph @defaults
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4xf32>, %[[I:.*]]: tensor<2x4xi32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[RELU:.*]] = graph.relu %[[X]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[IRELU:.*]] = graph.relu %[[I]] : (tensor<2x4xi32>) -> tensor<2x4xi32>
// CHECK-NEXT:    %[[LEAKY:.*]] = graph.leaky_relu %[[RELU]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[ELU:.*]] = graph.elu %[[LEAKY]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[SELU:.*]] = graph.selu %[[ELU]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[CELU:.*]] = graph.celu_v2 %[[SELU]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[HSIG:.*]] = graph.hard_sigmoid %[[CELU]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[HSWISH:.*]] = graph.hard_swish %[[HSIG]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[GELU:.*]] = graph.gelu %[[HSWISH]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[SOFTPLUS:.*]] = graph.softplus %[[GELU]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[SOFTSIGN:.*]] = graph.softsign %[[SOFTPLUS]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[SIGMOID:.*]] = graph.sigmoid %[[SOFTSIGN]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[TANH:.*]] = graph.tanh %[[SIGMOID]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[TRELU:.*]] = graph.thresholded_relu %[[TANH]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[MISH:.*]] = graph.mish %[[TRELU]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[SHRINK:.*]] = graph.shrink %[[MISH]] : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    graph.net_output %[[SHRINK]] : tensor<2x4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "defaults"
// GENERIC:       %{{.*}} = "graph.relu"(%{{.*}}) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.relu"(%{{.*}}) : (tensor<2x4xi32>) -> tensor<2x4xi32>
// GENERIC:       %{{.*}} = "graph.leaky_relu"(%{{.*}}) <{negative_slope = 0.000000e+00 : f32}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.elu"(%{{.*}}) <{alpha = 1.000000e+00 : f32, scale = 1.000000e+00 : f32, input_scale = 1.000000e+00 : f32}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.selu"(%{{.*}}) <{alpha = 1.67326319 : f32, gamma = 1.05070102 : f32}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.celu_v2"(%{{.*}}) <{alpha = 1.000000e+00 : f32}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.hard_sigmoid"(%{{.*}}) <{alpha = 0.166666657 : f32, beta = 5.000000e-01 : f32}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.hard_swish"(%{{.*}}) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.gelu"(%{{.*}}) <{approximate = "none"}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.softplus"(%{{.*}}) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.softsign"(%{{.*}}) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.sigmoid"(%{{.*}}) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.tanh"(%{{.*}}) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.thresholded_relu"(%{{.*}}) <{alpha = 1.000000e+00 : f32}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.mish"(%{{.*}}) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       %{{.*}} = "graph.shrink"(%{{.*}}) <{lambd = 5.000000e-01 : f32, bias = 0.000000e+00 : f32}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// GENERIC:       "graph.net_output"(%{{.*}}) : (tensor<2x4xf32>) -> ()

graph.graph @defaults(%x: tensor<2x4xf32>, %i: tensor<2x4xi32>) -> tensor<2x4xf32> {
  %relu = graph.relu %x : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %irelu = graph.relu %i : (tensor<2x4xi32>) -> tensor<2x4xi32>
  %leaky = graph.leaky_relu %relu : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %elu = graph.elu %leaky : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %selu = graph.selu %elu : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %celu = graph.celu_v2 %selu : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %hsig = graph.hard_sigmoid %celu : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %hswish = graph.hard_swish %hsig : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %gelu = graph.gelu %hswish : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %softplus = graph.softplus %gelu : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %softsign = graph.softsign %softplus : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %sigmoid = graph.sigmoid %softsign : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %tanh = graph.tanh %sigmoid : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %trelu = graph.thresholded_relu %tanh : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %mish = graph.mish %trelu : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %shrink = graph.shrink %mish : (tensor<2x4xf32>) -> tensor<2x4xf32>
  graph.net_output %shrink : tensor<2x4xf32>
}

// -----

// Tests every non-default activation property, f16 and `?` dims, an integer Shrink and PRelu
// with a broadcast slope.

// CHECK-LABEL: graph.graph @attributes
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf16>, %[[S:.*]]: tensor<4xf16>, %[[I:.*]]: tensor<3xi8>) -> tensor<?x4xf16>
// CHECK-NEXT:    %[[LEAKY:.*]] = graph.leaky_relu %[[X]] negative_slope 0.01 : (tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT:    %[[ELU:.*]] = graph.elu %[[LEAKY]] alpha 0.5 scale 2.0 input_scale 1.5 : (tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT:    %[[SELU:.*]] = graph.selu %[[ELU]] alpha 2.0 gamma 3.0 : (tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT:    %[[CELU:.*]] = graph.celu_v2 %[[SELU]] alpha 2.0 : (tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT:    %[[HSIG:.*]] = graph.hard_sigmoid %[[CELU]] alpha 0.2 beta 0.25 : (tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT:    %[[GELU:.*]] = graph.gelu %[[HSIG]] approximate "tanh" : (tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT:    %[[TRELU:.*]] = graph.thresholded_relu %[[GELU]] alpha 2.0 : (tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT:    %[[SHRINK:.*]] = graph.shrink %[[TRELU]] lambd 1.5 bias 1.5 : (tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT:    %[[ISHRINK:.*]] = graph.shrink %[[I]] lambd 1.0 : (tensor<3xi8>) -> tensor<3xi8>
// CHECK-NEXT:    %[[PRELU:.*]] = graph.prelu %[[SHRINK]], %[[S]] : (tensor<?x4xf16>, tensor<4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT:    graph.net_output %[[PRELU]] : tensor<?x4xf16>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "attributes"
// GENERIC:       %{{.*}} = "graph.leaky_relu"(%{{.*}}) <{negative_slope = 1.000000e-02 : f32}> : (tensor<?x4xf16>) -> tensor<?x4xf16>
// GENERIC:       %{{.*}} = "graph.elu"(%{{.*}}) <{alpha = 5.000000e-01 : f32, scale = 2.000000e+00 : f32, input_scale = 1.500000e+00 : f32}> : (tensor<?x4xf16>) -> tensor<?x4xf16>
// GENERIC:       %{{.*}} = "graph.selu"(%{{.*}}) <{alpha = 2.000000e+00 : f32, gamma = 3.000000e+00 : f32}> : (tensor<?x4xf16>) -> tensor<?x4xf16>
// GENERIC:       %{{.*}} = "graph.celu_v2"(%{{.*}}) <{alpha = 2.000000e+00 : f32}> : (tensor<?x4xf16>) -> tensor<?x4xf16>
// GENERIC:       %{{.*}} = "graph.hard_sigmoid"(%{{.*}}) <{alpha = 2.000000e-01 : f32, beta = 2.500000e-01 : f32}> : (tensor<?x4xf16>) -> tensor<?x4xf16>
// GENERIC:       %{{.*}} = "graph.gelu"(%{{.*}}) <{approximate = "tanh"}> : (tensor<?x4xf16>) -> tensor<?x4xf16>
// GENERIC:       %{{.*}} = "graph.thresholded_relu"(%{{.*}}) <{alpha = 2.000000e+00 : f32}> : (tensor<?x4xf16>) -> tensor<?x4xf16>
// GENERIC:       %{{.*}} = "graph.shrink"(%{{.*}}) <{lambd = 1.500000e+00 : f32, bias = 1.500000e+00 : f32}> : (tensor<?x4xf16>) -> tensor<?x4xf16>
// GENERIC:       %{{.*}} = "graph.shrink"(%{{.*}}) <{lambd = 1.000000e+00 : f32, bias = 0.000000e+00 : f32}> : (tensor<3xi8>) -> tensor<3xi8>
// GENERIC:       %{{.*}} = "graph.prelu"(%{{.*}}, %{{.*}}) : (tensor<?x4xf16>, tensor<4xf16>) -> tensor<?x4xf16>
// GENERIC:       "graph.net_output"(%{{.*}}) : (tensor<?x4xf16>) -> ()

graph.graph @attributes(%x: tensor<?x4xf16>, %s: tensor<4xf16>, %i: tensor<3xi8>) -> tensor<?x4xf16> {
  %leaky = graph.leaky_relu %x negative_slope 0.01 : (tensor<?x4xf16>) -> tensor<?x4xf16>
  %elu = graph.elu %leaky alpha 0.5 scale 2.0 input_scale 1.5 : (tensor<?x4xf16>) -> tensor<?x4xf16>
  %selu = graph.selu %elu alpha 2.0 gamma 3.0 : (tensor<?x4xf16>) -> tensor<?x4xf16>
  %celu = graph.celu_v2 %selu alpha 2.0 : (tensor<?x4xf16>) -> tensor<?x4xf16>
  %hsig = graph.hard_sigmoid %celu alpha 0.2 beta 0.25 : (tensor<?x4xf16>) -> tensor<?x4xf16>
  %gelu = graph.gelu %hsig approximate "tanh" : (tensor<?x4xf16>) -> tensor<?x4xf16>
  %trelu = graph.thresholded_relu %gelu alpha 2.0 : (tensor<?x4xf16>) -> tensor<?x4xf16>
  %shrink = graph.shrink %trelu lambd 1.5 bias 1.5 : (tensor<?x4xf16>) -> tensor<?x4xf16>
  %ishrink = graph.shrink %i lambd 1.0 : (tensor<3xi8>) -> tensor<3xi8>
  %prelu = graph.prelu %shrink, %s : (tensor<?x4xf16>, tensor<4xf16>) -> tensor<?x4xf16>
  graph.net_output %prelu : tensor<?x4xf16>
}
