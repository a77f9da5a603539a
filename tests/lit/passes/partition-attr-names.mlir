// RUN: ge-opt %s --split-input-file -p 'ge-partition-dynamic-shape{static-model-ops-lower-limit=1}' | filecheck %s --check-prefix=DSP
// RUN: ge-opt %s --split-input-file -p ge-merge-engine-partitions | filecheck %s --check-prefix=MERGE
// RUN: ge-opt %s --split-input-file -p ge-inline-partitions | filecheck %s --check-prefix=INLINE

// Tests GE's PartitionNodeAttrNameManager (`attr_names`): the registered `_user_stream_label`
// that every node of a cluster shares goes on its PartitionedCall (nodes -> call); the unknown
// cluster's nodes disagree, so its call gets none.

graph.graph @dsp(%x: tensor<4xf32> {node_name = "x"}, %n: tensor<?xf32> {node_name = "n"}) -> (tensor<4xf32>, tensor<?xf32>) {
  %a = graph.relu %x {node_name = "a", _user_stream_label = "s1"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.relu %a {node_name = "b", _user_stream_label = "s1"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.relu %n {node_name = "c", _user_stream_label = "s2"} : (tensor<?xf32>) -> tensor<?xf32>
  %d = graph.relu %c {node_name = "d", _user_stream_label = "s3"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %b, %d : tensor<4xf32>, tensor<?xf32>
}

// DSP-LABEL: graph.graph @dsp(
// DSP:         partition.partitioned_call @dsp_sub_0_know(%x) {node_name = "dsp_sub_0_know_PartitionedCall_0", _user_stream_label = "s1", _is_unknown_shape = false
// DSP:         partition.partitioned_call @dsp_sub_1_unknow(%n) {node_name = "dsp_sub_1_unknow_PartitionedCall_1", _is_unknown_shape = true

// MERGE-LABEL: graph.graph @dsp(
// INLINE-LABEL: graph.graph @dsp(

// -----

// Tests the other direction (call -> nodes): merging an engine subgraph whose call carries
// `_user_stream_label` gives it to the nodes that have none; inlining a call with
// `_batch_label` does the same; a node's own value stays.

graph.graph @back(%x: tensor<4xf32>) -> tensor<4xf32> {
  partition.partitioned_call @partition0_rank0_inputNodeGraph(%x) : (tensor<4xf32>) -> ()
  %0 = partition.partitioned_call @partition0_rank1_new_sub_graph1() {_user_stream_label = "s1", _batch_label = "Batch_0"} : () -> tensor<4xf32>
  graph.net_output %0 : tensor<4xf32>
}
graph.graph @partition0_rank0_inputNodeGraph(%x: tensor<4xf32>) attributes {_engine_name = "inputNodesSubGraph"} {
  partition.end %x peerIndex 0 : (tensor<4xf32>) -> ()
  graph.net_output
}
graph.graph @partition0_rank1_new_sub_graph1() -> tensor<4xf32> attributes {_engine_name = "AIcoreEngine"} {
  %p = partition.place_holder peerIndex 0 : () -> tensor<4xf32>
  %a = graph.relu %p {node_name = "a"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.relu %a {node_name = "b", _user_stream_label = "mine"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %b : tensor<4xf32>
}

// MERGE-LABEL: graph.graph @back(
// MERGE-NEXT:    graph.relu %x {node_name = "a", _user_stream_label = "s1", _batch_label = "Batch_0"}
// MERGE-NEXT:    graph.relu {{.*}} {node_name = "b", _user_stream_label = "mine", _batch_label = "Batch_0"}

// -----

graph.graph @inline(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = partition.partitioned_call @body(%x) {_batch_label = "Batch_1"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %0 : tensor<4xf32>
}
graph.graph @body(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.relu %x {node_name = "a"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %a : tensor<4xf32>
}

// INLINE-LABEL: graph.graph @inline(
// INLINE-NEXT:    graph.relu %x {node_name = "a", _batch_label = "Batch_1"}
