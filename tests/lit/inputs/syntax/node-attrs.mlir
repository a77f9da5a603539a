// A graph node whose attribute dictionary has no value (tools/syntax-errors.mlir).
graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.relu %x {node_name = } : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
