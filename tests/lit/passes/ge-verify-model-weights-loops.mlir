// RUN: ge-opt %s --split-input-file --verify-diagnostics -p ge-verify-model | filecheck %s
// RUN: ge-opt %S/../../../examples/conv_block.mlir -p 'ge-compile{iterations-per-loop=3}' | ge-opt -p ge-verify-model | filecheck %s --check-prefix=SUNK

// Tests of ge-verify-model: weights read whole or as their prefix, and liveness over the
// control flow of label loops (a value live across a back edge is live for the whole loop;
// one made anew by each iteration only within it; several streams under a barrier).

// SUNK: ascend.model @conv_block
// SUNK-SAME: iterations_per_loop = 3

// CHECK-LABEL: ascend.model @weight_whole_or_prefix
ascend.model @weight_whole_or_prefix arena_size 2048 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "y" arena[1536] : tensor<4xf32>
  ascend.output "z" arena[1792] : tensor<2xf32>
  ascend.kernel "Add" "add" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>, arena[0] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
  ascend.kernel "Neg" "neg" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<2xf32>) outs(arena[1792] : tensor<2xf32>)
}

// -----

// A read that starts at one weight and runs into the next (make fuzz: mlp 26624->8704).

// CHECK: 'ascend.model' @weight_straddled: 'ascend.kernel' "add" reads arena[0] : tensor<4xf32> (bytes [0, 16)), which straddles 'ascend.weight' arena[0] : tensor<2xf32> (bytes [0, 8)), sharing bytes [0, 8); a task may only read a weight whole or as its prefix
ascend.model @weight_straddled arena_size 2048 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<[1.0, 2.0]> : tensor<2xf32>
  ascend.weight arena[8] = dense<[3.0, 4.0]> : tensor<2xf32>
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "y" arena[1536] : tensor<4xf32>
  ascend.kernel "Add" "add" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>, arena[0] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
}

// -----

// A read of the padding after a weight (make fuzz: nonzero 512->516).

// CHECK: 'ascend.model' @weight_padding: 'ascend.kernel' "mul" reads arena[516] : tensor<f32> (bytes [516, 520)), bytes of the weight region that no 'ascend.weight' holds
ascend.model @weight_padding arena_size 2048 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[512] = dense<2.0> : tensor<f32>
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "y" arena[1536] : tensor<4xf32>
  ascend.kernel "Mul" "mul" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>, arena[516] : tensor<f32>) outs(arena[1536] : tensor<4xf32>)
}

// -----

// A read that starts inside a weight and ends past it: the shared bytes are the weight's tail.

// CHECK: 'ascend.model' @weight_tail: 'ascend.kernel' "add" reads arena[8] : tensor<4xf32> (bytes [8, 24)), which straddles 'ascend.weight' arena[0] : tensor<4xf32> (bytes [0, 16)), sharing bytes [8, 16); a task may only read a weight whole or as its prefix
ascend.model @weight_tail arena_size 2048 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "y" arena[1536] : tensor<4xf32>
  ascend.kernel "Add" "add" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>, arena[8] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
}

// -----

// CHECK: 'ascend.model' @weight_other_dtype: 'ascend.kernel' "add" reads arena[0] : tensor<2xf32> (bytes [0, 8)), the bytes of 'ascend.weight' arena[0] : tensor<1xi64> read as f32; a task reads a weight in its own element type
ascend.model @weight_other_dtype arena_size 2048 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<7> : tensor<1xi64>
  ascend.input "x" arena[1024] : tensor<2xf32>
  ascend.output "y" arena[1536] : tensor<2xf32>
  ascend.kernel "Add" "add" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<2xf32>, arena[0] : tensor<2xf32>) outs(arena[1536] : tensor<2xf32>)
}

// -----

// One stream, a sunk loop: "a" and "b" make their values anew each iteration and reuse bytes
// (in place too); the counter is live across the back edge.

// CHECK-LABEL: ascend.model @loop_iteration_values
ascend.model @loop_iteration_values arena_size 4096 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<0> : tensor<i64>
  ascend.weight arena[8] = dense<1> : tensor<i64>
  ascend.weight arena[16] = dense<3> : tensor<i64>
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "y" arena[1536] : tensor<4xf32>
  ascend.memcpy_async stream 0 arena[0] : tensor<i64> to arena[3072] : tensor<i64>
  ascend.label_set 0 stream 0
  ascend.kernel "Neg" "a" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.kernel "Relu" "b" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.kernel "Add" "c" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<4xf32>, arena[1024] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
  ascend.kernel "AssignAdd" "inc" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<i64>, arena[8] : tensor<i64>) outs(arena[3072] : tensor<i64>)
  ascend.kernel "Less" "less" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<i64>, arena[16] : tensor<i64>) outs(arena[3080] : tensor<i1>)
  ascend.kernel "Cast" "cast" engine "AIcoreEngine" stream 0 ins(arena[3080] : tensor<i1>) outs(arena[3084] : tensor<i32>) attrs {dst_type = i32}
  ascend.label_switch_by_index arena[3084] : tensor<i32> labels [1, 0] stream 0
  ascend.label_set 1 stream 0
  ascend.end_graph stream 0
}

// -----

// The loop counter is live across the back edge, so "a" may not put its value on its bytes
// although the counter is not read between "a" and "c" of one iteration.

// CHECK: 'ascend.model' @loop_carried_clobbered: arena[3072] : tensor<4xf32> (written by 'ascend.kernel' "a") overwrites bytes [3072, 3080) of arena[3072] : tensor<i64> (written by 'ascend.memcpy_async' on stream 0) while that tensor may still be read
ascend.model @loop_carried_clobbered arena_size 4096 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<0> : tensor<i64>
  ascend.weight arena[8] = dense<1> : tensor<i64>
  ascend.weight arena[16] = dense<3> : tensor<i64>
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "y" arena[1536] : tensor<4xf32>
  ascend.memcpy_async stream 0 arena[0] : tensor<i64> to arena[3072] : tensor<i64>
  ascend.label_set 0 stream 0
  ascend.kernel "Neg" "a" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>) outs(arena[3072] : tensor<4xf32>)
  ascend.kernel "Add" "c" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<4xf32>, arena[1024] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
  ascend.kernel "AssignAdd" "inc" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<i64>, arena[8] : tensor<i64>) outs(arena[3072] : tensor<i64>)
  ascend.kernel "Less" "less" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<i64>, arena[16] : tensor<i64>) outs(arena[3080] : tensor<i1>)
  ascend.kernel "Cast" "cast" engine "AIcoreEngine" stream 0 ins(arena[3080] : tensor<i1>) outs(arena[3084] : tensor<i32>) attrs {dst_type = i32}
  ascend.label_switch_by_index arena[3084] : tensor<i32> labels [1, 0] stream 0
  ascend.label_set 1 stream 0
  ascend.end_graph stream 0
}

// -----

// Read at the top of an iteration, written at its bottom: "acc" carries a value across the
// back edge to "use" ("t" may reuse its bytes after "use" read them, and does), so the value
// "late" makes after "acc" may not share them.

// CHECK: 'ascend.model' @loop_value_read_before_written: arena[2056] : tensor<2xf32> (written by 'ascend.kernel' "late") overwrites bytes [2056, 2064) of arena[2048] : tensor<4xf32> (written by 'ascend.kernel' "t") while that tensor may still be read
ascend.model @loop_value_read_before_written arena_size 4096 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<0> : tensor<i64>
  ascend.weight arena[8] = dense<1> : tensor<i64>
  ascend.weight arena[16] = dense<3> : tensor<i64>
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "y" arena[1536] : tensor<4xf32>
  ascend.memcpy_async stream 0 arena[0] : tensor<i64> to arena[3072] : tensor<i64>
  ascend.label_set 0 stream 0
  ascend.kernel "Add" "use" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<4xf32>, arena[1024] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
  ascend.kernel "Neg" "t" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<4xf32>) outs(arena[2560] : tensor<4xf32>)
  ascend.kernel "Add" "acc" engine "AIcoreEngine" stream 0 ins(arena[1536] : tensor<4xf32>, arena[2560] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.kernel "Neg" "late" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<2xf32>) outs(arena[2056] : tensor<2xf32>)
  ascend.kernel "Relu" "fin" engine "AIcoreEngine" stream 0 ins(arena[2056] : tensor<2xf32>) outs(arena[2816] : tensor<2xf32>)
  ascend.kernel "AssignAdd" "inc" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<i64>, arena[8] : tensor<i64>) outs(arena[3072] : tensor<i64>)
  ascend.kernel "Less" "less" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<i64>, arena[16] : tensor<i64>) outs(arena[3080] : tensor<i1>)
  ascend.kernel "Cast" "cast" engine "AIcoreEngine" stream 0 ins(arena[3080] : tensor<i1>) outs(arena[3084] : tensor<i32>) attrs {dst_type = i32}
  ascend.label_switch_by_index arena[3084] : tensor<i32> labels [1, 0] stream 0
  ascend.label_set 1 stream 0
  ascend.end_graph stream 0
}

// -----

// Two streams under the barrier of ge-sink-loop (done/go events around the switches): "a"
// on stream 0 and "b" on stream 1 pass a value, "c" reuses its bytes after "b" read it, and
// "d" reuses the bytes of "e", which stream 1 writes first thing in every iteration.

// CHECK-LABEL: ascend.model @loop_two_streams_barrier
ascend.model @loop_two_streams_barrier arena_size 4096 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "DNN_VM_GE_LOCAL"
  ascend.event 0
  ascend.event 1
  ascend.event 2
  ascend.weight arena[0] = dense<0> : tensor<i64>
  ascend.weight arena[8] = dense<1> : tensor<i64>
  ascend.weight arena[16] = dense<3> : tensor<i64>
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "y" arena[1536] : tensor<4xf32>
  ascend.memcpy_async stream 0 arena[0] : tensor<i64> to arena[3072] : tensor<i64>
  ascend.label_set 0 stream 0
  ascend.label_set 2 stream 1
  ascend.kernel "Neg" "e" engine "DNN_VM_GE_LOCAL" stream 1 ins(arena[1024] : tensor<4xf32>) outs(arena[2560] : tensor<4xf32>)
  ascend.kernel "Neg" "a" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.event_record 0 stream 0
  ascend.event_wait 0 stream 1
  ascend.kernel "Add" "b" engine "DNN_VM_GE_LOCAL" stream 1 ins(arena[2048] : tensor<4xf32>, arena[2560] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
  ascend.event_record 1 stream 1
  ascend.event_wait 1 stream 0
  ascend.kernel "Relu" "c" engine "AIcoreEngine" stream 0 ins(arena[1536] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.kernel "Neg" "d" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<4xf32>) outs(arena[2560] : tensor<4xf32>)
  ascend.kernel "AssignAdd" "inc" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<i64>, arena[8] : tensor<i64>) outs(arena[3072] : tensor<i64>)
  ascend.kernel "Less" "less" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<i64>, arena[16] : tensor<i64>) outs(arena[3080] : tensor<i1>)
  ascend.kernel "Cast" "cast" engine "AIcoreEngine" stream 0 ins(arena[3080] : tensor<i1>) outs(arena[3084] : tensor<i32>) attrs {dst_type = i32}
  ascend.event_record 2 stream 0
  ascend.event_wait 2 stream 1
  ascend.label_switch_by_index arena[3084] : tensor<i32> labels [3, 2] stream 1
  ascend.label_switch_by_index arena[3084] : tensor<i32> labels [1, 0] stream 0
  ascend.label_set 1 stream 0
  ascend.end_graph stream 0
  ascend.label_set 3 stream 1
}

// -----

// The same loop without the go event: stream 1 may start its next iteration while stream 0
// is still in this one, so "e" of iteration k+1 can meet "d" of iteration k: refused.

// CHECK: 'ascend.model' @loop_two_streams_no_barrier: the label loops of streams 0 and 1 access memory ('ascend.kernel' "a", 'ascend.kernel' "e") without a barrier between iterations (every access of an iteration must happen before every stream jumps back, as the done/go events of ge-sink-loop make it)
ascend.model @loop_two_streams_no_barrier arena_size 4096 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "DNN_VM_GE_LOCAL"
  ascend.event 0
  ascend.event 1
  ascend.weight arena[0] = dense<0> : tensor<i64>
  ascend.weight arena[8] = dense<1> : tensor<i64>
  ascend.weight arena[16] = dense<3> : tensor<i64>
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "y" arena[1536] : tensor<4xf32>
  ascend.memcpy_async stream 0 arena[0] : tensor<i64> to arena[3072] : tensor<i64>
  ascend.label_set 0 stream 0
  ascend.label_set 2 stream 1
  ascend.kernel "Neg" "e" engine "DNN_VM_GE_LOCAL" stream 1 ins(arena[1024] : tensor<4xf32>) outs(arena[2560] : tensor<4xf32>)
  ascend.kernel "Neg" "a" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.event_record 0 stream 0
  ascend.event_wait 0 stream 1
  ascend.kernel "Add" "b" engine "DNN_VM_GE_LOCAL" stream 1 ins(arena[2048] : tensor<4xf32>, arena[2560] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
  ascend.event_record 1 stream 1
  ascend.event_wait 1 stream 0
  ascend.kernel "Relu" "c" engine "AIcoreEngine" stream 0 ins(arena[1536] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.kernel "Neg" "d" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<4xf32>) outs(arena[2560] : tensor<4xf32>)
  ascend.kernel "AssignAdd" "inc" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<i64>, arena[8] : tensor<i64>) outs(arena[3072] : tensor<i64>)
  ascend.kernel "Less" "less" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<i64>, arena[16] : tensor<i64>) outs(arena[3080] : tensor<i1>)
  ascend.kernel "Cast" "cast" engine "AIcoreEngine" stream 0 ins(arena[3080] : tensor<i1>) outs(arena[3084] : tensor<i32>) attrs {dst_type = i32}
  ascend.label_switch_by_index arena[3084] : tensor<i32> labels [3, 2] stream 1
  ascend.label_switch_by_index arena[3084] : tensor<i32> labels [1, 0] stream 0
  ascend.label_set 1 stream 0
  ascend.end_graph stream 0
  ascend.label_set 3 stream 1
}

// -----

// A dynamic kernel reads an arena value after another task wrote over it (NonZero's
// data-dependent outputs live in dyn[] slots; the arena values around them are still planned).

// CHECK: 'ascend.model' @dynamic_reader_clobbered: arena[2056] : tensor<2xf32> (written by 'ascend.kernel' "b") overwrites bytes [2056, 2064) of arena[2048] : tensor<4xf32> (written by 'ascend.kernel' "a") while that tensor may still be read
ascend.model @dynamic_reader_clobbered arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[1024] : tensor<4xf32>
  ascend.output "n" dyn[0] : tensor<?x1xi64>
  ascend.output "z" arena[1536] : tensor<2xf32>
  ascend.kernel "Neg" "a" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.kernel "Neg" "b" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<2xf32>) outs(arena[2056] : tensor<2xf32>)
  ascend.dynamic_kernel "NonZero" "nz" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<4xf32>) outs(dyn[0] : tensor<?x1xi64>)
  ascend.kernel "Relu" "c" engine "AIcoreEngine" stream 0 ins(arena[2056] : tensor<2xf32>) outs(arena[1536] : tensor<2xf32>)
}

// -----

// A While whose body runs on streams it starts after its label_set (GE's EnterStreamActive),
// as ge-assign-streams writes it: the streams end with events stream 0 waits for before the
// goto back, so each iteration's accesses on them come before the next iteration's: proven.

// CHECK-LABEL: ascend.model @loop_body_streams
ascend.model @loop_body_streams arena_size 7680 weight_size 1536 attributes {label_num = 3 : i64} {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.stream 2 engine "AIcoreEngine"
  ascend.event 0
  ascend.event 1
  ascend.weight arena[0] = dense<3> : tensor<i32>
  ascend.weight arena[512] = dense<1> : tensor<i32>
  ascend.weight arena[1024] = dense<5.000000e-01> : tensor<2x2xf32>
  ascend.input "i" arena[1536] : tensor<i32>
  ascend.input "x" arena[2048] : tensor<2x2xf32>
  ascend.output "n" arena[2560] : tensor<i32>
  ascend.output "y" arena[3072] : tensor<2x2xf32>
  ascend.memcpy_async stream 0 arena[1536] : tensor<i32> to arena[2560] : tensor<i32>
  ascend.memcpy_async stream 0 arena[2048] : tensor<2x2xf32> to arena[3072] : tensor<2x2xf32>
  ascend.label_set 0 stream 0
  ascend.kernel "Less" "less" engine "AIcoreEngine" stream 0 ins(arena[2560] : tensor<i32>, arena[0] : tensor<i32>) outs(arena[3584] : tensor<i1>)
  ascend.kernel "Cast" "cast" engine "AIcoreEngine" stream 0 ins(arena[3584] : tensor<i1>) outs(arena[4096] : tensor<i32>) attrs {dst_type = i32}
  ascend.label_switch_by_index arena[4096] : tensor<i32> labels [2, 1] stream 0
  ascend.label_set 1 stream 0
  ascend.stream_active 1 stream 0
  ascend.stream_active 2 stream 0
  ascend.kernel "Add" "inc" engine "AIcoreEngine" stream 0 ins(arena[2560] : tensor<i32>, arena[512] : tensor<i32>) outs(arena[4608] : tensor<i32>)
  ascend.kernel "MatMul" "p" engine "AIcoreEngine" stream 1 ins(arena[3072] : tensor<2x2xf32>, arena[1024] : tensor<2x2xf32>) outs(arena[5120] : tensor<2x2xf32>)
  ascend.kernel "Tanh" "p2" engine "AIcoreEngine" stream 1 ins(arena[5120] : tensor<2x2xf32>) outs(arena[5632] : tensor<2x2xf32>)
  ascend.kernel "MatMul" "q" engine "AIcoreEngine" stream 2 ins(arena[3072] : tensor<2x2xf32>, arena[3072] : tensor<2x2xf32>) outs(arena[6144] : tensor<2x2xf32>)
  ascend.kernel "Tanh" "q2" engine "AIcoreEngine" stream 2 ins(arena[6144] : tensor<2x2xf32>) outs(arena[6656] : tensor<2x2xf32>)
  ascend.event_record 0 stream 2
  ascend.event_wait 0 stream 1
  ascend.kernel "Add" "s" engine "AIcoreEngine" stream 1 ins(arena[5632] : tensor<2x2xf32>, arena[6656] : tensor<2x2xf32>) outs(arena[7168] : tensor<2x2xf32>)
  ascend.memcpy_async stream 0 arena[4608] : tensor<i32> to arena[2560] : tensor<i32>
  ascend.memcpy_async stream 1 arena[7168] : tensor<2x2xf32> to arena[3072] : tensor<2x2xf32>
  ascend.event_record 1 stream 1
  ascend.event_wait 1 stream 0
  ascend.label_goto 0 stream 0
  ascend.label_set 2 stream 0
  ascend.end_graph stream 0
}

// -----

// The same loop without the join: stream 1 of iteration k may still write the carried value
// when the cond of iteration k+1 reads it: refused.

// CHECK: 'ascend.model' @loop_body_streams_unjoined: the label loops of streams 0 and 1 access memory ('ascend.kernel' "less", 'ascend.kernel' "p") without a barrier between iterations (every access of an iteration must happen before every stream jumps back, as the done/go events of ge-sink-loop make it)
ascend.model @loop_body_streams_unjoined arena_size 7680 weight_size 1536 attributes {label_num = 3 : i64} {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.stream 2 engine "AIcoreEngine"
  ascend.event 0
  ascend.weight arena[0] = dense<3> : tensor<i32>
  ascend.weight arena[512] = dense<1> : tensor<i32>
  ascend.weight arena[1024] = dense<5.000000e-01> : tensor<2x2xf32>
  ascend.input "i" arena[1536] : tensor<i32>
  ascend.input "x" arena[2048] : tensor<2x2xf32>
  ascend.output "n" arena[2560] : tensor<i32>
  ascend.output "y" arena[3072] : tensor<2x2xf32>
  ascend.memcpy_async stream 0 arena[1536] : tensor<i32> to arena[2560] : tensor<i32>
  ascend.memcpy_async stream 0 arena[2048] : tensor<2x2xf32> to arena[3072] : tensor<2x2xf32>
  ascend.label_set 0 stream 0
  ascend.kernel "Less" "less" engine "AIcoreEngine" stream 0 ins(arena[2560] : tensor<i32>, arena[0] : tensor<i32>) outs(arena[3584] : tensor<i1>)
  ascend.kernel "Cast" "cast" engine "AIcoreEngine" stream 0 ins(arena[3584] : tensor<i1>) outs(arena[4096] : tensor<i32>) attrs {dst_type = i32}
  ascend.label_switch_by_index arena[4096] : tensor<i32> labels [2, 1] stream 0
  ascend.label_set 1 stream 0
  ascend.stream_active 1 stream 0
  ascend.stream_active 2 stream 0
  ascend.kernel "Add" "inc" engine "AIcoreEngine" stream 0 ins(arena[2560] : tensor<i32>, arena[512] : tensor<i32>) outs(arena[4608] : tensor<i32>)
  ascend.kernel "MatMul" "p" engine "AIcoreEngine" stream 1 ins(arena[3072] : tensor<2x2xf32>, arena[1024] : tensor<2x2xf32>) outs(arena[5120] : tensor<2x2xf32>)
  ascend.kernel "Tanh" "p2" engine "AIcoreEngine" stream 1 ins(arena[5120] : tensor<2x2xf32>) outs(arena[5632] : tensor<2x2xf32>)
  ascend.kernel "MatMul" "q" engine "AIcoreEngine" stream 2 ins(arena[3072] : tensor<2x2xf32>, arena[3072] : tensor<2x2xf32>) outs(arena[6144] : tensor<2x2xf32>)
  ascend.kernel "Tanh" "q2" engine "AIcoreEngine" stream 2 ins(arena[6144] : tensor<2x2xf32>) outs(arena[6656] : tensor<2x2xf32>)
  ascend.event_record 0 stream 2
  ascend.event_wait 0 stream 1
  ascend.kernel "Add" "s" engine "AIcoreEngine" stream 1 ins(arena[5632] : tensor<2x2xf32>, arena[6656] : tensor<2x2xf32>) outs(arena[7168] : tensor<2x2xf32>)
  ascend.memcpy_async stream 0 arena[4608] : tensor<i32> to arena[2560] : tensor<i32>
  ascend.memcpy_async stream 1 arena[7168] : tensor<2x2xf32> to arena[3072] : tensor<2x2xf32>
  ascend.label_goto 0 stream 0
  ascend.label_set 2 stream 0
  ascend.end_graph stream 0
}
