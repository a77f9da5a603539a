graph.graph @no_engine(%m: tensor<4xi64>) -> tensor<?x1xi64> {
  %n = graph.non_zero %m {node_name = "nz"} : (tensor<4xi64>) -> tensor<?x1xi64>
  graph.net_output %n : tensor<?x1xi64>
}