// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a buffer at a negative offset.

// CHECK-LABEL: #ascend.buffer offset -16 is negative
ascend.model @main arena_size 64 weight_size 0 {
  ascend.input "x" arena[-16] : tensor<4xf32>
}

// -----

// Tests a buffer of dynamic shape: the arena holds static tensors only.

// CHECK-LABEL: #ascend.buffer type tensor<?xf32> is not static
ascend.model @main arena_size 64 weight_size 0 {
  ascend.input "x" arena[0] : tensor<?xf32>
}

// -----

// Tests a buffer whose element type has no byte size.

// CHECK-LABEL: #ascend.buffer element type complex<f32> has no byte size
ascend.model @main arena_size 64 weight_size 0 {
  ascend.input "x" arena[0] : tensor<2xcomplex<f32>>
}

// -----

// Tests a weight whose buffer type (generic form) differs from its value's type.

// CHECK-LABEL: 'ascend.weight' arena[0] buffer type tensor<2xf32> differs from its value's type tensor<4xf32>
ascend.model @main arena_size 64 weight_size 16 {
  "ascend.weight"() <{buffer = #ascend.buffer<0, tensor<2xf32>>, value = dense<1.0> : tensor<4xf32>}> : () -> ()
}

// -----

// Tests a memcpy between buffers of different byte sizes.

// CHECK-LABEL: 'ascend.memcpy_async' on stream 0 copies 16 bytes from arena[0] into the 8 bytes of arena[16]
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.memcpy_async stream 0 arena[0] : tensor<4xf32> to arena[16] : tensor<2xf32>
}

// -----

// Tests a label switch whose index buffer is not a single int32.

// CHECK-LABEL: 'ascend.label_switch_by_index' on stream 0 index arena[0] : tensor<2xi32> must hold one i32
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.label_switch_by_index arena[0] : tensor<2xi32> labels [0] stream 0
  ascend.label_set 0 stream 0
}

// -----

// Tests a label switch without labels.

// CHECK-LABEL: 'ascend.label_switch_by_index' on stream 0 has no labels
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.label_switch_by_index arena[0] : tensor<i32> labels [] stream 0
}

// -----

// Tests a kernel task without a kernel name.

// CHECK-LABEL: 'ascend.kernel' "k" has an empty kernel name
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.kernel "" "k" engine "AIcoreEngine" stream 0 ins() outs()
}

// -----

// Tests a negative stream id.

// CHECK-LABEL: 'ascend.stream' -1: stream ids must be non-negative
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream -1 engine "AIcoreEngine"
}

// -----

// Tests a negative event id.

// CHECK-LABEL: 'ascend.event' -2: event ids must be non-negative
ascend.model @main arena_size 64 weight_size 0 {
  ascend.event -2
}

// -----

// Tests a declaration outside a model.

// CHECK-LABEL: 'ascend.stream' expects parent op 'ascend.model'
ascend.stream 0 engine "AIcoreEngine"

// -----

// Tests a task outside a model.

// CHECK-LABEL: 'ascend.end_graph' expects parent op 'ascend.model'
ascend.end_graph stream 0

// -----

// Tests a negative arena size.

// CHECK-LABEL: 'ascend.model' @main: arena_size and weight_size must be non-negative
ascend.model @main arena_size -1 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
}

// -----

// Tests a weight region larger than the arena.

// CHECK-LABEL: 'ascend.model' @main: weight_size 128 exceeds arena_size 64
ascend.model @main arena_size 64 weight_size 128 {
  ascend.stream 0 engine "AIcoreEngine"
}

// -----

// Tests a declaration after the first task.

// CHECK-LABEL: 'ascend.event' 0 follows the task 'ascend.end_graph' on stream 0; declarations must precede tasks
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.end_graph stream 0
  ascend.event 0
}

// -----

// Tests an op of another dialect in a model body.

// CHECK-LABEL: 'ascend.model' @main: 'test.op' is neither an ascend declaration nor a task
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  "test.op"() : () -> ()
}

// -----

// Tests two streams with one id.

// CHECK-LABEL: 'ascend.stream' 1 is declared twice
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 1 engine "AIcoreEngine"
  ascend.stream 1 engine "DNN_VM_AICPU"
}

// -----

// Tests two events with one id.

// CHECK-LABEL: 'ascend.event' 0 is declared twice
ascend.model @main arena_size 64 weight_size 0 {
  ascend.event 0
  ascend.event 0
}

// -----

// Tests two inputs with one name.

// CHECK-LABEL: 'ascend.input' "x" is declared twice
ascend.model @main arena_size 64 weight_size 0 {
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.input "x" arena[16] : tensor<4xf32>
}

// -----

// Tests two outputs with one name.

// CHECK-LABEL: 'ascend.output' "y" is declared twice
ascend.model @main arena_size 64 weight_size 0 {
  ascend.output "y" arena[0] : tensor<4xf32>
  ascend.output "y" arena[16] : tensor<4xf32>
}

// -----

// Tests a task on a stream that is not declared.

// CHECK-LABEL: 'ascend.kernel' "mm1" runs on undeclared stream 3
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.kernel "MatMul" "mm1" engine "AIcoreEngine" stream 3 ins() outs()
}

// -----

// Tests recording an event that is not declared.

// CHECK-LABEL: 'ascend.event_record' on stream 0 records undeclared event 5
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.event_record 5 stream 0
}

// -----

// Tests waiting on an event that is not declared.

// CHECK-LABEL: 'ascend.event_wait' on stream 0 waits on undeclared event 5
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.event_wait 5 stream 0
}

// -----

// Tests waiting on an event that no task records (a certain deadlock).

// CHECK-LABEL: 'ascend.event_wait' on stream 1 waits on event 0, which no task records
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.event 0
  ascend.end_graph stream 0
  ascend.event_wait 0 stream 1
}

// -----

// Tests one label set twice on a stream.

// CHECK-LABEL: 'ascend.label_set' on stream 0 sets label 1, already set on stream 0
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.label_set 1 stream 0
  ascend.label_set 1 stream 0
}

// -----

// Tests a goto to a label that does not exist.

// CHECK-LABEL: 'ascend.label_goto' on stream 0 targets label 3, which no 'ascend.label_set' on stream 0 defines
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.label_goto 3 stream 0
}

// -----

// Tests a switch to a label that exists on another stream only (labels are per stream).

// CHECK-LABEL: 'ascend.label_switch_by_index' on stream 0 targets label 2, which no 'ascend.label_set' on stream 0 defines
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.label_switch_by_index arena[0] : tensor<i32> labels [1, 2] stream 0
  ascend.label_set 1 stream 0
  ascend.label_set 2 stream 1
}

// -----

// Tests a kernel input that runs past the end of the arena.

// CHECK-LABEL: 'ascend.kernel' "mm1" input arena[56] ends at 72, outside the arena [0, 64)
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.kernel "MatMul" "mm1" engine "AIcoreEngine" stream 0 ins(arena[56] : tensor<4xf32>) outs(arena[0] : tensor<4xf32>)
}

// -----

// Tests a label switch index that lies outside the arena.

// CHECK-LABEL: 'ascend.label_switch_by_index' on stream 0 index arena[64] ends at 68, outside the arena [0, 64)
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.label_switch_by_index arena[64] : tensor<i32> labels [0] stream 0
  ascend.label_set 0 stream 0
}

// -----

// Tests an output buffer that lies outside the arena.

// CHECK-LABEL: 'ascend.output' "y" buffer arena[64] ends at 80, outside the arena [0, 64)
ascend.model @main arena_size 64 weight_size 0 {
  ascend.output "y" arena[64] : tensor<4xf32>
}

// -----

// Tests a weight that runs past the weight region.

// CHECK-LABEL: 'ascend.weight' arena[8] ends at 24, outside the weight region [0, 16)
ascend.model @main arena_size 64 weight_size 16 {
  ascend.weight arena[8] = dense<1.0> : tensor<4xf32>
}

// -----

// Tests two weights that overlap.

// CHECK-LABEL: 'ascend.weight' arena[8] overlaps 'ascend.weight' arena[0] (bytes [0, 16))
ascend.model @main arena_size 64 weight_size 32 {
  ascend.weight arena[8] = dense<2.0> : tensor<2xf32>
  ascend.weight arena[0] = dense<1.0> : tensor<4xf32>
}

// -----

// Tests a kernel that writes into the weight region.

// CHECK-LABEL: 'ascend.kernel' "mm1" output arena[0] lies in the weight region [0, 1024)
ascend.model @main arena_size 2048 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.kernel "MatMul" "mm1" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<1x2xf32>, arena[8] : tensor<2x2xf32>) outs(arena[0] : tensor<1x2xf32>)
}

// -----

// Tests a memcpy into the weight region.

// CHECK-LABEL: 'ascend.memcpy_async' on stream 0 destination arena[16] lies in the weight region [0, 32)
ascend.model @main arena_size 64 weight_size 32 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.memcpy_async stream 0 arena[32] : tensor<4xf32> to arena[16] : tensor<4xf32>
}

// -----

// Tests an input placed in the weight region (loading it would overwrite weights).

// CHECK-LABEL: 'ascend.input' "x" buffer arena[0] lies in the weight region [0, 32)
ascend.model @main arena_size 64 weight_size 32 {
  ascend.input "x" arena[0] : tensor<4xf32>
}

// -----

// Tests an output placed in the weight region.

// CHECK-LABEL: 'ascend.output' "y" buffer arena[16] lies in the weight region [0, 32)
ascend.model @main arena_size 64 weight_size 32 {
  ascend.output "y" arena[16] : tensor<4xf32>
}

// -----

// Tests a dynamic buffer with a negative slot.

// CHECK-LABEL: #ascend.dyn_buffer slot -1 is negative
ascend.model @main arena_size 64 weight_size 0 {
  ascend.input "x" dyn[-1] : tensor<?xf32>
}

// -----

// Tests a dynamic slot written twice: each names one value.

// CHECK-LABEL: 'ascend.dynamic_kernel' "b" writes dyn[1], already written by 'ascend.dynamic_kernel' "a"
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" dyn[0] : tensor<?xf32>
  ascend.dynamic_kernel "Relu" "a" engine "AIcoreEngine" stream 0 ins(dyn[0] : tensor<?xf32>) outs(dyn[1] : tensor<?xf32>)
  ascend.dynamic_kernel "Relu" "b" engine "AIcoreEngine" stream 0 ins(dyn[0] : tensor<?xf32>) outs(dyn[1] : tensor<?xf32>)
}

// -----

// Tests a dynamic slot read but never written.

// CHECK-LABEL: 'ascend.output' "y" reads dyn[3], which no input or task writes
ascend.model @main arena_size 64 weight_size 0 {
  ascend.output "y" dyn[3] : tensor<?xf32>
}

// -----

// Tests a dynamic slot used with two types.

// CHECK-LABEL: 'ascend.output' "y" uses dyn[0] as tensor<?xi32>, elsewhere tensor<?xf32>
ascend.model @main arena_size 64 weight_size 0 {
  ascend.input "x" dyn[0] : tensor<?xf32>
  ascend.output "y" dyn[0] : tensor<?xi32>
}

// -----

// Tests a static kernel reading a dynamic buffer: only dynamic kernels and copies may.

// CHECK-LABEL: dyn[0] should be of base attribute ascend.buffer
ascend.model @main arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" dyn[0] : tensor<?xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(dyn[0] : tensor<?xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a dynamic kernel writing a planned buffer: its outputs are placed at run time.

// CHECK-LABEL: arena[512] should be of base attribute ascend.dyn_buffer
ascend.model @main arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" dyn[0] : tensor<?xf32>
  ascend.dynamic_kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(dyn[0] : tensor<?xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a copy from a dynamic buffer of another rank.

// CHECK-LABEL: 'ascend.memcpy_async' on stream 0 copies dyn[0] : tensor<?xf32> into arena[512] : tensor<2x2xf32>; a copy with a dynamic buffer needs the same element type and rank and equal static dims
ascend.model @main arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" dyn[0] : tensor<?xf32>
  ascend.memcpy_async stream 0 dyn[0] : tensor<?xf32> to arena[512] : tensor<2x2xf32>
}

// -----

// Tests a stream_active naming its own stream: a running stream cannot start itself.

// CHECK-LABEL: 'ascend.stream_active' on stream 0 activates its own stream
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream_active 0 stream 0
}

// -----

// Tests a stream_active naming a stream the model does not declare.

// CHECK-LABEL: 'ascend.stream_active' on stream 0 activates undeclared stream 4
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream_active 4 stream 0
}

// -----

// Tests a stream started by two stream_active tasks: a stream has one activation point (GE
// gives each case branch streams of its own).

// CHECK-LABEL: 'ascend.stream_active' on stream 2 activates stream 1, already activated by 'ascend.stream_active' on stream 0; a stream has one activation point
ascend.model @main arena_size 64 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.stream 2 engine "AIcoreEngine"
  ascend.stream_active 1 stream 0
  ascend.stream_active 2 stream 0
  ascend.stream_active 1 stream 2
  ascend.kernel "Sink" "sink" engine "AIcoreEngine" stream 1 ins() outs()
}

// -----

// Tests two outputs that overlap by 8 bytes (one clobbers the other).

// CHECK-LABEL: 'ascend.output' "y2" arena[1032] overlaps 'ascend.output' "y1" arena[1024] (bytes [1032, 1040)); inputs and outputs need their own bytes
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y1" arena[1024] : tensor<4xf32>
  ascend.output "y2" arena[1032] : tensor<4xf32>
  ascend.memcpy_async stream 0 arena[0] : tensor<4xf32> to arena[1024] : tensor<4xf32>
}

// -----

// Tests an input overlapping an output.

// CHECK-LABEL: 'ascend.output' "y" arena[1032] overlaps 'ascend.input' "x" arena[1024] (bytes [1032, 1040)); inputs and outputs need their own bytes
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "y" arena[1032] : tensor<4xf32>
}

// -----

// Tests a task buffer that straddles the edge of an output buffer.

// CHECK-LABEL: 'ascend.kernel' "neg" output arena[504] : tensor<4xf32> (bytes [504, 520)) straddles 'ascend.output' "y" arena[512] (bytes [512, 528)); a task may only use an input or output buffer whole or as its prefix
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.kernel "Neg" "neg" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[504] : tensor<4xf32>)
}

// -----

// Tests a kernel whose output element type its GE op does not produce (Relu f32 -> i8).

// CHECK-LABEL: 'ascend.kernel' "relu" (Relu) output 0 arena[1024] : tensor<2xi8> has element type i8, but Relu of (tensor<2xf32>) gives f32; a conversion needs an explicit Cast
ascend.model @main arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<2xf32>
  ascend.output "y" arena[1024] : tensor<2xi8>
  ascend.kernel "Relu" "relu" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<2xf32>) outs(arena[1024] : tensor<2xi8>)
}

// -----

// Tests a MatMul of f32 by i32.

// CHECK-LABEL: 'ascend.kernel' "mm" (MatMul): requires one element type for x1 and x2, got f32, i32
ascend.model @main arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<2x2xf32>
  ascend.input "w" arena[512] : tensor<2x2xi32>
  ascend.output "y" arena[1024] : tensor<2x2xf32>
  ascend.kernel "MatMul" "mm" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<2x2xf32>, arena[512] : tensor<2x2xi32>) outs(arena[1024] : tensor<2x2xf32>)
}

// -----

// Tests two feature tensors that share 8 bytes while both are live (ge-opt proves the memory
// plan of a model it loads).

// CHECK-LABEL: 'ascend.model' @main: arena[1032] : tensor<4xf32> (written by 'ascend.kernel' "b") overwrites bytes [1032, 1040) of arena[1024] : tensor<4xf32> (written by 'ascend.kernel' "a") while that tensor may still be read
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.kernel "Neg" "a" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
  ascend.kernel "Relu" "b" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[1032] : tensor<4xf32>)
  ascend.kernel "Add" "c" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>, arena[1032] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a control task of a GE type that has no subgraphs to run.

// CHECK-LABEL: 'ascend.dynamic_control' "c" runs 'Relu'; a control task runs one of If, While, Case
ascend.model @main arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "DNN_VM_GE_LOCAL"
  ascend.input "x" dyn[0] : tensor<?xf32>
  ascend.output "y" dyn[1] : tensor<?xf32>
  ascend.dynamic_control "Relu" "c" engine "DNN_VM_GE_LOCAL" stream 0 ins(dyn[0] : tensor<?xf32>) outs(dyn[1] : tensor<?xf32>)
}

// -----

// Tests an If control task without its else branch.

// CHECK-LABEL: 'ascend.dynamic_control' "c" (If) names no else_branch
ascend.model @main arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "DNN_VM_GE_LOCAL"
  ascend.input "p" arena[0] : tensor<i32>
  ascend.input "x" dyn[0] : tensor<?xf32>
  ascend.output "y" dyn[1] : tensor<?xf32>
  ascend.dynamic_control "If" "c" engine "DNN_VM_GE_LOCAL" stream 0 ins(arena[0] : tensor<i32>, dyn[0] : tensor<?xf32>) outs(dyn[1] : tensor<?xf32>) attrs {then_branch = @main}
}

// -----

// Tests a control task whose subgraph is no model of the module.

// CHECK-LABEL: 'ascend.dynamic_control' "c" (While) body @gone is not an 'ascend.model' of the module
ascend.model @main arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "DNN_VM_GE_LOCAL"
  ascend.input "x" dyn[0] : tensor<?xf32>
  ascend.output "y" dyn[1] : tensor<?xf32>
  ascend.dynamic_control "While" "c" engine "DNN_VM_GE_LOCAL" stream 0 ins(dyn[0] : tensor<?xf32>) outs(dyn[1] : tensor<?xf32>) attrs {cond = @main, body = @gone}
}
