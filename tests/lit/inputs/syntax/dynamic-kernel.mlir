// An ascend.dynamic_kernel without the engine keyword (tools/syntax-errors.mlir).
ascend.model @m arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.dynamic_kernel "NonZero" "nz" "DNN_VM_AICPU" stream 0 ins(arena[0] : tensor<4xf32>) outs(dyn[0] : tensor<?x1xi64>)
}
