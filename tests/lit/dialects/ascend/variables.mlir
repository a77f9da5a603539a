// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests ascend.variable (the variable region, var[k], apart from the arena) and tasks that
// read and write a variable by its region offset.

// CHECK-LABEL: ascend.model @step arena_size 1536 weight_size 512 {
// CHECK:         ascend.variable "w" var[0] : tensor<2xf32> = dense<[5.000000e-01, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    ascend.variable "n" var[512] : tensor<i64> assigned_first
// CHECK:         ascend.kernel "Mul" "mul" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<2xf32>, var[0] : tensor<2xf32>) outs(arena[1024] : tensor<2xf32>)
// CHECK-NEXT:    ascend.kernel "AssignAdd" "upd" engine "AIcoreEngine" stream 0 ins(var[0] : tensor<2xf32>, arena[0] : tensor<2xf32>) outs(var[0] : tensor<2xf32>)
// GENERIC-LABEL: "ascend.model"() <{sym_name = "step"
// GENERIC:         "ascend.variable"() <{var_name = "w", buffer = #ascend.buffer<137438953472, tensor<2xf32>>, value = dense<[5.000000e-01, 2.000000e+00]> : tensor<2xf32>}> : () -> ()
// GENERIC:         "ascend.variable"() <{var_name = "n", buffer = #ascend.buffer<137438953984, tensor<i64>>, assigned_first}> : () -> ()
ascend.model @step arena_size 1536 weight_size 512 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<1.0> : tensor<2xf32>
  ascend.variable "w" var[0] : tensor<2xf32> = dense<[0.5, 2.0]> : tensor<2xf32>
  ascend.variable "n" var[512] : tensor<i64> assigned_first
  ascend.input "x" arena[512] : tensor<2xf32>
  ascend.output "y" arena[1024] : tensor<2xf32>
  ascend.kernel "Mul" "mul" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<2xf32>, var[0] : tensor<2xf32>) outs(arena[1024] : tensor<2xf32>)
  ascend.kernel "AssignAdd" "upd" engine "AIcoreEngine" stream 0 ins(var[0] : tensor<2xf32>, arena[0] : tensor<2xf32>) outs(var[0] : tensor<2xf32>)
}
