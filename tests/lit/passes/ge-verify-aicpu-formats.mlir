// RUN: not ge-opt %s --split-input-file -p ge-verify-aicpu-formats 2>/dev/null | filecheck %s
// RUN: not ge-opt %s --split-input-file -p ge-verify-aicpu-formats 2>&1 | filecheck %s --check-prefix=ERR

// Tests GE's VerifyPldAndEndNode: the PlaceHolders and Ends of an AI CPU subgraph in the origin
// format pass, and so does a storage layout in an AI Core subgraph (only AI CPU's are checked).

graph.graph @partition0_rank1_new_sub_graph1() attributes {_engine_name = "DNN_VM_AICPU"} {
  %p = partition.place_holder peerIndex 0 {node_name = "pld0"} : () -> tensor<4xf32>
  %r = graph.relu %p : (tensor<4xf32>) -> tensor<4xf32>
  partition.end %r peerIndex 1 {node_name = "end1"} : (tensor<4xf32>) -> ()
  graph.net_output
}
graph.graph @partition0_rank2_new_sub_graph2() attributes {_engine_name = "AIcoreEngine"} {
  %p = partition.place_holder peerIndex 1 {node_name = "pld1"} : () -> tensor<4xf32, "NC1HWC0">
  graph.net_output
}

// CHECK-LABEL: graph.graph @partition0_rank1_new_sub_graph1()
// CHECK:         partition.end
// CHECK-LABEL: graph.graph @partition0_rank2_new_sub_graph2()

// -----

// Tests that an End of an AI CPU subgraph with a storage layout is an error naming it.

graph.graph @partition0_rank1_new_sub_graph1() attributes {_engine_name = "DNN_VM_AICPU"} {
  %c = graph.const dense<1.0> : tensor<4xf32, "FRACTAL_NZ">
  partition.end %c peerIndex 0 {node_name = "end0"} : (tensor<4xf32, "FRACTAL_NZ">) -> ()
  graph.net_output
}

// ERR: error: ge-verify-aicpu-formats: @partition0_rank1_new_sub_graph1: End 'end0' of an AI CPU subgraph has storage format "FRACTAL_NZ"; AI CPU takes its inputs and outputs in the origin format or ND (GE VerifyPldAndEndNode): convert it on the producer's side
