// RUN: ge-opt %s -p ge-convert-graph-to-ascend | filecheck %s

// Tests a writer inside an unknown-shape partition: a dynamic AssignAdd kernel reads the
// variable by its region offset, and a copy puts its result into the variable's own bytes,
// which the known partition after it reads.

graph.graph @upd(%w: tensor<2xf32>, %x: tensor<2xf32>) -> tensor<2xf32> attributes {_is_unknown_shape = true} {
  %v = graph.variable "w" : tensor<2xf32>
  %w1 = graph.assign_add %v, %x {node_name = "bump"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}
graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %w1 = partition.partitioned_call @upd(%w, %x) {_is_unknown_shape = true} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %z = graph.mul %w1, %x {node_name = "after"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %z : tensor<2xf32>
}

// CHECK-LABEL: ascend.model @main
// CHECK:         ascend.variable "w" var[0] : tensor<2xf32>
// CHECK:         ascend.dynamic_kernel "AssignAdd" "bump" engine "AIcoreEngine" stream 0 ins(var[0] : tensor<2xf32>, arena[{{[0-9]+}}] : tensor<2xf32>) outs(dyn{{.}}[[D:[0-9]+]]{{.}} : tensor<2xf32>)
// CHECK-NEXT:    ascend.memcpy_async stream 0 dyn{{.}}[[D]]{{.}} : tensor<2xf32> to var[0] : tensor<2xf32>
// CHECK-NEXT:    ascend.kernel "Mul" "after" engine "AIcoreEngine" stream 0 ins(var[0] : tensor<2xf32>
