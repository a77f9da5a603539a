// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests graph.variable with an initial value, the writers chained through their ref
// outputs, and a reader of the value before the write.

// CHECK-LABEL: graph.graph @step
// CHECK:         %[[W:.*]] = graph.variable "w" = dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32> {node_name = "w"}
// CHECK:         %[[Y:.*]] = graph.mul %{{.*}}, %[[W]]
// CHECK:         %[[W1:.*]] = graph.assign_sub %[[W]], %[[Y]] : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK:         %[[W2:.*]] = graph.assign_add %[[W1]], %[[Y]] use_locking true : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK:         graph.net_output %[[Y]], %[[W2]]
// GENERIC-LABEL: "graph.graph"() <{sym_name = "step"
// GENERIC:         "graph.variable"() <{var_name = "w", value = dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>}> {node_name = "w"} : () -> tensor<2xf32>
// GENERIC:         "graph.assign_sub"(%{{.*}}, %{{.*}}) <{use_locking = false}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC:         "graph.assign_add"(%{{.*}}, %{{.*}}) <{use_locking = true}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
graph.graph @step(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %w = graph.variable "w" = dense<[0.5, -1.0]> : tensor<2xf32> {node_name = "w"}
  %y = graph.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_sub %w, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w2 = graph.assign_add %w1, %y use_locking true : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y, %w2 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Tests a variable without an initial value initialised by graph.assign, and graph.ref_data.

// CHECK-LABEL: graph.graph @init
// CHECK:         %[[C:.*]] = graph.variable "counter" : tensor<i32>
// CHECK:         %[[R:.*]] = graph.ref_data "limit" : tensor<i32> {node_name = "lim"}
// CHECK:         graph.assign %[[C]], %[[R]] : (tensor<i32>, tensor<i32>) -> tensor<i32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "init"
// GENERIC:         "graph.variable"() <{var_name = "counter"}> : () -> tensor<i32>
// GENERIC:         "graph.ref_data"() <{var_name = "limit"}> {node_name = "lim"} : () -> tensor<i32>
// GENERIC:         "graph.assign"(%{{.*}}, %{{.*}}) <{validate_shape = true, use_locking = false}> : (tensor<i32>, tensor<i32>) -> tensor<i32>
graph.graph @init() -> tensor<i32> {
  %c = graph.variable "counter" : tensor<i32>
  %r = graph.ref_data "limit" : tensor<i32> {node_name = "lim"}
  %c1 = graph.assign %c, %r : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %c1 : tensor<i32>
}

// -----

// Tests one variable named in two graphs (one memory, GE's variable copies into subgraphs).

// CHECK-LABEL: graph.graph @a
// CHECK:         graph.variable "v" = dense<1.000000e+00> : tensor<2x2xf16>
// CHECK-LABEL: graph.graph @b
// CHECK:         graph.variable "v" : tensor<2x2xf16>
graph.graph @a() -> tensor<2x2xf16> {
  %v = graph.variable "v" = dense<1.0> : tensor<2x2xf16>
  graph.net_output %v : tensor<2x2xf16>
}
graph.graph @b() -> tensor<2x2xf16> {
  %v = graph.variable "v" : tensor<2x2xf16>
  graph.net_output %v : tensor<2x2xf16>
}

// -----

// Tests the variable read again after a call that writes it (the read sees the new value).

// CHECK-LABEL: graph.graph @again
// CHECK:         %[[A:.*]] = graph.variable "v" = dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %before = graph.identity %[[A]]
// CHECK-NEXT:    partition.partitioned_call @bump
// CHECK-NEXT:    %[[B:.*]] = graph.ref_data "v" : tensor<2xf32>
// CHECK-NEXT:    graph.add %before, %[[B]]
graph.graph @bump() -> tensor<2xf32> {
  %v = graph.variable "v" : tensor<2xf32>
  %one = graph.const dense<1.0> : tensor<2xf32>
  %v1 = graph.assign_add %v, %one : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %v1 : tensor<2xf32>
}
graph.graph @again() -> tensor<2xf32> {
  %a = graph.variable "v" = dense<0.0> : tensor<2xf32>
  %before = graph.identity %a : (tensor<2xf32>) -> tensor<2xf32>
  %b1 = partition.partitioned_call @bump() : () -> tensor<2xf32>
  %b = graph.ref_data "v" : tensor<2xf32>
  %s = graph.add %before, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %s : tensor<2xf32>
}

// -----

// Tests graph.variable_ref (GE VariableRef) behind a writer.

// CHECK-LABEL: graph.graph @ref
// CHECK:         graph.variable_ref %{{.*}} ref_var_src_var_name "w" {node_name = "w_TO_AssignAdd_REF_0"} : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "ref"
// GENERIC:         "graph.variable_ref"(%{{.*}}) <{ref_var_src_var_name = "w"}> {node_name = "w_TO_AssignAdd_REF_0"} : (tensor<2xf32>) -> tensor<2xf32>
graph.graph @ref(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<0.0> : tensor<2xf32>
  %w1 = graph.assign_add %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = graph.variable_ref %w1 ref_var_src_var_name "w" {node_name = "w_TO_AssignAdd_REF_0"} : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
