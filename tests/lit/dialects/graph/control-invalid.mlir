// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests an If whose branch does not exist.

// CHECK-LABEL: 'graph.if' then_branch @missing does not exist
graph.graph @e(%x: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @root(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.if %c, %x then_branch @missing else_branch @e : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests an If whose else branch takes another input count.

// CHECK-LABEL: 'graph.if' has 1 inputs but else_branch @e has 2
graph.graph @t(%x: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @e(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @root(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.if %c, %x then_branch @t else_branch @e : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests an If whose branch result type differs from the If's.

// CHECK-LABEL: 'graph.if' result 0 has type tensor<2xf32>, incompatible with tensor<2xi32> of else_branch @e
graph.graph @t(%x: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @e(%x: tensor<2xf32>) -> tensor<2xi32> {
  %y = graph.const dense<[1, 2]> : tensor<2xi32>
  graph.net_output %y : tensor<2xi32>
}
graph.graph @root(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.if %c, %x then_branch @t else_branch @e : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests a branch input whose _parent_node_index is not GE's d+1.

// CHECK-LABEL: 'graph.if' @t input 0 has _parent_node_index 0 : i64, expected 1
graph.graph @t(%x: tensor<2xf32> {_parent_node_index = 0 : i64}) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @root(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.if %c, %x then_branch @t else_branch @t : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests a While body whose outputs do not match its loop-carried inputs.

// CHECK-LABEL: 'graph.while' body @body output 1 has type tensor<3xf32>, incompatible with its loop-carried input tensor<2xf32>
graph.graph @cond(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %x: tensor<2xf32>) -> (tensor<i32>, tensor<3xf32>) {
  %z = graph.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  graph.net_output %i, %z : tensor<i32>, tensor<3xf32>
}
graph.graph @root(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r, %y = graph.while %i, %x cond @cond body @body : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  graph.net_output %y : tensor<2xf32>
}

// -----

// Tests a While body with fewer outputs than carried inputs.

// CHECK-LABEL: 'graph.while' body @body gives 1 outputs for 2 loop-carried inputs
graph.graph @cond(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<i32> {
  graph.net_output %i : tensor<i32>
}
graph.graph @body(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<i32> {
  graph.net_output %i : tensor<i32>
}
graph.graph @root(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r, %y = graph.while %i, %x cond @cond body @body : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  graph.net_output %y : tensor<2xf32>
}

// -----

// Tests a While cond graph with two outputs (GE's cond gives exactly one).

// CHECK-LABEL: 'graph.while' cond @cond has 2 outputs; GE's While cond graph gives exactly one
graph.graph @cond(%i: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  graph.net_output %i, %i : tensor<i32>, tensor<i32>
}
graph.graph @root(%i: tensor<i32>) -> tensor<i32> {
  %r = graph.while %i cond @cond body @cond : (tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}

// -----

// Tests a While with fewer results than carried inputs.

// CHECK-LABEL: 'graph.while' has 2 loop-carried inputs but 1 results; GE's While needs as many of each
graph.graph @root(%i: tensor<i32>, %x: tensor<i32>) -> tensor<i32> {
  %r = graph.while %i, %x cond @c body @b : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}

// -----

// Tests parallel_iterations below 1.

// CHECK-LABEL: 'graph.while' parallel_iterations must be >= 1, got 0
graph.graph @root(%i: tensor<i32>) -> tensor<i32> {
  %r = graph.while %i cond @c body @b parallel_iterations 0 : (tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}

// -----

// Tests a For whose start is not an int32 scalar.

// CHECK-LABEL: 'graph.for' start has type tensor<i64>; GE's For takes an int32 scalar (tensor<i32>)
graph.graph @root(%a: tensor<i64>, %b: tensor<i32>, %x: tensor<i32>) -> tensor<i32> {
  %r = graph.for %a, %b, %b, %x body @body : (tensor<i64>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}

// -----

// Tests a For body that does not take the loop variable first.

// CHECK-LABEL: 'graph.for' body @body must take the loop variable (tensor<i32>) first
graph.graph @body(%x: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @root(%a: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.for %a, %a, %a, %x body @body : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests a For body whose carried input has the wrong _parent_node_index (GE's d+2).

// CHECK-LABEL: 'graph.for' @body input 1 has _parent_node_index 1 : i64, expected 3
graph.graph @body(%v: tensor<i32>, %x: tensor<2xf32> {_parent_node_index = 1 : i64}) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @root(%a: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.for %a, %a, %a, %x body @body : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests a While whose body is the graph holding it (a cycle of calls).

// CHECK-LABEL: 'graph.while' in @root calls @root: graphs call each other in a cycle @root -> @root
graph.graph @c(%i: tensor<i32>) -> tensor<i32> {
  graph.net_output %i : tensor<i32>
}
graph.graph @root(%i: tensor<i32>) -> tensor<i32> {
  %r = graph.while %i cond @c body @root : (tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}

// -----

// Tests an If cond that is not a numeric tensor.

// CHECK-LABEL: 'graph.if' cond has type tensor<complex<f32>>; a cond is a numeric tensor
graph.graph @root(%c: tensor<complex<f32>>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.if %c, %x then_branch @t else_branch @t : (tensor<complex<f32>>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests a While cond graph whose output is not a numeric tensor.

// CHECK-LABEL: 'graph.while' cond @cond output has type tensor<complex<f32>>; a cond is a numeric tensor
graph.graph @cond(%i: tensor<i32>) -> tensor<complex<f32>> {
  %z = graph.const dense<(1.0,0.0)> : tensor<complex<f32>>
  graph.net_output %z : tensor<complex<f32>>
}
graph.graph @root(%i: tensor<i32>) -> tensor<i32> {
  %r = graph.while %i cond @cond body @cond : (tensor<i32>) -> tensor<i32>
  graph.net_output %r : tensor<i32>
}
