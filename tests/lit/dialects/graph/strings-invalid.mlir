// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a string constant with fewer elements than its type holds (and more than one).

graph.graph @count() {
  %a = graph.const #graph.strings<["a", "b"] : tensor<3x!graph.string>>
  graph.net_output
}
// CHECK-LABEL: #graph.strings has 2 elements, its type tensor<3x!graph.string> holds 3

// -----

// Tests a #graph.strings whose type is not a tensor of !graph.string.

graph.graph @element_type() {
  %a = graph.const #graph.strings<["a"] : tensor<1xi8>>
  graph.net_output
}
// CHECK-LABEL: #graph.strings has type tensor<1xi8>; its element type must be !graph.string

// -----

// Tests a string constant of unknown shape.

graph.graph @dynamic() {
  %a = graph.const #graph.strings<["a"] : tensor<?x!graph.string>>
  graph.net_output
}
// CHECK-LABEL: #graph.strings has type tensor<?x!graph.string>; it needs a static shape

// -----

// Tests a string constant whose result type is not its value's type.

graph.graph @result_type() {
  %a = "graph.const"() <{value = #graph.strings<["a"] : tensor<1x!graph.string>>}> : () -> tensor<2x!graph.string>
  graph.net_output
}
// CHECK-LABEL: 'graph.const' result type tensor<2x!graph.string> differs from its value's type tensor<1x!graph.string>
