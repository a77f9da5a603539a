// RUN: ge-opt %s --split-input-file -p 'ge-infer-shapes{input-shape="x:3,4"}' | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-infer-shapes' | filecheck %s --check-prefix=NOPIN

// Tests that a pinned input makes every dependent type, and the signature, static.

// CHECK-LABEL: graph.graph @pinned
// CHECK-SAME:    (%[[X:.*]]: tensor<3x4xf32> {node_name = "x"}, %[[B:.*]]: tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[X]] : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    %[[S:.*]] = graph.add %[[R]], %[[B]] : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    graph.net_output %[[S]] : tensor<3x4xf32>
// NOPIN-LABEL: graph.graph @pinned
// NOPIN-SAME:    -> tensor<?x4xf32>
// NOPIN:         graph.add {{.*}} -> tensor<?x4xf32>
graph.graph @pinned(%x: tensor<?x4xf32> {node_name = "x"}, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %r = graph.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = graph.add %r, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  graph.net_output %s : tensor<?x4xf32>
}

// -----

// Tests that shape arithmetic runs through Shape -> Gather -> Reshape without folding, and
// that unranked results become ranked.

// CHECK-LABEL: graph.graph @shape_chain
// CHECK:         %[[S:.*]] = graph.shape %{{.*}} : (tensor<3x4xf32>) -> tensor<2xi64>
// CHECK:         %[[G:.*]] = graph.gather_v2d %[[S]], %{{.*}} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
// CHECK:         graph.reshape %{{.*}}, %[[G]] : (tensor<12xf32>, tensor<2xi64>) -> tensor<4x3xf32>
// CHECK:         graph.net_output %{{.*}} : tensor<4x3xf32>
// NOPIN-LABEL: graph.graph @shape_chain
// NOPIN:         graph.reshape {{.*}} -> tensor<?x?xf32>
graph.graph @shape_chain(%x: tensor<?x4xf32> {node_name = "x"}, %y: tensor<12xf32>) -> tensor<*xf32> {
  %s = graph.shape %x : (tensor<?x4xf32>) -> tensor<2xi64>
  %i = graph.const dense<[1, 0]> : tensor<2xi64>
  %g = graph.gather_v2d %s, %i : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %r = graph.reshape %y, %g : (tensor<12xf32>, tensor<2xi64>) -> tensor<*xf32>
  graph.net_output %r : tensor<*xf32>
}

// -----

// Tests that types flow into a partitioned subgraph and back out of it.

// CHECK-LABEL: graph.graph @caller
// CHECK:         %[[C:.*]] = partition.partitioned_call @callee(%{{.*}}) : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    graph.neg %[[C]] : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-LABEL: graph.graph @callee
// CHECK-SAME:    (%[[A:.*]]: tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    graph.exp %[[A]] {{.*}}: (tensor<3x4xf32>) -> tensor<3x4xf32>
graph.graph @caller(%x: tensor<?x4xf32> {node_name = "x"}) -> tensor<*xf32> {
  %c = partition.partitioned_call @callee(%x) : (tensor<?x4xf32>) -> tensor<*xf32>
  %n = graph.neg %c : (tensor<*xf32>) -> tensor<*xf32>
  graph.net_output %n : tensor<*xf32>
}
graph.graph @callee(%a: tensor<*xf32>) -> tensor<*xf32> {
  %e = graph.exp %a : (tensor<*xf32>) -> tensor<*xf32>
  graph.net_output %e : tensor<*xf32>
}

// -----

// Tests that Case results join the branch outputs: a dim that differs becomes `?`.

// CHECK-LABEL: graph.graph @gears
// CHECK:         multibatch.case {{.*}} : (tensor<i32>, tensor<3x4xf32>) -> tensor<?x4xf32>
// CHECK-LABEL: graph.graph @g0
// CHECK-SAME:    (%{{.*}}: tensor<3x4xf32>) -> tensor<6x4xf32>
// CHECK-LABEL: graph.graph @g1
// CHECK-SAME:    (%{{.*}}: tensor<3x4xf32>) -> tensor<3x4xf32>
graph.graph @gears(%i: tensor<i32>, %x: tensor<?x4xf32> {node_name = "x"}) -> tensor<*xf32> {
  %r = multibatch.case %i, %x branches [@g0, @g1] : (tensor<i32>, tensor<?x4xf32>) -> tensor<*xf32>
  graph.net_output %r : tensor<*xf32>
}
graph.graph @g0(%a: tensor<*xf32>) -> tensor<*xf32> {
  %y = graph.concat_d %a, %a concat_dim 0 : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  graph.net_output %y : tensor<*xf32>
}
graph.graph @g1(%a: tensor<*xf32>) -> tensor<*xf32> {
  %y = graph.relu %a : (tensor<*xf32>) -> tensor<*xf32>
  graph.net_output %y : tensor<*xf32>
}
