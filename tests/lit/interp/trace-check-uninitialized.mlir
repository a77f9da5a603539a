// Tests reading arena bytes nobody wrote: the model verifier refuses it when the model is
// loaded (it used to run silently without --check-uninitialized, found by make fuzz), naming
// the task, the buffer and the bytes, with and without ge-run's debug flag.

// RUN: not ge-run %s --entry unwritten --random-inputs 0 --check-uninitialized 2>&1 | filecheck %s --check-prefix=UNWRITTEN
// RUN: not ge-run %s --entry unwritten --random-inputs 0 2>&1 | filecheck %s --check-prefix=UNWRITTEN

// UNWRITTEN: error: 'ascend.model' @unwritten: 'ascend.kernel' "add" reads arena[1536] : tensor<4xf32> (bytes [1536, 1552)), but no earlier task writes bytes [1536, 1552) (uninitialised memory)

ascend.model @unwritten arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "relu" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
  ascend.kernel "Add" "add" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>, arena[1536] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}
