// RUN: ge-opt %s --split-input-file -p ge-partition-engine | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-partition-engine,ge-merge-engine-partitions | filecheck %s --check-prefix=MERGED

// Tests a variable read by an AI Core Mul, written by an AI CPU AssignSub, read back by AI Core
// and written again there, then read again by a second graph.variable. The variable itself is a
// data node of inputNodeGraph (its value crosses by End/PlaceHolder, a copy, to the Mul); each
// cut ref port takes a copy of the variable (same name: one memory) with `_ref_peer_index`, the
// pair it stands for; the second read stays where it stands, after the AssignAdd (a control
// edge: an End/PlaceHolder pair whose PlaceHolder has no user), not in inputNodeGraph.

graph.graph @rw(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<[0.5, -1.0]> : tensor<2xf32> {node_name = "w"}
  %y = graph.mul %x, %w {node_name = "y", _engine_name = "AIcoreEngine"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_sub %w, %y {node_name = "sub", _engine_name = "DNN_VM_AICPU"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %z = graph.relu %w1 {node_name = "z", _engine_name = "AIcoreEngine"} : (tensor<2xf32>) -> tensor<2xf32>
  %w2 = graph.assign_add %w1, %z {node_name = "add", _engine_name = "AIcoreEngine"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %v = graph.variable "w" = dense<[0.5, -1.0]> : tensor<2xf32> {node_name = "w_again", _engine_name = "DNN_VM_GE_LOCAL"}
  %o = graph.mul %v, %y {node_name = "o", _engine_name = "AIcoreEngine"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %o : tensor<2xf32>
}

// CHECK-LABEL: graph.graph @rw(%x: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    partition.partitioned_call @partition0_rank0_inputNodeGraph(%x)
// CHECK-NEXT:    partition.partitioned_call @partition0_rank1_new_sub_graph2()
// CHECK-NEXT:    partition.partitioned_call @partition0_rank2_new_sub_graph3()
// CHECK-NEXT:    partition.partitioned_call @partition0_rank3_new_sub_graph4()
// CHECK-NEXT:    partition.partitioned_call @partition0_rank4_new_sub_graph5()
// CHECK-LABEL: graph.graph @partition0_rank0_inputNodeGraph
// CHECK-NEXT:    %[[W:.*]] = graph.variable "w" {{.*}}{node_name = "w", _engine_name = "DNN_VM_GE_LOCAL"}
// CHECK-NOT:     graph.variable
// CHECK:         partition.end %[[W]] peerIndex 1 parentOpType "Mul"
// CHECK-NEXT:    partition.end %[[W]] peerIndex 2 parentOpType "AssignSub"
// CHECK-LABEL: graph.graph @partition0_rank1_new_sub_graph2() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         %[[P1:.*]] = partition.place_holder peerIndex 1 parentOpType "Variable" _parentNodeName "w"
// CHECK-NEXT:    %y = graph.mul %{{.*}}, %[[P1]]
// CHECK-LABEL: graph.graph @partition0_rank2_new_sub_graph3() attributes {_engine_name = "DNN_VM_AICPU"}
// CHECK-NEXT:    partition.place_holder peerIndex 2 parentOpType "Variable"
// CHECK-NEXT:    %[[D:.*]] = partition.place_holder peerIndex 3 parentOpType "Mul"
// CHECK-NEXT:    %[[C1:.*]] = graph.variable "w" = dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32> {node_name = "sub_w", _ref_peer_index = 2 : i64}
// CHECK-NEXT:    %w1 = graph.assign_sub %[[C1]], %[[D]]
// CHECK-NEXT:    partition.end %w1 peerIndex 4 parentOpType "Relu"
// CHECK-NEXT:    partition.end %w1 peerIndex 5 parentOpType "AssignAdd"
// CHECK-LABEL: graph.graph @partition0_rank3_new_sub_graph4() attributes {_engine_name = "AIcoreEngine"}
// CHECK-NEXT:    %[[R:.*]] = partition.place_holder peerIndex 4 parentOpType "AssignSub"
// CHECK-NEXT:    partition.place_holder peerIndex 5 parentOpType "AssignSub"
// CHECK-NEXT:    %z = graph.relu %[[R]]
// CHECK-NEXT:    %[[C2:.*]] = graph.variable "w" {{.*}}{node_name = "add_w", _ref_peer_index = 5 : i64}
// CHECK-NEXT:    %w2 = graph.assign_add %[[C2]], %z
// CHECK-NEXT:    partition.end %w2 peerIndex 9 parentOpType "Variable"
// CHECK-LABEL: graph.graph @partition0_rank4_new_sub_graph5() attributes {_engine_name = "DNN_VM_GE_LOCAL"}
// CHECK-NEXT:    partition.place_holder peerIndex 9 parentOpType "AssignAdd"
// CHECK-NEXT:    %v = graph.variable "w" {{.*}}{node_name = "w_again", _engine_name = "DNN_VM_GE_LOCAL"}
// CHECK-NEXT:    partition.end %v peerIndex 6 parentOpType "Mul"

// The merge puts the writers back on the variable's chain and drops the copies.
// MERGED-LABEL: graph.graph @rw
// MERGED-NEXT:    %w = graph.variable "w"
// MERGED-NEXT:    %y = graph.mul %x, %w
// MERGED-NEXT:    %w1 = graph.assign_sub %w, %y
// MERGED-NEXT:    %z = graph.relu %w1
// MERGED-NEXT:    %w2 = graph.assign_add %w1, %z
// MERGED-NEXT:    %v = graph.variable "w"
// MERGED-NEXT:    %o = graph.mul %v, %y
// MERGED-NOT:     _ref_peer_index

// -----

// Tests the order of a read and a later write that no data edge joins: the AI CPU subgraph
// holding the Assign starts earlier (rank 1: Neg is the first node) but runs after the AI Core
// Mul that reads the variable's old value, by a control edge (End %r -> a PlaceHolder without
// user in the AI CPU subgraph); the calls follow it, not the ranks.

graph.graph @order(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32> {node_name = "w"}
  %b = graph.neg %x {node_name = "b", _engine_name = "DNN_VM_AICPU"} : (tensor<2xf32>) -> tensor<2xf32>
  %r = graph.mul %x, %w {node_name = "r", _engine_name = "AIcoreEngine"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign %w, %b {node_name = "set", _engine_name = "DNN_VM_AICPU"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// CHECK-LABEL: graph.graph @order(%x: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT:    partition.partitioned_call @partition0_rank0_inputNodeGraph(%x)
// CHECK-NEXT:    partition.partitioned_call @partition0_rank2_new_sub_graph3()
// CHECK-NEXT:    partition.partitioned_call @partition0_rank1_new_sub_graph2()
// CHECK-LABEL: graph.graph @partition0_rank1_new_sub_graph2() attributes {_engine_name = "DNN_VM_AICPU"}
// CHECK:         partition.place_holder peerIndex 5 parentOpType "Mul" _parentNodeName "r"
// CHECK-NEXT:    %b = graph.neg
// CHECK-NEXT:    %[[C:.*]] = graph.variable "w" {{.*}}{node_name = "set_w", _ref_peer_index = 3 : i64}
// CHECK-NEXT:    graph.assign %[[C]], %b
// CHECK-LABEL: graph.graph @partition0_rank2_new_sub_graph3() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         %r = graph.mul
// CHECK-NEXT:    partition.end %r peerIndex 4 parentOpType "NetOutput"
// CHECK-NEXT:    partition.end %r peerIndex 5 parentOpType "Assign" end_rear_node_engine_name "DNN_VM_AICPU"

// MERGED-LABEL: graph.graph @order
// MERGED:         %r = graph.mul %x, %w
// MERGED:         graph.assign %w, %b

// -----

// Tests a subgraph that writes its input as a ref (its caller passes a variable): the writer,
// cut from the input's inputNodeGraph, takes a RefData of the variable the input stands for.

graph.graph @bump(%w: tensor<2xf32>, %d: tensor<2xf32>) -> tensor<2xf32> {
  %w1 = graph.assign_add %w, %d {_engine_name = "AIcoreEngine"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}
graph.graph @caller(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %y = partition.partitioned_call @bump(%w, %x) {_no_need_partition = true} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}

// CHECK-LABEL: graph.graph @partition0_rank1_new_sub_graph2() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         %[[C:.*]] = graph.ref_data "w" : tensor<2xf32> {node_name = "AssignAdd_0_w", _ref_peer_index = 0 : i64}
// CHECK-NEXT:    %w1 = graph.assign_add %[[C]], %{{.*}}
// CHECK-LABEL: graph.graph @partition0_rank2_new_sub_graph3() -> tensor<2xf32>
// CHECK:         %[[R:.*]] = graph.ref_data "w" : tensor<2xf32> {node_name = "NetOutput_0_w", _ref_peer_index = 2 : i64}
// CHECK-NEXT:    graph.net_output %[[R]]
