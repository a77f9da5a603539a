// RUN: ge-opt %s --split-input-file -p ge-optimize-subgraphs | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-merge-engine-partitions,ge-partition-engine,ge-optimize-subgraphs,ge-merge-engine-partitions | filecheck %s --check-prefix=ROUND

// Tests that each engine's OptimizeFusedGraph hook runs on its own subgraphs and puts them back
// in place: AI CPU's VerifyPldAndEndNode check accepts PlaceHolders and Ends in the origin
// format, AI Core's and GE-local's hooks change nothing, and the module keeps its order. The
// ROUND line merges, then runs the step as ge-compile does, between a partition and a merge.

graph.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  partition.partitioned_call @partition0_rank0_inputNodeGraph(%x) : (tensor<4xf32>) -> ()
  partition.partitioned_call @partition0_rank1_new_sub_graph1() : () -> ()
  %0 = partition.partitioned_call @partition0_rank2_new_sub_graph2() : () -> tensor<4xf32>
  graph.net_output %0 : tensor<4xf32>
}
graph.graph @partition0_rank0_inputNodeGraph(%x: tensor<4xf32>) attributes {_engine_name = "inputNodesSubGraph"} {
  partition.end %x peerIndex 0 : (tensor<4xf32>) -> ()
  graph.net_output
}
graph.graph @partition0_rank1_new_sub_graph1() attributes {_engine_name = "AIcoreEngine"} {
  %p0 = partition.place_holder peerIndex 0 : () -> tensor<4xf32>
  %m = graph.mul %p0, %p0 {node_name = "m", _engine_name = "AIcoreEngine"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  partition.end %m peerIndex 1 : (tensor<4xf32>) -> ()
  graph.net_output
}
graph.graph @partition0_rank2_new_sub_graph2() -> tensor<4xf32> attributes {_engine_name = "DNN_VM_AICPU"} {
  %p1 = partition.place_holder peerIndex 1 : () -> tensor<4xf32>
  %r = graph.relu %p1 {node_name = "r", _engine_name = "DNN_VM_AICPU"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @g(
// CHECK:       graph.graph @partition0_rank0_inputNodeGraph(
// CHECK:       graph.graph @partition0_rank1_new_sub_graph1() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         graph.mul
// CHECK:       graph.graph @partition0_rank2_new_sub_graph2() -> tensor<4xf32> attributes {_engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.relu

// ROUND-LABEL: graph.graph @g(
// ROUND-NEXT:    %[[M:.*]] = graph.mul %x, %x {node_name = "m", _engine_name = "AIcoreEngine"}
// ROUND-NEXT:    %[[R:.*]] = graph.relu %[[M]] {node_name = "r", _engine_name = "DNN_VM_AICPU"}
// ROUND-NEXT:    graph.net_output {_engine_name = "DNN_VM_GE_LOCAL"} %[[R]]
// ROUND-NEXT:  }
// ROUND-NEXT: }

// -----

// Tests a placed graph that is not partitioned: nothing is any engine's subgraph, nothing runs.

graph.graph @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "r", _engine_name = "DNN_VM_AICPU"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @plain(
// CHECK-NEXT:    graph.relu
// CHECK-NEXT:    graph.net_output
