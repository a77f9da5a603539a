// RUN: ge-opt %s --split-input-file -p 'ge-normalize-conds,ge-partition-dynamic-shape,ge-convert-graph-to-ascend' | filecheck %s

// Tests that unknown-shape control flow becomes GE's hybrid CONTROL_OP task: one
// `ascend.dynamic_control` per If / While / Case naming its subgraphs by their IR names, each
// subgraph an `ascend.model` of dynamic tasks that the task runs with the run's shapes.

graph.graph @then(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = graph.relu %x {node_name = "t"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %y : tensor<?xf32>
}
graph.graph @else(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = graph.neg %x {node_name = "e"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %y : tensor<?xf32>
}
graph.graph @cond(%i: tensor<i32>, %x: tensor<?xf32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n {node_name = "less"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %x: tensor<?xf32>) -> (tensor<i32>, tensor<?xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one {node_name = "inc"} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = graph.concat_d %x, %x concat_dim 0 {node_name = "grow"} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %j, %y : tensor<i32>, tensor<?xf32>
}
graph.graph @main(%i: tensor<i32>, %x: tensor<?xf32>, %c: tensor<i1>) -> (tensor<i32>, tensor<?xf32>) {
  %a = graph.if %c, %x then_branch @then else_branch @else {node_name = "pick"} : (tensor<i1>, tensor<?xf32>) -> tensor<?xf32>
  %r:2 = graph.while %i, %a cond @cond body @body {node_name = "loop"} : (tensor<i32>, tensor<?xf32>) -> (tensor<i32>, tensor<?xf32>)
  graph.net_output %r#0, %r#1 : tensor<i32>, tensor<?xf32>
}

// CHECK-LABEL: ascend.model @then
// CHECK:         ascend.dynamic_kernel "Relu" "t"
// CHECK-LABEL: ascend.model @else
// CHECK:         ascend.dynamic_kernel "Neg" "e"
// CHECK-LABEL: ascend.model @cond
// CHECK:         ascend.dynamic_kernel "Less" "less"
// CHECK-NEXT:    ascend.dynamic_kernel "Cast" "loop_Cast"
// CHECK-LABEL: ascend.model @body
// CHECK:         ascend.dynamic_kernel "Add" "inc"
// CHECK-NEXT:    ascend.dynamic_kernel "ConcatD" "grow"
// CHECK-LABEL: ascend.model @main
// CHECK:         ascend.dynamic_kernel "Cast" "pick_Cast"
// CHECK-NEXT:    ascend.dynamic_control "If" "pick" engine "DNN_VM_GE_LOCAL" stream 0 ins({{.*}}) outs(dyn[[[A:[0-9]+]]] : tensor<?xf32>) attrs {then_branch = @then, else_branch = @else}
// CHECK-NEXT:    ascend.dynamic_control "While" "loop" engine "DNN_VM_GE_LOCAL" stream 0 ins({{.*}}, dyn[[[A]]] : tensor<?xf32>) outs(dyn[{{[0-9]+}}] : tensor<i32>, dyn[{{[0-9]+}}] : tensor<?xf32>) attrs {cond = @cond, body = @body}
// CHECK-NOT:     ascend.label
