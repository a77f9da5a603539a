graph.graph @main(%x: tensor<100000000000xf32>) -> tensor<100000000000xf32> {
  %y = graph.relu %x : (tensor<100000000000xf32>) -> tensor<100000000000xf32>
  graph.net_output %y : tensor<100000000000xf32>
}
