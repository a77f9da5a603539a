// An ascend.memcpy_async without the to keyword (tools/syntax-errors.mlir).
ascend.model @m arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.memcpy_async stream 0 arena[0] : tensor<4xf32> arena[512] : tensor<4xf32>
}
