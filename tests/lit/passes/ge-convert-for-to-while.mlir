// RUN: ge-opt %s --split-input-file -p ge-convert-for-to-while | filecheck %s

// Tests GE's ForPass: the For becomes `<for>_While` over [i, |delta|, |limit - start|, start,
// delta, x] (i = Identity(0)), a `<body>_Cond` graph `Less(Mul(i, |delta|), range)` and a
// `<body>_Body` graph giving i + 1, the bounds unchanged and the old body's outputs on the loop
// variable start + i * delta; the old body is erased (nothing names it any more).

graph.graph @body(%v: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %f = graph.cast %v dst_type f32 {node_name = "tof"} : (tensor<i32>) -> tensor<f32>
  %y = graph.add %x, %f {node_name = "acc"} : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @main(%s: tensor<i32>, %l: tensor<i32>, %d: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.for %s, %l, %d, %x body @body {node_name = "loop"} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// CHECK-NOT:   graph.graph @body(
// CHECK-LABEL: graph.graph @body_Cond(%0: tensor<i32> {_parent_node_index = 0 : i64}, %1: tensor<i32> {_parent_node_index = 1 : i64}, %2: tensor<i32> {_parent_node_index = 2 : i64}, %3: tensor<i32> {_parent_node_index = 3 : i64}, %4: tensor<i32> {_parent_node_index = 4 : i64}, %5: tensor<2xf32> {_parent_node_index = 5 : i64}) -> tensor<i1> {
// CHECK-NEXT:    %[[M:.*]] = graph.mul %0, %1
// CHECK-NEXT:    %[[L:.*]] = graph.less %[[M]], %2
// CHECK-NEXT:    graph.net_output %[[L]] : tensor<i1>
// CHECK-LABEL: graph.graph @body_Body(
// CHECK-NEXT:    %[[ONE:.*]] = graph.const dense<1> : tensor<i32>
// CHECK-NEXT:    %[[NEXT:.*]] = graph.add %0, %[[ONE]]
// CHECK-NEXT:    %[[OFF:.*]] = graph.mul %0, %4
// CHECK-NEXT:    %[[V:.*]] = graph.add %3, %[[OFF]]
// CHECK-NEXT:    %[[F:.*]] = graph.cast %[[V]] dst_type f32 {node_name = "tof"}
// CHECK-NEXT:    %[[Y:.*]] = graph.add %5, %[[F]] {node_name = "acc"}
// CHECK-NEXT:    graph.net_output %[[NEXT]], %1, %2, %3, %4, %[[Y]]
// CHECK-LABEL: graph.graph @main(
// CHECK-NEXT:    %[[Z:.*]] = graph.const dense<0> : tensor<i32>
// CHECK-NEXT:    %[[I:.*]] = graph.identity %[[Z]] {node_name = "loop_i"}
// CHECK-NEXT:    %[[AD:.*]] = graph.abs %d
// CHECK-NEXT:    %[[SUB:.*]] = graph.sub %l, %s
// CHECK-NEXT:    %[[SPAN:.*]] = graph.abs %[[SUB]]
// CHECK-NEXT:    {{.*}}, %[[R:[a-z0-9_]+]] = graph.while %[[I]], %[[AD]], %[[SPAN]], %s, %d, %x cond @body_Cond body @body_Body {node_name = "loop_While"}
// CHECK-NEXT:    graph.net_output %[[R]] : tensor<2xf32>

// -----

// A body another op still names stays; each For gets its own cond and body graphs.

graph.graph @shared(%v: tensor<i32>, %x: tensor<i32>) -> tensor<i32> {
  %y = graph.add %x, %v : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %y : tensor<i32>
}
graph.graph @twice(%s: tensor<i32>, %x: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %a = graph.for %s, %s, %s, %x body @shared : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
  %b = graph.for %s, %x, %s, %a body @shared : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
  %c = partition.partitioned_call @shared(%s, %b) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %b, %c : tensor<i32>, tensor<i32>
}

// CHECK-LABEL: graph.graph @shared(
// CHECK:       graph.graph @shared_Cond_1(
// CHECK:       graph.graph @shared_Body_1(
// CHECK:       graph.graph @shared_Cond(
// CHECK:       graph.graph @shared_Body(
// CHECK-LABEL: graph.graph @twice(
// CHECK:         graph.while {{.*}} cond @shared_Cond body @shared_Body
// CHECK:         graph.while {{.*}} cond @shared_Cond_1 body @shared_Body_1
// CHECK:         partition.partitioned_call @shared
