// An ascend model whose label loop never exits: label 7 -> Relu -> goto 7, no switch, no
// counter (used by interp/step-budget.mlir). Without a step budget it would run forever.

ascend.model @spin arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.label_set 7 stream 0
  ascend.kernel "Relu" "spin_relu" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
  ascend.label_goto 7 stream 0
}
