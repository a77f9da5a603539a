// RUN: ge-opt %s --split-input-file -p ge-infer-shapes | filecheck %s

// Tests GE's While fixed point (WhileInferImpl): the carried values start from the While's
// operand types; %i grows every iteration, so its dim widens to `?`; %x keeps its shape, so
// it stays static in the cond, the body and the result.

// CHECK-LABEL: graph.graph @cond(%{{.*}}: tensor<?xi32>, %{{.*}}: tensor<2x3xf32>) -> tensor<i1>
// CHECK-LABEL: graph.graph @body(%{{.*}}: tensor<?xi32>, %{{.*}}: tensor<2x3xf32>) -> (tensor<?xi32>, tensor<2x3xf32>)
// CHECK:         graph.relu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-LABEL: graph.graph @main
// CHECK:         graph.while %{{.*}}, %{{.*}} cond @cond body @body : (tensor<1xi32>, tensor<2x3xf32>) -> (tensor<?xi32>, tensor<2x3xf32>)
graph.graph @cond(%i: tensor<?xi32>, %x: tensor<*xf32>) -> tensor<i1> {
  %c = graph.const dense<true> : tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<?xi32>, %x: tensor<*xf32>) -> (tensor<?xi32>, tensor<*xf32>) {
  %y = graph.relu %x : (tensor<*xf32>) -> tensor<*xf32>
  %j = graph.concat_d %i, %i concat_dim 0 : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  graph.net_output %j, %y : tensor<?xi32>, tensor<*xf32>
}
graph.graph @main(%i: tensor<1xi32>, %x: tensor<2x3xf32>) -> (tensor<?xi32>, tensor<*xf32>) {
  %r, %y = graph.while %i, %x cond @cond body @body : (tensor<1xi32>, tensor<2x3xf32>) -> (tensor<?xi32>, tensor<*xf32>)
  graph.net_output %r, %y : tensor<?xi32>, tensor<*xf32>
}

// -----

// Tests a carried value whose rank changes between iterations (Unsqueeze each time): it
// widens to unranked, GE's -2.

// CHECK-LABEL: graph.graph @grow(%{{.*}}: tensor<*xf32>) -> tensor<*xf32>
// CHECK-LABEL: graph.graph @rank_main
// CHECK:         graph.while %{{.*}} cond @stop body @grow : (tensor<2xf32>) -> tensor<*xf32>
graph.graph @stop(%x: tensor<*xf32>) -> tensor<i1> {
  %c = graph.const dense<false> : tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @grow(%x: tensor<*xf32>) -> tensor<*xf32> {
  %a = graph.const dense<[0]> : tensor<1xi64>
  %y = graph.unsqueeze_v3 %x, %a : (tensor<*xf32>, tensor<1xi64>) -> tensor<*xf32>
  graph.net_output %y : tensor<*xf32>
}
graph.graph @rank_main(%x: tensor<2xf32>) -> tensor<*xf32> {
  %r = graph.while %x cond @stop body @grow : (tensor<2xf32>) -> tensor<*xf32>
  graph.net_output %r : tensor<*xf32>
}

// -----

// Tests If: each branch takes the inputs after the cond; the result is the join of the
// branches' outputs (a dim they disagree on becomes `?`, GE's UpdateOutputFromSubgraphs).

// CHECK-LABEL: graph.graph @keep(%{{.*}}: tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-LABEL: graph.graph @half(%{{.*}}: tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK-LABEL: graph.graph @if_main
// CHECK:         graph.if %{{.*}}, %{{.*}} then_branch @keep else_branch @half : (tensor<i1>, tensor<4x3xf32>) -> tensor<?x3xf32>
graph.graph @keep(%x: tensor<*xf32>) -> tensor<*xf32> {
  %y = graph.relu %x : (tensor<*xf32>) -> tensor<*xf32>
  graph.net_output %y : tensor<*xf32>
}
graph.graph @half(%x: tensor<*xf32>) -> tensor<*xf32> {
  %b = graph.const dense<[0]> : tensor<1xi64>
  %e = graph.const dense<[2]> : tensor<1xi64>
  %a = graph.const dense<[0]> : tensor<1xi64>
  %s = graph.const dense<[1]> : tensor<1xi64>
  %y = graph.strided_slice_v2 %x, %b, %e, %a, %s
      : (tensor<*xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xf32>
  graph.net_output %y : tensor<*xf32>
}
graph.graph @if_main(%c: tensor<i1>, %x: tensor<4x3xf32>) -> tensor<*xf32> {
  %r = graph.if %c, %x then_branch @keep else_branch @half : (tensor<i1>, tensor<4x3xf32>) -> tensor<*xf32>
  graph.net_output %r : tensor<*xf32>
}

// -----

// Tests For: the body takes the loop variable (tensor<i32>) and the carried values, whose
// shape the body keeps; a While nested in an If branch gets its types through the If.

// CHECK-LABEL: graph.graph @fbody(%{{.*}}: tensor<i32>, %{{.*}}: tensor<5xf32>) -> tensor<5xf32>
// CHECK-LABEL: graph.graph @wbody(%{{.*}}: tensor<5xf32>) -> tensor<5xf32>
// CHECK-LABEL: graph.graph @branch(%{{.*}}: tensor<5xf32>) -> tensor<5xf32>
// CHECK:         graph.while %{{.*}} cond @wcond body @wbody : (tensor<5xf32>) -> tensor<5xf32>
// CHECK-LABEL: graph.graph @for_main
// CHECK:         graph.for {{.*}} body @fbody : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK:         graph.if {{.*}} : (tensor<i1>, tensor<5xf32>) -> tensor<5xf32>
graph.graph @fbody(%v: tensor<i32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %f = graph.cast %v dst_type f32 : (tensor<i32>) -> tensor<f32>
  %y = graph.add %x, %f : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  graph.net_output %y : tensor<?xf32>
}
graph.graph @wcond(%x: tensor<?xf32>) -> tensor<i1> {
  %c = graph.const dense<false> : tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @wbody(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = graph.neg %x : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %y : tensor<?xf32>
}
graph.graph @branch(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = graph.while %x cond @wcond body @wbody : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %y : tensor<?xf32>
}
graph.graph @for_main(%a: tensor<i32>, %x: tensor<5xf32>, %c: tensor<i1>) -> (tensor<?xf32>, tensor<?xf32>) {
  %r = graph.for %a, %a, %a, %x body @fbody : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<5xf32>) -> tensor<?xf32>
  %s = graph.if %c, %r then_branch @branch else_branch @branch : (tensor<i1>, tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %r, %s : tensor<?xf32>, tensor<?xf32>
}

// -----

// Tests an accumulator that starts empty, [0, 0, 3], and is concatenated only from the
// second iteration on (ONNX Scan outputs import so): from the operand types alone the `next`
// branch does not infer (dim 1: 0 against 2), so the fixed point starts again from the
// types the body declares, [?, ?, 3], and refines them.

// CHECK-LABEL: graph.graph @acc_next(%{{.*}}: tensor<?x?x3xf32>, %{{.*}}: tensor<2x3xf32>) -> tensor<?x2x3xf32>
// CHECK:         graph.concat_d %{{.*}}, %{{.*}} concat_dim 0 : (tensor<?x?x3xf32>, tensor<1x2x3xf32>) -> tensor<?x2x3xf32>
// CHECK-LABEL: graph.graph @acc_main
// CHECK:         graph.while %{{.*}}, %{{.*}}, %{{.*}} cond @acc_cond body @acc_body : (tensor<i32>, tensor<0x0x3xf32>, tensor<2x3xf32>) -> (tensor<i32>, tensor<?x?x3xf32>, tensor<2x3xf32>)
graph.graph @acc_cond(%i: tensor<i32>, %acc: tensor<?x?x3xf32>, %x: tensor<2x3xf32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @acc_first(%acc: tensor<?x?x3xf32>, %x: tensor<2x3xf32>) -> tensor<?x?x3xf32> {
  %a = graph.const dense<[0]> : tensor<1xi64>
  %u = graph.unsqueeze_v3 %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<?x?x3xf32>
  graph.net_output %u : tensor<?x?x3xf32>
}
graph.graph @acc_next(%acc: tensor<?x?x3xf32>, %x: tensor<2x3xf32>) -> tensor<?x?x3xf32> {
  %a = graph.const dense<[0]> : tensor<1xi64>
  %u = graph.unsqueeze_v3 %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<?x?x3xf32>
  %s = graph.concat_d %acc, %u concat_dim 0 : (tensor<?x?x3xf32>, tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
  graph.net_output %s : tensor<?x?x3xf32>
}
graph.graph @acc_body(%i: tensor<i32>, %acc: tensor<?x?x3xf32>, %x: tensor<2x3xf32>) -> (tensor<i32>, tensor<?x?x3xf32>, tensor<2x3xf32>) {
  %zero = graph.const dense<0> : tensor<i32>
  %one = graph.const dense<1> : tensor<i32>
  %first = graph.equal %i, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %r = graph.if %first, %acc, %x then_branch @acc_first else_branch @acc_next : (tensor<i1>, tensor<?x?x3xf32>, tensor<2x3xf32>) -> tensor<?x?x3xf32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %j, %r, %x : tensor<i32>, tensor<?x?x3xf32>, tensor<2x3xf32>
}
graph.graph @acc_main(%x: tensor<2x3xf32>) -> tensor<?x?x3xf32> {
  %i = graph.const dense<0> : tensor<i32>
  %e = graph.const dense<0.0> : tensor<0x0x3xf32>
  %n, %acc, %y = graph.while %i, %e, %x cond @acc_cond body @acc_body : (tensor<i32>, tensor<0x0x3xf32>, tensor<2x3xf32>) -> (tensor<i32>, tensor<?x?x3xf32>, tensor<2x3xf32>)
  graph.net_output %acc : tensor<?x?x3xf32>
}
