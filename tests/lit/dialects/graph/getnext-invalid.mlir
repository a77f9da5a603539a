// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a GetNext without its shape outputs.

graph.graph @g() {
  %x = graph.get_next output_names ["x"] : () -> (tensor<2x3xf32>)
  // CHECK: 'graph.get_next' names 1 outputs in output_names and has 1 results; sink mode has 2N: N data, then N shapes
  graph.net_output
}

// -----

// Tests a shape output of the wrong length.

graph.graph @g() {
  %x, %s = graph.get_next output_names ["x"] : () -> (tensor<2x3xf32>, tensor<3xi32>)
  // CHECK: 'graph.get_next' result 1 is the shape of result 0 (tensor<2x3xf32>): it must be tensor<2xi32>, got tensor<3xi32>
  graph.net_output
}

// -----

// Tests a name given twice.

graph.graph @g() {
  %x, %y, %s, %t = graph.get_next output_names ["x", "x"] : () -> (tensor<2xf32>, tensor<2xf32>, tensor<1xi32>, tensor<1xi32>)
  // CHECK: 'graph.get_next' output_names has a name twice
  graph.net_output
}

