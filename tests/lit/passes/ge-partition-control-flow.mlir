// RUN: ge-opt %s --split-input-file -p ge-partition-dynamic-shape | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-partition-dynamic-shape{static-model-ops-lower-limit=-1}' | filecheck %s --check-prefix=ALL
// RUN: ge-opt %s --split-input-file -p 'ge-partition-dynamic-shape{static-model-ops-lower-limit=1}' | filecheck %s --check-prefix=LIMIT1

// Tests rule 6 of GE's dynamic-shape partitioning for functional control flow: the If whose
// then branch holds NonZero (an unknown shape) is unknown and lands in an unknown partition,
// and both its branches run dynamically whole (`_is_unknown_shape = true` on the graphs and
// every node in them); the known While lands in the known partition and its cond and body stay
// static (`_is_unknown_shape = false`), as GE's label makers need.

graph.graph @cond(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> (tensor<i32>, tensor<4xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = graph.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %j, %y : tensor<i32>, tensor<4xf32>
}
graph.graph @then(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  %z = graph.const dense<0.0> : tensor<f32>
  %m = graph.greater %x, %z : (tensor<4xf32>, tensor<f32>) -> tensor<4xi1>
  %nz = graph.non_zero %m : (tensor<4xi1>) -> tensor<1x?xi64>
  %s = graph.size %nz dtype i32 : (tensor<1x?xi64>) -> tensor<i32>
  %f = graph.cast %s dst_type f32 : (tensor<i32>) -> tensor<f32>
  %y = graph.mul %x, %f : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @else(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  %y = graph.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @main(%c: tensor<i1>, %i: tensor<i32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.relu %x {node_name = "a"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.exp %a {node_name = "b"} : (tensor<4xf32>) -> tensor<4xf32>
  %c2 = graph.abs %b {node_name = "c2"} : (tensor<4xf32>) -> tensor<4xf32>
  %d = graph.sqrt %c2 {node_name = "d"} : (tensor<4xf32>) -> tensor<4xf32>
  %r:2 = graph.while %i, %d cond @cond body @body {node_name = "loop"} : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  %e = graph.if %c, %a then_branch @then else_branch @else {node_name = "branch"} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  %g = graph.sub %e, %r#1 {node_name = "g"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %g, %d : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: graph.graph @cond
// CHECK-SAME:    attributes {_is_unknown_shape = false}
// CHECK:         graph.less {{.*}}_is_unknown_shape = false, OwnerGraphIsUnknown = false
// CHECK-LABEL: graph.graph @body
// CHECK-SAME:    attributes {_is_unknown_shape = false}
// CHECK-LABEL: graph.graph @then
// CHECK-SAME:    attributes {_is_unknown_shape = true}
// CHECK:         graph.greater {{.*}}_is_unknown_shape = true, OwnerGraphIsUnknown = true
// CHECK:         graph.non_zero {{.*}}_is_unknown_shape = true, OwnerGraphIsUnknown = true
// CHECK:         graph.mul {{.*}}_is_unknown_shape = true, OwnerGraphIsUnknown = true
// CHECK-LABEL: graph.graph @else
// CHECK-SAME:    attributes {_is_unknown_shape = true}
// CHECK:         graph.neg {{.*}}_is_unknown_shape = true, OwnerGraphIsUnknown = true
// CHECK-LABEL: graph.graph @main
// CHECK-NEXT:    partition.partitioned_call @main_sub_0_know
// CHECK-NEXT:    partition.partitioned_call @main_sub_1_unknow
// CHECK-NEXT:    graph.net_output
// CHECK-LABEL: graph.graph @main_sub_0_know
// CHECK:         graph.while {{.*}} cond @cond body @body {node_name = "loop", _is_unknown_shape = false
// CHECK-LABEL: graph.graph @main_sub_1_unknow
// CHECK-NEXT:    graph.if {{.*}} then_branch @then else_branch @else {node_name = "branch", _is_unknown_shape = true
// CHECK-NEXT:    graph.sub {{.*}}node_name = "g"

// With limit -1 the whole graph runs dynamically: so do all subgraphs, the While's too.
// ALL-LABEL: graph.graph @cond
// ALL-SAME:    attributes {_is_unknown_shape = true}
// ALL-LABEL: graph.graph @body
// ALL-SAME:    attributes {_is_unknown_shape = true}
// ALL-LABEL: graph.graph @then
// ALL-SAME:    attributes {_is_unknown_shape = true}
// ALL-LABEL: graph.graph @main
// ALL-SAME:    attributes {_is_unknown_shape = true}
// ALL-NOT:     partition.partitioned_call

// -----

// Tests nesting: an If inside a While body, whose branch holds an unknown-rank value, makes
// the While unknown (rule 6 recursively); the body, the cond and the inner branches all run
// dynamically. The While's known neighbour k stays in a known partition of its own
// (limit 1 is not needed: it has four known nodes).

graph.graph @t(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  %u = graph.relu %x {_force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %u : tensor<4xf32>
}
graph.graph @e(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  graph.net_output %x : tensor<4xf32>
}
graph.graph @wcond(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<i1> {
  %n = graph.const dense<2> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @wbody(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> (tensor<i32>, tensor<4xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %c = graph.less %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %y = graph.if %c, %x then_branch @t else_branch @e : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %j, %y : tensor<i32>, tensor<4xf32>
}
graph.graph @nested(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.relu %x {node_name = "k1"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.exp %a {node_name = "k2"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.abs %b {node_name = "k3"} : (tensor<4xf32>) -> tensor<4xf32>
  %d = graph.sqrt %c {node_name = "k4"} : (tensor<4xf32>) -> tensor<4xf32>
  %r:2 = graph.while %i, %d cond @wcond body @wbody {node_name = "loop"} : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  graph.net_output %r#1 : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @t
// CHECK-SAME:    attributes {_is_unknown_shape = true}
// CHECK-LABEL: graph.graph @e
// CHECK-SAME:    attributes {_is_unknown_shape = true}
// CHECK-LABEL: graph.graph @wcond
// CHECK-SAME:    attributes {_is_unknown_shape = true}
// CHECK-LABEL: graph.graph @wbody
// CHECK-SAME:    attributes {_is_unknown_shape = true}
// CHECK:         graph.if {{.*}}_is_unknown_shape = true, OwnerGraphIsUnknown = true
// CHECK-LABEL: graph.graph @nested
// CHECK-NEXT:    partition.partitioned_call @nested_sub_0_know
// CHECK-NEXT:    partition.partitioned_call @nested_sub_1_unknow
// CHECK-LABEL: graph.graph @nested_sub_1_unknow
// CHECK-NEXT:    graph.while {{.*}}node_name = "loop", _is_unknown_shape = true

// -----

// Tests that a graph without unknown nodes keeps its control flow static: the graph is not
// partitioned (GE: _dynamic_shape_partitioned = false) and the branches are known.

graph.graph @kt(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  %y = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @ke(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  graph.net_output %x : tensor<4xf32>
}
graph.graph @known(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.if %c, %x then_branch @kt else_branch @ke : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @kt
// CHECK-SAME:    attributes {_is_unknown_shape = false}
// CHECK-LABEL: graph.graph @ke
// CHECK-SAME:    attributes {_is_unknown_shape = false}
// CHECK-LABEL: graph.graph @known
// CHECK-SAME:    attributes {_dynamic_shape_partitioned = false}
// CHECK-NEXT:    graph.if
// CHECK-NOT:     partition.partitioned_call

// -----

// Tests merge rule 4 with functional control flow: the While and the If carry one
// _control_flow_group, so they and every cluster on a path between them (the known Relu r)
// share one cluster, which is unknown because the If is; without the group r would be a
// known cluster of its own, and with limit 1 it stays known (LIMIT1, @no_group).

graph.graph @gt(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  %y = graph.relu %x {_force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @ge(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  graph.net_output %x : tensor<4xf32>
}
graph.graph @gcond(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<i1> {
  %n = graph.const dense<2> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @gbody(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> (tensor<i32>, tensor<4xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %j, %x : tensor<i32>, tensor<4xf32>
}
graph.graph @group(%c: tensor<i1>, %i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %w:2 = graph.while %i, %x cond @gcond body @gbody {node_name = "w", _control_flow_group = 7 : i64} : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  %r = graph.relu %w#1 {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  %e = graph.if %c, %r then_branch @gt else_branch @ge {node_name = "f", _control_flow_group = 7 : i64} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %e : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @gcond
// CHECK-SAME:    attributes {_is_unknown_shape = true}
// CHECK-LABEL: graph.graph @group
// CHECK-NEXT:    partition.partitioned_call @group_sub_0_unknow
// CHECK-NEXT:    graph.net_output
// CHECK-LABEL: graph.graph @group_sub_0_unknow
// CHECK-NEXT:    graph.while {{.*}}node_name = "w"
// CHECK-NEXT:    graph.relu {{.*}}node_name = "r"
// CHECK-NEXT:    graph.if {{.*}}node_name = "f"
graph.graph @no_group(%c: tensor<i1>, %i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %w:2 = graph.while %i, %x cond @gcond body @gbody {node_name = "w"} : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  %r = graph.relu %w#1 {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  %e = graph.if %c, %r then_branch @gt else_branch @ge {node_name = "f"} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %e : tensor<4xf32>
}

// LIMIT1-LABEL: graph.graph @group
// LIMIT1-NEXT:    partition.partitioned_call @group_sub_0_unknow
// LIMIT1-NEXT:    graph.net_output
// LIMIT1-LABEL: graph.graph @group_sub_0_unknow
// LIMIT1-NEXT:    graph.while {{.*}}node_name = "w"
// LIMIT1-NEXT:    graph.relu {{.*}}node_name = "r"
// LIMIT1-NEXT:    graph.if {{.*}}node_name = "f"
// LIMIT1-LABEL: graph.graph @no_group
// LIMIT1-NEXT:    partition.partitioned_call @no_group_sub_0_know
// LIMIT1-NEXT:    partition.partitioned_call @no_group_sub_1_unknow
// LIMIT1-LABEL: graph.graph @no_group_sub_0_know
// LIMIT1-NEXT:    graph.while {{.*}}node_name = "w", _is_unknown_shape = false
// LIMIT1-NEXT:    graph.relu {{.*}}node_name = "r"
// LIMIT1-LABEL: graph.graph @no_group_sub_1_unknow
// LIMIT1-NEXT:    graph.if {{.*}}node_name = "f"

