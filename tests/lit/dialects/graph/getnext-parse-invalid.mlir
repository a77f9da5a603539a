// RUN: not ge-opt %s --split-input-file 2>&1 | filecheck %s

// Tests output_names that are not strings.

graph.graph @g() {
  %x, %s = graph.get_next output_names [1] : () -> (tensor<2xf32>, tensor<1xi32>)
  // CHECK: error: 'graph.get_next' output_names must be a list of strings
  graph.net_output
}

// -----

// Tests an operand.

graph.graph @g(%a: tensor<2xf32>) {
  %x, %s = graph.get_next output_names ["x"] : (tensor<2xf32>) -> (tensor<2xf32>, tensor<1xi32>)
  // CHECK: error: 'graph.get_next' takes no operands
  graph.net_output
}

