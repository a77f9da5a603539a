// RUN: ge-opt %s -p ge-partition-stage | filecheck %s

// Tests GE's StagePartitioner with functional control flow: it cuts the root graph only, so a
// While with _stage_level = 0 moves into Subgraph_Level_0 whole, still naming its cond and body,
// the untagged ancestor `a` joins it, and the _stage_level = 5 on a node of the body is no
// stage (no Subgraph_Level_5: the body is a subgraph, not the root). The tail (`t`) is stage 1.

graph.graph @cond(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<4xf32> {_parent_node_index = 1 : i64}) -> (tensor<i32>, tensor<4xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one {node_name = "step"} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = graph.add %x, %x {node_name = "double", _stage_level = 5} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %j, %y : tensor<i32>, tensor<4xf32>
}
graph.graph @main(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.relu %x {node_name = "a"} : (tensor<4xf32>) -> tensor<4xf32>
  %r:2 = graph.while %i, %a cond @cond body @body {node_name = "loop", _stage_level = 0} : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  %t = graph.neg %r#1 {node_name = "t"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %t : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @body
// CHECK:         graph.add {{.*}}node_name = "double", _stage_level = 5
// CHECK-LABEL: graph.graph @main
// CHECK-NEXT:    %[[L:.*]] = partition.partitioned_call @Subgraph_Level_0(%x, %i) {{.*}}_stage_level = 0 : i64, _force_unknown_shape = true
// CHECK-NEXT:    %[[T:.*]] = partition.partitioned_call @Subgraph_Level_1(%[[L]]) {{.*}}_stage_level = 1 : i64
// CHECK-NEXT:    graph.net_output %[[T]]
// CHECK-LABEL: graph.graph @Subgraph_Level_0
// CHECK-NEXT:    graph.relu {{.*}}node_name = "a", _stage_level = 0
// CHECK-NEXT:    graph.while {{.*}} cond @cond body @body {node_name = "loop", _stage_level = 0 : i64}
// CHECK-NEXT:    graph.net_output
// CHECK-LABEL: graph.graph @Subgraph_Level_1
// CHECK-NEXT:    graph.neg {{.*}}node_name = "t"
// CHECK-NOT:   Subgraph_Level_5
