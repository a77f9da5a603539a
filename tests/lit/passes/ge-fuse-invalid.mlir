// RUN: not ge-opt %s -p 'ge-fuse{disable=conv-bn,swish}' 2>&1 | filecheck %s

// Tests that an unknown fusion kind in `disable` is an error that lists the kinds.
// CHECK: error: bad pass pipeline: ge-fuse{disable=conv-bn,swish}: option 'disable' takes one of identity, quant, casts, transposes, reshapes, layer-norm, gelu, hard-swish, conv-bias, conv-bn, conv-activation, matmul-transpose, matmul-bias, matmul-activation, mul-add; got 'swish'; did you mean 'hard-swish'?
graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
