// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests graph.if (GE If): both branches take the inputs after the cond (parent index d+1).

// CHECK-LABEL: graph.graph @then
// CHECK-SAME:    _parent_node_index = 1 : i64
graph.graph @then(%x: tensor<2xf32> {_parent_node_index = 1 : i64}) -> tensor<2xf32> {
  %y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @else(%x: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %x : tensor<?xf32>
}
// CHECK-LABEL: graph.graph @if_root
// CHECK:         %[[R:.*]] = graph.if %{{.*}}, %{{.*}} then_branch @then else_branch @else : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    graph.net_output %[[R]]
// GENERIC-LABEL: "graph.graph"() <{sym_name = "if_root"
// GENERIC:         "graph.if"(%{{.*}}, %{{.*}}) <{then_branch = @then, else_branch = @else}> : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
graph.graph @if_root(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.if %c, %x then_branch @then else_branch @else : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests graph.if without inputs and with two results (ONNX If whose branches are constants).

graph.graph @t() -> (tensor<2xf32>, tensor<i64>) {
  %a = graph.const dense<[1.0, 2.0]> : tensor<2xf32>
  %b = graph.const dense<1> : tensor<i64>
  graph.net_output %a, %b : tensor<2xf32>, tensor<i64>
}
graph.graph @e() -> (tensor<2xf32>, tensor<i64>) {
  %a = graph.const dense<[3.0, 4.0]> : tensor<2xf32>
  %b = graph.const dense<0> : tensor<i64>
  graph.net_output %a, %b : tensor<2xf32>, tensor<i64>
}
// CHECK-LABEL: graph.graph @no_inputs
// CHECK:         %{{.*}}, %{{.*}} = graph.if %{{.*}} then_branch @t else_branch @e : (tensor<i32>) -> (tensor<2xf32>, tensor<i64>)
graph.graph @no_inputs(%c: tensor<i32>) -> (tensor<2xf32>, tensor<i64>) {
  %r:2 = graph.if %c then_branch @t else_branch @e : (tensor<i32>) -> (tensor<2xf32>, tensor<i64>)
  graph.net_output %r#0, %r#1 : tensor<2xf32>, tensor<i64>
}

// -----

// Tests graph.while (GE While): cond and body take every carried value (parent index d);
// parallel_iterations prints only when it is not GE's default 10.

graph.graph @cond(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<2xf32> {_parent_node_index = 1 : i64}) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %x: tensor<2xf32>) -> (tensor<i32> {_parent_node_index = 0 : i64}, tensor<2xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = graph.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %j, %y : tensor<i32>, tensor<2xf32>
}
// CHECK-LABEL: graph.graph @while_root
// CHECK:         %{{.*}}, %{{.*}} = graph.while %{{.*}}, %{{.*}} cond @cond body @body : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
// CHECK:         %{{.*}}, %{{.*}} = graph.while %{{.*}}, %{{.*}} cond @cond body @body parallel_iterations 1 : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
// GENERIC-LABEL: "graph.graph"() <{sym_name = "while_root"
// GENERIC:         "graph.while"(%{{.*}}, %{{.*}}) <{cond = @cond, body = @body, parallel_iterations = 10 : i64}>
// GENERIC:         "graph.while"(%{{.*}}, %{{.*}}) <{cond = @cond, body = @body, parallel_iterations = 1 : i64}>
graph.graph @while_root(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r, %y = graph.while %i, %x cond @cond body @body : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  %s:2 = graph.while %r, %y cond @cond body @body parallel_iterations 1 : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  graph.net_output %s#1 : tensor<2xf32>
}

// -----

// Tests graph.for (GE For): the body takes the loop variable (parent index 0) and the
// carried values (parent index d+2).

graph.graph @fbody(%v: tensor<i32> {_parent_node_index = 0 : i64}, %acc: tensor<i32> {_parent_node_index = 3 : i64}) -> tensor<i32> {
  %s = graph.add %acc, %v : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %s : tensor<i32>
}
// CHECK-LABEL: graph.graph @for_root
// CHECK:         %{{.*}} = graph.for %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} body @fbody : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
// GENERIC:       "graph.for"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{body = @fbody}>
graph.graph @for_root(%a: tensor<i32>, %b: tensor<i32>, %d: tensor<i32>, %x: tensor<i32>) -> tensor<i32> {
  %r = graph.for %a, %b, %d, %x body @fbody : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}
