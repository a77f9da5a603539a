graph.graph @g(%x: tensor<1x5x4x4xf32>) {
  %y = graph.lrn %x depth_radius 100000000000 : (tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
  graph.net_output
}