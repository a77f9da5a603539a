// ge-create-subgraph-with-scope refuses bad scopes with one line naming the graph and scope.
// RUN: not ge-opt %s --split-input-file -p ge-create-subgraph-with-scope 2>&1 | filecheck %s
// RUN: not ge-opt %s -p 'ge-create-subgraph-with-scope{input-shape="x:-1"}' 2>&1 | filecheck %s --check-prefix=HALF

// HALF: ge-create-subgraph-with-scope: give input-shape and dynamic-dims together

// CHECK-LABEL: ge-create-subgraph-with-scope: @netout scope 0: 'graph.net_output' is a NetOutput; it cannot be scoped
graph.graph @netout(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = graph.relu %x {_subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_shape = "0:-1", _subgraph_multi_dims_input_dims = "1;2"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output {_subgraph_multi_dims_index = 0 : i64} %a : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-create-subgraph-with-scope: @missing scope 0: no node of the scope has _subgraph_multi_dims_input_dims
graph.graph @missing(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = graph.relu %x {_subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_shape = "0:-1"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %a : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-create-subgraph-with-scope: @disagree scope 0: the scope's nodes disagree on _subgraph_multi_dims_input_dims: 1;2 and 1;3
graph.graph @disagree(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = graph.relu %x {_subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_shape = "0:-1", _subgraph_multi_dims_input_dims = "1;2"} : (tensor<?xf32>) -> tensor<?xf32>
  %b = graph.neg %a {_subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_dims = "1;3"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %b : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-create-subgraph-with-scope: @range scope 0: _subgraph_multi_dims_input_shape names input '1', but the scope has 1 inputs (numbered from 0 in the order the scope first uses them)
graph.graph @range(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = graph.relu %x {_subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_shape = "1:-1", _subgraph_multi_dims_input_dims = "1;2"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %a : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-create-subgraph-with-scope: @fixed scope 0: _subgraph_multi_dims_input_shape gives input 0 the dims [-1, 4], but it has type tensor<2x4xf32> (a -1 dim must be ? in the graph, a fixed one agree with it)
graph.graph @fixed(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = graph.relu %x {_subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_shape = "0:-1,4", _subgraph_multi_dims_input_dims = "1;2"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  graph.net_output %a : tensor<2x4xf32>
}

// -----

// The gear options' checks, with GE's codes: one value per -1.
// CHECK-LABEL: ge-create-subgraph-with-scope: @count scope 0: E10003
graph.graph @count(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = graph.relu %x {_subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_shape = "0:-1", _subgraph_multi_dims_input_dims = "1,2;3,4"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %a : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-create-subgraph-with-scope: @cycle scope 0: 'graph.neg' (back) reads 'graph.abs' (out), which depends on the scope: the scope's nodes must not be connected through nodes outside it
graph.graph @cycle(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = graph.relu %x {node_name = "in", _subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_shape = "0:-1", _subgraph_multi_dims_input_dims = "1;2"} : (tensor<?xf32>) -> tensor<?xf32>
  %b = graph.abs %a {node_name = "out"} : (tensor<?xf32>) -> tensor<?xf32>
  %c = graph.neg %b {node_name = "back", _subgraph_multi_dims_index = 0 : i64} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %c : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-create-subgraph-with-scope: 'graph.relu' in @badindex has _subgraph_multi_dims_index -1 : i64; it must be a non-negative integer
graph.graph @badindex(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = graph.relu %x {_subgraph_multi_dims_index = -1 : i64} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %a : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-create-subgraph-with-scope: @taken scope 0: the module already has a symbol @taken_multi_dims_0
graph.graph @taken(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = graph.relu %x {_subgraph_multi_dims_index = 0 : i64, _subgraph_multi_dims_input_shape = "0:-1", _subgraph_multi_dims_input_dims = "1;2"} : (tensor<?xf32>) -> tensor<?xf32>
  %b = partition.partitioned_call @taken_multi_dims_0(%a) : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %b : tensor<?xf32>
}
graph.graph @taken_multi_dims_0(%x: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %x : tensor<?xf32>
}
