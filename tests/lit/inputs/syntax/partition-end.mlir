// A partition.end with two operand types for one operand (tools/syntax-errors.mlir).
graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  partition.end %x peerIndex 0 parentOpType "Relu" : (tensor<2xf32>, tensor<2xf32>) -> ()
  graph.net_output %x : tensor<2xf32>
}
