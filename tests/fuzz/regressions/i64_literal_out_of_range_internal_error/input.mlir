graph.graph @main(%x: tensor<1xi64>) -> tensor<1xi64> {
  %c = graph.const dense<18446744073709551616> : tensor<1xi64>
  %y = graph.add %x, %c : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  graph.net_output %y : tensor<1xi64>
}
