// RUN: ge-opt %s -p ge-place-engines,ge-partition-engine | filecheck %s
// RUN: ge-opt %s -p ge-place-engines,ge-partition-engine,ge-merge-engine-partitions | filecheck %s --check-prefix=MERGED

// Tests GE's engine partitioning of functional control flow: If and For are GE-local NoOp
// kernels (For was placed on AI Core before), so each is a DNN_VM_GE_LOCAL cluster of the
// graph that holds it (For merges with the GE-local NetOutput it feeds), and every subgraph
// is partitioned on its own, as GE's EnginePartitioner does for GetAllSubgraphs: the branches
// and the body become partition<t> graphs of their own. Merging restores each graph.

graph.graph @then(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  %y = graph.relu %x {node_name = "t_relu"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @else(%x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<4xf32> {
  graph.net_output %x : tensor<4xf32>
}
graph.graph @fbody(%v: tensor<i32> {_parent_node_index = 0 : i64}, %acc: tensor<i32> {_parent_node_index = 3 : i64}) -> tensor<i32> {
  %s = graph.add %acc, %v {node_name = "f_add"} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %s : tensor<i32>
}
graph.graph @main(%c: tensor<i1>, %x: tensor<4xf32>, %a: tensor<i32>, %b: tensor<i32>, %d: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
  %e = graph.exp %x {node_name = "pre"} : (tensor<4xf32>) -> tensor<4xf32>
  %r = graph.if %c, %e then_branch @then else_branch @else {node_name = "branch"} : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
  %n = graph.neg %r {node_name = "post"} : (tensor<4xf32>) -> tensor<4xf32>
  %f = graph.for %a, %b, %d, %a body @fbody {node_name = "loop"} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %n, %f : tensor<4xf32>, tensor<i32>
}

// CHECK-LABEL: graph.graph @then
// CHECK-NEXT:    partition.partitioned_call @partition0_rank0_inputNodeGraph
// CHECK-NEXT:    partition.partitioned_call @partition0_rank1_new_sub_graph1
// CHECK-LABEL: graph.graph @partition0_rank1_new_sub_graph1() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         graph.relu {{.*}}node_name = "t_relu"
// CHECK-LABEL: graph.graph @else
// CHECK-NEXT:    partition.partitioned_call @partition1_rank0_inputNodeGraph
// CHECK-LABEL: graph.graph @fbody
// CHECK-NEXT:    partition.partitioned_call @partition2_rank0_inputNodeGraph
// CHECK-LABEL: graph.graph @partition2_rank1_new_sub_graph2() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         graph.add {{.*}}node_name = "f_add"
// CHECK-LABEL: graph.graph @main
// CHECK-LABEL: graph.graph @partition3_rank1_new_sub_graph5() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         graph.exp {{.*}}node_name = "pre"
// CHECK-LABEL: graph.graph @partition3_rank2_new_sub_graph6() attributes {_engine_name = "DNN_VM_GE_LOCAL"}
// CHECK:         graph.if {{.*}} then_branch @then else_branch @else {node_name = "branch", _engine_name = "DNN_VM_GE_LOCAL"}
// CHECK-NEXT:    partition.end
// CHECK-NEXT:    graph.net_output
// CHECK-LABEL: graph.graph @partition3_rank3_new_sub_graph7() attributes {_engine_name = "AIcoreEngine"}
// CHECK:         partition.place_holder
// CHECK-NEXT:    graph.neg {{.*}}node_name = "post"
// CHECK-LABEL: graph.graph @partition3_rank4_new_sub_graph8() -> (tensor<4xf32>, tensor<i32>) attributes {_engine_name = "DNN_VM_GE_LOCAL"}
// CHECK:         graph.for {{.*}} body @fbody {node_name = "loop", _engine_name = "DNN_VM_GE_LOCAL"}
// CHECK-NEXT:    graph.net_output

// MERGED-LABEL: graph.graph @then
// MERGED-NEXT:    graph.relu
// MERGED-NEXT:    graph.net_output
// MERGED-LABEL: graph.graph @fbody
// MERGED-NEXT:    graph.add
// MERGED-LABEL: graph.graph @main
// MERGED-NEXT:    graph.exp
// MERGED-NEXT:    graph.if {{.*}}_engine_name = "DNN_VM_GE_LOCAL"
// MERGED-NEXT:    graph.neg
// MERGED-NEXT:    graph.for {{.*}}_engine_name = "DNN_VM_GE_LOCAL"
// MERGED-NEXT:    graph.net_output
// MERGED-NOT:     partition
