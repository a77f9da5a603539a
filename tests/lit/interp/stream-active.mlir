// Tests ascend.stream_active in ge-run: a two-branch case on stream 0 in GE's CaseOpLabelMaker
// shape, where each branch activates a stream of its own (1 for branch 0, 2 for branch 1) that
// runs half of the branch's body; events order the halves, and stream 0 waits for the activated
// stream's last record before leaving the branch. x = [-2, -1, 1, 2], p = relu(x):
//   branch 0: c = abs(x) + neg(p) = [2, 1, 0, 0]    branch 1: c = x*x - (p+p) = [4, 1, -1, 0]
//   y = c * x: [-4, -1, 0, 0] for index 0, [-8, -1, -1, 0] for index 1.
// The stream the other branch activates never runs, which is no deadlock.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.array([-2, -1, 1, 2], np.float32)); np.save('%t/b0.npy', np.array(0, np.int32)); np.save('%t/b1.npy', np.array(1, np.int32)); np.save('%t/b2.npy', np.array(2, np.int32))"
// RUN: ge-run %s --entry case --input x=%t/x.npy --input branch=%t/b0.npy | filecheck %s --check-prefix=ZERO
// RUN: ge-run %s --entry case --input x=%t/x.npy --input branch=%t/b1.npy | filecheck %s --check-prefix=ONE
// RUN: ge-run %s --entry case --input x=%t/x.npy --input branch=%t/b0.npy --check-uninitialized --schedule-seed 3 | filecheck %s --check-prefix=ZERO
// RUN: ge-run %s --entry case --input x=%t/x.npy --input branch=%t/b1.npy --check-uninitialized --schedule-seed 4 --profile | filecheck %s --check-prefix=PROFILE
// RUN: ge-run %s --entry case --input x=%t/x.npy --input branch=%t/b2.npy | filecheck %s --check-prefix=ONE
// RUN: not ge-run %s --entry again --random-inputs 0 2>&1 | filecheck %s --check-prefix=AGAIN
// RUN: not ge-run %s --entry stuck --random-inputs 0 2>&1 | filecheck %s --check-prefix=STUCK

// ZERO: y: float32[4] {{.*}} [-4., -1.,  0.,  0.]
// ONE: y: float32[4] {{.*}} [-8., -1., -1.,  0.]

// Branch 1 runs stream 2 (its half and its record: 4 tasks); stream 1 runs nothing.
// PROFILE:      y: float32[4] {{.*}} [-8., -1., -1.,  0.]
// PROFILE-NEXT: profile @case (simulated time, us)
// PROFILE:        stream 0 (AIcoreEngine) {{ *}}busy {{.*}} 10 tasks
// PROFILE-NEXT:   stream 1 (AIcoreEngine) {{ *}}busy {{ *}}0.000 (  0.0%) 0 tasks
// PROFILE-NEXT:   stream 2 (AIcoreEngine) {{ *}}busy {{.*}} 4 tasks

// An index past the list takes the last label (GE's hybrid Case rule): branch 1 for index 2.

ascend.model @case arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.stream 2 engine "AIcoreEngine"
  ascend.event 0
  ascend.event 1
  ascend.event 2
  ascend.event 3
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.input "branch" arena[512] : tensor<i32>
  ascend.output "y" arena[1024] : tensor<4xf32>
  ascend.kernel "Relu" "p" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
  ascend.label_switch_by_index arena[512] : tensor<i32> labels [1, 2] stream 0
  ascend.label_set 1 stream 0
  ascend.stream_active 1 stream 0
  ascend.kernel "Abs" "a" engine "AIcoreEngine" stream 1 ins(arena[0] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.kernel "Neg" "n" engine "AIcoreEngine" stream 0 ins(arena[1536] : tensor<4xf32>) outs(arena[2560] : tensor<4xf32>)
  ascend.event_record 0 stream 0
  ascend.event_wait 0 stream 1
  ascend.kernel "Add" "c0" engine "AIcoreEngine" stream 1 ins(arena[2048] : tensor<4xf32>, arena[2560] : tensor<4xf32>) outs(arena[3072] : tensor<4xf32>)
  ascend.event_record 1 stream 1
  ascend.event_wait 1 stream 0
  ascend.label_goto 3 stream 0
  ascend.label_set 2 stream 0
  ascend.stream_active 2 stream 0
  ascend.kernel "Mul" "m" engine "AIcoreEngine" stream 2 ins(arena[0] : tensor<4xf32>, arena[0] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.kernel "Add" "q" engine "AIcoreEngine" stream 0 ins(arena[1536] : tensor<4xf32>, arena[1536] : tensor<4xf32>) outs(arena[2560] : tensor<4xf32>)
  ascend.event_record 2 stream 0
  ascend.event_wait 2 stream 2
  ascend.kernel "Sub" "c1" engine "AIcoreEngine" stream 2 ins(arena[2048] : tensor<4xf32>, arena[2560] : tensor<4xf32>) outs(arena[3072] : tensor<4xf32>)
  ascend.event_record 3 stream 2
  ascend.event_wait 3 stream 0
  ascend.label_goto 3 stream 0
  ascend.label_set 3 stream 0
  ascend.kernel "Mul" "y" engine "AIcoreEngine" stream 0 ins(arena[3072] : tensor<4xf32>, arena[0] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
}

// A label loop on stream 0 activates stream 1 again before stream 1 ran its task: the runtime
// refuses to restart a running stream.
// AGAIN: error: 'ascend.stream_active' on stream 0 activates stream 1, which is still running (at its task 0 of 1)

ascend.model @again arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.label_set 1 stream 0
  ascend.stream_active 1 stream 0
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 1 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
  ascend.label_goto 1 stream 0
}

// An activated stream in a wait cycle with its activator still deadlocks; stream 2, whose
// activation comes after the cycle, never ran and is not named.
// STUCK: error: 'ascend.model' @stuck deadlocks: stream 0 waits on event 1, stream 1 waits on event 0{{$}}

ascend.model @stuck arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.stream 2 engine "AIcoreEngine"
  ascend.event 0
  ascend.event 1
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stream_active 1 stream 0
  ascend.event_wait 0 stream 1
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 1 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
  ascend.event_record 1 stream 1
  ascend.event_wait 1 stream 0
  ascend.stream_active 2 stream 0
  ascend.event_record 0 stream 0
  ascend.kernel "Neg" "s" engine "AIcoreEngine" stream 2 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}
