// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests MaxPoolV3 in 1-D, 2-D (ceil_mode, dilations, NHWC on integers) and 3-D, and MaxPoolWithArgmax with storage_order.
// CHECK-LABEL: graph.graph @max_pool
// CHECK-SAME:    (%[[X1:.*]]: tensor<1x3x32xf32>, %[[X:.*]]: tensor<1x3x8x8xf32>, %[[XH:.*]]: tensor<2x7x7x4xui8>, %[[X3:.*]]: tensor<1x1x4x4x4xf32>, %[[D:.*]]: tensor<?x3x?x?xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.max_pool_v3 %[[X1]] ksize [1, 1, 2] strides [1, 1, 1] : (tensor<1x3x32xf32>) -> tensor<1x3x31xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.max_pool_v3 %[[X]] ksize [1, 1, 3, 3] strides [1, 1, 2, 2] pads [1, 1, 1, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %[[C:.*]] = graph.max_pool_v3 %[[XH]] ksize [1, 3, 3, 1] strides [1, 2, 2, 1] dilations [1, 2, 1, 1] data_format "NHWC" ceil_mode true : (tensor<2x7x7x4xui8>) -> tensor<2x2x3x4xui8>
// CHECK-NEXT:    %[[E:.*]] = graph.max_pool_v3 %[[X3]] ksize [1, 1, 2, 2, 2] strides [1, 1, 1, 1, 1] dilations [1, 1, 2, 2, 2] : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x2x2x2xf32>
// CHECK-NEXT:    %[[F:.*]] = graph.max_pool_v3 %[[D]] ksize [1, 1, 2, 2] strides [1, 1, 2, 2] : (tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32>
// CHECK-NEXT:    %[[Y:.*]], %[[I:.*]] = graph.max_pool_with_argmax %[[X]] storage_order 1 ksize [1, 1, 2, 2] strides [1, 1, 2, 2] : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>)
// CHECK-NEXT:    graph.net_output %[[B]] : tensor<1x3x4x4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "max_pool"
// GENERIC:       %{{.*}} = "graph.max_pool_v3"(%{{.*}}) <{ksize = array<i64: 1, 1, 2>, strides = array<i64: 1, 1, 1>, pads = array<i64>, dilations = array<i64>, data_format = "NCHW", ceil_mode = false}> : (tensor<1x3x32xf32>) -> tensor<1x3x31xf32>
// GENERIC:       %{{.*}} = "graph.max_pool_v3"(%{{.*}}) <{ksize = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64>, data_format = "NCHW", ceil_mode = false}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// GENERIC:       %{{.*}} = "graph.max_pool_v3"(%{{.*}}) <{ksize = array<i64: 1, 3, 3, 1>, strides = array<i64: 1, 2, 2, 1>, dilations = array<i64: 1, 2, 1, 1>, data_format = "NHWC", ceil_mode = true, pads = array<i64>}> : (tensor<2x7x7x4xui8>) -> tensor<2x2x3x4xui8>
// GENERIC:       %{{.*}} = "graph.max_pool_v3"(%{{.*}}) <{ksize = array<i64: 1, 1, 2, 2, 2>, strides = array<i64: 1, 1, 1, 1, 1>, dilations = array<i64: 1, 1, 2, 2, 2>, pads = array<i64>, data_format = "NCHW", ceil_mode = false}> : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x2x2x2xf32>
// GENERIC:       %{{.*}} = "graph.max_pool_v3"(%{{.*}}) <{ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, pads = array<i64>, dilations = array<i64>, data_format = "NCHW", ceil_mode = false}> : (tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32>
// GENERIC:       %{{.*}}, %{{.*}} = "graph.max_pool_with_argmax"(%{{.*}}) <{ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 2, 2>, storage_order = 1 : i64, pads = array<i64>, dilations = array<i64>, data_format = "NCHW", ceil_mode = false}> : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>)

graph.graph @max_pool(%x1: tensor<1x3x32xf32>, %x: tensor<1x3x8x8xf32>, %xh: tensor<2x7x7x4xui8>, %x3: tensor<1x1x4x4x4xf32>, %d: tensor<?x3x?x?xf32>) -> tensor<1x3x4x4xf32> {
  %a = graph.max_pool_v3 %x1 ksize [1, 1, 2] strides [1, 1, 1] : (tensor<1x3x32xf32>) -> tensor<1x3x31xf32>
  %b = graph.max_pool_v3 %x ksize [1, 1, 3, 3] strides [1, 1, 2, 2] pads [1, 1, 1, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  %c = graph.max_pool_v3 %xh ksize [1, 3, 3, 1] strides [1, 2, 2, 1] dilations [1, 2, 1, 1] data_format "NHWC" ceil_mode true : (tensor<2x7x7x4xui8>) -> tensor<2x2x3x4xui8>
  %e = graph.max_pool_v3 %x3 ksize [1, 1, 2, 2, 2] strides [1, 1, 1, 1, 1] dilations [1, 1, 2, 2, 2] : (tensor<1x1x4x4x4xf32>) -> tensor<1x1x2x2x2xf32>
  %f = graph.max_pool_v3 %d ksize [1, 1, 2, 2] strides [1, 1, 2, 2] : (tensor<?x3x?x?xf32>) -> tensor<?x3x?x?xf32>
  %y, %i = graph.max_pool_with_argmax %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] storage_order 1 : (tensor<1x3x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>)
  graph.net_output %b : tensor<1x3x4x4xf32>
}

// -----

// Tests AvgPoolV2 (count_include_pad as exclusive false, divisor_override) and LpPool.
// CHECK-LABEL: graph.graph @avg_pool
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[X1:.*]]: tensor<2x2x9xf16>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.avg_pool_v2 %[[X]] exclusive false ksize [1, 1, 3, 3] strides [1, 1, 1, 1] pads [1, 1, 1, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.avg_pool_v2 %[[X1]] divisor_override 2 ksize [1, 1, 4] strides [1, 1, 3] pads [0, 1] ceil_mode true : (tensor<2x2x9xf16>) -> tensor<2x2x3xf16>
// CHECK-NEXT:    %[[C:.*]] = graph.lp_pool %[[X]] p 3.0 ksize [1, 1, 2, 2] strides [1, 1, 1, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
// CHECK-NEXT:    graph.net_output %[[A]] : tensor<1x3x8x8xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "avg_pool"
// GENERIC:       %{{.*}} = "graph.avg_pool_v2"(%{{.*}}) <{ksize = array<i64: 1, 1, 3, 3>, strides = array<i64: 1, 1, 1, 1>, pads = array<i64: 1, 1, 1, 1>, exclusive = false, divisor_override = 0 : i64, dilations = array<i64>, data_format = "NCHW", ceil_mode = false}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
// GENERIC:       %{{.*}} = "graph.avg_pool_v2"(%{{.*}}) <{ksize = array<i64: 1, 1, 4>, strides = array<i64: 1, 1, 3>, pads = array<i64: 0, 1>, ceil_mode = true, divisor_override = 2 : i64, exclusive = true, dilations = array<i64>, data_format = "NCHW"}> : (tensor<2x2x9xf16>) -> tensor<2x2x3xf16>
// GENERIC:       %{{.*}} = "graph.lp_pool"(%{{.*}}) <{ksize = array<i64: 1, 1, 2, 2>, strides = array<i64: 1, 1, 1, 1>, p = 3.000000e+00 : f32, pads = array<i64>, dilations = array<i64>, data_format = "NCHW", ceil_mode = false}> : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>

graph.graph @avg_pool(%x: tensor<1x3x8x8xf32>, %x1: tensor<2x2x9xf16>) -> tensor<1x3x8x8xf32> {
  %a = graph.avg_pool_v2 %x ksize [1, 1, 3, 3] strides [1, 1, 1, 1] pads [1, 1, 1, 1] exclusive false : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
  %b = graph.avg_pool_v2 %x1 ksize [1, 1, 4] strides [1, 1, 3] pads [0, 1] ceil_mode true divisor_override 2 : (tensor<2x2x9xf16>) -> tensor<2x2x3xf16>
  %c = graph.lp_pool %x ksize [1, 1, 2, 2] strides [1, 1, 1, 1] p 3.0 : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
  graph.net_output %a : tensor<1x3x8x8xf32>
}

// -----

// Tests the global pools over 2-D and 3-D spatial dims and unknown dims.
// CHECK-LABEL: graph.graph @global_pool
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x7x7xf32>, %[[X3:.*]]: tensor<1x2x3x4x5xf64>, %[[D:.*]]: tensor<?x3x?x?xf32>) -> tensor<2x3x1x1xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.global_average_pool %[[X]] : (tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = graph.global_max_pool %[[X3]] : (tensor<1x2x3x4x5xf64>) -> tensor<1x2x1x1x1xf64>
// CHECK-NEXT:    %[[C:.*]] = graph.global_lp_pool %[[D]] p 3.0 : (tensor<?x3x?x?xf32>) -> tensor<?x3x1x1xf32>
// CHECK-NEXT:    %[[E:.*]] = graph.global_lp_pool %[[X]] : (tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32>
// CHECK-NEXT:    graph.net_output %[[A]] : tensor<2x3x1x1xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "global_pool"
// GENERIC:       %{{.*}} = "graph.global_average_pool"(%{{.*}}) : (tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32>
// GENERIC:       %{{.*}} = "graph.global_max_pool"(%{{.*}}) : (tensor<1x2x3x4x5xf64>) -> tensor<1x2x1x1x1xf64>
// GENERIC:       %{{.*}} = "graph.global_lp_pool"(%{{.*}}) <{p = 3.000000e+00 : f32}> : (tensor<?x3x?x?xf32>) -> tensor<?x3x1x1xf32>
// GENERIC:       %{{.*}} = "graph.global_lp_pool"(%{{.*}}) <{p = 2.000000e+00 : f32}> : (tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32>

graph.graph @global_pool(%x: tensor<2x3x7x7xf32>, %x3: tensor<1x2x3x4x5xf64>, %d: tensor<?x3x?x?xf32>) -> tensor<2x3x1x1xf32> {
  %a = graph.global_average_pool %x : (tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32>
  %b = graph.global_max_pool %x3 : (tensor<1x2x3x4x5xf64>) -> tensor<1x2x1x1x1xf64>
  %c = graph.global_lp_pool %d p 3.0 : (tensor<?x3x?x?xf32>) -> tensor<?x3x1x1xf32>
  %e = graph.global_lp_pool %x : (tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32>
  graph.net_output %a : tensor<2x3x1x1xf32>
}
