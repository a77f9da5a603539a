// Tests that ge-run's debug flags name the level they need: a graph.graph entry is refused
// with a pointer to ge-compile.

// RUN: not ge-run %s --entry graph --random-inputs 0 --profile 2>&1 | filecheck %s --check-prefix=GRAPH

// GRAPH: error: --trace, --profile, --check-uninitialized and --schedule-seed run ascend.model entries; @graph is a 'graph.graph' (compile it with ge-compile)

graph.graph @graph(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
