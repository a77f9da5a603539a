// RUN: ge-opt %s --split-input-file -p ge-partition-stage | filecheck %s

// Tests that a graph without _stage_level is left as it is (GE: "does not set stage_level").

graph.graph @no_stage(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @no_stage(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    graph.net_output %r : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NOT:   Subgraph_Level

// -----

// Tests SplitStageLevel's propagation: the untagged ancestors `a` and `w` of the level-0 node
// join stage 0, the Data nodes it reads get _stage_level = 0 but stay in the root, and the
// call carries _stage_level and _force_unknown_shape = true (the subgraph only the level).

graph.graph @propagate(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %w = graph.const dense<2.0> : tensor<4xf32> {node_name = "w"}
  %a = graph.mul %x, %w {node_name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = graph.add %a, %y {node_name = "b", _stage_level = 0} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %b : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @propagate(%x: tensor<4xf32> {_stage_level = 0 : i64}, %y: tensor<4xf32> {_stage_level = 0 : i64}) -> tensor<4xf32> {
// CHECK-NEXT:    %[[B:.*]] = partition.partitioned_call @Subgraph_Level_0(%x, %y) {node_name = "Subgraph_Level_0_PartitionedCall", _stage_level = 0 : i64, _force_unknown_shape = true}
// CHECK-NEXT:    graph.net_output %[[B]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  graph.graph @Subgraph_Level_0(%[[X:[0-9a-z_]+]]: tensor<4xf32> {node_name = "Subgraph_Level_0_Data_0", _parent_node_index = 0 : i64}, %[[Y:[0-9a-z_]+]]: tensor<4xf32> {node_name = "Subgraph_Level_0_Data_1", _parent_node_index = 1 : i64}) -> (tensor<4xf32> {_parent_node_index = 0 : i64}) attributes {_stage_level = 0 : i64} {
// CHECK-NEXT:    %w = graph.const {{.*}} {node_name = "w", _stage_level = 0 : i64}
// CHECK-NEXT:    %a = graph.mul %[[X]], %w {node_name = "a", _stage_level = 0 : i64}
// CHECK-NEXT:    %b = graph.add %a, %[[Y]] {node_name = "b", _stage_level = 0 : i64}
// CHECK-NEXT:    graph.net_output {node_name = "Subgraph_Level_0_Node_Output"} %b
// CHECK-NOT:   Subgraph_Level_1

// -----

// Tests SplitTailStage: the nodes no stage reaches (`t`, after the last marked node) form
// stage max + 1 = 2; NetOutput stays in the root.

graph.graph @tail(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.relu %x {node_name = "a", _stage_level = 1} : (tensor<4xf32>) -> tensor<4xf32>
  %t = graph.neg %a {node_name = "t"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %t : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @tail
// CHECK-NEXT:    %[[A:.*]] = partition.partitioned_call @Subgraph_Level_1(%x) {node_name = "Subgraph_Level_1_PartitionedCall", _stage_level = 1 : i64, _force_unknown_shape = true}
// CHECK-NEXT:    %[[T:.*]] = partition.partitioned_call @Subgraph_Level_2(%[[A]]) {node_name = "Subgraph_Level_2_PartitionedCall", _stage_level = 2 : i64, _force_unknown_shape = true}
// CHECK-NEXT:    graph.net_output %[[T]]
// CHECK:       graph.graph @Subgraph_Level_1
// CHECK:         graph.relu {{.*}} {node_name = "a", _stage_level = 1 : i64}
// CHECK:       graph.graph @Subgraph_Level_2
// CHECK-SAME:    attributes {_stage_level = 2 : i64}
// CHECK-NEXT:    graph.neg {{.*}} {node_name = "t", _stage_level = 2 : i64}

// -----

// Tests that an untagged node read by two stages joins the lowest (`s`, read by levels 0 and
// 1), and that a node of another level stops the walk: stage 1 reads `b` of stage 0 through
// the call's result instead of absorbing it.

graph.graph @lowest(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = graph.relu %x {node_name = "s"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.neg %s {node_name = "b", _stage_level = 0} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.add %s, %b {node_name = "c", _stage_level = 1} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %b, %c : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: graph.graph @lowest
// CHECK-NEXT:    %[[S:[0-9a-z_]+]], %[[B:[0-9a-z_]+]] = partition.partitioned_call @Subgraph_Level_0(%x) {{.*}} -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[C:.*]] = partition.partitioned_call @Subgraph_Level_1(%[[S]], %[[B]])
// CHECK-NEXT:    graph.net_output %[[B]], %[[C]]
// CHECK:       graph.graph @Subgraph_Level_0
// CHECK-NEXT:    %s = graph.relu {{.*}} {node_name = "s", _stage_level = 0 : i64}
// CHECK-NEXT:    %b = graph.neg %s {node_name = "b", _stage_level = 0 : i64}
// CHECK-NEXT:    graph.net_output {{.*}} %s, %b
// CHECK:       graph.graph @Subgraph_Level_1
// CHECK-NEXT:    %c = graph.add {{.*}} {node_name = "c", _stage_level = 1 : i64}
// CHECK-NEXT:    graph.net_output

// -----

// Tests the stage order of the root (GE sorts by _stage_level): stage 0 is independent of
// stage 1 here and still comes first although its node comes last in the input; a later stage
// feeding an earlier one without a cycle is accepted, as in GE (stage 3 feeds stage 2).

graph.graph @order(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.relu %x {node_name = "a", _stage_level = 3} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.neg %a {node_name = "b", _stage_level = 2} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.abs %x {node_name = "c", _stage_level = 0} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %b, %c : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: graph.graph @order
// CHECK-NEXT:    %[[C:.*]] = partition.partitioned_call @Subgraph_Level_0(%x)
// CHECK-NEXT:    %[[A:.*]] = partition.partitioned_call @Subgraph_Level_3(%x)
// CHECK-NEXT:    %[[B:.*]] = partition.partitioned_call @Subgraph_Level_2(%[[A]])
// CHECK-NEXT:    graph.net_output %[[B]], %[[C]]
