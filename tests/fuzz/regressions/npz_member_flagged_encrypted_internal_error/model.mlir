graph.graph @main(%x: tensor<2x3xf32> {node_name = "x"})
    -> (tensor<2x3xf32> {node_name = "y"}) {
  %y = graph.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  graph.net_output %y : tensor<2x3xf32>
}
