// ge-expand-multi-dims-subgraphs (GE's SubgraphMultiDimsClonePass): a subgraph marked
// _subgraph_is_multi_dims becomes GetShape per ?-input -> Concat -> MapIndex (table of full
// shapes) -> Case over one static branch per gear.
// RUN: ge-opt %s --split-input-file -p ge-expand-multi-dims-subgraphs | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-create-subgraph-with-scope,ge-expand-multi-dims-subgraphs,ge-expand-multi-dims-subgraphs | filecheck %s --check-prefix=TWICE

// Inputs 0 (x: ?x4) and 2 (y: ?x?) change; input 1 (w) does not. Gear rows are the full shapes
// of x and y: [2,4,2,3], [4,4,1,1], [1,4,3,2]. The output range is over all branches: dim 0 of
// `out` is 1..4 (GE's merge keeps the last branch's 1 as the maximum).
// CHECK-LABEL: graph.graph @sub(
// CHECK-SAME:    -> (tensor<?x4xf32> {node_name = "out"}, tensor<?x?xf32> {node_name = "out2"})
// CHECK-NEXT:    %[[S0:.*]] = graph.shape %x dtype i32 {node_name = "sub/subgraph_multi_dims_get_shape_0", _keep_dtype = 1 : i64, "mbatch-inserted-node" = true} : (tensor<?x4xf32>) -> tensor<2xi32>
// CHECK-NEXT:    %[[S2:.*]] = graph.shape %y dtype i32 {node_name = "sub/subgraph_multi_dims_get_shape_2", {{.*}}} : (tensor<?x?xf32>) -> tensor<2xi32>
// CHECK-NEXT:    %[[C:.*]] = graph.concat_d %[[S0]], %[[S2]] concat_dim 0 {node_name = "sub/subgraph_multi_dims_concat", {{.*}}} : (tensor<2xi32>, tensor<2xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[T:.*]] = graph.const dense<[2, 4, 2, 3, 4, 4, 1, 1, 1, 4, 3, 2]> : tensor<12xi32> {node_name = "sub/subgraph_multi_dims_const"}
// CHECK-NEXT:    %[[I:.*]] = multibatch.map_index %[[C]], %[[T]] {node_name = "sub/subgraph_multi_dims_mapindex", {{.*}}} : (tensor<4xi32>, tensor<12xi32>) -> tensor<i32>
// CHECK-NEXT:    %{{.*}}, %{{.*}} = multibatch.case %[[I]], %x, %w, %y branches [@sub_Subgraph_Multi_Dims_Branch_0, @sub_Subgraph_Multi_Dims_Branch_1, @sub_Subgraph_Multi_Dims_Branch_2]
// CHECK-SAME:      node_name = "sub/subgraph_multi_dims_shape_case", _batch_num = 3 : i64, mbatch_dynamic_type = 3 : i64, _pred_value_0 = array<i64: 2, 4, 2, 3>, _pred_value_1 = array<i64: 4, 4, 1, 1>, _pred_value_2 = array<i64: 1, 4, 3, 2>, _op_no_tiling = true, "mbatch-inserted-node" = true,
// CHECK-SAME:      _subgraph_multi_dims_output_range = [array<i64: 1, 4, 4, 4>, array<i64: 1, 3, 1, 3>]
// CHECK-SAME:      : (tensor<i32>, tensor<?x4xf32>, tensor<4x4xf32>, tensor<?x?xf32>) -> (tensor<?x4xf32>, tensor<?x?xf32>)
// CHECK-LABEL: graph.graph @sub_Subgraph_Multi_Dims_Branch_0(
// CHECK-SAME:    %x: tensor<2x4xf32> {node_name = "x_subgraph_ascend_mbatch_batch_0", _parent_node_index = 1 : i64, _mbatch_origin_input_dims = array<i64: -1, 4>}
// CHECK-SAME:    %w: tensor<4x4xf32> {node_name = "w_subgraph_ascend_mbatch_batch_0", _parent_node_index = 2 : i64}
// CHECK-SAME:    %y: tensor<2x3xf32> {node_name = "y_subgraph_ascend_mbatch_batch_0", _parent_node_index = 3 : i64, _mbatch_origin_input_dims = array<i64: -1, -1>}
// CHECK-SAME:    -> (tensor<2x4xf32> {node_name = "out", _parent_node_index = 0 : i64}, tensor<2x3xf32> {node_name = "out2", _parent_node_index = 1 : i64})
// CHECK-SAME:    attributes {_subgraph_real_dims = array<i64: 2, 2, 3>}
// CHECK-NEXT:    graph.matmul %x, %w {node_name = "mm_subgraph_ascend_mbatch_batch_0", _batch_label = "Batch_0"} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
// CHECK-LABEL: graph.graph @sub_Subgraph_Multi_Dims_Branch_1(
// CHECK-SAME:    attributes {_subgraph_real_dims = array<i64: 4, 1, 1>}
// CHECK:         graph.tanh %y {{.*}} : (tensor<1x1xf32>) -> tensor<1x1xf32>
// CHECK-LABEL: graph.graph @sub_Subgraph_Multi_Dims_Branch_2(
// TWICE-COUNT-3: graph.graph @sub_Subgraph_Multi_Dims_Branch_
// TWICE-NOT:     graph.graph @sub_Subgraph_Multi_Dims_Branch_

graph.graph @main(%x: tensor<?x4xf32> {node_name = "x"}, %y: tensor<?x?xf32> {node_name = "y"}) -> (tensor<?x4xf32>, tensor<?x?xf32>) {
  %w = graph.const dense<1.0> : tensor<4x4xf32> {node_name = "w"}
  %a, %b = partition.partitioned_call @sub(%x, %w, %y) : (tensor<?x4xf32>, tensor<4x4xf32>, tensor<?x?xf32>) -> (tensor<?x4xf32>, tensor<?x?xf32>)
  graph.net_output %a, %b : tensor<?x4xf32>, tensor<?x?xf32>
}
graph.graph @sub(%x: tensor<?x4xf32> {node_name = "x", _parent_node_index = 0 : i64, _op_multi_dims_input_dims = array<i64: 2, 4, 4, 4, 1, 4>}, %w: tensor<4x4xf32> {node_name = "w", _parent_node_index = 1 : i64}, %y: tensor<?x?xf32> {node_name = "y", _parent_node_index = 2 : i64, _op_multi_dims_input_dims = array<i64: 2, 3, 1, 1, 3, 2>}) -> (tensor<?x4xf32> {node_name = "out"}, tensor<?x?xf32> {node_name = "out2"}) attributes {_subgraph_is_multi_dims = true, _no_need_dynamic_shape_partition = true} {
  %a = graph.matmul %x, %w {node_name = "mm"} : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  %b = graph.relu %a {node_name = "relu"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %c = graph.tanh %y {node_name = "tanh"} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  graph.net_output %b, %c : tensor<?x4xf32>, tensor<?x?xf32>
}

// -----

// A multi-dims subgraph with control flow inside: the If's branches are cloned per gear too.
// CHECK-LABEL: graph.graph @cf(
// CHECK:         multibatch.case %{{.*}} branches [@cf_Subgraph_Multi_Dims_Branch_0, @cf_Subgraph_Multi_Dims_Branch_1]
// CHECK-LABEL: graph.graph @cf_Subgraph_Multi_Dims_Branch_0(%x: tensor<1x3xf32>
// CHECK:         graph.if %{{.*}} then_branch @pos_subgraph_ascend_mbatch_batch_0 else_branch @negate_subgraph_ascend_mbatch_batch_0
// CHECK-LABEL: graph.graph @cf_Subgraph_Multi_Dims_Branch_1(%x: tensor<5x3xf32>
// CHECK-DAG:   graph.graph @pos_subgraph_ascend_mbatch_batch_0(%x: tensor<1x3xf32>
// CHECK-DAG:   graph.graph @negate_subgraph_ascend_mbatch_batch_1(%x: tensor<5x3xf32>
// CHECK-NOT:   graph.graph @pos(
// TWICE-LABEL: graph.graph @cf(

graph.graph @pos(%x: tensor<?x3xf32> {_parent_node_index = 1 : i64}) -> tensor<?x3xf32> {
  graph.net_output %x : tensor<?x3xf32>
}
graph.graph @negate(%x: tensor<?x3xf32> {_parent_node_index = 1 : i64}) -> tensor<?x3xf32> {
  %n = graph.neg %x {node_name = "neg"} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %n : tensor<?x3xf32>
}
graph.graph @cf(%x: tensor<?x3xf32> {node_name = "x", _op_multi_dims_input_dims = array<i64: 1, 3, 5, 3>}) -> tensor<?x3xf32> attributes {_subgraph_is_multi_dims = true} {
  %s = graph.reduce_sum %x {node_name = "sum"} : (tensor<?x3xf32>) -> tensor<f32>
  %z = graph.const dense<0.0> : tensor<f32>
  %c = graph.greater %s, %z {node_name = "gt"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %y = graph.if %c, %x then_branch @pos else_branch @negate {node_name = "if"} : (tensor<i1>, tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %y : tensor<?x3xf32>
}
graph.graph @root(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = partition.partitioned_call @cf(%x) : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %y : tensor<?x3xf32>
}
