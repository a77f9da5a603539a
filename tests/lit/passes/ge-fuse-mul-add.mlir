// RUN: ge-opt %s -p ge-fuse-mul-add --split-input-file | filecheck %s

// Tests a per-channel scale and shift (Add operands in either order) and an integer multiply-add.
// CHECK-LABEL: graph.graph @scale_shift
// CHECK-SAME:    (%[[X:.*]]: tensor<1x8x4x4xf32>, %[[S:.*]]: tensor<1x8x1x1xf32>, %[[T:.*]]: tensor<1x8x1x1xf32>, %[[I:.*]]: tensor<3xi32>)
// CHECK-NEXT:    %[[Y:.*]] = graph.fused_mul_add %[[X]], %[[S]], %[[T]] {node_name = "shift"} : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = graph.fused_mul_add %[[I]], %[[I]], %[[I]] : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
// CHECK-NEXT:    graph.net_output %[[Y]], %[[Z]]
// CHECK-NOT:     graph.mul
graph.graph @scale_shift(%x: tensor<1x8x4x4xf32>, %s: tensor<1x8x1x1xf32>, %t: tensor<1x8x1x1xf32>, %i: tensor<3xi32>) -> (tensor<1x8x4x4xf32>, tensor<3xi32>) {
  %m = graph.mul %x, %s : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %y = graph.add %t, %m {node_name = "shift"} : (tensor<1x8x1x1xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %n = graph.mul %i, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  %z = graph.add %n, %i : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  graph.net_output %y, %z : tensor<1x8x4x4xf32>, tensor<3xi32>
}

// -----

// Tests what stays: a product with another user, a product added to itself.
// CHECK-LABEL: graph.graph @kept
// CHECK-NOT:     graph.fused_mul_add
// CHECK-COUNT-2: graph.mul
graph.graph @kept(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %m = graph.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = graph.add %m, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m2 = graph.mul %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %z = graph.add %m2, %m2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y, %m, %z : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
