graph.graph @main(%x: tensor<1x4x4x1xf32>, %w: tensor<1x1x1x2xf32>) -> tensor<1x4x4x2xf32> {
  %c = graph.conv2d %x, %w strides [1, 1, -9223372036854775809, 1] data_format "NHWC" : (tensor<1x4x4x1xf32>, tensor<1x1x1x2xf32>) -> tensor<1x4x4x2xf32>
  graph.net_output %c : tensor<1x4x4x2xf32>
}
