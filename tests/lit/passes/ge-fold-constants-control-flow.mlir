// RUN: ge-opt %s --split-input-file -p ge-fold-constants | filecheck %s

// Tests GE's CondRemovePass in ge-fold-constants: an If whose cond folds to a constant (here
// Less of two constants, folded first) becomes a PartitionedCall of the branch it takes; the
// other branch goes, and so does the subgraph only that branch called; the taken branch's
// _parent_node_index shifts from d+1 to d.

// CHECK-LABEL: graph.graph @small(%{{.*}}: tensor<2xf32> {_parent_node_index = 0 : i64}) -> tensor<2xf32>
// CHECK-NOT:   graph.graph @big
// CHECK-NOT:   graph.graph @inner
// CHECK-LABEL: graph.graph @main
// CHECK-NOT:     graph.if
// CHECK:         %[[R:.*]] = partition.partitioned_call @small(%{{.*}}) {node_name = "branch"} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:    graph.net_output %[[R]]
graph.graph @small(%x: tensor<2xf32> {_parent_node_index = 1 : i64}) -> tensor<2xf32> {
  %y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @inner(%x: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @big(%x: tensor<2xf32> {_parent_node_index = 1 : i64}) -> tensor<2xf32> {
  %y = partition.partitioned_call @inner(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = graph.const dense<3> : tensor<i32>
  %b = graph.const dense<2> : tensor<i32>
  %c = graph.less %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %r = graph.if %c, %x then_branch @big else_branch @small {node_name = "branch"} : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests that a branch another If still calls stays (and keeps its indices), and that an If
// whose cond is not constant is left alone.

// CHECK-LABEL: graph.graph @t(%{{.*}}: tensor<2xf32> {_parent_node_index = 1 : i64})
// CHECK-LABEL: graph.graph @e
// CHECK-LABEL: graph.graph @shared
// CHECK:         partition.partitioned_call @t(%{{.*}})
// CHECK:         graph.if %{{.*}}, %{{.*}} then_branch @t else_branch @e
graph.graph @t(%x: tensor<2xf32> {_parent_node_index = 1 : i64}) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @e(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.neg %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @shared(%x: tensor<2xf32>, %c: tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>) {
  %k = graph.const dense<[1.0]> : tensor<1xf32>
  %r = graph.if %k, %x then_branch @t else_branch @e : (tensor<1xf32>, tensor<2xf32>) -> tensor<2xf32>
  %s = graph.if %c, %x then_branch @t else_branch @e : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r, %s : tensor<2xf32>, tensor<2xf32>
}
