// Tests ge-run's debug mode: reading arena bytes nobody wrote, or bytes another live buffer
// overwrote, names the task and the buffers; without the flag the same models run.

// RUN: not ge-run %s --entry unwritten --random-inputs 0 --check-uninitialized 2>&1 | filecheck %s --check-prefix=UNWRITTEN
// RUN: ge-run %s --entry unwritten --random-inputs 0 | filecheck %s --check-prefix=SILENT
// RUN: not ge-run %s --entry graph --random-inputs 0 --profile 2>&1 | filecheck %s --check-prefix=GRAPH

// UNWRITTEN: error: 'ascend.kernel' "add" reads arena[1536] : tensor<4xf32>, but bytes [1536, 1552) were never written (uninitialised memory)
// SILENT: y: float32[4]

ascend.model @unwritten arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "relu" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
  ascend.kernel "Add" "add" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>, arena[1536] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// GRAPH: error: --trace, --profile, --check-uninitialized and --schedule-seed run ascend.model entries; @graph is a 'graph.graph' (compile it with ge-compile)

graph.graph @graph(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
