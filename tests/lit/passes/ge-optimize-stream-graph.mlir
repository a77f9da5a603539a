// RUN: ge-opt %s -p ge-optimize-stream-graph | filecheck %s
// RUN: env PYTHONPATH=%plugin_pythonpath ge-opt %s -p ge-optimize-stream-graph | filecheck %s --check-prefix=PLUGIN
// RUN: env PYTHONPATH=%plugin_pythonpath ge-opt %s -p ge-compile | filecheck %s --check-prefix=COMPILE

// Tests the OptimizeStreamGraph hook on the task level: no built-in optimiser has one; the
// user engine of tests/lit/inputs/engine_plugin records each model's stream count, and in
// ge-compile its Relu runs on its own engine's stream.

graph.graph @main(%x: tensor<2x3xf32> {node_name = "x"}) -> (tensor<2x3xf32> {node_name = "y"}) {
  %m = graph.mul %x, %x {node_name = "m"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = graph.relu %m {node_name = "r"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  graph.net_output %r : tensor<2x3xf32>
}

// CHECK-LABEL: graph.graph @main(
// CHECK-NOT:     _npu_demo_streams

// PLUGIN-LABEL: graph.graph @main(
// PLUGIN-NOT:     _npu_demo_streams

// COMPILE-LABEL: ascend.model @main arena_size {{[0-9]+}} weight_size {{[0-9]+}} attributes {_npu_demo_streams = 2 : i64} {
// COMPILE-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// COMPILE-NEXT:    ascend.stream 1 engine "NPU_DEMO"
// COMPILE:         ascend.kernel "Relu" "r" engine "NPU_DEMO" stream 1
