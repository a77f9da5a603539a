// An ascend.kernel whose outs list is not closed (tools/syntax-errors.mlir).
ascend.model @m arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>
}
