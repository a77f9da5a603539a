// RUN: not ge-run %s --random-inputs 0 --check-uninitialized 2>&1 | filecheck %s
// RUN: not ge-run %s --random-inputs 0 2>&1 | filecheck %s

// Tests that a bad plan is refused when the model is loaded (ge-verify-model), before the
// run-time checker of --check-uninitialized would see the clobbered read.

// CHECK: error: 'ascend.model' @clobbered: arena[1040] : tensor<4xf32> (written by 'ascend.kernel' "t") overwrites bytes [1040, 1056) of arena[1024] : tensor<8xf32> (written by 'ascend.kernel' "s") while that tensor may still be read
// CHECK-NOT: Traceback

// A bad plan: "t" lives in the upper half of "s", which is still read by "sum".

ascend.model @clobbered arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<8xf32>
  ascend.input "z" arena[128] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<8xf32>
  ascend.kernel "Relu" "s" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.kernel "Neg" "t" engine "AIcoreEngine" stream 0 ins(arena[128] : tensor<4xf32>) outs(arena[1040] : tensor<4xf32>)
  ascend.kernel "Add" "sum" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<8xf32>, arena[0] : tensor<8xf32>) outs(arena[512] : tensor<8xf32>)
}

