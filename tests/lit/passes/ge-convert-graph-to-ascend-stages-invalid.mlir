// RUN: not ge-opt %s --split-input-file -p ge-convert-graph-to-ascend 2>&1 | filecheck %s

// Tests a malformed `_stage_level` on a stage call: a level is a non-negative integer.

graph.graph @bad_level(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = partition.partitioned_call @Subgraph_Level_0(%x) {node_name = "s0", _stage_level = "zero", _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %a : tensor<4xf32>
}
graph.graph @Subgraph_Level_0(%0: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %0 {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: ge-convert-graph-to-ascend: 'partition.partitioned_call' (s0) has _stage_level "zero"; a stage level is a non-negative integer

// -----

// Tests a negative `_stage_level`.

graph.graph @negative(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = partition.partitioned_call @Subgraph_Level_0(%x) {node_name = "s0", _stage_level = -1 : i64, _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %a : tensor<4xf32>
}
graph.graph @Subgraph_Level_0(%0: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %0 {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: ge-convert-graph-to-ascend: 'partition.partitioned_call' (s0) has _stage_level -1 : i64; a stage level is a non-negative integer

// -----

// Tests a `_force_unknown_shape` that is not a bool.

graph.graph @bad_force(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = partition.partitioned_call @Subgraph_Level_0(%x) {node_name = "s0", _stage_level = 0 : i64, _force_unknown_shape = "yes"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %a : tensor<4xf32>
}
graph.graph @Subgraph_Level_0(%0: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %0 {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: ge-convert-graph-to-ascend: 'partition.partitioned_call' (s0) has _force_unknown_shape "yes"; it is a bool

// -----

// Tests stage calls out of level order (ge-partition-stage sorts the root by level).

graph.graph @order(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = partition.partitioned_call @Subgraph_Level_1(%x) {node_name = "s1", _stage_level = 1 : i64, _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  %b = partition.partitioned_call @Subgraph_Level_0(%x) {node_name = "s0", _stage_level = 0 : i64, _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %a, %b : tensor<4xf32>, tensor<4xf32>
}
graph.graph @Subgraph_Level_0(%0: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %0 {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @Subgraph_Level_1(%0: tensor<4xf32>) -> tensor<4xf32> {
  %n = graph.neg %0 {node_name = "n"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %n : tensor<4xf32>
}

// CHECK-LABEL: ge-convert-graph-to-ascend: 'partition.partitioned_call' (s0) (stage 0) follows stage 1; stages run in ascending level order (ge-partition-stage sorts the root by level)

// -----

// Tests a stage reading a value of unknown shape: a stage runs as a static model.

graph.graph @unknown(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = partition.partitioned_call @Subgraph_Level_0(%x) {node_name = "s0", _stage_level = 0 : i64, _force_unknown_shape = true} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %a : tensor<?xf32>
}
graph.graph @Subgraph_Level_0(%0: tensor<?xf32>) -> tensor<?xf32> {
  %r = graph.relu %0 {node_name = "r"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %r : tensor<?xf32>
}

// CHECK-LABEL: ge-convert-graph-to-ascend: 'partition.partitioned_call' (s0) (stage 0) reads a value of unknown shape at input 0 (tensor<?xf32>); a stage runs as a static model, its inputs need static shapes (pin the graph's input dims, ge-compile's input-shape)

// -----

// Tests a stage returning a value of unknown shape (NonZero's count is known only at run
// time): refused as a stage, not with the generic static-task error.

graph.graph @nonzero(%x: tensor<4xf32>) -> tensor<1x?xi64> {
  %a = partition.partitioned_call @Subgraph_Level_0(%x) {node_name = "s0", _stage_level = 0 : i64, _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<1x?xi64>
  graph.net_output %a : tensor<1x?xi64>
}
graph.graph @Subgraph_Level_0(%0: tensor<4xf32>) -> tensor<1x?xi64> {
  %n = graph.non_zero %0 {node_name = "n"} : (tensor<4xf32>) -> tensor<1x?xi64>
  graph.net_output %n : tensor<1x?xi64>
}

// CHECK-LABEL: ge-convert-graph-to-ascend: 'partition.partitioned_call' (s0) (stage 0) returns a value of unknown shape at output 0 (tensor<1x?xi64>); a stage runs as a static model, its outputs need static shapes

// -----

// Tests a stage call to a symbol that does not exist (the call's verifier names it).

graph.graph @missing(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = partition.partitioned_call @Nowhere(%x) {node_name = "s0", _stage_level = 0 : i64, _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %a : tensor<4xf32>
}

// CHECK-LABEL: 'partition.partitioned_call' op %a (node_name "s0"): callee @Nowhere does not exist
