// RUN: not ge-opt %s --split-input-file -p ge-sink-inputs 2>&1 | filecheck %s

// Tests a root without inputs.
// CHECK: error: ge-sink-inputs: @empty has no inputs to feed

graph.graph @empty() -> (tensor<2xf32> {node_name = "c"}) {
  %c = graph.const dense<1.0> : tensor<2xf32>
  graph.net_output %c : tensor<2xf32>
}

// -----

// Tests a root fed by a GetNext already.
// CHECK: error: ge-sink-inputs: @fed is fed by a graph.get_next already

graph.graph @fed(%a: tensor<2xf32>) -> (tensor<2xf32> {node_name = "x"}) {
  %x, %s = graph.get_next output_names ["x"] : () -> (tensor<2xf32>, tensor<1xi32>)
  graph.net_output %x : tensor<2xf32>
}

// -----

// Tests two roots.
// CHECK: error: ge-sink-inputs: feeds exactly one root graph, found @a, @b; choose with entry=

graph.graph @a(%x: tensor<2xf32>) -> (tensor<2xf32>) {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @b(%x: tensor<2xf32>) -> (tensor<2xf32>) {
  graph.net_output %x : tensor<2xf32>
}
