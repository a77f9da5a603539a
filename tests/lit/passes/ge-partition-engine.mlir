// RUN: ge-opt %s --split-input-file -p ge-partition-engine | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-partition-engine{mode=composite}' | filecheck %s --check-prefix=COMP

// Tests the basic split: Data and Consts in rank 0 `inputNodeGraph`, same-engine neighbours in
// one subgraph, an End/PlaceHolder pair per cut edge with GE's attributes, and the subgraph
// holding NetOutput returning the graph's outputs.

graph.graph @basic(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = graph.const dense<1.0> : tensor<4xf32> {node_name = "w", _engine_name = "DNN_VM_GE_LOCAL"}
  %a = graph.add %x, %w {node_name = "a", _engine_name = "AIcoreEngine"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = graph.relu %a {node_name = "b", _engine_name = "AIcoreEngine"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output {_engine_name = "DNN_VM_GE_LOCAL"} %b : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @basic(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    partition.partitioned_call @partition0_rank0_inputNodeGraph(%x) : (tensor<4xf32>) -> ()
// CHECK-NEXT:    partition.partitioned_call @partition0_rank1_new_sub_graph2() : () -> ()
// CHECK-NEXT:    %[[Y:.*]] = partition.partitioned_call @partition0_rank2_new_sub_graph3() : () -> tensor<4xf32>
// CHECK-NEXT:    graph.net_output {_engine_name = "DNN_VM_GE_LOCAL"} %[[Y]] : tensor<4xf32>
// CHECK-LABEL: graph.graph @partition0_rank0_inputNodeGraph(%0: tensor<4xf32>) attributes {_engine_name = "inputNodesSubGraph"} {
// CHECK-NEXT:    %[[W:.*]] = graph.const
// CHECK-NEXT:    partition.end %0 peerIndex 0 parentOpType "Add" end_rear_node_engine_name "AIcoreEngine" {node_name = "new_sub_graph0_End0"}
// CHECK-NEXT:    partition.end %[[W]] peerIndex 1 parentOpType "Add" end_rear_node_engine_name "AIcoreEngine" {node_name = "new_sub_graph1_End1"}
// CHECK-NEXT:    graph.net_output
// CHECK-LABEL: graph.graph @partition0_rank1_new_sub_graph2() attributes {_engine_name = "AIcoreEngine"} {
// CHECK-NEXT:    %[[P0:.*]] = partition.place_holder peerIndex 0 parentOpType "Data" _parentNodeName "x" pld_front_node_engine_name "DNN_VM_GE_LOCAL" _peerNodeName "new_sub_graph0_End0" {node_name = "new_sub_graph2_PlaceHolder0", parentId = "new_sub_graph0:0"}
// CHECK-NEXT:    %[[P1:.*]] = partition.place_holder peerIndex 1 parentOpType "Const" _parentNodeName "w" pld_front_node_engine_name "DNN_VM_GE_LOCAL" _peerNodeName "new_sub_graph1_End1" {node_name = "new_sub_graph2_PlaceHolder1", parentId = "new_sub_graph1:1"}
// CHECK-NEXT:    %[[A:.*]] = graph.add %[[P0]], %[[P1]]
// CHECK-NEXT:    %[[B:.*]] = graph.relu %[[A]]
// CHECK-NEXT:    partition.end %[[B]] peerIndex 2 parentOpType "NetOutput" end_rear_node_engine_name "DNN_VM_GE_LOCAL"
// CHECK-LABEL: graph.graph @partition0_rank2_new_sub_graph3() -> tensor<4xf32> attributes {_engine_name = "DNN_VM_GE_LOCAL"} {
// CHECK-NEXT:    %[[P2:.*]] = partition.place_holder peerIndex 2 parentOpType "Relu" _parentNodeName "b"
// CHECK-NEXT:    graph.net_output %[[P2]] : tensor<4xf32>

// -----

// Tests the second-path refusal: a -> b (AI CPU) -> c and a -> c. a and c share the engine but
// merging them would close a cycle through b, so they stay in two AI Core subgraphs. In
// composite mode all three are `ffts_plus` and form one subgraph.

graph.graph @second_path(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.relu %x {node_name = "a", _engine_name = "AIcoreEngine"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.relu %a {node_name = "b", _engine_name = "DNN_VM_AICPU"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.add %a, %b {node_name = "c", _engine_name = "AIcoreEngine"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output {_engine_name = "DNN_VM_GE_LOCAL"} %c : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @second_path(
// CHECK-NEXT:    partition.partitioned_call @partition0_rank0_inputNodeGraph
// CHECK-NEXT:    partition.partitioned_call @partition0_rank1_new_sub_graph1()
// CHECK-NEXT:    partition.partitioned_call @partition0_rank2_new_sub_graph2()
// CHECK-NEXT:    partition.partitioned_call @partition0_rank3_new_sub_graph3()
// CHECK-NEXT:    partition.partitioned_call @partition0_rank4_new_sub_graph4()
// CHECK-LABEL: graph.graph @partition0_rank1_new_sub_graph1() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         graph.relu {{.*}}node_name = "a"
// CHECK-LABEL: graph.graph @partition0_rank2_new_sub_graph2() attributes {_engine_name = "DNN_VM_AICPU"}
// CHECK-LABEL: graph.graph @partition0_rank3_new_sub_graph3() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         graph.add {{.*}}node_name = "c"

// COMP-LABEL: graph.graph @second_path(
// COMP-NEXT:    partition.partitioned_call @partition0_rank0_inputNodeGraph
// COMP-NEXT:    partition.partitioned_call @partition0_rank1_new_sub_graph1()
// COMP-NEXT:    partition.partitioned_call @partition0_rank2_new_sub_graph2()
// COMP-LABEL: graph.graph @partition0_rank1_new_sub_graph1() attributes {_engine_name = "ffts_plus"}
// COMP:         graph.relu {{.*}}node_name = "a"
// COMP-NEXT:    graph.relu {{.*}}node_name = "b"
// COMP-NEXT:    graph.add {{.*}}node_name = "c"
// COMP-LABEL: graph.graph @partition0_rank2_new_sub_graph2() -> tensor<4xf32> attributes {_engine_name = ""}

// -----

// Tests that a different stream label keeps same-engine neighbours apart, and that the
// subgraph carries its label.

graph.graph @labels(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.relu %x {node_name = "a", _engine_name = "AIcoreEngine", _stream_label = "s1"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.relu %a {node_name = "b", _engine_name = "AIcoreEngine", _stream_label = "s1"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.relu %b {node_name = "c", _engine_name = "AIcoreEngine"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output {_engine_name = "DNN_VM_GE_LOCAL"} %c : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @partition0_rank1_new_sub_graph1() attributes {_engine_name = "AIcoreEngine", _stream_label = "s1"}
// CHECK:         graph.relu {{.*}}node_name = "a"
// CHECK-NEXT:    graph.relu {{.*}}node_name = "b"
// CHECK-NEXT:    partition.end
// CHECK-LABEL: graph.graph @partition0_rank2_new_sub_graph2() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         graph.relu {{.*}}node_name = "c"

// -----

// Tests that an unplaced node is placed as ge-place-engines would (GE's Initialize calls
// SelectEngine), and that each use of a value crossing subgraphs gets its own pair.

graph.graph @unplaced(%x: tensor<4xf64>) -> tensor<4xf64> {
  %a = graph.add %x, %x {node_name = "a"} : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  graph.net_output %a : tensor<4xf64>
}

// CHECK-LABEL: graph.graph @partition0_rank0_inputNodeGraph
// CHECK-NEXT:    partition.end %0 peerIndex 0 parentOpType "Add" end_rear_node_engine_name "DNN_VM_AICPU"
// CHECK-NEXT:    partition.end %0 peerIndex 1 parentOpType "Add" end_rear_node_engine_name "DNN_VM_AICPU"
// CHECK-LABEL: graph.graph @partition0_rank1_new_sub_graph1() attributes {_engine_name = "DNN_VM_AICPU"}
// CHECK-NEXT:    %[[P:.*]] = partition.place_holder peerIndex 0
// CHECK-NEXT:    %[[Q:.*]] = partition.place_holder peerIndex 1
// CHECK-NEXT:    graph.add %[[P]], %[[Q]] {node_name = "a", _engine_name = "DNN_VM_AICPU"}
