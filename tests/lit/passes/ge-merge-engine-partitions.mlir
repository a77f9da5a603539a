// RUN: ge-opt %s -p ge-merge-engine-partitions | filecheck %s
// RUN: ge-opt %s -p ge-merge-engine-partitions,ge-partition-engine,ge-merge-engine-partitions | filecheck %s

// Tests that the subgraphs of an engine partition are joined back: each PlaceHolder's users
// read the End's value, the pairs and subgraphs disappear, and a node without a stream label
// takes its subgraph's. (The second RUN line partitions again and merges: the same graph.)

graph.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  partition.partitioned_call @partition0_rank0_inputNodeGraph(%x) : (tensor<4xf32>) -> ()
  partition.partitioned_call @partition0_rank1_new_sub_graph1() : () -> ()
  %0 = partition.partitioned_call @partition0_rank2_new_sub_graph2() : () -> tensor<4xf32>
  graph.net_output %0 : tensor<4xf32>
}
graph.graph @partition0_rank0_inputNodeGraph(%x: tensor<4xf32>) attributes {_engine_name = "inputNodesSubGraph"} {
  %w = graph.const dense<2.0> : tensor<4xf32> {_engine_name = "DNN_VM_GE_LOCAL"}
  partition.end %x peerIndex 0 : (tensor<4xf32>) -> ()
  partition.end %w peerIndex 1 : (tensor<4xf32>) -> ()
  graph.net_output
}
graph.graph @partition0_rank1_new_sub_graph1() attributes {_engine_name = "AIcoreEngine", _stream_label = "s1"} {
  %p0 = partition.place_holder peerIndex 0 : () -> tensor<4xf32>
  %p1 = partition.place_holder peerIndex 1 : () -> tensor<4xf32>
  %m = graph.mul %p0, %p1 {node_name = "m", _engine_name = "AIcoreEngine"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  partition.end %m peerIndex 2 : (tensor<4xf32>) -> ()
  graph.net_output
}
graph.graph @partition0_rank2_new_sub_graph2() -> tensor<4xf32> attributes {_engine_name = "DNN_VM_AICPU"} {
  %p2 = partition.place_holder peerIndex 2 : () -> tensor<4xf32>
  %r = graph.relu %p2 {node_name = "r", _engine_name = "DNN_VM_AICPU"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[W:.*]] = graph.const dense<2.000000e+00> : tensor<4xf32> {_engine_name = "DNN_VM_GE_LOCAL"}
// CHECK-NEXT:    %[[M:.*]] = graph.mul %x, %[[W]] {node_name = "m", _engine_name = "AIcoreEngine", _stream_label = "s1"}
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[M]] {node_name = "r", _engine_name = "DNN_VM_AICPU"}
// CHECK-NEXT:    graph.net_output {{.*}}%[[R]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  }
