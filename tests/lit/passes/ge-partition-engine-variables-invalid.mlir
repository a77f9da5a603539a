// RUN: not ge-opt %s --split-input-file -p ge-partition-engine 2>&1 | filecheck %s --check-prefix=ORDER
// RUN: not ge-opt %s --split-input-file -p ge-merge-engine-partitions 2>&1 | filecheck %s --check-prefix=PEER

// Tests a graph that reads a variable's old value after a writer overwrote it: refused before
// the partition, which keeps the order of reads and writes it is given (there is none to keep).

graph.graph @late(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %w1 = graph.assign_add %w, %x {_engine_name = "DNN_VM_AICPU"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %y = graph.mul %w, %x {_engine_name = "AIcoreEngine"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}

// ORDER: error: 'graph.graph' op @late: 'graph.mul' in @late reads the variable "w" after 'graph.assign_add' overwrites it

// -----

// Tests a variable copy of an engine subgraph standing for a ref value no End sends: the merge
// cannot put the writer back on the variable's chain.

graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = partition.partitioned_call @sub() : () -> tensor<2xf32>
  graph.net_output %0 : tensor<2xf32>
}
graph.graph @sub() -> tensor<2xf32> attributes {_engine_name = "AIcoreEngine"} {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32> {_ref_peer_index = 7 : i64}
  graph.net_output %w : tensor<2xf32>
}

// PEER: error: ge-merge-engine-partitions: @sub: 'graph.variable' "w" stands for the ref value of peerIndex 7, which no End in an earlier subgraph sends
