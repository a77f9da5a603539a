// An ascend.input whose buffer type is not a tensor (tools/syntax-errors.mlir).
ascend.model @m arena_size 1024 weight_size 0 {
  ascend.input "x" arena[0] : i32
}
