// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests every ascend op: two streams ordered by an event, a weight, inputs and outputs, kernel
// tasks with and without attributes, a label switch with a goto over the other branch, a memcpy
// and end_graph.

// CHECK-LABEL: ascend.model @main arena_size 16384 weight_size 1024 {
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.stream 1 engine "DNN_VM_AICPU"
// CHECK-NEXT:    ascend.event 0
// CHECK-NEXT:    ascend.weight arena[0] = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    ascend.weight arena[16] = dense<7> : tensor<3xi8>
// CHECK-NEXT:    ascend.input "x" arena[1024] : tensor<1x2xf32>
// CHECK-NEXT:    ascend.input "branch" arena[1536] : tensor<i32>
// CHECK-NEXT:    ascend.output "y" arena[2048] : tensor<1x2xf32>
// CHECK-NEXT:    ascend.output "x_copy" arena[4096] : tensor<2xf32>
// CHECK-NEXT:    ascend.kernel "MatMul" "mm1" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<1x2xf32>, arena[0] : tensor<2x2xf32>) outs(arena[2048] : tensor<1x2xf32>) attrs {transpose_x1 = false, transpose_x2 = true}
// CHECK-NEXT:    ascend.event_record 0 stream 0
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-NEXT:    ascend.event_wait 0 stream 1
// CHECK-NEXT:    ascend.label_switch_by_index arena[1536] : tensor<i32> labels [1, 2] stream 1
// CHECK-NEXT:    ascend.label_set 1 stream 1
// CHECK-NEXT:    ascend.kernel "Relu" "relu1" engine "DNN_VM_AICPU" stream 1 ins(arena[2048] : tensor<1x2xf32>) outs(arena[2048] : tensor<1x2xf32>) {note = "in place"}
// CHECK-NEXT:    ascend.label_goto 3 stream 1
// CHECK-NEXT:    ascend.label_set 2 stream 1
// CHECK-NEXT:    ascend.kernel "Sink" "sink" engine "DNN_VM_AICPU" stream 1 ins() outs()
// CHECK-NEXT:    ascend.label_set 3 stream 1
// CHECK-NEXT:    ascend.memcpy_async stream 1 arena[1024] : tensor<1x2xf32> to arena[4096] : tensor<2xf32>
// CHECK-NEXT:    ascend.end_graph stream 1
// CHECK-NEXT:  }

// GENERIC-LABEL: "ascend.model"() <{sym_name = "main", arena_size = 16384 : i64, weight_size = 1024 : i64}> ({
// GENERIC-NEXT:    "ascend.stream"() <{id = 0 : i64, engine = "AIcoreEngine"}> : () -> ()
// GENERIC-NEXT:    "ascend.stream"() <{id = 1 : i64, engine = "DNN_VM_AICPU"}> : () -> ()
// GENERIC-NEXT:    "ascend.event"() <{id = 0 : i64}> : () -> ()
// GENERIC-NEXT:    "ascend.weight"() <{buffer = #ascend.buffer<0, tensor<2x2xf32>>, value = dense<{{.*}}> : tensor<2x2xf32>}> : () -> ()
// GENERIC-NEXT:    "ascend.weight"() <{buffer = #ascend.buffer<16, tensor<3xi8>>, value = dense<7> : tensor<3xi8>}> : () -> ()
// GENERIC-NEXT:    "ascend.input"() <{input_name = "x", buffer = #ascend.buffer<1024, tensor<1x2xf32>>}> : () -> ()
// GENERIC-NEXT:    "ascend.input"() <{input_name = "branch", buffer = #ascend.buffer<1536, tensor<i32>>}> : () -> ()
// GENERIC-NEXT:    "ascend.output"() <{output_name = "y", buffer = #ascend.buffer<2048, tensor<1x2xf32>>}> : () -> ()
// GENERIC-NEXT:    "ascend.output"() <{output_name = "x_copy", buffer = #ascend.buffer<4096, tensor<2xf32>>}> : () -> ()
// GENERIC-NEXT:    "ascend.kernel"() <{kernel = "MatMul", node_name = "mm1", engine = "AIcoreEngine", stream = 0 : i64, inputs = [#ascend.buffer<1024, tensor<1x2xf32>>, #ascend.buffer<0, tensor<2x2xf32>>], outputs = [#ascend.buffer<2048, tensor<1x2xf32>>], attrs = {transpose_x1 = false, transpose_x2 = true}}> : () -> ()
// GENERIC-NEXT:    "ascend.event_record"() <{event = 0 : i64, stream = 0 : i64}> : () -> ()
// GENERIC-NEXT:    "ascend.end_graph"() <{stream = 0 : i64}> : () -> ()
// GENERIC-NEXT:    "ascend.event_wait"() <{event = 0 : i64, stream = 1 : i64}> : () -> ()
// GENERIC-NEXT:    "ascend.label_switch_by_index"() <{index = #ascend.buffer<1536, tensor<i32>>, labels = array<i64: 1, 2>, stream = 1 : i64}> : () -> ()
// GENERIC-NEXT:    "ascend.label_set"() <{label = 1 : i64, stream = 1 : i64}> : () -> ()
// GENERIC-NEXT:    "ascend.kernel"() <{kernel = "Relu", node_name = "relu1", engine = "DNN_VM_AICPU", stream = 1 : i64, inputs = [#ascend.buffer<2048, tensor<1x2xf32>>], outputs = [#ascend.buffer<2048, tensor<1x2xf32>>], attrs = {}}> {note = "in place"} : () -> ()
// GENERIC-NEXT:    "ascend.label_goto"() <{label = 3 : i64, stream = 1 : i64}> : () -> ()
// GENERIC-NEXT:    "ascend.label_set"() <{label = 2 : i64, stream = 1 : i64}> : () -> ()
// GENERIC-NEXT:    "ascend.kernel"() <{kernel = "Sink", node_name = "sink", engine = "DNN_VM_AICPU", stream = 1 : i64, inputs = [], outputs = [], attrs = {}}> : () -> ()
// GENERIC-NEXT:    "ascend.label_set"() <{label = 3 : i64, stream = 1 : i64}> : () -> ()
// GENERIC-NEXT:    "ascend.memcpy_async"() <{stream = 1 : i64, src = #ascend.buffer<1024, tensor<1x2xf32>>, dst = #ascend.buffer<4096, tensor<2xf32>>}> : () -> ()
// GENERIC-NEXT:    "ascend.end_graph"() <{stream = 1 : i64}> : () -> ()
// GENERIC-NEXT:  }) : () -> ()
ascend.model @main arena_size 16384 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "DNN_VM_AICPU"
  ascend.event 0
  ascend.weight arena[0] = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  ascend.weight arena[16] = dense<7> : tensor<3xi8>
  ascend.input "x" arena[1024] : tensor<1x2xf32>
  ascend.input "branch" arena[1536] : tensor<i32>
  ascend.output "y" arena[2048] : tensor<1x2xf32>
  ascend.output "x_copy" arena[4096] : tensor<2xf32>
  ascend.kernel "MatMul" "mm1" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<1x2xf32>, arena[0] : tensor<2x2xf32>) outs(arena[2048] : tensor<1x2xf32>) attrs {transpose_x1 = false, transpose_x2 = true}
  ascend.event_record 0 stream 0
  ascend.end_graph stream 0
  ascend.event_wait 0 stream 1
  ascend.label_switch_by_index arena[1536] : tensor<i32> labels [1, 2] stream 1
  ascend.label_set 1 stream 1
  ascend.kernel "Relu" "relu1" engine "DNN_VM_AICPU" stream 1 ins(arena[2048] : tensor<1x2xf32>) outs(arena[2048] : tensor<1x2xf32>) {note = "in place"}
  ascend.label_goto 3 stream 1
  ascend.label_set 2 stream 1
  ascend.kernel "Sink" "sink" engine "DNN_VM_AICPU" stream 1 ins() outs()
  ascend.label_set 3 stream 1
  ascend.memcpy_async stream 1 arena[1024] : tensor<1x2xf32> to arena[4096] : tensor<2xf32>
  ascend.end_graph stream 1
}

// -----

// Tests stream_active in GE's CaseOpLabelMaker shape: the branch's label_set on the switch's
// stream, then the task that starts the branch's own stream, whose last record the switch's
// stream waits on before leaving the branch.

// CHECK-LABEL: ascend.model @activate arena_size 1024 weight_size 0 {
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.stream 1 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.event 0
// CHECK-NEXT:    ascend.input "index" arena[0] : tensor<i32>
// CHECK-NEXT:    ascend.label_switch_by_index arena[0] : tensor<i32> labels [1] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.stream_active 1 stream 0 {note = "branch body"}
// CHECK-NEXT:    ascend.kernel "Sink" "sink" engine "AIcoreEngine" stream 1 ins() outs()
// CHECK-NEXT:    ascend.event_record 0 stream 1
// CHECK-NEXT:    ascend.event_wait 0 stream 0
// CHECK-NEXT:  }

// GENERIC-LABEL: "ascend.model"() <{sym_name = "activate", arena_size = 1024 : i64, weight_size = 0 : i64}> ({
// GENERIC:         "ascend.label_set"() <{label = 1 : i64, stream = 0 : i64}> : () -> ()
// GENERIC-NEXT:    "ascend.stream_active"() <{active_stream = 1 : i64, stream = 0 : i64}> {note = "branch body"} : () -> ()
// GENERIC-NEXT:    "ascend.kernel"() <{kernel = "Sink", {{.*}}stream = 1 : i64
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

// -----

// Tests a kernel that spells `attrs {}`: it is printed without it.

// CHECK-LABEL: ascend.model @no_attrs arena_size 64 weight_size 0 {
// CHECK-NEXT:    ascend.stream 3 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.input "x" arena[0] : tensor<4xf32>
// CHECK-NEXT:    ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 3 ins(arena[0] : tensor<4xf32>) outs(arena[16] : tensor<4xf32>){{$}}
// CHECK-NEXT:  }
ascend.model @no_attrs arena_size 64 weight_size 0 {
  ascend.stream 3 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 3 ins(arena[0] : tensor<4xf32>) outs(arena[16] : tensor<4xf32>) attrs {}
}
