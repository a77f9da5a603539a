// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests an initial value that is not dense (a parse error, one line with the place).
// RUN: echo 'graph.graph @a() -> tensor<2xf32> { %v = graph.variable "v" = 1.0 : f32 }' | not ge-opt 2>&1 | filecheck %s --check-prefix=VALUE
// VALUE: <stdin>:1:{{[0-9]+}}: error: 'graph.variable' initial value must be a dense<...> : tensor<...>
// VALUE-NOT: Traceback

// Tests assigning a value of another shape to a variable.

// CHECK-LABEL: 'graph.assign' assigns a tensor<3xf32> to the variable "w" of type tensor<2xf32>: the value must have the variable's shape and dtype
graph.graph @g(%x: tensor<3xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" : tensor<2xf32>
  %w1 = graph.assign %w, %x : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}

// -----

// Tests assigning a value of another dtype.

// CHECK-LABEL: 'graph.assign_add' assigns a tensor<2xf16> to the variable "w" of type tensor<2xf32>
graph.graph @g(%x: tensor<2xf16>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<0.0> : tensor<2xf32>
  %w1 = graph.assign_add %w, %x : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}

// -----

// Tests a ref port fed by a graph input.

// CHECK-LABEL: 'graph.assign' ref input is fed by the graph input %x of @g, which no op calls, not a ref value: a ref port takes a graph.variable, a graph.ref_data or the ref output of a writer
graph.graph @g(%x: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<2xf32> {
  %w1 = graph.assign %x, %v : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}

// -----

// Tests a ref port fed by a compute op.

// CHECK-LABEL: 'graph.assign_sub' ref input is fed by 'graph.relu' (%r), not a ref value
graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_sub %r, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}

// -----

// Tests a reader of the variable after its writer.

// CHECK-LABEL: 'graph.relu' in @g reads the variable "w" after 'graph.assign' overwrites it: whatever overwrites a variable must come after every user of its earlier value (read a writer's ref output, or the variable again, for the new value)
graph.graph @g(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %w = graph.variable "w" = dense<0.0> : tensor<2xf32>
  %w1 = graph.assign %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %y = graph.relu %w : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y, %w1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Tests two writers of one ref value.

// CHECK-LABEL: 'graph.assign_add' in @g writes the variable "w" through a ref value that 'graph.assign' also writes: each ref value has one writer (chain the writers through their ref outputs)
graph.graph @g(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %w = graph.variable "w" = dense<0.0> : tensor<2xf32>
  %a = graph.assign %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = graph.assign_add %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %a, %b : tensor<2xf32>, tensor<2xf32>
}

// -----

// Tests a variable of unknown shape.

// CHECK-LABEL: 'graph.variable' "w" has shape [?, 2]: a variable's memory is fixed when the session creates it, so its shape is static
graph.graph @g() -> tensor<?x2xf32> {
  %w = graph.variable "w" : tensor<?x2xf32>
  graph.net_output %w : tensor<?x2xf32>
}

// -----

// Tests an initial value of another type (generic form: the custom syntax takes the type from the value).

// CHECK-LABEL: 'graph.variable' "w" initial value has type tensor<3xf32>, the variable is tensor<2xf32>
graph.graph @g() -> tensor<2xf32> {
  %w = "graph.variable"() <{var_name = "w", value = dense<0.0> : tensor<3xf32>}> : () -> tensor<2xf32>
  graph.net_output %w : tensor<2xf32>
}

// -----

// Tests an empty variable name.

// CHECK-LABEL: 'graph.ref_data' has an empty var_name
graph.graph @g() -> tensor<2xf32> {
  %w = graph.ref_data "" : tensor<2xf32>
  graph.net_output %w : tensor<2xf32>
}

// -----

// Tests Assign with validate_shape false.

// CHECK-LABEL: 'graph.assign' has validate_shape false: a variable's shape is fixed in the session's variable memory, so it cannot change
graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" : tensor<2xf32>
  %w1 = graph.assign %w, %x validate_shape false : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}

// -----

// Tests one variable name with two types in two graphs.

// CHECK-LABEL: 'graph.variable' "v" in @b has type tensor<3xf32>, but the variable is tensor<2xf32> elsewhere: a variable name stands for one memory
graph.graph @a() -> tensor<2xf32> {
  %v = graph.variable "v" : tensor<2xf32>
  graph.net_output %v : tensor<2xf32>
}
graph.graph @b() -> tensor<3xf32> {
  %v = graph.variable "v" : tensor<3xf32>
  graph.net_output %v : tensor<3xf32>
}

// -----

// Tests a read of a variable after a call whose subgraph writes it (the value read would be
// the one before the call at the graph level, the memory after it at the ascend level).

// CHECK-LABEL: 'graph.mul' in @root reads the variable "v" after 'partition.partitioned_call' overwrites it in a subgraph it calls
graph.graph @bump() -> tensor<2xf32> {
  %v = graph.variable "v" : tensor<2xf32>
  %one = graph.const dense<1.0> : tensor<2xf32>
  %v1 = graph.assign_add %v, %one : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %v1 : tensor<2xf32>
}
graph.graph @root(%x: tensor<2xf32>) -> tensor<2xf32> {
  %v = graph.variable "v" = dense<0.0> : tensor<2xf32>
  %b = partition.partitioned_call @bump() : () -> tensor<2xf32>
  %y = graph.mul %x, %v : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}

// -----

// Tests two initial values of one variable.

// CHECK-LABEL: 'graph.variable' "v" in @b has an initial value that differs from another graph.variable of that name
graph.graph @a() -> tensor<2xf32> {
  %v = graph.variable "v" = dense<1.0> : tensor<2xf32>
  graph.net_output %v : tensor<2xf32>
}
graph.graph @b() -> tensor<2xf32> {
  %v = graph.variable "v" = dense<2.0> : tensor<2xf32>
  graph.net_output %v : tensor<2xf32>
}

// -----

// Tests a VariableRef not behind a writer.

// CHECK-LABEL: 'graph.variable_ref' is fed by 'graph.relu' (%r): a VariableRef follows the ref output of a writer
graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  %v = graph.variable_ref %r ref_var_src_var_name "w" : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %v : tensor<2xf32>
}

// -----

// Tests a VariableRef naming another variable than its writer's.

// CHECK-LABEL: 'graph.variable_ref' has ref_var_src_var_name "v" but its writer writes the variable "w"
graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = graph.variable "w" = dense<0.0> : tensor<2xf32>
  %w1 = graph.assign_add %w, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = graph.variable_ref %w1 ref_var_src_var_name "v" : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests a subgraph input written as a ref whose caller feeds it a computed value.

// CHECK-LABEL: 'graph.assign_add' in @bump writes its input %w as a ref, but 'partition.partitioned_call' feeds it with 'graph.relu' (%r), not a ref value
graph.graph @bump(%w: tensor<2xf32>, %d: tensor<2xf32>) -> tensor<2xf32> {
  %w1 = graph.assign_add %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}
graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  %y = partition.partitioned_call @bump(%r, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}

// -----

// Tests a subgraph input written as a ref that its callers feed with two variables.

// CHECK-LABEL: 'graph.assign_add' in @bump writes its input %w, which its callers feed with the variables "a" and "b": a ref input stands for one variable
graph.graph @bump(%w: tensor<2xf32>, %d: tensor<2xf32>) -> tensor<2xf32> {
  %w1 = graph.assign_add %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}
graph.graph @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %a = graph.variable "a" = dense<0.0> : tensor<2xf32>
  %b = graph.variable "b" = dense<0.0> : tensor<2xf32>
  %y = partition.partitioned_call @bump(%a, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %z = partition.partitioned_call @bump(%b, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y, %z : tensor<2xf32>, tensor<2xf32>
}
