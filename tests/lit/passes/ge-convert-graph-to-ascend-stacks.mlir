// RUN: ge-opt %s --split-input-file -p ge-convert-graph-to-ascend | filecheck %s

// Tests that the tasks on one stack form a token chain: the Stack's handle buffer is the first
// token, each StackPush / StackPop / StackClose reads the last token and writes the next one
// first (so every stream schedule runs them in the graph's order), then its results; a handle
// through an Identity (a control edge) stays on the chain. Stack ops are AI CPU kernels.

graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %n = graph.const dense<-1> : tensor<i32>
  %h = graph.stack %n stack_name "s" : (tensor<i32>) -> tensor<i64>
  %a = graph.stack_push %h, %x : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  %t = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
  %after = graph.identity %h, %t : (tensor<i64>, tensor<2xf32>) -> tensor<i64>
  graph.stack_close %after : (tensor<i64>) -> ()
  graph.net_output %t : tensor<2xf32>
}

// CHECK-LABEL: ascend.model @main
// CHECK:         ascend.kernel "Stack" "Stack_0" engine "DNN_VM_AICPU" stream 0 ins(arena[{{[0-9]+}}] : tensor<i32>) outs(arena{{.}}[[H:[0-9]+]]{{.}} : tensor<i64>) attrs {stack_name = "s"}
// CHECK-NEXT:    ascend.kernel "StackPush" "StackPush_0" engine "DNN_VM_AICPU" stream 0 ins(arena{{.}}[[H]]{{.}} : tensor<i64>, arena[{{[0-9]+}}] : tensor<2xf32>) outs(arena{{.}}[[T1:[0-9]+]]{{.}} : tensor<i64>, arena[{{[0-9]+}}] : tensor<2xf32>)
// CHECK-NEXT:    ascend.kernel "StackPop" "StackPop_0" engine "DNN_VM_AICPU" stream 0 ins(arena{{.}}[[T1]]{{.}} : tensor<i64>) outs(arena{{.}}[[T2:[0-9]+]]{{.}} : tensor<i64>, arena{{.}}[[Y:[0-9]+]]{{.}} : tensor<2xf32>)
// CHECK-NEXT:    ascend.kernel "Identity"
// CHECK-NEXT:    ascend.kernel "StackClose" "StackClose_0" engine "DNN_VM_AICPU" stream 0 ins(arena{{.}}[[T2]]{{.}} : tensor<i64>) outs(arena[{{[0-9]+}}] : tensor<i64>)
