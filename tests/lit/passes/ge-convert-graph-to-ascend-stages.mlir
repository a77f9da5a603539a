// RUN: ge-opt %s --split-input-file -p ge-convert-graph-to-ascend | filecheck %s

// Tests that the stage calls of ge-partition-stage (`_stage_level`, `_force_unknown_shape =
// true`) are not inlined: the root runs each stage with an ascend.stage task (GE's
// KnownNodeTask), stage 1 starts after stage 0's sync token (GE's
// ExpandLastSyncExeNodesToMainGraph / ExpandFirstExeNodesToMainGraph), and each stage is a
// static model of its own with its own arena: the weight lives in stage 0's, the root has none.

graph.graph @two(%x: tensor<2x4xf32> {_stage_level = 0 : i64}) -> tensor<2x4xf32> {
  %b = partition.partitioned_call @Subgraph_Level_0(%x) {node_name = "Subgraph_Level_0_PartitionedCall", _stage_level = 0 : i64, _force_unknown_shape = true} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %d = partition.partitioned_call @Subgraph_Level_1(%b, %x) {node_name = "Subgraph_Level_1_PartitionedCall", _stage_level = 1 : i64, _force_unknown_shape = true} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  graph.net_output %d : tensor<2x4xf32>
}
graph.graph @Subgraph_Level_0(%0: tensor<2x4xf32> {node_name = "Subgraph_Level_0_Data_0", _parent_node_index = 0 : i64}) -> (tensor<2x4xf32> {_parent_node_index = 0 : i64}) attributes {_stage_level = 0 : i64} {
  %w = graph.const dense<2.0> : tensor<2x4xf32> {node_name = "w", _stage_level = 0 : i64}
  %a = graph.mul %0, %w {node_name = "a", _stage_level = 0 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = graph.relu %a {node_name = "b", _stage_level = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  graph.net_output %b : tensor<2x4xf32>
}
graph.graph @Subgraph_Level_1(%0: tensor<2x4xf32> {node_name = "Subgraph_Level_1_Data_0", _parent_node_index = 0 : i64}, %1: tensor<2x4xf32> {node_name = "Subgraph_Level_1_Data_1", _parent_node_index = 1 : i64}) -> (tensor<2x4xf32> {_parent_node_index = 0 : i64}) attributes {_stage_level = 1 : i64} {
  %c = graph.neg %0 {node_name = "c", _stage_level = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %d = graph.add %c, %1 {node_name = "d", _stage_level = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  graph.net_output %d : tensor<2x4xf32>
}

// CHECK-LABEL: ascend.model @two arena_size 2048 weight_size 0 {
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.input "x" arena[0] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.output "output0" arena[1024] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.stage @Subgraph_Level_0 "Subgraph_Level_0_PartitionedCall" level 0 stream 0 after() ins(arena[0] : tensor<2x4xf32>) outs(arena[512] : tensor<2x4xf32>) sync(arena[1536] : tensor<i32>)
// CHECK-NEXT:    ascend.stage @Subgraph_Level_1 "Subgraph_Level_1_PartitionedCall" level 1 stream 0 after(arena[1536] : tensor<i32>) ins(arena[512] : tensor<2x4xf32>, arena[0] : tensor<2x4xf32>) outs(arena[1024] : tensor<2x4xf32>) sync()
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-NEXT:  }
// CHECK-LABEL: ascend.model @Subgraph_Level_0 arena_size 2048 weight_size 512 {
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.weight arena[0] = dense<2.000000e+00> : tensor<2x4xf32>
// CHECK-NEXT:    ascend.input "Subgraph_Level_0_Data_0" arena[512] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.output "output0" arena[1536] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.kernel "Mul" "a" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<2x4xf32>, arena[0] : tensor<2x4xf32>) outs(arena[1024] : tensor<2x4xf32>)
// CHECK-NEXT:    ascend.kernel "Relu" "b" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<2x4xf32>) outs(arena[1536] : tensor<2x4xf32>)
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-NEXT:  }
// CHECK-LABEL: ascend.model @Subgraph_Level_1 arena_size 2048 weight_size 0 {
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.input "Subgraph_Level_1_Data_0" arena[0] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.input "Subgraph_Level_1_Data_1" arena[512] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.output "output0" arena[1536] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.kernel "Neg" "c" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<2x4xf32>) outs(arena[1024] : tensor<2x4xf32>)
// CHECK-NEXT:    ascend.kernel "Add" "d" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<2x4xf32>, arena[512] : tensor<2x4xf32>) outs(arena[1536] : tensor<2x4xf32>)
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-NEXT:  }
// CHECK-NOT:   graph.graph

// -----

// Tests stages without a data edge between them and levels with gaps (0, 2, 3): the token
// chain alone orders them, each stage's `after` is the previous one's `sync`.

graph.graph @gaps(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = partition.partitioned_call @Subgraph_Level_0(%x) {node_name = "s0", _stage_level = 0 : i64, _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  %b = partition.partitioned_call @Subgraph_Level_2(%y) {node_name = "s2", _stage_level = 2 : i64, _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  %c = partition.partitioned_call @Subgraph_Level_3(%x) {node_name = "s3", _stage_level = 3 : i64, _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
graph.graph @Subgraph_Level_0(%0: tensor<4xf32>) -> tensor<4xf32> attributes {_stage_level = 0 : i64} {
  %r = graph.relu %0 {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @Subgraph_Level_2(%0: tensor<4xf32>) -> tensor<4xf32> attributes {_stage_level = 2 : i64} {
  %n = graph.neg %0 {node_name = "n"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %n : tensor<4xf32>
}
graph.graph @Subgraph_Level_3(%0: tensor<4xf32>) -> tensor<4xf32> attributes {_stage_level = 3 : i64} {
  %e = graph.exp %0 {node_name = "e"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %e : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @gaps
// CHECK:         ascend.stage @Subgraph_Level_0 "s0" level 0 stream 0 after() ins(arena[0] : tensor<4xf32>) outs(arena[{{[0-9]+}}] : tensor<4xf32>) sync(arena[[[T0:[0-9]+]]] : tensor<i32>)
// CHECK-NEXT:    ascend.stage @Subgraph_Level_2 "s2" level 2 stream 0 after(arena[[[T0]]] : tensor<i32>) ins(arena[512] : tensor<4xf32>) outs(arena[{{[0-9]+}}] : tensor<4xf32>) sync(arena[[[T2:[0-9]+]]] : tensor<i32>)
// CHECK-NEXT:    ascend.stage @Subgraph_Level_3 "s3" level 3 stream 0 after(arena[[[T2]]] : tensor<i32>) ins(arena[0] : tensor<4xf32>) outs(arena[{{[0-9]+}}] : tensor<4xf32>) sync()
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-LABEL: ascend.model @Subgraph_Level_0
// CHECK:         ascend.kernel "Relu" "r"
// CHECK-LABEL: ascend.model @Subgraph_Level_2
// CHECK:         ascend.kernel "Neg" "n"
// CHECK-LABEL: ascend.model @Subgraph_Level_3
// CHECK:         ascend.kernel "Exp" "e"

// -----

// Tests that a `_stage_level` call GE did not force unknown (`_force_unknown_shape` false or
// absent) is a known call like any other: inlined into the root's task list.

graph.graph @inlined(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = partition.partitioned_call @Subgraph_Level_0(%x) {node_name = "s0", _stage_level = 0 : i64, _force_unknown_shape = false} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %a : tensor<4xf32>
}
graph.graph @Subgraph_Level_0(%0: tensor<4xf32>) -> tensor<4xf32> attributes {_stage_level = 0 : i64} {
  %r = graph.relu %0 {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @inlined
// CHECK-NOT:     ascend.stage
// CHECK:         ascend.kernel "Relu" "r"
// CHECK-NOT:     ascend.model
