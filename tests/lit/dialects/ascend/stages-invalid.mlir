// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a stage running a symbol that is no model of the module.

// CHECK-LABEL: 'ascend.stage' "c" runs @nowhere, which is not another 'ascend.model' of the module
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @nowhere "c" level 0 stream 0 after() ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a stage running the model it is in.

// CHECK-LABEL: 'ascend.stage' "c" runs @main, which is not another 'ascend.model' of the module
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @main "c" level 0 stream 0 after() ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a stage whose inputs are not the stage model's.

// CHECK-LABEL: 'ascend.stage' "c" inputs are (tensor<2xf32>); @s0 takes (tensor<4xf32>)
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @s0 "c" level 0 stream 0 after() ins(arena[0] : tensor<2xf32>) outs(arena[512] : tensor<4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a stage whose outputs are not the stage model's.

// CHECK-LABEL: 'ascend.stage' "c" outputs are (tensor<4xf32>, tensor<4xf32>); @s0 takes (tensor<4xf32>)
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @s0 "c" level 0 stream 0 after() ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>, arena[1024] : tensor<4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a negative level.

// CHECK-LABEL: 'ascend.stage' "c" has level -1 < 0
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @s0 "c" level -1 stream 0 after() ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a sync token that is not an i32 scalar.

// CHECK-LABEL: 'ascend.stage' "c" sync token arena[1024] is tensor<f32>, not tensor<i32>
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @s0 "c" level 0 stream 0 after() ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>) sync(arena[1024] : tensor<f32>)
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests two sync tokens.

// CHECK-LABEL: 'ascend.stage' "c" has 2 after tokens; at most one
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @s0 "c" level 0 stream 0 after(arena[1024] : tensor<i32>, arena[1536] : tensor<i32>) ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a first stage that waits on a token.

// CHECK-LABEL: 'ascend.stage' "c" is the first stage but waits on a sync token
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @s0 "c" level 0 stream 0 after(arena[1024] : tensor<i32>) ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a last stage that writes a token no stage reads.

// CHECK-LABEL: 'ascend.stage' "c" is the last stage but writes a sync token no stage reads
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @s0 "c" level 0 stream 0 after() ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>) sync(arena[1024] : tensor<i32>)
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests stages out of level order.

// CHECK-LABEL: 'ascend.stage' "d" (level 0) follows 'ascend.stage' "c" (level 1); stages run in ascending level order
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @s0 "c" level 1 stream 0 after() ins(arena[0] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>) sync(arena[1024] : tensor<i32>)
  ascend.stage @s0 "d" level 0 stream 0 after(arena[1024] : tensor<i32>) ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// -----

// Tests a stage that does not start after the previous stage's token (GE's stage synchronisation).

// CHECK-LABEL: 'ascend.stage' "d" must start after the sync token of 'ascend.stage' "c" (after (), its sync (arena[1024]))
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @s0 "c" level 0 stream 0 after() ins(arena[0] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>) sync(arena[1024] : tensor<i32>)
  ascend.stage @s0 "d" level 1 stream 0 after() ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}
