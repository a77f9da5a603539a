// RUN: not ge-opt %s -p 'ge-partition-engine{mode=fused}' 2>&1 | filecheck %s --check-prefix=MODE
// RUN: not ge-opt %s -p 'ge-partition-engine,ge-partition-engine' 2>&1 | filecheck %s --check-prefix=TWICE

// Tests that an unknown mode is refused, and that an engine-partitioned graph is not
// partitioned again before its subgraphs are merged back.

graph.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// MODE: error: bad pass pipeline: ge-partition-engine{mode=fused}: option 'mode' takes one of atomic, composite; got 'fused'
// TWICE: error: ge-partition-engine: @g is already engine-partitioned; run ge-merge-engine-partitions first
