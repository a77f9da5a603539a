// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a task buffer in the variable region that is no declared variable.

// CHECK-LABEL: 'ascend.kernel' "r" input var[512] : tensor<2xf32> is not a variable the model declares; tasks use a variable's buffer whole
ascend.model @m arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.variable "w" var[0] : tensor<2xf32>
  ascend.output "y" arena[0] : tensor<2xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(var[512] : tensor<2xf32>) outs(arena[0] : tensor<2xf32>)
}

// -----

// Tests a task that views a variable with another type.

// CHECK-LABEL: 'ascend.kernel' "r" input var[0] : tensor<1xf32> is not a variable the model declares ('ascend.variable' "w" there is tensor<2xf32>)
ascend.model @m arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.variable "w" var[0] : tensor<2xf32>
  ascend.output "y" arena[0] : tensor<1xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(var[0] : tensor<1xf32>) outs(arena[0] : tensor<1xf32>)
}

// -----

// Tests a variable that is not aligned to 512 bytes.

// CHECK-LABEL: 'ascend.variable' "w" at var[8] is not aligned to 512 bytes (GE's kSessionMemAlignSize)
ascend.model @m arena_size 0 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.variable "w" var[8] : tensor<2xf32>
}

// -----

// Tests two variables sharing bytes.

// CHECK-LABEL: 'ascend.variable' "v" var[512] overlaps 'ascend.variable' "w" var[0]
ascend.model @m arena_size 0 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.variable "w" var[0] : tensor<256xf32>
  ascend.variable "v" var[512] : tensor<2xf32>
}

// -----

// Tests a variable declared twice.

// CHECK-LABEL: 'ascend.variable' "w" is declared twice
ascend.model @m arena_size 0 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.variable "w" var[0] : tensor<2xf32>
  ascend.variable "w" var[512] : tensor<2xf32>
}

// -----

// Tests an initial value of another type.

// CHECK-LABEL: 'ascend.variable' "w" initial value has type tensor<3xf32>, its buffer tensor<2xf32>
ascend.model @m arena_size 0 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.variable "w" var[0] : tensor<2xf32> = dense<0.0> : tensor<3xf32>
}

// -----

// Tests an output in the variable region.

// CHECK-LABEL: 'ascend.output' "y" lies in the variable region (var[0])
ascend.model @m arena_size 0 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.variable "w" var[0] : tensor<2xf32>
  ascend.output "y" var[0] : tensor<2xf32>
}

// -----

// Tests a variable in the arena (generic form: the custom syntax only reads var[k]).

// CHECK-LABEL: 'ascend.variable' "w" lies at arena[0], outside the variable region (var[k])
ascend.model @m arena_size 512 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  "ascend.variable"() <{var_name = "w", buffer = #ascend.buffer<0, tensor<2xf32>>}> : () -> ()
}
