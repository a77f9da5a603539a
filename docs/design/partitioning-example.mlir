// The example drawn in partitioning.md: `make partition-picture` regenerates
// partitioning.dot (ge-dump-dot) and partitioning.svg (Graphviz).
graph.graph @model(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<2x?xi64>) {
  %w = graph.const dense<0.5> : tensor<16x16xf32> {node_name = "w"}
  %b = graph.const dense<0.1> : tensor<16xf32> {node_name = "b"}
  %mm = graph.matmul %x, %w {node_name = "fc"} : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %add = graph.add %mm, %b {node_name = "bias"} : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %act = graph.relu %add {node_name = "act"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %sq = graph.mul %act, %act {node_name = "square", _specified_engine_name = "DNN_VM_AICPU"} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %res = graph.sub %sq, %act {node_name = "residual"} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %out = graph.relu %res {node_name = "out"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %nz = graph.non_zero %act {node_name = "nonzero"} : (tensor<8x16xf32>) -> tensor<2x?xi64>
  graph.net_output %out, %nz : tensor<8x16xf32>, tensor<2x?xi64>
}
