// RUN: not ge-opt %s --split-input-file -p ge-optimize-subgraphs 2>&1 | filecheck %s

// Tests that a subgraph of an engine without an engine optimiser is a one-line error naming
// the subgraph and the engine.

graph.graph @g() -> tensor<4xf32> {
  %0 = partition.partitioned_call @partition0_rank1_new_sub_graph1() : () -> tensor<4xf32>
  graph.net_output %0 : tensor<4xf32>
}
graph.graph @partition0_rank1_new_sub_graph1() -> tensor<4xf32> attributes {_engine_name = "NPU2"} {
  %c = graph.const dense<1.0> : tensor<4xf32>
  graph.net_output %c : tensor<4xf32>
}

// CHECK: error: ge-optimize-subgraphs: @partition0_rank1_new_sub_graph1: engine 'NPU2' has no engine optimiser (register one with register_engine_optimizer or the gedialects.passes.engine_optimizers entry point)

// -----

// Tests that AI CPU's hook refuses a PlaceHolder whose tensor has a storage layout other than
// its origin format (GE VerifyPldAndEndNode).

graph.graph @h(%x: tensor<4xf32>) -> tensor<4xf32> {
  partition.partitioned_call @partition0_rank0_inputNodeGraph(%x) : (tensor<4xf32>) -> ()
  %0 = partition.partitioned_call @partition0_rank1_new_sub_graph1() : () -> tensor<4xf32>
  graph.net_output %0 : tensor<4xf32>
}
graph.graph @partition0_rank0_inputNodeGraph(%x: tensor<4xf32>) attributes {_engine_name = "inputNodesSubGraph"} {
  partition.end %x peerIndex 0 : (tensor<4xf32>) -> ()
  graph.net_output
}
graph.graph @partition0_rank1_new_sub_graph1() -> tensor<4xf32> attributes {_engine_name = "DNN_VM_AICPU"} {
  %p = partition.place_holder peerIndex 0 {node_name = "pld0"} : () -> tensor<4xf32, "NC1HWC0">
  %c = graph.const dense<1.0> : tensor<4xf32>
  graph.net_output %c : tensor<4xf32>
}

// CHECK: error: ge-optimize-subgraphs: ge-verify-aicpu-formats: @partition0_rank1_new_sub_graph1: PlaceHolder 'pld0' of an AI CPU subgraph has storage format "NC1HWC0"; AI CPU takes its inputs and outputs in the origin format or ND (GE VerifyPldAndEndNode)
