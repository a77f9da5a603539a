// RUN: ge-opt %s -p ge-partition-dynamic-shape | filecheck %s

// Tests GE's DSP merge of a ref variable (BaseCluster::IsRefVariable, MergeRefVariableCluster):
// the VariableRef joins its writer's unknown-shape cluster, though it is known and its known
// consumers would otherwise absorb it (and then read a subgraph input, not the writer).

// CHECK-LABEL: graph.graph @main_sub_0_unknow
// CHECK:         %[[W1:.*]] = graph.assign_add %w, %a
// CHECK-NEXT:    %[[R:.*]] = graph.variable_ref %[[W1]] ref_var_src_var_name "w"
// CHECK-NEXT:    graph.net_output {{.*}}%[[R]]
// CHECK-LABEL: graph.graph @main_sub_1_know
// CHECK-NOT:     graph.variable_ref
// CHECK:         graph.relu
graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<1.0> : tensor<2xf32>
  %a = graph.relu %x {_force_unknown_shape = true} : (tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_add %w, %a {_force_unknown_shape = true} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = graph.variable_ref %w1 ref_var_src_var_name "w" {node_name = "w_TO_AssignAdd_REF_0"} : (tensor<2xf32>) -> tensor<2xf32>
  %y1 = graph.relu %r : (tensor<2xf32>) -> tensor<2xf32>
  %y2 = graph.abs %y1 : (tensor<2xf32>) -> tensor<2xf32>
  %y3 = graph.neg %y2 : (tensor<2xf32>) -> tensor<2xf32>
  %y4 = graph.abs %y3 : (tensor<2xf32>) -> tensor<2xf32>
  %y5 = graph.neg %y4 : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y5 : tensor<2xf32>
}
