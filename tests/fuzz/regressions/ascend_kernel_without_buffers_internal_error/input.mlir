ascend.model @activate arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.event 0
  ascend.input "index" arena[0] : tensor<i32>
  ascend.label_switch_by_index arena[0] : tensor<i32> labels [1] stream 0
  ascend.label_set 1 stream 0
  ascend.stream_active 1 stream 0 {note = "branch body"}
  ascend.kernel "Sink" "sink" engine "AIcoreEngine" stream 1 ins() outs()
  ascend.event_record 0 stream 1
  ascend.event_wait 0 stream 0
}