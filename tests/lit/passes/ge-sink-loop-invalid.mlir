// RUN: not ge-opt %s -p 'ge-sink-loop{iterations=2}' 2>&1 | filecheck %s
// RUN: not ge-opt %S/ge-sink-loop.mlir --split-input-file -p 'ge-sink-loop{iterations=2},ge-sink-loop{iterations=3}' 2>&1 | filecheck %s --check-prefix=SUNK
// RUN: not ge-opt %s -p 'ge-sink-loop{iterations=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not ge-opt %s -p 'ge-sink-loop{iterations=100000000}' 2>&1 | filecheck %s --check-prefix=HUGE
// RUN: not ge-opt %s -p 'ge-compile{iterations-per-loop=100000000}' 2>&1 | filecheck %s --check-prefix=HUGE-COMPILE

// Tests that an event recorded twice per iteration is refused: a record left over from one
// iteration could release a wait of the next.

ascend.model @twice arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcpuEngine"
  ascend.event 0
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "a" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
  ascend.event_record 0 stream 0
  ascend.event_record 0 stream 0
  ascend.event_wait 0 stream 1
}

// CHECK: ge-sink-loop: @twice: event 0 is recorded 2 and waited 1 times per iteration; the loop needs each event recorded once and waited once

// A sunk model is not sunk again.
// SUNK: ge-sink-loop: @one: is sunk already (iterations_per_loop is set)

// ZERO: ge-sink-loop: iterations must be at least 1, got 0

// More iterations than MAX_ITERATIONS_PER_LOOP are refused (ge-compile before any pass runs).
// HUGE: ge-sink-loop: iterations must be at most 1000000 (the interpreter runs every iteration; GE sinks the steps between host syncs), got 100000000
// HUGE-COMPILE: error: ge-compile: iterations-per-loop must be at most 1000000 (the interpreter runs every iteration; GE sinks the steps between host syncs), got 100000000
