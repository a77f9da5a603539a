// A graph node whose result type is not closed (tools/syntax-errors.mlir).
graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.relu %x {node_name = "r"} : (tensor<2xf32>) -> tensor<2xf32
  graph.net_output %y : tensor<2xf32>
}
