// RUN: ge-opt %s --split-input-file -p ge-split-variables-into-subgraphs | filecheck %s

// Tests If: each branch that uses the variable's input gets a copy of the variable (same
// name: one memory), first in the branch; an unused input gets none. (A subgraph's writers
// take such copies: the verifier refuses a ref port fed by a subgraph input.)

graph.graph @then(%a: tensor<2xf32> {_parent_node_index = 1 : i64}, %w: tensor<2xf32> {_parent_node_index = 2 : i64}) -> tensor<2xf32> {
  %y = graph.mul %w, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @else(%a: tensor<2xf32> {_parent_node_index = 1 : i64}, %w: tensor<2xf32> {_parent_node_index = 2 : i64}) -> tensor<2xf32> {
  graph.net_output %a : tensor<2xf32>
}
graph.graph @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32> {node_name = "weights"}
  %y = graph.if %c, %x, %w then_branch @then else_branch @else : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}

// CHECK-LABEL: graph.graph @then
// CHECK-NEXT:    %[[C:.*]] = graph.variable "w" = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> {node_name = "weights_then"}
// CHECK-NEXT:    graph.mul %[[C]], %a
// CHECK-LABEL: graph.graph @else
// CHECK-NOT:     graph.variable
// CHECK:         graph.net_output %a
// CHECK-LABEL: graph.graph @main
// CHECK:         graph.if %c, %x, %w then_branch @then else_branch @else

// -----

// Tests Case and a known PartitionedCall (a ref_data is copied as a ref_data), and no copy
// into an unknown-shape PartitionedCall.

graph.graph @b0(%w: tensor<i64>) -> tensor<i64> {
  %one = graph.const dense<1> : tensor<i64>
  %w1 = graph.sub %w, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  graph.net_output %w1 : tensor<i64>
}
graph.graph @b1(%w: tensor<i64>) -> tensor<i64> {
  graph.net_output %w : tensor<i64>
}
graph.graph @known(%w: tensor<i64>) -> tensor<i64> {
  %s = graph.add %w, %w : (tensor<i64>, tensor<i64>) -> tensor<i64>
  graph.net_output %s : tensor<i64>
}
graph.graph @unknown(%w: tensor<i64>) -> tensor<i64> {
  %s = graph.add %w, %w : (tensor<i64>, tensor<i64>) -> tensor<i64>
  graph.net_output %s : tensor<i64>
}
graph.graph @main(%k: tensor<i32>) -> (tensor<i64>, tensor<i64>, tensor<i64>) {
  %n = graph.ref_data "n" : tensor<i64>
  %a = partition.partitioned_call @known(%n) : (tensor<i64>) -> tensor<i64>
  %b = partition.partitioned_call @unknown(%n) {_is_unknown_shape = true} : (tensor<i64>) -> tensor<i64>
  %r = multibatch.case %k, %n branches [@b0, @b1] : (tensor<i32>, tensor<i64>) -> tensor<i64>
  graph.net_output %a, %b, %r : tensor<i64>, tensor<i64>, tensor<i64>
}

// CHECK-LABEL: graph.graph @b0
// CHECK-NEXT:    %[[C:.*]] = graph.ref_data "n" : tensor<i64> {node_name = "n_b0"}
// CHECK:         graph.sub %[[C]], %one
// CHECK-LABEL: graph.graph @b1
// CHECK-NEXT:    %[[C:.*]] = graph.ref_data "n" : tensor<i64> {node_name = "n_b1"}
// CHECK-NEXT:    graph.net_output %[[C]]
// CHECK-LABEL: graph.graph @known
// CHECK-NEXT:    graph.ref_data "n"
// CHECK-LABEL: graph.graph @unknown
// CHECK-NOT:     graph.ref_data
// CHECK:         graph.add %w, %w

// -----

// Tests While: copies in cond and body where the body passes the variable through, and the
// consumers of that output fed by the variable after the loop; an input the body changes is
// a carried value, left alone.

graph.graph @cond(%i: tensor<i32>, %w: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %w: tensor<2xf32>, %v: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %half = graph.const dense<0.5> : tensor<2xf32>
  %i1 = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %w1 = graph.mul %w, %half : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %v1 = graph.add %v, %half : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %i1, %w, %v1 : tensor<i32>, tensor<2xf32>, tensor<2xf32>
}
graph.graph @main() -> (tensor<2xf32>, tensor<2xf32>) {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %v = graph.variable "v" = dense<[1.0, 2.0]> : tensor<2xf32>
  %zero = graph.const dense<0> : tensor<i32>
  %r:3 = graph.while %zero, %w, %v cond @cond body @body : (tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>)
  graph.net_output %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: graph.graph @cond
// CHECK-NOT:     graph.variable
// CHECK-LABEL: graph.graph @body
// CHECK-NEXT:    %[[W:.*]] = graph.variable "w" {{.*}}{node_name = "w_body"}
// CHECK-NOT:     graph.variable
// CHECK:         graph.mul %[[W]], %half
// CHECK:         graph.add %v, %half
// CHECK:         graph.net_output %i1, %[[W]], %v1
// CHECK-LABEL: graph.graph @main
// CHECK:         %[[R:.*]], %[[R1:.*]], %[[R2:.*]] = graph.while %zero, %w, %v cond @cond body @body
// CHECK-NEXT:    %[[AFTER:.*]] = graph.variable "w" {{.*}}{node_name = "w_while_out1"}
// CHECK-NEXT:    graph.net_output %[[AFTER]], %[[R2]]

// -----

// Tests a subgraph two callers pass different values at one input: no copy.

graph.graph @f(%w: tensor<2xf32>) -> tensor<2xf32> {
  %s = graph.add %w, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %s : tensor<2xf32>
}
graph.graph @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %a = partition.partitioned_call @f(%w) : (tensor<2xf32>) -> tensor<2xf32>
  %b = partition.partitioned_call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %a, %b : tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: graph.graph @f
// CHECK-NOT:     graph.variable
// CHECK:         graph.add %w, %w

// -----

// Tests a ref through a subgraph's Data: the While body writes its input (an AssignAdd on the
// Data) and returns the writer's ref output, which passes the variable through: cond is left
// alone (it does not use the input), the body's writer writes a copy of the variable, and the
// loop output's consumer reads a copy after the loop.

// CHECK-LABEL: graph.graph @wbody
// CHECK-NEXT:    %[[C:.*]] = graph.variable "w" = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32> {node_name = "w_wbody"}
// CHECK:         %[[W1:.*]] = graph.assign_add %[[C]], %{{.*}}
// CHECK:         graph.net_output %{{.*}}, %[[W1]]
// CHECK-LABEL: graph.graph @wmain
// CHECK:         graph.while
// CHECK-NEXT:    %[[A:.*]] = graph.variable "w" {{.*}}{node_name = "w_while_out1"}
// CHECK-NEXT:    graph.mul %[[A]], %x
graph.graph @wcond(%i: tensor<i32>, %w: tensor<2xf32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @wbody(%i: tensor<i32>, %w: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %i1 = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %d = graph.const dense<[0.5, 0.25]> : tensor<2xf32>
  %w1 = graph.assign_add %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %i1, %w1 : tensor<i32>, tensor<2xf32>
}
graph.graph @wmain(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %zero = graph.const dense<0> : tensor<i32>
  %r:2 = graph.while %zero, %w cond @wcond body @wbody
      : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  %y = graph.mul %r#1, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
