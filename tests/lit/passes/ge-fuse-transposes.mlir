// RUN: ge-opt %s -p ge-fuse-transposes --split-input-file | filecheck %s

// Tests that NCHW -> NHWC -> NCHW cancels.
// CHECK-LABEL: graph.graph @cancel
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3x4x5xf32>)
// CHECK-NEXT:    graph.net_output %[[X]] : tensor<1x3x4x5xf32>
// CHECK-NOT:     graph.transpose
graph.graph @cancel(%x: tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32> {
  %a = graph.transpose %x perm [0, 2, 3, 1] : (tensor<1x3x4x5xf32>) -> tensor<1x4x5x3xf32>
  %b = graph.transpose %a perm [0, 3, 1, 2] : (tensor<1x4x5x3xf32>) -> tensor<1x3x4x5xf32>
  graph.net_output %b : tensor<1x3x4x5xf32>
}

// -----

// Tests that two transposes compose into one: dim i of the result is dim p[q[i]] of x.
// CHECK-LABEL: graph.graph @compose
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK-NEXT:    %[[T:.*]] = graph.transpose %[[X]] perm [0, 2, 3, 1] {node_name = "second"} : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32>
// CHECK-NEXT:    graph.net_output %[[T]]
graph.graph @compose(%x: tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32> {
  %a = graph.transpose %x perm [0, 2, 1, 3] : (tensor<2x3x4x5xf32>) -> tensor<2x4x3x5xf32>
  %b = graph.transpose %a perm [0, 1, 3, 2] {node_name = "second"} : (tensor<2x4x3x5xf32>) -> tensor<2x4x5x3xf32>
  graph.net_output %b : tensor<2x4x5x3xf32>
}

// -----

// Tests that a first transpose with another user blocks composing but not cancelling, and that an identity transpose goes.
// CHECK-LABEL: graph.graph @shared
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[A:.*]] = graph.transpose %[[X]] perm [1, 0, 2]
// CHECK-NEXT:    %[[C:.*]] = graph.transpose %[[A]] perm [0, 2, 1]
// CHECK-NEXT:    graph.net_output %[[X]], %[[C]], %[[A]]
graph.graph @shared(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x4x2xf32>, tensor<3x2x4xf32>) {
  %a = graph.transpose %x perm [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %b = graph.transpose %a perm [1, 0, 2] : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %c = graph.transpose %a perm [0, 2, 1] : (tensor<3x2x4xf32>) -> tensor<3x4x2xf32>
  %i = graph.transpose %b perm [0, 1, 2] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  graph.net_output %i, %c, %a : tensor<2x3x4xf32>, tensor<3x4x2xf32>, tensor<3x2x4xf32>
}
