// Tests that a label loop that never exits stops after the model's step budget with one error
// line naming the label and the budget (16 x tasks x iterations_per_loop), that --max-steps
// sets another limit, and that loops that exit run to the end within their budget.

// RUN: not timeout 60 ge-run %inputs/never-exiting-loop.mlir --random-inputs 0 2>&1 | filecheck %s --check-prefix=SPIN
// SPIN: error: 'ascend.model' @spin exceeded its step budget of 48 steps (16 x 3 tasks x 1 iteration) in the label loop of stream 0 back to label 7 (a loop that never exits?); raise the limit with ge-run --max-steps or the Session option ge.maxSteps
// SPIN-NOT: Traceback

// RUN: not timeout 60 ge-run %inputs/never-exiting-loop.mlir --random-inputs 0 --max-steps 5 --profile 2>&1 | filecheck %s --check-prefix=MAX
// MAX: error: 'ascend.model' @spin exceeded max_steps=5 in the label loop of stream 0 back to label 7

// RUN: not ge-run %inputs/never-exiting-loop.mlir --random-inputs 0 --max-steps 0 2>&1 | filecheck %s --check-prefix=ZERO
// ZERO: error: --max-steps must be a positive integer, got 0

// RUN: ge-run %s --entry count3 | filecheck %s --check-prefix=COUNT3
// RUN: not ge-run %s --entry count3 --max-steps 9 2>&1 | filecheck %s --check-prefix=COUNT3-MAX
// RUN: not ge-run %s --entry count100 2>&1 | filecheck %s --check-prefix=COUNT100
// RUN: ge-run %s --entry count100 --max-steps 301 | filecheck %s --check-prefix=RAISED
// RUN: ge-run %s --entry declared100 | filecheck %s --check-prefix=RAISED

// do { out += 1 } while (out < 3): 3 x 3 steps and the exit label, within 16 x 4 tasks.
// COUNT3: out: int32[] mean=3
// COUNT3-MAX: error: 'ascend.model' @count3 exceeded max_steps=9 in the label loop of stream 0 back to label 0

ascend.model @count3 arena_size 2048 weight_size 512 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<1> : tensor<i32>
  ascend.output "out" arena[512] : tensor<i32>
  ascend.label_set 0 stream 0
  ascend.kernel "Add" "inc" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<i32>, arena[0] : tensor<i32>) outs(arena[512] : tensor<i32>)
  ascend.label_switch_by_index arena[512] : tensor<i32> labels [1, 0, 0, 1] stream 0
  ascend.label_set 1 stream 0
}

// Counting to 100 takes 301 steps, more than 16 x 4: the model must declare its iterations or
// the run must raise the limit.
// COUNT100: error: 'ascend.model' @count100 exceeded its step budget of 64 steps (16 x 4 tasks x 1 iteration) in the label loop of stream 0 back to label 0
// RAISED: out: int32[] mean=100

ascend.model @count100 arena_size 2048 weight_size 512 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<1> : tensor<i32>
  ascend.output "out" arena[512] : tensor<i32>
  ascend.label_set 0 stream 0
  ascend.kernel "Add" "inc" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<i32>, arena[0] : tensor<i32>) outs(arena[512] : tensor<i32>)
  ascend.label_switch_by_index arena[512] : tensor<i32> labels [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] stream 0
  ascend.label_set 1 stream 0
}

ascend.model @declared100 arena_size 2048 weight_size 512 attributes {iterations_per_loop = 100 : i64} {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<1> : tensor<i32>
  ascend.output "out" arena[512] : tensor<i32>
  ascend.label_set 0 stream 0
  ascend.kernel "Add" "inc" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<i32>, arena[0] : tensor<i32>) outs(arena[512] : tensor<i32>)
  ascend.label_switch_by_index arena[512] : tensor<i32> labels [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1] stream 0
  ascend.label_set 1 stream 0
}
