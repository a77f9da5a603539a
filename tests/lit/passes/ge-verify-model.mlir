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
