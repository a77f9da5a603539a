// A training step of a linear model y = x w + b on a batch of 8 (issue 20): forward, mean
// squared error, its gradient written by hand (d loss / d p = 2 e / 8), and AssignSub of
// lr * grad into the variables. `ge-compile{iterations-per-loop=10}` sinks ten steps into
// one launch; the variables keep the weights between launches (docs/tutorial.md).
graph.graph @train(%x: tensor<8x3xf32>, %t: tensor<8x1xf32>) -> (tensor<f32> {node_name = "loss"}) {
  %w = graph.variable "w" = dense<[[0.5], [-0.25], [1.0]]> : tensor<3x1xf32>
  %b = graph.variable "b" = dense<[0.0]> : tensor<1xf32>
  %lr = graph.const dense<0.1> : tensor<f32>
  %two_n = graph.const dense<0.25> : tensor<f32>
  %ax0 = graph.const dense<[0]> : tensor<1xi64>
  %mm = graph.matmul %x, %w : (tensor<8x3xf32>, tensor<3x1xf32>) -> tensor<8x1xf32>
  %p = graph.add %mm, %b : (tensor<8x1xf32>, tensor<1xf32>) -> tensor<8x1xf32>
  %e = graph.sub %p, %t : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %sq = graph.mul %e, %e : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %loss = graph.reduce_mean %sq : (tensor<8x1xf32>) -> tensor<f32>
  %g = graph.mul %e, %two_n : (tensor<8x1xf32>, tensor<f32>) -> tensor<8x1xf32>
  %gw = graph.matmul %x, %g transpose_x1 true : (tensor<8x3xf32>, tensor<8x1xf32>) -> tensor<3x1xf32>
  %gb = graph.reduce_sum %g, %ax0 : (tensor<8x1xf32>, tensor<1xi64>) -> tensor<1xf32>
  %dw = graph.mul %gw, %lr : (tensor<3x1xf32>, tensor<f32>) -> tensor<3x1xf32>
  %db = graph.mul %gb, %lr : (tensor<1xf32>, tensor<f32>) -> tensor<1xf32>
  %w1 = graph.assign_sub %w, %dw : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
  %b1 = graph.assign_sub %b, %db : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  graph.net_output %loss : tensor<f32>
}
