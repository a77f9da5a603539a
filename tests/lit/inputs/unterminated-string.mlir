// A graph whose node_name of 40 characters lacks its closing quote (used by
// tools/unterminated-string.mlir): xDSL 0.74's lexer alone backtracks on it for hours.

graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.relu %x {node_name = "relu_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
