// RUN: not ge-opt %s --split-input-file 2>&1 | filecheck %s

// Tests an element that is not a string literal.

graph.graph @not_a_string() {
  // CHECK: error: string literal expected
  %a = graph.const #graph.strings<[1] : tensor<1x!graph.string>>
  graph.net_output
}

// -----

// Tests a type that is not a tensor.

graph.graph @not_a_tensor() {
  // CHECK: error: #graph.strings expects a tensor<...x!graph.string> type, got !graph.string
  %a = graph.const #graph.strings<["a"] : !graph.string>
  graph.net_output
}

// -----

// Tests a missing type.

graph.graph @no_type() {
  // CHECK: error: Expected ':'
  %a = graph.const #graph.strings<["a"]>
  graph.net_output
}
