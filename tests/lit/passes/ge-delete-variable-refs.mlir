// RUN: ge-opt %s --split-input-file -p ge-delete-variable-refs | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-prepare-variables,ge-delete-variable-refs | filecheck %s --check-prefix=ROUND

// Tests GE's VariableRefDeleteOpPass: each VariableRef removed, its consumers reading the
// writer's output, ref_var_src_var_name left on the writer.

graph.graph @step(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %w1 = graph.assign_add %w, %x {node_name = "sgd"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = graph.variable_ref %w1 ref_var_src_var_name "w" {node_name = "w_TO_sgd_REF_0"} : (tensor<2xf32>) -> tensor<2xf32>
  %z = graph.relu %r : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %z : tensor<2xf32>
}

// CHECK-LABEL: graph.graph @step
// CHECK-NOT:     graph.variable_ref
// CHECK:         %[[W1:.*]] = graph.assign_add %w, %x {node_name = "sgd", ref_var_src_var_name = "w"}
// CHECK-NEXT:    graph.relu %[[W1]]
// ROUND-LABEL: graph.graph @step
// ROUND-NOT:     graph.variable_ref
// ROUND:         graph.assign_add %w, %x {node_name = "sgd", ref_var_src_var_name = "w"}

// -----

// Tests a VariableRef in a partition with its writer (where ge-partition-dynamic-shape's
// ref-variable merge keeps it): the writer there gets the name.

graph.graph @part(%x: tensor<i64>) -> tensor<i64> {
  %n = graph.variable "n" = dense<0> : tensor<i64>
  %n1 = graph.assign_add %n, %x : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %r = graph.variable_ref %n1 ref_var_src_var_name "n" : (tensor<i64>) -> tensor<i64>
  graph.net_output %r : tensor<i64>
}
graph.graph @main(%x: tensor<i64>) -> tensor<i64> {
  %y = partition.partitioned_call @part(%x) : (tensor<i64>) -> tensor<i64>
  graph.net_output %y : tensor<i64>
}

// CHECK-LABEL: graph.graph @part
// CHECK:         %[[N1:.*]] = graph.assign_add %n, %x {ref_var_src_var_name = "n"}
// CHECK-NEXT:    graph.net_output %[[N1]]
