// RUN: ge-opt %s -p 'ge-expand-multibatch{input-shape="img:1,3,-1,-1" dynamic-image-size="4,6;8,8"}' | filecheck %s

// Tests `--dynamic_image_size` (NCHW): gears are (H, W) pairs, the shape data holds two values,
// and `_dynamic_output_dims` lists each gear's output shapes (the pooled output is the same in
// every gear).

// CHECK-LABEL: graph.graph @net
// CHECK-SAME:    (%[[IMG:.*]]: tensor<1x3x?x?xf32> {node_name = "img", _mbatch_origin_input_dims = array<i64: 1, 3, -1, -1>, _mbatch_max_input_dims = array<i64: 1, 3, 8, 8>, _dynamic_batch_unknown_dim_index = array<i64: 2, 3>, "mbatch-switch-name" = "ascend_mbatch_shape_case"},
// CHECK-SAME:     %[[SHAPE:.*]]: tensor<2xi32> {node_name = "ascend_mbatch_shape_data"
// CHECK-NEXT:    %[[GEARS:.*]] = graph.const dense<[4, 6, 8, 8]> : tensor<4xi32>
// CHECK-NEXT:    %[[I:.*]] = multibatch.map_index %[[SHAPE]], %[[GEARS]] {{.*}}: (tensor<2xi32>, tensor<4xi32>) -> tensor<i32>
// CHECK-NEXT:    %[[ACT:.*]], %[[POOL:.*]] = multibatch.case %[[I]], %[[IMG]] branches [@Batch_0, @Batch_1]
// CHECK-SAME:      _pred_value_0 = array<i64: 4, 6>, _pred_value_1 = array<i64: 8, 8>, mbatch_dynamic_type = 2 : i64, user_designate_shape_order = ["img"]
// CHECK-SAME:      : (tensor<i32>, tensor<1x3x?x?xf32>) -> (tensor<1x3x?x?xf32>, tensor<1x3xf32>)
// CHECK-NEXT:    graph.net_output {_dynamic_output_dims = ["0,0,1,3,4,6", "0,1,1,3", "1,0,1,3,8,8", "1,1,1,3"]} %[[ACT]], %[[POOL]]

// CHECK-LABEL: graph.graph @Batch_0
// CHECK-SAME:    (%[[X0:.*]]: tensor<1x3x4x6xf32> {node_name = "img_ascend_mbatch_batch_0", _parent_node_index = 1 : i64})
// CHECK-NEXT:    %[[S0:.*]] = graph.sigmoid %[[X0]] {node_name = "sig_ascend_mbatch_batch_0", _batch_label = "Batch_0"} : (tensor<1x3x4x6xf32>) -> tensor<1x3x4x6xf32>
// CHECK-NEXT:    %[[AX0:.*]] = graph.const dense<[2, 3]> : tensor<2xi64> {node_name = "hw_ascend_mbatch_batch_0", _batch_label = "Batch_0"}
// CHECK-NEXT:    graph.reduce_mean %[[S0]], %[[AX0]] {node_name = "gap_ascend_mbatch_batch_0", _batch_label = "Batch_0"} : (tensor<1x3x4x6xf32>, tensor<2xi64>) -> tensor<1x3xf32>
// CHECK-LABEL: graph.graph @Batch_1
// CHECK-SAME:    (%{{.*}}: tensor<1x3x8x8xf32> {node_name = "img_ascend_mbatch_batch_1", _parent_node_index = 1 : i64})
// CHECK-NEXT:    graph.sigmoid {{.*}} : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>

graph.graph @net(%img: tensor<1x3x?x?xf32> {node_name = "img"}) -> (tensor<1x3x?x?xf32> {node_name = "act"}, tensor<1x3xf32> {node_name = "pooled"}) {
  %r = graph.sigmoid %img {node_name = "sig"} : (tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32>
  %axes = graph.const dense<[2, 3]> : tensor<2xi64> {node_name = "hw"}
  %p = graph.reduce_mean %r, %axes {node_name = "gap"} : (tensor<1x3x?x?xf32>, tensor<2xi64>) -> tensor<1x3xf32>
  graph.net_output %r, %p : tensor<1x3x?x?xf32>, tensor<1x3xf32>
}
