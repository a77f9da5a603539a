// ge-create-subgraph-with-scope (GE's CreateSubGraphWithScopePass): the nodes of one
// _subgraph_multi_dims_index become a multi-dims subgraph called by a partitioned_call.
// RUN: ge-opt %s --split-input-file -p ge-create-subgraph-with-scope | filecheck %s
// With input-shape / dynamic-dims every node of the root is scope 0 (GE's heterogeneous case).
// RUN: not ge-opt %s --split-input-file -p 'ge-create-subgraph-with-scope{input-shape="x:-1,4" dynamic-dims="1;8"}' 2>&1 | filecheck %s --check-prefix=OPTION

// Scope 0 reads x (input 0) and w (input 1); its inputs with -1 dims get every gear's full shape.
// CHECK-LABEL: graph.graph @main(
// CHECK:         %{{.*}} = partition.partitioned_call @main_multi_dims_0(%x, %w) {node_name = "main_multi_dims_0_PartitionedCall"} : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    graph.neg
// CHECK-LABEL: graph.graph @main_multi_dims_0(
// CHECK-SAME:    %0: tensor<?x4xf32> {node_name = "main_multi_dims_0_Data_0", _parent_node_index = 0 : i64, _op_multi_dims_input_dims = array<i64: 2, 4, 4, 4, 1, 4>}
// CHECK-SAME:    %1: tensor<4x4xf32> {node_name = "main_multi_dims_0_Data_1", _parent_node_index = 1 : i64}
// CHECK-SAME:    attributes {_subgraph_is_multi_dims = true, _no_need_dynamic_shape_partition = true}
// CHECK-NEXT:    graph.matmul %0, %1 {node_name = "mm"}
// CHECK-NEXT:    graph.relu %{{.*}} {node_name = "relu"}
// OPTION-LABEL: graph.graph @main(
// OPTION:         partition.partitioned_call @main_multi_dims_0(%x) {{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
// OPTION-LABEL: graph.graph @main_multi_dims_0(%0: tensor<?x4xf32> {{{.*}}_op_multi_dims_input_dims = array<i64: 1, 4, 8, 4>}
// OPTION:         graph.const
// OPTION:         graph.matmul
// OPTION:         graph.neg

graph.graph @main(%x: tensor<?x4xf32> {node_name = "x"}) -> (tensor<?x4xf32> {node_name = "y"}) {
  %w = graph.const dense<1.0> : tensor<4x4xf32> {node_name = "w"}
  %a = graph.matmul %x, %w {node_name = "mm", _subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_shape = "0:-1,4", _subgraph_multi_dims_input_dims = "2;4;1"} : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  %b = graph.relu %a {node_name = "relu", _subgraph_multi_dims_index = 0 : i64} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %c = graph.neg %b {node_name = "after"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  graph.net_output %c : tensor<?x4xf32>
}

// -----

// Two scopes, each its own subgraph; the call takes the place of the scope's first node.
// CHECK-LABEL: graph.graph @two(
// CHECK-NEXT:    %[[A:.*]] = partition.partitioned_call @two_multi_dims_0(%x)
// CHECK-NEXT:    %[[B:.*]] = graph.abs %[[A]] {node_name = "between"}
// CHECK-NEXT:    partition.partitioned_call @two_multi_dims_1(%[[B]])
// CHECK-LABEL: graph.graph @two_multi_dims_0(%0: tensor<?x?xf32> {{{.*}}_op_multi_dims_input_dims = array<i64: 1, 2, 3, 4>}
// CHECK-LABEL: graph.graph @two_multi_dims_1(%0: tensor<?x?xf32> {{{.*}}_op_multi_dims_input_dims = array<i64: 5, 6, 7, 8>}
// OPTION: error: ge-create-subgraph-with-scope: @two: --input_shape names 'x', which is no input the graph's nodes read

graph.graph @two(%x: tensor<?x?xf32> {node_name = "in"}) -> tensor<?x?xf32> {
  %a = graph.relu %x {node_name = "first", _subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_shape = "0:-1,-1", _subgraph_multi_dims_input_dims = "1,2;3,4"} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %b = graph.abs %a {node_name = "between"} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = graph.neg %b {node_name = "second", _subgraph_multi_dims_index = 1 : i64, _subgraph_multi_dims_input_shape = "0:-1,-1", _subgraph_multi_dims_input_dims = "5,6;7,8"} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  graph.net_output %c : tensor<?x?xf32>
}
