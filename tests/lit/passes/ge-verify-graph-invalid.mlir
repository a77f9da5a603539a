// RUN: ge-opt %s --split-input-file --disable-verify --verify-diagnostics -p 'ge-verify-graph{device-memory=12291}' | filecheck %s

// The graphs stand for graphs built with the Python API, which nothing verified before the
// pass: hence --disable-verify, so that ge-verify-graph is what finds the problems.

// Tests that a graph that does not fit in device-memory names the peak and the largest tensors.

graph.graph @too_big(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %w = graph.const dense<2.0> : tensor<1xf32>
  %a = graph.exp %x {node_name = "a"} : (tensor<1024xf32>) -> tensor<1024xf32>
  %b = graph.relu %a {node_name = "b"} : (tensor<1024xf32>) -> tensor<1024xf32>
  %c = graph.add %a, %b {node_name = "c"} : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %d = graph.mul %c, %w : (tensor<1024xf32>, tensor<1xf32>) -> tensor<1024xf32>
  graph.net_output %d : tensor<1024xf32>
}

// CHECK: ge-verify-graph: @too_big: needs about 12292 bytes (weights 4, peak activations 12288 at 'graph.add' "c"), more than device-memory=12291; largest tensors: 'graph.add' "c" : tensor<1024xf32> (4096 B); 'graph.exp' "a" : tensor<1024xf32> (4096 B); 'graph.relu' "b" : tensor<1024xf32> (4096 B)

// -----

// Tests that a cycle is reported with the ops on it, in data-flow order.

graph.graph @cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.add %x, %c {node_name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = graph.relu %a {node_name = "b"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.neg %b {node_name = "c"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %c : tensor<4xf32>
}

// CHECK: ge-verify-graph: @cycle: the graph has a cycle: 'graph.add' "a" -> 'graph.relu' "b" -> 'graph.neg' "c" -> 'graph.add' "a"

// -----

// Tests that an acyclic body out of topological order is named, not called a cycle.

graph.graph @unsorted(%x: tensor<4xf32>) -> tensor<4xf32> {
  %b = graph.relu %a {node_name = "b"} : (tensor<4xf32>) -> tensor<4xf32>
  %a = graph.neg %x {node_name = "a"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %b : tensor<4xf32>
}

// CHECK: ge-verify-graph: @unsorted: 'graph.relu' "b" uses the result of 'graph.neg' "a" before it is defined (no cycle, but the body is not in topological order)

// -----

// Tests that subgraphs calling each other are a cycle.

graph.graph @root(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = partition.partitioned_call @ping(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @ping(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = partition.partitioned_call @pong(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @pong(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = partition.partitioned_call @ping(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK: ge-verify-graph: graphs call each other in a cycle: @ping -> @pong -> @ping

// -----

// Tests that an op failing its verifier is reported with the graph and the node.

graph.graph @bad_op(%x: tensor<4xf32>, %y: tensor<3xf32>) -> tensor<4xf32> {
  %s = graph.add %x, %y {node_name = "sum"} : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  graph.net_output %s : tensor<4xf32>
}

// CHECK: ge-verify-graph: @bad_op: 'graph.add' "sum": 'graph.add' operand shapes [4] and [3] do not broadcast

// -----

// Tests that an op that is not a GE node type is unsupported.

graph.graph @foreign(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = "test.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %t : tensor<4xf32>
}

// CHECK: ge-verify-graph: @foreign: 'test.op' %t is not a GE node type (unsupported op)
