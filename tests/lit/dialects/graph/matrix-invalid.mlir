// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests BatchMatMulV2 operands of different element types.

graph.graph @g(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf16>) {
  %y = graph.batch_mat_mul_v2 %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf16>) -> tensor<2x3x5xf32>
  // CHECK: 'graph.batch_mat_mul_v2' requires one element type for operands and result, got f32, f16, f32
  graph.net_output
}

// -----

// Tests a 0-D BatchMatMulV2 operand.

graph.graph @g(%a: tensor<f32>, %b: tensor<4x5xf32>) {
  %y = graph.batch_mat_mul_v2 %a, %b : (tensor<f32>, tensor<4x5xf32>) -> tensor<5xf32>
  // CHECK: 'graph.batch_mat_mul_v2' x1 must have at least one dim
  graph.net_output
}

// -----

// Tests contracted dims that differ after adj_x1.

graph.graph @g(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  %y = graph.batch_mat_mul_v2 %a, %b adj_x1 true : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x4x5xf32>
  // CHECK: 'graph.batch_mat_mul_v2' contracts K = 3 of x1 with K = 4 of x2
  graph.net_output
}

// -----

// Tests batch dims that do not broadcast.

graph.graph @g(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  %y = graph.batch_mat_mul_v2 %a, %b : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  // CHECK: 'graph.batch_mat_mul_v2' shapes [2] and [3] do not broadcast
  graph.net_output
}

// -----

// Tests a BatchMatMulV2 result of the wrong shape.

graph.graph @g(%a: tensor<3x4xf32>, %b: tensor<4xf32>) {
  %y = graph.batch_mat_mul_v2 %a, %b : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x1xf32>
  // CHECK: 'graph.batch_mat_mul_v2' result shape [3, 1] differs from the product shape [3]
  graph.net_output
}

// -----

// Tests an Einsum N that differs from the inputs.

graph.graph @g(%a: tensor<2x3xf32>) {
  %y = graph.einsum %a equation "ij->ji" N 2 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: 'graph.einsum' N = 2 differs from its 1 inputs
  graph.net_output
}

// -----

// Tests an equation with more terms than inputs.

graph.graph @g(%a: tensor<2x3xf32>) {
  %y = graph.einsum %a equation "ij,jk->ik" N 1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: 'graph.einsum' equation "ij,jk->ik" has 2 input terms for 1 inputs
  graph.net_output
}

// -----

// Tests an equation term with a digit.

graph.graph @g(%a: tensor<2x3xf32>) {
  %y = graph.einsum %a equation "i1->i" N 1 : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK: 'graph.einsum' equation "i1->i" term 'i1' is not letters with at most one '...'
  graph.net_output
}

// -----

// Tests a term that does not fit the input rank.

graph.graph @g(%a: tensor<2x3xf32>) {
  %y = graph.einsum %a equation "ijk->i" N 1 : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK: 'graph.einsum' equation "ijk->i" term 'ijk' does not fit an input of rank 2
  graph.net_output
}

// -----

// Tests an output letter no input has.

graph.graph @g(%a: tensor<2x3xf32>) {
  %y = graph.einsum %a equation "ij->k" N 1 : (tensor<2x3xf32>) -> tensor<2xf32>
  // CHECK: 'graph.einsum' equation "ij->k" output 'k' names a letter no input has
  graph.net_output
}

// -----

// Tests a repeated output letter.

graph.graph @g(%a: tensor<2x3xf32>) {
  %y = graph.einsum %a equation "ij->ii" N 1 : (tensor<2x3xf32>) -> tensor<2x2xf32>
  // CHECK: 'graph.einsum' equation "ij->ii" output 'ii' is not distinct letters with at most one '...'
  graph.net_output
}

// -----

// Tests a letter with two different sizes.

graph.graph @g(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  %y = graph.einsum %a, %b equation "ij,jk->ik" N 2 : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  // CHECK: 'graph.einsum' equation "ij,jk->ik" letter 'j' is 3 in one place and 4 in another
  graph.net_output
}

// -----

// Tests an Einsum result of the wrong shape.

graph.graph @g(%a: tensor<2x3xf32>) {
  %y = graph.einsum %a equation "ij" N 1 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: 'graph.einsum' result shape [3, 2] differs from the einsum shape [2, 3]
  graph.net_output
}
