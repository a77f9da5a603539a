// RUN: ge-opt %s --split-input-file -p ge-normalize-conds | filecheck %s

// Tests GE's CondPass on If conds: bool scalar -> Cast (<if>_Cast), non-scalar -> Size
// (<if>_Size, int32), int32 scalar kept, a float scalar -> Cast(LogicalNot(Equal(x, 0)))
// (GE's direct Cast would truncate 0.5 to 0 and change the branch taken).

graph.graph @t(%x: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
// CHECK-LABEL: graph.graph @ifs
// CHECK:         %[[B:.*]] = graph.cast %{{.*}} dst_type i32 {node_name = "if_bool_Cast"} : (tensor<i1>) -> tensor<i32>
// CHECK-NEXT:    graph.if %[[B]], %{{.*}} then_branch @t else_branch @t {node_name = "if_bool"} : (tensor<i32>, tensor<2xf32>)
// CHECK-NEXT:    %[[S:.*]] = graph.size %{{.*}} dtype i32 {node_name = "if_tensor_Size"} : (tensor<3xf32>) -> tensor<i32>
// CHECK-NEXT:    graph.if %[[S]], %{{.*}} then_branch @t
// CHECK-NEXT:    graph.if %{{.*}}, %{{.*}} then_branch @t else_branch @t {node_name = "if_int32"} : (tensor<i32>, tensor<2xf32>)
// CHECK-NEXT:    %[[Z:.*]] = graph.const dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[E:.*]] = graph.equal %{{.*}}, %[[Z]] : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT:    %[[N:.*]] = graph.logical_not %[[E]] : (tensor<i1>) -> tensor<i1>
// CHECK-NEXT:    %[[F:.*]] = graph.cast %[[N]] dst_type i32 : (tensor<i1>) -> tensor<i32>
// CHECK-NEXT:    graph.if %[[F]], %{{.*}} then_branch @t
// CHECK-NEXT:    graph.if %{{.*}}, %{{.*}} then_branch @t else_branch @t : (tensor<*xf32>, tensor<2xf32>)
graph.graph @ifs(%b: tensor<i1>, %v: tensor<3xf32>, %i: tensor<i32>, %f: tensor<f32>, %u: tensor<*xf32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r0 = graph.if %b, %x then_branch @t else_branch @t {node_name = "if_bool"} : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  %r1 = graph.if %v, %x then_branch @t else_branch @t {node_name = "if_tensor"} : (tensor<3xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r2 = graph.if %i, %x then_branch @t else_branch @t {node_name = "if_int32"} : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  %r3 = graph.if %f, %x then_branch @t else_branch @t : (tensor<f32>, tensor<2xf32>) -> tensor<2xf32>
  %r4 = graph.if %u, %x then_branch @t else_branch @t : (tensor<*xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r0, %r1, %r2, %r3, %r4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Tests the While cond graph: its one output becomes int32 (<while>_Cast) and so does the
// graph's output type.

// CHECK-LABEL: graph.graph @cond(%{{.*}}: tensor<i32>) -> tensor<i32>
// CHECK:         %[[C:.*]] = graph.less
// CHECK-NEXT:    %[[I:.*]] = graph.cast %[[C]] dst_type i32 {node_name = "loop_Cast"} : (tensor<i1>) -> tensor<i32>
// CHECK-NEXT:    graph.net_output %[[I]] : tensor<i32>
graph.graph @cond(%i: tensor<i32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>) -> tensor<i32> {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %j : tensor<i32>
}
graph.graph @while_main(%i: tensor<i32>) -> tensor<i32> {
  %r = graph.while %i cond @cond body @body {node_name = "loop"} : (tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}

// -----

// Tests that a cond graph also called as a body is left alone (its output type is the carried
// value's there).

// CHECK-LABEL: graph.graph @both(%{{.*}}: tensor<i1>) -> tensor<i1>
// CHECK-NEXT:    graph.net_output
graph.graph @both(%c: tensor<i1>) -> tensor<i1> {
  graph.net_output %c : tensor<i1>
}
graph.graph @shared_main(%c: tensor<i1>) -> tensor<i1> {
  %r = graph.while %c cond @both body @both : (tensor<i1>) -> tensor<i1>
  graph.net_output %r : tensor<i1>
}
