// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Tests ascend.stage (GE's KnownNodeTask): a root model that runs two stage models, each with
// its own arena, the second after the first's sync token.

// CHECK-LABEL: ascend.model @root arena_size 2048 weight_size 0 {
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.input "x" arena[0] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.output "y" arena[512] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.stage @s0 "s0_call" level 0 stream 0 after() ins(arena[0] : tensor<2x4xf32>) outs(arena[1024] : tensor<2x4xf32>) sync(arena[1536] : tensor<i32>)
// CHECK-NEXT:    ascend.stage @s1 "s1_call" level 1 stream 0 after(arena[1536] : tensor<i32>) ins(arena[1024] : tensor<2x4xf32>) outs(arena[512] : tensor<2x4xf32>) sync()
// CHECK-NEXT:  }
// CHECK-LABEL: ascend.model @s0 arena_size 1024 weight_size 0 {
// CHECK:         ascend.kernel "Relu" "r"
// CHECK-LABEL: ascend.model @s1 arena_size 1024 weight_size 0 {
// CHECK:         ascend.kernel "Neg" "n"

// GENERIC: "ascend.stage"() <{model = @s0, node_name = "s0_call", level = 0 : i64, stream = 0 : i64, after = [], inputs = [#ascend.buffer<0, tensor<2x4xf32>>], outputs = [#ascend.buffer<1024, tensor<2x4xf32>>], sync = [#ascend.buffer<1536, tensor<i32>>]}>

ascend.model @root arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<2x4xf32>
  ascend.output "y" arena[512] : tensor<2x4xf32>
  ascend.stage @s0 "s0_call" level 0 stream 0 after() ins(arena[0] : tensor<2x4xf32>) outs(arena[1024] : tensor<2x4xf32>) sync(arena[1536] : tensor<i32>)
  ascend.stage @s1 "s1_call" level 1 stream 0 after(arena[1536] : tensor<i32>) ins(arena[1024] : tensor<2x4xf32>) outs(arena[512] : tensor<2x4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<2x4xf32>
  ascend.output "b" arena[512] : tensor<2x4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<2x4xf32>) outs(arena[512] : tensor<2x4xf32>)
}
ascend.model @s1 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<2x4xf32>
  ascend.output "b" arena[512] : tensor<2x4xf32>
  ascend.kernel "Neg" "n" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<2x4xf32>) outs(arena[512] : tensor<2x4xf32>)
}
