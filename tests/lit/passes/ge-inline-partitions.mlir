// RUN: ge-opt %s --split-input-file -p ge-inline-partitions | filecheck %s

// Tests that calls are expanded in place (Data -> call operands, NetOutput -> call results),
// recursively, that a graph called twice is copied twice, and that callees disappear.

graph.graph @root(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = partition.partitioned_call @outer(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = partition.partitioned_call @inner(%a) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %b : tensor<4xf32>
}
graph.graph @outer(%p: tensor<4xf32>) -> tensor<4xf32> {
  %q = graph.relu %p {node_name = "outer_relu"} : (tensor<4xf32>) -> tensor<4xf32>
  %r = partition.partitioned_call @inner(%q) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @inner(%s: tensor<4xf32>) -> tensor<4xf32> {
  %t = graph.add %s, %s {node_name = "inner_add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %t : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @root(%x: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[Q:.*]] = graph.relu %x {node_name = "outer_relu"}
// CHECK-NEXT:    %[[T1:.*]] = graph.add %[[Q]], %[[Q]] {node_name = "inner_add"}
// CHECK-NEXT:    %[[T2:.*]] = graph.add %[[T1]], %[[T1]] {node_name = "inner_add"}
// CHECK-NEXT:    graph.net_output %[[T2]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-NEXT:  }

// -----

// Tests that a call whose callee is missing is refused by the verifier before the pass runs,
// and that a graph still referenced elsewhere (here by a case) is kept.

graph.graph @root2(%i: tensor<i32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = partition.partitioned_call @shared(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = multibatch.case %i, %x branches [@shared] : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %a, %b : tensor<4xf32>, tensor<4xf32>
}
graph.graph @shared(%p: tensor<4xf32>) -> tensor<4xf32> {
  %q = graph.relu %p : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %q : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @root2
// CHECK-NEXT:    %[[Q:.*]] = graph.relu %x
// CHECK-NEXT:    %[[B:.*]] = multibatch.case %i, %x branches [@shared]
// CHECK-NEXT:    graph.net_output %[[Q]], %[[B]]
// CHECK:       graph.graph @shared
