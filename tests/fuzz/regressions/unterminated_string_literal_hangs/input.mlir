graph.graph @main(%x: tensor<2xf32> {node_name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
