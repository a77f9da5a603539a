graph.graph @main(%x: tensor<?x4xf32> {node_name = "x"})
    -> (tensor<?x4xf32> {node_name = "y"}) {
  %y = graph.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  graph.net_output %y : tensor<?x4xf32>
}
