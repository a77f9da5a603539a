graph.graph @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = graph.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  graph.net_output %y : tensor<2x3xf32>
}
