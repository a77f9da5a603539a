// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Tests the dynamic buffers of an unknown-shape partition: an input with a `?` dim, dynamic
// kernels that read planned and dynamic buffers, a copy into a planned buffer (the input of a
// known partition), a copy between dynamic buffers, and outputs of both kinds.

// CHECK-LABEL: ascend.model @dynamic arena_size 2048 weight_size 512 {
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.weight arena[0] = dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    ascend.input "x" dyn[0] : tensor<?x6xf32>
// CHECK-NEXT:    ascend.output "indices" dyn[3] : tensor<?x2xi64>
// CHECK-NEXT:    ascend.output "first" arena[1536] : tensor<2xi64>
// CHECK-NEXT:    ascend.output "copy" dyn[4] : tensor<?x2xi64>
// CHECK-NEXT:    ascend.dynamic_kernel "Greater" "gt" engine "AIcoreEngine" stream 0 ins(dyn[0] : tensor<?x6xf32>, arena[0] : tensor<f32>) outs(dyn[1] : tensor<?x6xi1>)
// CHECK-NEXT:    ascend.dynamic_kernel "NonZero" "nz" engine "DNN_VM_AICPU" stream 0 ins(dyn[1] : tensor<?x6xi1>) outs(dyn[2] : tensor<2x?xi64>)
// CHECK-NEXT:    ascend.dynamic_kernel "Transpose" "tr" engine "DNN_VM_AICPU" stream 0 ins(dyn[2] : tensor<2x?xi64>) outs(dyn[3] : tensor<?x2xi64>) attrs {perm = array<i64: 1, 0>}
// CHECK-NEXT:    ascend.memcpy_async stream 0 dyn[3] : tensor<?x2xi64> to dyn[4] : tensor<?x2xi64>
// CHECK-NEXT:    ascend.dynamic_kernel "Shape" "shape" engine "DNN_VM_GE_LOCAL" stream 0 ins(dyn[0] : tensor<?x6xf32>) outs(dyn[5] : tensor<?xi64>)
// CHECK-NEXT:    ascend.memcpy_async stream 0 dyn[5] : tensor<?xi64> to arena[512] : tensor<2xi64>
// CHECK-NEXT:    ascend.kernel "Relu" "known" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<2xi64>) outs(arena[1536] : tensor<2xi64>)
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-NEXT:  }

// GENERIC: "ascend.input"() <{input_name = "x", buffer = #ascend.dyn_buffer<0, tensor<?x6xf32>>}>
// GENERIC: "ascend.dynamic_kernel"() <{kernel = "NonZero", node_name = "nz", engine = "DNN_VM_AICPU", stream = 0 : i64, inputs = [#ascend.dyn_buffer<1, tensor<?x6xi1>>], outputs = [#ascend.dyn_buffer<2, tensor<2x?xi64>>], attrs = {}}>

ascend.model @dynamic arena_size 2048 weight_size 512 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<0.5> : tensor<f32>
  ascend.input "x" dyn[0] : tensor<?x6xf32>
  ascend.output "indices" dyn[3] : tensor<?x2xi64>
  ascend.output "first" arena[1536] : tensor<2xi64>
  ascend.output "copy" dyn[4] : tensor<?x2xi64>
  ascend.dynamic_kernel "Greater" "gt" engine "AIcoreEngine" stream 0 ins(dyn[0] : tensor<?x6xf32>, arena[0] : tensor<f32>) outs(dyn[1] : tensor<?x6xi1>)
  ascend.dynamic_kernel "NonZero" "nz" engine "DNN_VM_AICPU" stream 0 ins(dyn[1] : tensor<?x6xi1>) outs(dyn[2] : tensor<2x?xi64>)
  ascend.dynamic_kernel "Transpose" "tr" engine "DNN_VM_AICPU" stream 0 ins(dyn[2] : tensor<2x?xi64>) outs(dyn[3] : tensor<?x2xi64>) attrs {perm = array<i64: 1, 0>}
  ascend.memcpy_async stream 0 dyn[3] : tensor<?x2xi64> to dyn[4] : tensor<?x2xi64>
  ascend.dynamic_kernel "Shape" "shape" engine "DNN_VM_GE_LOCAL" stream 0 ins(dyn[0] : tensor<?x6xf32>) outs(dyn[5] : tensor<?xi64>)
  ascend.memcpy_async stream 0 dyn[5] : tensor<?xi64> to arena[512] : tensor<2xi64>
  ascend.kernel "Relu" "known" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<2xi64>) outs(arena[1536] : tensor<2xi64>)
  ascend.end_graph stream 0
}
