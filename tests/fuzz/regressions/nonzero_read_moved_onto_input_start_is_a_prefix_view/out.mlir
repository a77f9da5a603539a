builtin.module {
  ascend.model @main_graph arena_size 2048 weight_size 1536 {
    ascend.stream 0 engine "AIcoreEngine"
    ascend.stream 1 engine "DNN_VM_AICPU"
    ascend.stream 2 engine "DNN_VM_GE_LOCAL"
    ascend.event 0
    ascend.event 1
    ascend.event 2
    ascend.weight arena[0] = dense<2.500000e-01> : tensor<f32>
    ascend.weight arena[512] = dense<2.000000e+00> : tensor<f32>
    ascend.weight arena[1024] = dense<1> : tensor<1xi64>
    ascend.input "x" arena[1536] : tensor<4x6xf32>
    ascend.output "indices" dyn[2] : tensor<?x2xi64>
    ascend.output "picked" dyn[4] : tensor<?xf32>
    ascend.output "total" dyn[6] : tensor<1xf32>
    ascend.dynamic_kernel "Greater" "/Greater" engine "AIcoreEngine" stream 0 ins(arena[1536] : tensor<4x6xf32>, arena[0] : tensor<f32>) outs(dyn[0] : tensor<4x6xi1>)
    ascend.event_record 0 stream 0
    ascend.event_wait 0 stream 1
    ascend.dynamic_kernel "NonZero" "/NonZero" engine "DNN_VM_AICPU" stream 1 ins(dyn[0] : tensor<4x6xi1>) outs(dyn[1] : tensor<2x?xi64>)
    ascend.dynamic_kernel "Transpose" "/Transpose" engine "DNN_VM_AICPU" stream 1 ins(dyn[1] : tensor<2x?xi64>) outs(dyn[2] : tensor<?x2xi64>) attrs {perm = array<i64: 1, 0>}
    ascend.dynamic_kernel "GatherNd" "/GatherND" engine "DNN_VM_AICPU" stream 1 ins(arena[1536] : tensor<4x6xf32>, dyn[2] : tensor<?x2xi64>) outs(dyn[3] : tensor<?xf32>)
    ascend.event_record 1 stream 1
    ascend.event_wait 1 stream 0
    ascend.dynamic_kernel "Mul" "/Mul" engine "AIcoreEngine" stream 0 ins(dyn[3] : tensor<?xf32>, arena[1536] : tensor<f32>) outs(dyn[4] : tensor<?xf32>)
    ascend.dynamic_kernel "ReduceSum" "/ReduceSum" engine "AIcoreEngine" stream 0 ins(dyn[4] : tensor<?xf32>) outs(dyn[5] : tensor<f32>)
    ascend.event_record 2 stream 0
    ascend.event_wait 2 stream 2
    ascend.dynamic_kernel "Reshape" "/Reshape" engine "DNN_VM_GE_LOCAL" stream 2 ins(dyn[5] : tensor<f32>, arena[1024] : tensor<1xi64>) outs(dyn[6] : tensor<1xf32>)
    ascend.end_graph stream 2
  }
}
