// A graph with a typo in an op name (used by tools/ge-opt-errors.mlir).

graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.relu_typo %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
