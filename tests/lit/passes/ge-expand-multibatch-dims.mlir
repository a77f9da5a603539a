// RUN: ge-opt %s -p 'ge-expand-multibatch{input-shape="label:-1,-1;data:1,-1,4;bias:4" dynamic-dims="1,3,2;2,2,5"}' | filecheck %s
// RUN: ge-opt %s -p 'ge-expand-multibatch{input-shape="label:-1,-1;data:1,-1,4;bias:4" dynamic-dims="1,3,2;2,2,5" get-dynamic-dims=true}' | filecheck %s --check-prefix=DIMS

// Tests `--dynamic_dims` on a graph with three inputs: each gear gives the -1 dims values in
// `--input_shape` order (label's two, then data's one), which is not the graph's input order; the
// static input `bias` is passed to the Case too. Outputs keep their names. label is allocated
// for gear 1 (2x2 = 4 > 1x3 = 3 elements), data for gear 1 (5 > 2).

// CHECK-LABEL: graph.graph @main
// CHECK-SAME:    (%[[DATA:.*]]: tensor<1x?x4xf32> {node_name = "data", _mbatch_origin_input_dims = array<i64: 1, -1, 4>, _mbatch_max_input_dims = array<i64: 1, 5, 4>, _dynamic_batch_unknown_dim_index = array<i64: 1>, "mbatch-switch-name" = "ascend_mbatch_shape_case"},
// CHECK-SAME:     %[[LABEL:.*]]: tensor<?x?xf32> {node_name = "label", _mbatch_origin_input_dims = array<i64: -1, -1>, _mbatch_max_input_dims = array<i64: 2, 2>, _dynamic_batch_unknown_dim_index = array<i64: 0, 1>, "mbatch-switch-name" = "ascend_mbatch_shape_case"},
// CHECK-SAME:     %[[BIAS:.*]]: tensor<4xf32> {node_name = "bias"},
// CHECK-SAME:     %[[SHAPE:.*]]: tensor<3xi32> {node_name = "ascend_mbatch_shape_data", {{.*}}_dynamic_batch_unknown_data_index = array<i64: 0, 1>})
// CHECK-SAME:    -> (tensor<1x?x4xf32> {node_name = "out"}, tensor<?x?xf32> {node_name = "scaled"})
// CHECK-NEXT:    %[[GEARS:.*]] = graph.const dense<[1, 3, 2, 2, 2, 5]> : tensor<6xi32> {node_name = "ascend_mbatch_shape_const"}
// CHECK-NEXT:    %[[I:.*]] = multibatch.map_index %[[SHAPE]], %[[GEARS]]
// CHECK-NEXT:    %[[OUT:.*]], %[[SCALED:.*]] = multibatch.case %[[I]], %[[DATA]], %[[LABEL]], %[[BIAS]] branches [@Batch_0, @Batch_1]
// CHECK-SAME:      _pred_value_0 = array<i64: 1, 3, 2>, _pred_value_1 = array<i64: 2, 2, 5>, mbatch_dynamic_type = 3 : i64, user_designate_shape_order = ["label", "data", "bias"]
// CHECK-NEXT:    graph.net_output {_dynamic_output_dims = ["0,0,1,2,4", "0,1,1,3", "1,0,1,5,4", "1,1,2,2"]} %[[OUT]], %[[SCALED]]

// CHECK-LABEL: graph.graph @Batch_0
// CHECK-SAME:    (%{{.*}}: tensor<1x2x4xf32> {node_name = "data_ascend_mbatch_batch_0", _parent_node_index = 1 : i64},
// CHECK-SAME:     %{{.*}}: tensor<1x3xf32> {node_name = "label_ascend_mbatch_batch_0", _parent_node_index = 2 : i64},
// CHECK-SAME:     %{{.*}}: tensor<4xf32> {node_name = "bias_ascend_mbatch_batch_0", _parent_node_index = 3 : i64})
// CHECK-SAME:    -> (tensor<1x2x4xf32> {node_name = "out", _parent_node_index = 0 : i64}, tensor<1x3xf32> {node_name = "scaled", _parent_node_index = 1 : i64})
// CHECK:         graph.mul {{.*}} {node_name = "mul_ascend_mbatch_batch_0", _batch_label = "Batch_0"} : (tensor<1x3xf32>, tensor<f32>) -> tensor<1x3xf32>
// CHECK-LABEL: graph.graph @Batch_1
// CHECK-SAME:    (%{{.*}}: tensor<1x5x4xf32> {{.*}}, %{{.*}}: tensor<2x2xf32> {{.*}}, %{{.*}}: tensor<4xf32>

// GetNext-sink variant: no shape-data input; the dims come from the input shapes (in
// --input_shape order) and are also returned, as GE appends them to NetOutput.
// DIMS-LABEL: graph.graph @main
// DIMS-SAME:    (%[[DATA:.*]]: tensor<1x?x4xf32> {{.*}}, %[[LABEL:.*]]: tensor<?x?xf32> {{.*}}, %[[BIAS:.*]]: tensor<4xf32> {node_name = "bias"})
// DIMS-SAME:    -> (tensor<1x?x4xf32> {node_name = "out"}, tensor<?x?xf32> {node_name = "scaled"}, tensor<3xi32> {node_name = "ascend_mbatch_get_dynamic_dims_node"})
// DIMS-NEXT:    %[[GEARS:.*]] = graph.const dense<[1, 3, 2, 2, 2, 5]>
// DIMS-NEXT:    %[[S0:.*]] = graph.shape %[[LABEL]] {node_name = "label_shape"} : (tensor<?x?xf32>) -> tensor<2xi64>
// DIMS-NEXT:    %[[S1:.*]] = graph.shape %[[DATA]] {node_name = "data_shape"} : (tensor<1x?x4xf32>) -> tensor<3xi64>
// DIMS-NEXT:    %[[S2:.*]] = graph.shape %[[BIAS]] {node_name = "bias_shape"} : (tensor<4xf32>) -> tensor<1xi64>
// DIMS-NEXT:    %[[D:.*]] = multibatch.get_dynamic_dims %[[S0]], %[[S1]], %[[S2]] shape_info [2, -1, -1, 3, 1, -1, 4, 1, 4] N 3 {node_name = "ascend_mbatch_get_dynamic_dims_node", "mbatch-inserted-node" = true} : (tensor<2xi64>, tensor<3xi64>, tensor<1xi64>) -> tensor<3xi32>
// DIMS-NEXT:    %[[I:.*]] = multibatch.map_index %[[D]], %[[GEARS]]
// DIMS-NEXT:    %[[OUT:.*]], %[[SCALED:.*]] = multibatch.case %[[I]], %[[DATA]], %[[LABEL]], %[[BIAS]]
// DIMS-NEXT:    graph.net_output {_dynamic_output_dims = [{{.*}}, "-1,2,3"]} %[[OUT]], %[[SCALED]], %[[D]]

graph.graph @main(%data: tensor<1x?x4xf32> {node_name = "data"}, %label: tensor<?x?xf32> {node_name = "label"}, %bias: tensor<4xf32> {node_name = "bias"}) -> (tensor<1x?x4xf32> {node_name = "out"}, tensor<?x?xf32> {node_name = "scaled"}) {
  %a = graph.add %data, %bias {node_name = "add"} : (tensor<1x?x4xf32>, tensor<4xf32>) -> tensor<1x?x4xf32>
  %two = graph.const dense<2.0> : tensor<f32> {node_name = "two"}
  %m = graph.mul %label, %two {node_name = "mul"} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  graph.net_output %a, %m : tensor<1x?x4xf32>, tensor<?x?xf32>
}
