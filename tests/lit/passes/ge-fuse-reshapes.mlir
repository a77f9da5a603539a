// RUN: ge-opt %s -p ge-fuse-reshapes --split-input-file | filecheck %s

// Tests that a Flatten, Reshape, Reshape chain reads x directly, keeping a 0-free shape constant.
// CHECK-LABEL: graph.graph @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[S:.*]] = graph.const dense<[4, -1]>
// CHECK-NEXT:    %[[R:.*]] = graph.reshape %[[X]], %[[S]] : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
// CHECK-NEXT:    graph.net_output %[[R]]
// CHECK-NOT:     graph.flatten
graph.graph @chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %f = graph.flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %s1 = graph.const dense<[24]> : tensor<1xi64>
  %r1 = graph.reshape %f, %s1 : (tensor<2x12xf32>, tensor<1xi64>) -> tensor<24xf32>
  %s2 = graph.const dense<[4, -1]> : tensor<2xi64>
  %r2 = graph.reshape %r1, %s2 : (tensor<24xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  graph.net_output %r2 : tensor<4x6xf32>
}

// -----

// Tests that a 0 (copy the intermediate dim) is replaced by the static result shape, and that a no-op reshape goes.
// CHECK-LABEL: graph.graph @copy_dim
// CHECK-SAME:    (%[[X:.*]]: tensor<6x4xf32>)
// CHECK:         %[[S:.*]] = graph.const dense<[2, 3, 4]> : tensor<3xi64>
// CHECK-NEXT:    %[[R:.*]] = graph.reshape %[[X]], %[[S]] : (tensor<6x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    graph.net_output %[[R]]
graph.graph @copy_dim(%x: tensor<6x4xf32>) -> tensor<2x3x4xf32> {
  %s1 = graph.const dense<[2, 12]> : tensor<2xi64>
  %r1 = graph.reshape %x, %s1 : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  %s2 = graph.const dense<[0, 3, 4]> : tensor<3xi64>
  %r2 = graph.reshape %r1, %s2 : (tensor<2x12xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %s3 = graph.const dense<[2, 3, 4]> : tensor<3xi64>
  %r3 = graph.reshape %r2, %s3 : (tensor<2x3x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  graph.net_output %r3 : tensor<2x3x4xf32>
}

// -----

// Tests that an intermediate shape with another user, or a 0 over unknown dims, keeps the chain.
// CHECK-LABEL: graph.graph @kept
// CHECK-COUNT-4: graph.reshape
graph.graph @kept(%x: tensor<6x4xf32>, %d: tensor<?x4xf32>, %s: tensor<2xi64>) -> (tensor<24xf32>, tensor<2x12xf32>, tensor<?x?xf32>) {
  %s1 = graph.const dense<[2, 12]> : tensor<2xi64>
  %r1 = graph.reshape %x, %s1 : (tensor<6x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  %s2 = graph.const dense<[24]> : tensor<1xi64>
  %r2 = graph.reshape %r1, %s2 : (tensor<2x12xf32>, tensor<1xi64>) -> tensor<24xf32>
  %r3 = graph.reshape %d, %s : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %s4 = graph.const dense<[0, -1]> : tensor<2xi64>
  %r4 = graph.reshape %r3, %s4 : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  graph.net_output %r2, %r1, %r4 : tensor<24xf32>, tensor<2x12xf32>, tensor<?x?xf32>
}
