// Parses, but the net_output type disagrees with the graph signature.
graph.graph @main(%x: tensor<2xf32>) -> tensor<3xf32> {
  graph.net_output %x : tensor<2xf32>
}
