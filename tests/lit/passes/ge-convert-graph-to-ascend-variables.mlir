// RUN: ge-opt %s --split-input-file -p ge-convert-graph-to-ascend | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-convert-graph-to-ascend | ge-opt -p ge-plan-memory | filecheck %s --check-prefix=PLANNED

// Tests that variables go to the variable region (512-byte aligned, apart from the arena),
// readers read it by offset and each writer's output is its variable's own bytes (GE's
// ref_var_src_var_name); an Assign does not read its ref, so a variable only assigned first
// needs no value.

graph.graph @step(%x: tensor<2xf32>, %v: tensor<3xi32>) -> (tensor<2xf32> {node_name = "y"}, tensor<2xf32> {node_name = "w_after"}) {
  %w = graph.variable "w" = dense<[0.5, -1.0]> : tensor<2xf32>
  %c = graph.variable "c" : tensor<3xi32>
  %y = graph.mul %x, %w {node_name = "mul"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_sub %w, %y {node_name = "sgd"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c1 = graph.assign %c, %v {node_name = "set"} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  graph.net_output %y, %w1 : tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: ascend.model @step arena_size 2048 weight_size 0 {
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.variable "w" var[0] : tensor<2xf32> = dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    ascend.variable "c" var[512] : tensor<3xi32> assigned_first
// CHECK:         ascend.kernel "Mul" "mul" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<2xf32>, var[0] : tensor<2xf32>) outs(arena{{\[}}[[Y:[0-9]+]]{{\]}} : tensor<2xf32>)
// CHECK-NEXT:    ascend.kernel "AssignSub" "sgd" engine "AIcoreEngine" stream 0 ins(var[0] : tensor<2xf32>, arena{{\[}}[[Y]]{{\]}} : tensor<2xf32>) outs(var[0] : tensor<2xf32>)
// CHECK-NEXT:    ascend.kernel "Assign" "set" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<3xi32>) outs(var[512] : tensor<3xi32>)
// CHECK-NEXT:    ascend.memcpy_async stream 0 var[0] : tensor<2xf32> to arena[{{[0-9]+}}] : tensor<2xf32>
// PLANNED-LABEL: ascend.model @step
// PLANNED:         ascend.kernel "AssignSub" "sgd" {{.*}} ins(var[0] : tensor<2xf32>, arena[{{[0-9]+}}] : tensor<2xf32>) outs(var[0] : tensor<2xf32>)

// -----

// Tests one memory for a variable named in a called subgraph too (a graph.ref_data of it).

graph.graph @peek(%a: tensor<i64>) -> tensor<i64> {
  %n = graph.ref_data "n" : tensor<i64>
  %s = graph.add %a, %n : (tensor<i64>, tensor<i64>) -> tensor<i64>
  graph.net_output %s : tensor<i64>
}
graph.graph @root(%a: tensor<i64>) -> tensor<i64> {
  %n = graph.variable "n" = dense<3> : tensor<i64>
  %one = graph.const dense<1> : tensor<i64>
  %n1 = graph.assign_add %n, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %r = partition.partitioned_call @peek(%a) : (tensor<i64>) -> tensor<i64>
  graph.net_output %r : tensor<i64>
}

// CHECK-LABEL: ascend.model @root
// CHECK:         ascend.variable "n" var[0] : tensor<i64> = dense<3> : tensor<i64>
// CHECK-NOT:     ascend.variable
// CHECK:         ascend.kernel "AssignAdd" {{.*}} ins(var[0] : tensor<i64>, arena[0] : tensor<i64>) outs(var[0] : tensor<i64>)
// CHECK-NEXT:    ascend.kernel "Add" {{.*}} ins(arena[{{[0-9]+}}] : tensor<i64>, var[0] : tensor<i64>)
