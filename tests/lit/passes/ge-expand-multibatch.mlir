// RUN: ge-opt %s -p 'ge-expand-multibatch{input-shape="x:-1,3;s:2" dynamic-batch-size="1,4,2"}' | filecheck %s
// RUN: ge-opt %s -p 'ge-expand-multibatch{input-shape="x:-1,3;s:2" dynamic-batch-size="1,4,2"}' -o %t.mlir
// RUN: ge-run %t.mlir --random-inputs 0 | filecheck %s --check-prefix=OUT

// Tests `--dynamic_batch_size`: the root keeps its name and becomes shape data -> MapIndex over
// the gear table -> Case over one static clone per gear; an output that is a root input (`s`)
// bypasses the Case (GE's direct output) and the branches drop it.

// CHECK-LABEL: graph.graph @main
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3xf32> {node_name = "x", _mbatch_origin_input_dims = array<i64: -1, 3>, _mbatch_max_input_dims = array<i64: 4, 3>, _dynamic_batch_unknown_dim_index = array<i64: 0>, "mbatch-switch-name" = "ascend_mbatch_shape_case"},
// CHECK-SAME:     %[[S:.*]]: tensor<2xi32> {node_name = "s"},
// CHECK-SAME:     %[[SHAPE:.*]]: tensor<1xi32> {node_name = "ascend_mbatch_shape_data", _is_multi_batch_shape_data = true, "mbatch-inserted-node" = true, _ge_attr_lowering_func = "multi_batch_shape_data", _dynamic_batch_unknown_data_index = array<i64: 0>})
// CHECK-SAME:    -> (tensor<?x3xf32> {node_name = "y"}, tensor<2xi32> {node_name = "s_out"}, tensor<?xf32> {node_name = "sum"})
// CHECK-SAME:    attributes {_enable_dynamic_batch = true}
// CHECK-NEXT:    %[[GEARS:.*]] = graph.const dense<[1, 4, 2]> : tensor<3xi32> {node_name = "ascend_mbatch_shape_const"}
// CHECK-NEXT:    %[[I:.*]] = multibatch.map_index %[[SHAPE]], %[[GEARS]] {node_name = "ascend_mbatch_shape_mapindex", "mbatch-inserted-node" = true} : (tensor<1xi32>, tensor<3xi32>) -> tensor<i32>
// CHECK-NEXT:    %[[R0:.*]], %[[R1:.*]] = multibatch.case %[[I]], %[[X]], %[[S]] branches [@Batch_0, @Batch_1, @Batch_2]
// CHECK-SAME:      {node_name = "ascend_mbatch_shape_case", _batch_num = 3 : i64, _pred_value_0 = array<i64: 1>, _pred_value_1 = array<i64: 4>, _pred_value_2 = array<i64: 2>, mbatch_dynamic_type = 1 : i64, user_designate_shape_order = ["x", "s"], _shape_env = ["s0 = x[0]"], "mbatch-inserted-node" = true}
// CHECK-SAME:      : (tensor<i32>, tensor<?x3xf32>, tensor<2xi32>) -> (tensor<?x3xf32>, tensor<?xf32>)
// CHECK-NEXT:    graph.net_output {_dynamic_output_dims = ["0,0,1,3", "0,2,1", "1,0,4,3", "1,2,4", "2,0,2,3", "2,2,2", "-1,1,2"]} %[[R0]], %[[S]], %[[R1]]

// CHECK-LABEL: graph.graph @Batch_0
// CHECK-SAME:    (%[[X0:.*]]: tensor<1x3xf32> {node_name = "x_ascend_mbatch_batch_0", _parent_node_index = 1 : i64},
// CHECK-SAME:     %{{.*}}: tensor<2xi32> {node_name = "s_ascend_mbatch_batch_0", _parent_node_index = 2 : i64})
// CHECK-SAME:    -> (tensor<1x3xf32> {node_name = "y", _parent_node_index = 0 : i64}, tensor<1xf32> {node_name = "sum", _parent_node_index = 1 : i64})
// CHECK-NEXT:    %[[W0:.*]] = graph.const {{.*}} : tensor<3xf32> {node_name = "w_ascend_mbatch_batch_0", _batch_label = "Batch_0"}
// CHECK-NEXT:    %[[A0:.*]] = graph.add %[[X0]], %[[W0]] {node_name = "add_ascend_mbatch_batch_0", _batch_label = "Batch_0"} : (tensor<1x3xf32>, tensor<3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    %[[RL0:.*]] = graph.relu %[[A0]] {node_name = "Relu_ascend_mbatch_batch_0", _batch_label = "Batch_0"} : (tensor<1x3xf32>) -> tensor<1x3xf32>
// CHECK-NEXT:    %[[AX0:.*]] = graph.const dense<1> : tensor<1xi64> {node_name = "axes_ascend_mbatch_batch_0", _batch_label = "Batch_0"}
// CHECK-NEXT:    %[[M0:.*]] = graph.reduce_sum %[[RL0]], %[[AX0]] {node_name = "ReduceSum_ascend_mbatch_batch_0", _batch_label = "Batch_0"} : (tensor<1x3xf32>, tensor<1xi64>) -> tensor<1xf32>
// CHECK-NEXT:    graph.net_output {node_name = "NetOutput_ascend_mbatch_batch_0", _batch_label = "Batch_0"} %[[RL0]], %[[M0]] : tensor<1x3xf32>, tensor<1xf32>

// CHECK-LABEL: graph.graph @Batch_1
// CHECK-SAME:    (%{{.*}}: tensor<4x3xf32> {node_name = "x_ascend_mbatch_batch_1", _parent_node_index = 1 : i64},
// CHECK:         graph.add {{.*}} {node_name = "add_ascend_mbatch_batch_1", _batch_label = "Batch_1"} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
// CHECK:         graph.net_output {{.*}} : tensor<4x3xf32>, tensor<4xf32>

// CHECK-LABEL: graph.graph @Batch_2
// CHECK:         graph.net_output {{.*}} : tensor<2x3xf32>, tensor<2xf32>

// Random inputs take the first gear's shapes.
// OUT: y: float32[1, 3]
// OUT-NEXT: s_out: int32[2]
// OUT-NEXT: sum: float32[1]

graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}, %s: tensor<2xi32> {node_name = "s"})
    -> (tensor<?x3xf32> {node_name = "y"}, tensor<2xi32> {node_name = "s_out"}, tensor<?xf32> {node_name = "sum"}) {
  %w = graph.const dense<[1.0, -2.0, 3.0]> : tensor<3xf32> {node_name = "w"}
  %a = graph.add %x, %w {node_name = "add"} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %r = graph.relu %a : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %axes = graph.const dense<[1]> : tensor<1xi64> {node_name = "axes"}
  %m = graph.reduce_sum %r, %axes : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  graph.net_output %r, %s, %m : tensor<?x3xf32>, tensor<2xi32>, tensor<?xf32>
}
