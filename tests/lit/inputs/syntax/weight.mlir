// An ascend.weight whose value is not a dense literal (tools/syntax-errors.mlir).
ascend.model @m arena_size 1024 weight_size 16 {
  ascend.weight arena[0] = 1.0 : f32
}
