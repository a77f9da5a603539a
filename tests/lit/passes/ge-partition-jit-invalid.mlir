// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'ge-partition-jit{nodes=a,c}' | filecheck %s --check-prefix=DEPENDS
// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'ge-partition-jit{nodes=a,nope}' | filecheck %s --check-prefix=NAME
// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'ge-partition-jit{nodes=out}' | filecheck %s --check-prefix=NETOUTPUT
// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'ge-partition-jit{nodes=x}' | filecheck %s --check-prefix=EMPTY
// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'ge-partition-jit' | filecheck %s --check-prefix=OPTION
// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'ge-partition-jit{known=all}' | filecheck %s --check-prefix=KNOWN
// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'ge-partition-jit{known=auto}' | filecheck %s --check-prefix=AUTO

// Tests the refusals of ge-partition-jit: a known set that reads the remaining part (GE
// CheckNodesContainsCycle; the message names both nodes), names that are not nodes, the
// NetOutput, a set of Data nodes only (GE: empty inferred set), missing or bad options, and
// known=auto on a graph with no static node.

graph.graph @g(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = graph.relu %x {node_name = "a"} : (tensor<?xf32>) -> tensor<?xf32>
  %b = graph.neg %a {node_name = "b"} : (tensor<?xf32>) -> tensor<?xf32>
  %c = graph.abs %b {node_name = "c"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output {node_name = "out"} %c : tensor<?xf32>
}

// DEPENDS: ge-partition-jit: @g: known node 'c' reads 'b', which is not known: the sliced graph cannot depend on the remaining graph
// NAME: ge-partition-jit: @g: no node named 'nope'
// NETOUTPUT: ge-partition-jit: @g: 'out' is the NetOutput, which the remaining graph keeps
// EMPTY: ge-partition-jit: @g: the known node set is empty
// OPTION: ge-partition-jit: give either nodes=<names> or known=auto
// KNOWN: ge-partition-jit: known must be 'auto', got 'all'
// AUTO: ge-partition-jit: @g: no node has static shapes
