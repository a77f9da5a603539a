// RUN: ge-opt %s --split-input-file -p ge-partition-dynamic-shape | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-partition-dynamic-shape{static-model-ops-lower-limit=1}' | filecheck %s --check-prefix=LIMIT1
// RUN: ge-opt %s --split-input-file -p 'ge-partition-dynamic-shape{static-model-ops-lower-limit=-1}' | filecheck %s --check-prefix=ALL

// Tests that a graph without unknown nodes is not partitioned (GE: _dynamic_shape_partitioned
// = false), and that limit -1 makes the whole graph unknown instead.

graph.graph @all_known(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @all_known
// CHECK-SAME:    attributes {_dynamic_shape_partitioned = false}
// CHECK-NEXT:    graph.relu
// CHECK-NEXT:    graph.net_output

// ALL-LABEL: graph.graph @all_known
// ALL-SAME:    attributes {_is_unknown_shape = true}
// ALL-NEXT:    graph.relu {{.*}} {OwnerGraphIsUnknown = true}
// ALL-NEXT:    graph.net_output {OwnerGraphIsUnknown = true}

// -----

// Tests the classification rules one by one: _force_unknown_shape (1), the host CPU engine
// (2) and a `?` dim (3) make a node unknown; `_is_support_addr_refresh = false` (6) too.
// Known nodes in between are small clusters (< 4 nodes) and turn unknown; with limit 1
// they stay known and the unknown nodes stay apart.

graph.graph @rules(%x: tensor<4xf32>) -> tensor<?xf32> {
  %a = graph.relu %x {node_name = "forced", _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.relu %a {node_name = "k1"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.relu %b {node_name = "host", _engine_name = "DNN_VM_HOST_CPU"} : (tensor<4xf32>) -> tensor<4xf32>
  %d = graph.relu %c {node_name = "k2"} : (tensor<4xf32>) -> tensor<4xf32>
  %e = graph.relu %d {node_name = "no_refresh", _is_support_addr_refresh = false} : (tensor<4xf32>) -> tensor<4xf32>
  %f = graph.relu %e {node_name = "k3"} : (tensor<4xf32>) -> tensor<4xf32>
  %g = graph.relu %f {node_name = "dynamic"} : (tensor<4xf32>) -> tensor<?xf32>
  graph.net_output %g : tensor<?xf32>
}

// The single known nodes between them are smaller than the limit 4 and turn unknown; the
// final merge of adjacent unknown clusters then makes one unknown subgraph.
// CHECK-LABEL: graph.graph @rules
// CHECK-SAME:    attributes {_dynamic_shape_partitioned = true, _is_unknown_shape = true}
// CHECK-NEXT:    %[[R:.*]] = partition.partitioned_call @rules_sub_0_unknow(%x) {node_name = "rules_sub_0_unknow_PartitionedCall_0", _is_unknown_shape = true, OwnerGraphIsUnknown = true}
// CHECK-NEXT:    graph.net_output {OwnerGraphIsUnknown = true} %[[R]]
// CHECK-LABEL: graph.graph @rules_sub_0_unknow(%0: tensor<4xf32> {node_name = "rules_sub_0_unknow_Data_0", _parent_node_index = 0 : i64})
// CHECK-SAME:    attributes {_is_unknown_shape = true, _memory_discontiguous_allocation = true}
// CHECK-COUNT-7: graph.relu {{.*}}_is_unknown_shape = true, OwnerGraphIsUnknown = true}
// CHECK-NEXT:    graph.net_output {node_name = "rules_sub_0_unknow_Node_Output"

// With limit 1 nothing is demoted: unknown and known nodes alternate (an unknown cluster only
// absorbs paths from unknown inputs).
// LIMIT1-LABEL: graph.graph @rules
// LIMIT1-NEXT:    partition.partitioned_call @rules_sub_0_unknow(%x)
// LIMIT1-NEXT:    partition.partitioned_call @rules_sub_1_know
// LIMIT1-NEXT:    partition.partitioned_call @rules_sub_2_unknow
// LIMIT1-NEXT:    partition.partitioned_call @rules_sub_3_know
// LIMIT1-NEXT:    partition.partitioned_call @rules_sub_4_unknow
// LIMIT1-NEXT:    partition.partitioned_call @rules_sub_5_know
// LIMIT1-NEXT:    partition.partitioned_call @rules_sub_6_unknow

// -----

// Tests the second-path refusal: k1 -> u -> k2 and k1 -> k2. Merging k2 with k1 would close a
// cycle through the unknown u, so the known nodes form two clusters (limit 1 keeps them).

graph.graph @second_path(%x: tensor<4xf32>) -> tensor<4xf32> {
  %k1 = graph.relu %x {node_name = "k1"} : (tensor<4xf32>) -> tensor<4xf32>
  %u = graph.relu %k1 {node_name = "u", _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  %k2 = graph.add %k1, %u {node_name = "k2"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %k2 : tensor<4xf32>
}

// LIMIT1-LABEL: graph.graph @second_path
// LIMIT1-NEXT:    %[[K1:.*]] = partition.partitioned_call @second_path_sub_0_know(%x)
// LIMIT1-NEXT:    %[[U:.*]] = partition.partitioned_call @second_path_sub_1_unknow(%[[K1]])
// LIMIT1-NEXT:    %[[K2:.*]] = partition.partitioned_call @second_path_sub_2_know(%[[K1]], %[[U]])
// LIMIT1-NEXT:    graph.net_output {{.*}} %[[K2]]

// -----

// Tests known merges along single paths, the input Consts gathered in one `_input`
// subgraph, and a call to a graph holding an unknown node being unknown (rule 4).

graph.graph @known_chain(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<?xf32>) {
  %w1 = graph.const dense<1.0> : tensor<4xf32>
  %w2 = graph.const dense<2.0> : tensor<4xf32>
  %a = graph.add %x, %w1 {node_name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = graph.mul %a, %w2 {node_name = "b"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = graph.relu %b {node_name = "c"} : (tensor<4xf32>) -> tensor<4xf32>
  %d = graph.sub %c, %a {node_name = "d"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = partition.partitioned_call @callee(%d) {node_name = "call"} : (tensor<4xf32>) -> tensor<?xf32>
  graph.net_output %d, %e : tensor<4xf32>, tensor<?xf32>
}
graph.graph @callee(%p: tensor<4xf32>) -> tensor<?xf32> {
  %q = graph.relu %p : (tensor<4xf32>) -> tensor<?xf32>
  graph.net_output %q : tensor<?xf32>
}

// CHECK-LABEL: graph.graph @known_chain
// CHECK-NEXT:    %[[W1:.*]], %[[W2:.*]] = partition.partitioned_call @known_chain_sub_0_input() {{.*}} _is_unknown_shape = false
// CHECK-NEXT:    %[[D:.*]] = partition.partitioned_call @known_chain_sub_1_know(%x, %[[W1]], %[[W2]]) {{.*}} _is_unknown_shape = false
// CHECK-NEXT:    %[[E:.*]] = partition.partitioned_call @known_chain_sub_2_unknow(%[[D]]) {{.*}} _is_unknown_shape = true
// CHECK-NEXT:    graph.net_output {{.*}} %[[D]], %[[E]]
// CHECK-LABEL: graph.graph @known_chain_sub_0_input()
// CHECK-COUNT-2: graph.const
// CHECK-LABEL: graph.graph @known_chain_sub_1_know
// CHECK:         graph.add
// CHECK-NEXT:    graph.mul
// CHECK-NEXT:    graph.relu
// CHECK-NEXT:    graph.sub
// CHECK-LABEL: graph.graph @known_chain_sub_2_unknow
// CHECK-NEXT:    partition.partitioned_call @callee
// CHECK-LABEL: graph.graph @callee

// -----

// Tests that a graph of only Data and NetOutput with an unknown shape runs dynamically as a
// whole, and that a stage call (a PartitionedCall with _stage_level) stays in the root.

graph.graph @only_io(%x: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %x : tensor<?xf32>
}

// CHECK-LABEL: graph.graph @only_io
// CHECK-SAME:    attributes {_is_unknown_shape = true}
// CHECK-NEXT:    graph.net_output {OwnerGraphIsUnknown = true} %x

// -----

graph.graph @staged(%x: tensor<4xf32>) -> tensor<?xf32> {
  %s = partition.partitioned_call @stage0(%x) {_stage_level = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %u = graph.relu %s {node_name = "u"} : (tensor<4xf32>) -> tensor<?xf32>
  graph.net_output %u : tensor<?xf32>
}
graph.graph @stage0(%p: tensor<4xf32>) -> tensor<4xf32> {
  graph.net_output %p : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @staged
// CHECK-NEXT:    %[[S:.*]] = partition.partitioned_call @stage0(%x) {_stage_level = 0 : i64, OwnerGraphIsUnknown = true}
// CHECK-NEXT:    %[[U:.*]] = partition.partitioned_call @staged_sub_0_unknow(%[[S]])
// CHECK-NEXT:    graph.net_output {{.*}} %[[U]]

// -----

// Tests that the nodes of a control-flow group end up in one cluster with everything on the
// paths between them: a and c join the unknown u between them (without the group, limit 1
// leaves a and c in known clusters of their own, as @second_path shows).

graph.graph @control_flow(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.relu %x {node_name = "a", _control_flow_group = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %u = graph.relu %a {node_name = "u", _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.add %u, %a {node_name = "c", _control_flow_group = 1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %c : tensor<4xf32>
}

// LIMIT1-LABEL: graph.graph @control_flow
// LIMIT1-NEXT:    %[[C:.*]] = partition.partitioned_call @control_flow_sub_0_unknow(%x)
// LIMIT1-NEXT:    graph.net_output {{.*}} %[[C]]
// LIMIT1-LABEL: graph.graph @control_flow_sub_0_unknow
// LIMIT1-NEXT:    graph.relu {{.*}}node_name = "a"
// LIMIT1-NEXT:    graph.relu {{.*}}node_name = "u"
// LIMIT1-NEXT:    graph.add {{.*}}node_name = "c"

// -----

// Tests unknown-path absorption: u2 has the unknown input u1, so every cluster on a path from
// u1 to u2 joins them, the known k included, even with limit 1.

graph.graph @unknown_path(%x: tensor<4xf32>) -> tensor<4xf32> {
  %u1 = graph.relu %x {node_name = "u1", _force_unknown_shape = true} : (tensor<4xf32>) -> tensor<4xf32>
  %k = graph.relu %u1 {node_name = "k"} : (tensor<4xf32>) -> tensor<4xf32>
  %u2 = graph.add %u1, %k {node_name = "u2", _force_unknown_shape = true} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %u2 : tensor<4xf32>
}

// LIMIT1-LABEL: graph.graph @unknown_path
// LIMIT1-NEXT:    %[[U:.*]] = partition.partitioned_call @unknown_path_sub_0_unknow(%x)
// LIMIT1-NEXT:    graph.net_output {{.*}} %[[U]]
// LIMIT1-LABEL: graph.graph @unknown_path_sub_0_unknow
// LIMIT1-NEXT:    graph.relu {{.*}}node_name = "u1"
// LIMIT1-NEXT:    graph.relu {{.*}}node_name = "k"
// LIMIT1-NEXT:    graph.add {{.*}}node_name = "u2"
