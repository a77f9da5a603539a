// RUN: ge-opt %s -p ge-fuse-casts --split-input-file | filecheck %s

// Tests that widening and narrowing back cancels: f16 -> f32 -> f16, i8 -> i32 -> i8, i1 -> f32 -> i1.
// CHECK-LABEL: graph.graph @round_trips
// CHECK-SAME:    (%[[H:.*]]: tensor<4xf16>, %[[B:.*]]: tensor<4xi8>, %[[P:.*]]: tensor<4xi1>)
// CHECK-NEXT:    graph.net_output %[[H]], %[[B]], %[[P]]
// CHECK-NOT:     graph.cast
graph.graph @round_trips(%h: tensor<4xf16>, %b: tensor<4xi8>, %p: tensor<4xi1>) -> (tensor<4xf16>, tensor<4xi8>, tensor<4xi1>) {
  %1 = graph.cast %h dst_type f32 : (tensor<4xf16>) -> tensor<4xf32>
  %2 = graph.cast %1 dst_type f16 : (tensor<4xf32>) -> tensor<4xf16>
  %3 = graph.cast %b dst_type i32 : (tensor<4xi8>) -> tensor<4xi32>
  %4 = graph.cast %3 dst_type i8 : (tensor<4xi32>) -> tensor<4xi8>
  %5 = graph.cast %p dst_type f32 : (tensor<4xi1>) -> tensor<4xf32>
  %6 = graph.cast %5 dst_type i1 : (tensor<4xf32>) -> tensor<4xi1>
  graph.net_output %2, %4, %6 : tensor<4xf16>, tensor<4xi8>, tensor<4xi1>
}

// -----

// Tests that an exact first cast composes with any second one: i16 -> f32 -> i8 is i16 -> i8.
// CHECK-LABEL: graph.graph @compose
// CHECK-SAME:    (%[[X:.*]]: tensor<4xi16>)
// CHECK-NEXT:    %[[C:.*]] = graph.cast %[[X]] dst_type i8 : (tensor<4xi16>) -> tensor<4xi8>
// CHECK-NEXT:    graph.net_output %[[C]]
graph.graph @compose(%x: tensor<4xi16>) -> tensor<4xi8> {
  %1 = graph.cast %x dst_type f32 : (tensor<4xi16>) -> tensor<4xf32>
  %2 = graph.cast %1 dst_type i8 : (tensor<4xf32>) -> tensor<4xi8>
  graph.net_output %2 : tensor<4xi8>
}

// -----

// Tests that lossy first casts stay: f32 -> f16 -> f32 rounds, i32 -> f32 -> i32 rounds above 2^24, f32 -> i32 -> f32 truncates.
// CHECK-LABEL: graph.graph @lossy
// CHECK-COUNT-6: graph.cast
graph.graph @lossy(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) {
  %1 = graph.cast %x dst_type f16 : (tensor<4xf32>) -> tensor<4xf16>
  %2 = graph.cast %1 dst_type f32 : (tensor<4xf16>) -> tensor<4xf32>
  %3 = graph.cast %i dst_type f32 : (tensor<4xi32>) -> tensor<4xf32>
  %4 = graph.cast %3 dst_type i32 : (tensor<4xf32>) -> tensor<4xi32>
  %5 = graph.cast %x dst_type i32 : (tensor<4xf32>) -> tensor<4xi32>
  %6 = graph.cast %5 dst_type f32 : (tensor<4xi32>) -> tensor<4xf32>
  graph.net_output %2, %4, %6 : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// Tests that a cast to the same type goes, and that a first cast with another user stays while the pair still cancels.
// CHECK-LABEL: graph.graph @shared
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT:    %[[W:.*]] = graph.cast %[[X]] dst_type f32
// CHECK-NEXT:    graph.net_output %[[X]], %[[W]] : tensor<4xf16>, tensor<4xf32>
graph.graph @shared(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf32>) {
  %0 = graph.cast %x dst_type f16 : (tensor<4xf16>) -> tensor<4xf16>
  %1 = graph.cast %0 dst_type f32 : (tensor<4xf16>) -> tensor<4xf32>
  %2 = graph.cast %1 dst_type f16 : (tensor<4xf32>) -> tensor<4xf16>
  graph.net_output %2, %1 : tensor<4xf16>, tensor<4xf32>
}
