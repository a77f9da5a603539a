graph.graph @main(%x: tensor<1xf32>) -> tensor<1xf32> {
  %c = graph.const dense<1.0e+39> : tensor<1xf32>
  %y = graph.add %x, %c : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  graph.net_output %y : tensor<1xf32>
}
