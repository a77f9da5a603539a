// RUN: ge-opt %s -p ge-fold-identity --split-input-file | filecheck %s

// Tests that an Identity chain (Dropout imports as Identity) disappears and its users read the source.
// CHECK-LABEL: graph.graph @chain
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[X]]
// CHECK-NEXT:    graph.net_output %[[R]], %[[X]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NOT:     graph.identity
graph.graph @chain(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = graph.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = graph.identity %a : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = graph.relu %b : (tensor<2x3xf32>) -> tensor<2x3xf32>
  graph.net_output %r, %a : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Tests that an Identity that refines the type stays.
// CHECK-LABEL: graph.graph @refining
// CHECK:         graph.identity %{{.*}} : (tensor<?x3xf32>) -> tensor<2x3xf32>
graph.graph @refining(%x: tensor<?x3xf32>) -> tensor<2x3xf32> {
  %a = graph.identity %x : (tensor<?x3xf32>) -> tensor<2x3xf32>
  graph.net_output %a : tensor<2x3xf32>
}

// -----

// Tests that an Identity carrying a control edge (operands after the first) stays: its users
// have no other place for the edge; a plain one beside it goes.

// CHECK-LABEL: graph.graph @control_edge
// CHECK-NEXT:    %[[E:.*]] = graph.exp %x
// CHECK-NEXT:    %[[U:.*]] = graph.identity %v, %[[E]] {node_name = "v_after_e"}
// CHECK-NEXT:    %[[S:.*]] = graph.add %[[U]], %v
// CHECK-NEXT:    graph.net_output %[[S]], %[[E]]
graph.graph @control_edge(%v: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = graph.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %u = graph.identity %v, %e {node_name = "v_after_e"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %p = graph.identity %v : (tensor<4xf32>) -> tensor<4xf32>
  %s = graph.add %u, %p : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %s, %e : tensor<4xf32>, tensor<4xf32>
}
