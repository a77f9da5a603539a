// RUN: ge-opt %s --split-input-file --verify-diagnostics -p ge-partition-stage | filecheck %s

// Tests the errors of ge-partition-stage: levels that are not non-negative integers (GE reads
// _stage_level as uint32), and levels whose stages would feed each other in a cycle (GE fails
// the root's topological sort: "maybe stage_level was not set correctly").

graph.graph @string_level(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "r", _stage_level = "1"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK: ge-partition-stage: @string_level: node 'r' ('graph.relu'): _stage_level must be a non-negative integer, got "1"

// -----

graph.graph @float_level(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "r", _stage_level = 1.5 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK: ge-partition-stage: @float_level: node 'r' ('graph.relu'): _stage_level must be a non-negative integer, got 1.500000e+00 : f32

// -----

graph.graph @bool_level(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "r", _stage_level = true} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK: ge-partition-stage: @bool_level: node 'r' ('graph.relu'): _stage_level must be a non-negative integer, got true

// -----

graph.graph @negative_level(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "r", _stage_level = -1} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK: ge-partition-stage: @negative_level: node 'r' ('graph.relu'): _stage_level must be a non-negative integer, got -1 : i64

// -----

// Stage 0 = {a, c}, stage 1 = {b}: a -> b -> c goes 0 -> 1 -> 0.

graph.graph @cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.relu %x {node_name = "a", _stage_level = 0} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.neg %a {node_name = "b", _stage_level = 1} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.abs %b {node_name = "c", _stage_level = 0} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %c : tensor<4xf32>
}

// CHECK: ge-partition-stage: @cycle: stage 1 node 'b' feeds stage 0 node 'c', and stage 0 feeds stage 1: the stages form a cycle (maybe _stage_level was not set correctly)

// -----

// The cycle goes through an untagged node that joins stage 0 (`u`, an ancestor of `c`).

graph.graph @cycle_through_untagged(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.relu %x {node_name = "a", _stage_level = 0} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.neg %a {node_name = "b", _stage_level = 2} : (tensor<4xf32>) -> tensor<4xf32>
  %u = graph.relu %b {node_name = "u"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.add %u, %x {node_name = "c", _stage_level = 0} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %c : tensor<4xf32>
}

// CHECK: ge-partition-stage: @cycle_through_untagged: stage 2 node 'b' feeds stage 0 node 'u', and stage 0 feeds stage 2: the stages form a cycle (maybe _stage_level was not set correctly)
