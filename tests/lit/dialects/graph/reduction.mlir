// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests every reduction with constant, runtime and absent axes, and non-default properties.

// CHECK-LABEL: graph.graph @reductions
// CHECK:         graph.reduce_sum %{{.*}}, %[[A:.*]] keep_dims true : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
// CHECK:         graph.reduce_mean %{{.*}} : (tensor<2x3x4xf32>) -> tensor<f32>
// CHECK:         graph.reduce_max %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?xf32>
// CHECK:         graph.reduce_min %{{.*}} noop_with_empty_axes true : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK:         graph.reduce_prod %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
// CHECK:         graph.reduce_l1 %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
// CHECK:         graph.euclidean_norm %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
// CHECK:         graph.reduce_log_sum %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
// CHECK:         graph.reduce_log_sum_exp %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
// CHECK:         graph.reduce_sum_square %{{.*}}, %{{.*}} keep_dims true : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "reductions"
// GENERIC:       "graph.reduce_sum"(%{{.*}}, %{{.*}}) <{{.*}}keep_dims = true{{.*}}}>
// GENERIC:       "graph.reduce_mean"(%{{.*}}) <{keep_dims = false, noop_with_empty_axes = false}> : (tensor<2x3x4xf32>) -> tensor<f32>
// GENERIC:       "graph.reduce_min"(%{{.*}}) <{{.*}}noop_with_empty_axes = true{{.*}}}>
graph.graph @reductions(%x: tensor<2x3x4xf32>, %ax: tensor<2xi64>) -> tensor<2x1x4xf32> {
  %a = graph.const dense<[-2]> : tensor<1xi64>
  %s = graph.reduce_sum %x, %a keep_dims true : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  %m = graph.reduce_mean %x : (tensor<2x3x4xf32>) -> tensor<f32>
  %mx = graph.reduce_max %x, %ax : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<?xf32>
  %mn = graph.reduce_min %x noop_with_empty_axes true : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %p = graph.reduce_prod %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  %l1 = graph.reduce_l1 %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  %l2 = graph.euclidean_norm %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  %ls = graph.reduce_log_sum %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  %lse = graph.reduce_log_sum_exp %x, %a : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x4xf32>
  %ss = graph.reduce_sum_square %x, %a keep_dims true : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
  graph.net_output %s : tensor<2x1x4xf32>
}

// -----

// Tests arg-reductions, TopK with two results, and CumSum.

// CHECK-LABEL: graph.graph @selection
// CHECK:         graph.arg_max_d %{{.*}} dimension 1 select_last_index true : (tensor<2x3xf32>) -> tensor<2xi64>
// CHECK:         graph.arg_min_d %{{.*}} dimension -1 keep_dims true : (tensor<2x3xf32>) -> tensor<2x1xi64>
// CHECK:         %[[V:.*]], %[[I:.*]] = graph.top_kv2 %{{.*}}, %{{.*}} sorted false dim 0 largest false : (tensor<2x3xf32>, tensor<1xi64>) -> (tensor<1x3xf32>, tensor<1x3xi64>)
// CHECK:         graph.cumsum %{{.*}}, %{{.*}} exclusive true reverse true : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "selection"
// GENERIC:       "graph.arg_max_d"(%{{.*}}) <{{.*}}select_last_index = true{{.*}}}>
// GENERIC:       "graph.top_kv2"(%{{.*}}, %{{.*}}) <{{.*}}largest = false{{.*}}}>
// GENERIC:       "graph.cumsum"(%{{.*}}, %{{.*}}) <{{.*}}reverse = true{{.*}}}>
graph.graph @selection(%x: tensor<2x3xf32>, %axis: tensor<i64>) -> tensor<2xi64> {
  %k = graph.const dense<[1]> : tensor<1xi64>
  %am = graph.arg_max_d %x dimension 1 select_last_index true : (tensor<2x3xf32>) -> tensor<2xi64>
  %an = graph.arg_min_d %x dimension -1 keep_dims true : (tensor<2x3xf32>) -> tensor<2x1xi64>
  %v, %i = graph.top_kv2 %x, %k sorted false dim 0 largest false : (tensor<2x3xf32>, tensor<1xi64>) -> (tensor<1x3xf32>, tensor<1x3xi64>)
  %c = graph.cumsum %x, %axis exclusive true reverse true : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
  graph.net_output %am : tensor<2xi64>
}
