// RUN: ge-opt %s -p ge-optimize-whole-graph | filecheck %s
// RUN: env PYTHONPATH=%plugin_pythonpath ge-opt %s -p ge-optimize-whole-graph | filecheck %s --check-prefix=PLUGIN
// RUN: env PYTHONPATH=%plugin_pythonpath ge-opt %s -p 'ge-optimize-whole-graph{skip=npu-demo-count-whole-graph}' | filecheck %s

// Tests the OptimizeWholeGraph hook: no built-in optimiser has one (the graph is unchanged);
// the user engine of tests/lit/inputs/engine_plugin (loaded by its entry point) records the
// graph count on each graph, unless its pass is skipped by name.

graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "r", _engine_name = "AIcoreEngine"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    graph.relu

// PLUGIN-LABEL: graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {_npu_demo_graphs = 1 : i64} {
