// RUN: ge-opt %s --split-input-file -p ge-verify-model | filecheck %s
// RUN: ge-opt %S/../../../examples/conv_block.mlir -p "ge-compile,ge-verify-model" | filecheck %s --check-prefix=COMPILED

// The pass proves a memory plan: no two tensors that may be live at once share bytes (the
// refused plans are in ge-verify-model-invalid.mlir).

// Tests that a plan reusing the bytes of a dead tensor passes unchanged: "t" takes the bytes of
// "s", whose last reader "u" ran before it.
// CHECK-LABEL: ascend.model @reused
// CHECK:         ascend.kernel "Abs" "t" {{.*}} outs(arena[1024] : tensor<8xf32>)
ascend.model @reused arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<8xf32>
  ascend.output "y" arena[512] : tensor<8xf32>
  ascend.kernel "Relu" "s" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.kernel "Neg" "u" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<8xf32>) outs(arena[1536] : tensor<8xf32>)
  ascend.kernel "Abs" "t" engine "AIcoreEngine" stream 0 ins(arena[1536] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.kernel "Add" "o" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<8xf32>, arena[0] : tensor<8xf32>) outs(arena[512] : tensor<8xf32>)
}

// -----

// Tests that a kernel may write in place over the input it reads for the last time.
// CHECK-LABEL: ascend.model @in_place
// CHECK:         ascend.kernel "Neg" "u" {{.*}} ins(arena[1024] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
ascend.model @in_place arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<8xf32>
  ascend.output "y" arena[512] : tensor<8xf32>
  ascend.kernel "Relu" "s" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.kernel "Neg" "u" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.kernel "Abs" "o" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<8xf32>) outs(arena[512] : tensor<8xf32>)
}

// -----

// Tests that a read of bytes another stream writes is proved when an event orders the write
// first (the same model without the event is refused in ge-verify-model-invalid.mlir).
// CHECK-LABEL: ascend.model @read_after_event
// CHECK:         ascend.event_wait 0 stream 0
ascend.model @read_after_event arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.event 0
  ascend.input "x" arena[0] : tensor<8xf32>
  ascend.output "y" arena[512] : tensor<8xf32>
  ascend.kernel "Relu" "s" engine "AIcoreEngine" stream 1 ins(arena[0] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.event_record 0 stream 1
  ascend.event_wait 0 stream 0
  ascend.kernel "Neg" "u" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<8xf32>) outs(arena[512] : tensor<8xf32>)
}

// -----

// Tests that an output nothing reads (LayerNorm's mean) ends at its write: a later tensor may
// take its bytes even though a third task writes the same buffer again (the bench encoder's
// compiled plan was refused: the two dead writes were taken for one value).
// CHECK-LABEL: ascend.model @dead_store_reused
// CHECK:         ascend.kernel "Abs" "d" {{.*}} outs(arena[1024] : tensor<4xf32>)
ascend.model @dead_store_reused arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<8xf32>
  ascend.output "y" arena[512] : tensor<8xf32>
  ascend.kernel "Relu" "a" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
  ascend.kernel "Neg" "b" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.kernel "Exp" "c" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<8xf32>) outs(arena[512] : tensor<8xf32>)
  ascend.kernel "Abs" "d" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
}

// Tests that a model straight from ge-compile (reuse, in-place and two streams) is proved.
// COMPILED-LABEL: ascend.model @conv_block
// COMPILED:         ascend.stream 1
// COMPILED:         ascend.kernel

// -----

// Tests that a branch reading the case input in bytes that an earlier branch reused once that
// input died there passes: only one branch runs, so the else branch reads the bytes as they
// were at the switch ("a" wrote them), not what the then branch's "t2" left (a wider value
// than "t2"'s in the same bytes; before, the check read the branches in program order and
// refused this plan of ge-compile after ge-select-formats).
// CHECK-LABEL: ascend.model @branches_reuse_the_case_input
// CHECK:         ascend.kernel "Neg" "e1" {{.*}} ins(arena[1024] : tensor<16xf32>)
ascend.model @branches_reuse_the_case_input arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "p" arena[256] : tensor<i32>
  ascend.input "x" arena[512] : tensor<16xf32>
  ascend.output "y" arena[768] : tensor<4xf32>
  ascend.kernel "Abs" "a" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<16xf32>) outs(arena[1024] : tensor<16xf32>)
  ascend.label_switch_by_index arena[256] : tensor<i32> labels [1, 0] stream 0
  ascend.label_set 0 stream 0
  ascend.kernel "Neg" "t1" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<16xf32>) outs(arena[2048] : tensor<16xf32>)
  ascend.kernel "Relu" "t2" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
  ascend.memcpy_async stream 0 arena[1024] : tensor<4xf32> to arena[768] : tensor<4xf32>
  ascend.label_goto 2 stream 0
  ascend.label_set 1 stream 0
  ascend.kernel "Neg" "e1" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<16xf32>) outs(arena[2048] : tensor<16xf32>)
  ascend.memcpy_async stream 0 arena[2048] : tensor<4xf32> to arena[768] : tensor<4xf32>
  ascend.label_set 2 stream 0
  ascend.end_graph stream 0
}
