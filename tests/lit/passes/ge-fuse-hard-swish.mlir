// RUN: ge-opt %s -p ge-fuse-hard-swish --split-input-file | filecheck %s

// Tests PyTorch's opset-11 export of nn.Hardswish: x * HardSigmoid(x, alpha = 1/6), either order.
// CHECK-LABEL: graph.graph @export
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4x2x2xf32>)
// CHECK-NEXT:    %[[Y:.*]] = graph.hard_swish %[[X]] {node_name = "/act/Mul"} : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[Z:.*]] = graph.hard_swish %[[Y]] : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    graph.net_output %[[Z]]
// CHECK-NOT:     graph.hard_sigmoid
graph.graph @export(%x: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %h = graph.hard_sigmoid %x alpha 0.16666667 : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %y = graph.mul %x, %h {node_name = "/act/Mul"} : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %h2 = graph.hard_sigmoid %y alpha 0.16666667 : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %z = graph.mul %h2, %y : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  graph.net_output %z : tensor<1x4x2x2xf32>
}

// -----

// Tests that ONNX's default alpha 0.2, a gate with another user and a gate of another tensor are kept.
// CHECK-LABEL: graph.graph @kept
// CHECK-NOT:     graph.hard_swish
// CHECK-COUNT-3: graph.hard_sigmoid
graph.graph @kept(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %h = graph.hard_sigmoid %x alpha 0.2 : (tensor<4xf32>) -> tensor<4xf32>
  %y = graph.mul %x, %h : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %h2 = graph.hard_sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %y2 = graph.mul %x, %h2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %h3 = graph.hard_sigmoid %w : (tensor<4xf32>) -> tensor<4xf32>
  %y3 = graph.mul %x, %h3 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y, %y2, %h2, %y3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
