// RUN: ge-opt %s --split-input-file -p ge-prepare-variables | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-prepare-variables,ge-prepare-variables | filecheck %s --check-prefix=TWICE

// Tests GE's VariablePrepareOpPass: a VariableRef `<var>_TO_<writer>_REF_<out>` behind the
// last writer of each chain, with the writer's stream label; the writer's other consumers
// read the VariableRef (ge-delete-variable-refs.mlir removes them again).

graph.graph @step(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %c = graph.variable "c" = dense<0> : tensor<i32>
  %one = graph.const dense<1> : tensor<i32>
  %y = graph.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_sub %w, %y {node_name = "sgd1"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w2 = graph.assign_add %w1, %x {node_name = "sgd2", _stream_label = "train"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %z = graph.relu %w2 : (tensor<2xf32>) -> tensor<2xf32>
  %c1 = graph.assign_add %c, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %z, %w2 : tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: graph.graph @step
// CHECK:         %[[W1:.*]] = graph.assign_sub %w, %y {node_name = "sgd1"}
// CHECK-NOT:     graph.variable_ref
// CHECK:         %[[W2:.*]] = graph.assign_add %[[W1]], %x {node_name = "sgd2", _stream_label = "train"}
// CHECK-NEXT:    %[[R:.*]] = graph.variable_ref %[[W2]] ref_var_src_var_name "w" {node_name = "w_TO_sgd2_REF_0", _stream_label = "train"}
// CHECK-NEXT:    %[[Z:.*]] = graph.relu %[[R]]
// CHECK:         %[[C1:.*]] = graph.assign_add %c, %one
// CHECK-NEXT:    graph.variable_ref %[[C1]] ref_var_src_var_name "c" {node_name = "c_TO_AssignAdd_REF_0"}
// CHECK:         graph.net_output %[[Z]], %[[R]]

// TWICE-LABEL: graph.graph @step
// TWICE-COUNT-2: graph.variable_ref
// TWICE-NOT:     graph.variable_ref

// -----

// Tests a variable without a writer: no VariableRef.

// CHECK-LABEL: graph.graph @read_only
// CHECK-NOT:     graph.variable_ref
graph.graph @read_only(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %y = graph.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
