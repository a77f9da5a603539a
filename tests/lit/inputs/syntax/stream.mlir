// An ascend.stream whose engine is not a string (tools/syntax-errors.mlir).
ascend.model @m arena_size 1024 weight_size 0 {
  ascend.stream 0 engine AIcoreEngine
}
