// An ascend.event_record without its stream number (tools/syntax-errors.mlir).
ascend.model @m arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.event 0
  ascend.event_record 0 stream
}
