// ge-expand-multi-dims-subgraphs refuses inconsistent gear records with one line naming the graph.
// RUN: not ge-opt %s --split-input-file -p ge-expand-multi-dims-subgraphs 2>&1 | filecheck %s

// CHECK-LABEL: ge-expand-multi-dims-subgraphs: @none: no input has _op_multi_dims_input_dims
graph.graph @none(%x: tensor<?xf32>) -> tensor<?xf32> attributes {_subgraph_is_multi_dims = true} {
  graph.net_output %x : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-expand-multi-dims-subgraphs: @rank: input 0 (tensor<?x3xf32>) has _op_multi_dims_input_dims [1, 3, 2], not a list of full shapes of its rank
graph.graph @rank(%x: tensor<?x3xf32> {_op_multi_dims_input_dims = array<i64: 1, 3, 2>}) -> tensor<?x3xf32> attributes {_subgraph_is_multi_dims = true} {
  graph.net_output %x : tensor<?x3xf32>
}

// -----

// CHECK-LABEL: ge-expand-multi-dims-subgraphs: @fixed: input 0 (tensor<?x3xf32>) has the gear shape [1, 4] in _op_multi_dims_input_dims; its fixed dims must agree
graph.graph @fixed(%x: tensor<?x3xf32> {_op_multi_dims_input_dims = array<i64: 1, 4, 2, 3>}) -> tensor<?x3xf32> attributes {_subgraph_is_multi_dims = true} {
  graph.net_output %x : tensor<?x3xf32>
}

// -----

// CHECK-LABEL: ge-expand-multi-dims-subgraphs: @counts: the inputs' _op_multi_dims_input_dims hold different gear counts [2, 3]
graph.graph @counts(%x: tensor<?xf32> {_op_multi_dims_input_dims = array<i64: 1, 2>}, %y: tensor<?xf32> {_op_multi_dims_input_dims = array<i64: 1, 2, 3>}) -> tensor<?xf32> attributes {_subgraph_is_multi_dims = true} {
  graph.net_output %x : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-expand-multi-dims-subgraphs: @one: 1 gears; a multi-dims subgraph takes 2 to 100
graph.graph @one(%x: tensor<?xf32> {_op_multi_dims_input_dims = array<i64: 4>}) -> tensor<?xf32> attributes {_subgraph_is_multi_dims = true} {
  graph.net_output %x : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-expand-multi-dims-subgraphs: @twins: two gears give the inputs with ? dims the same shapes; MapIndex could not tell them apart
graph.graph @twins(%x: tensor<?xf32> {_op_multi_dims_input_dims = array<i64: 4, 4>}) -> tensor<?xf32> attributes {_subgraph_is_multi_dims = true} {
  graph.net_output %x : tensor<?xf32>
}

// -----

// CHECK-LABEL: ge-expand-multi-dims-subgraphs: @static: no input with _op_multi_dims_input_dims has a ? dim
graph.graph @static(%x: tensor<2xf32> {_op_multi_dims_input_dims = array<i64: 2, 2>}) -> tensor<2xf32> attributes {_subgraph_is_multi_dims = true} {
  graph.net_output %x : tensor<2xf32>
}

// -----

// CHECK-LABEL: ge-expand-multi-dims-subgraphs: @taken: the module already has a symbol @taken_Subgraph_Multi_Dims_Branch_1
graph.graph @taken(%x: tensor<?xf32> {_op_multi_dims_input_dims = array<i64: 1, 2>}) -> tensor<?xf32> attributes {_subgraph_is_multi_dims = true} {
  graph.net_output %x : tensor<?xf32>
}
graph.graph @taken_Subgraph_Multi_Dims_Branch_1(%x: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %x : tensor<?xf32>
}
