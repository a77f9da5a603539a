graph.graph @g(%x: tensor<1x2x4x4xf32>) {
  %y = graph.lp_pool %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] p 1.0e+39 : (tensor<@x2x4x4xf32>) 0> tensor<1x2x2x2xf32>
  graph.net_output
}