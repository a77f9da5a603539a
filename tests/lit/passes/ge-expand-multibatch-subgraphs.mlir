// ge-expand-multibatch on graphs with subgraphs (GE's MultiBatchClonePass copies the whole graph
// per branch): every subgraph the root reaches is cloned per gear, named and node-named with
// the branch postfix, called by its gear's branch, and inferred with the gear's static shapes;
// the originals go (hybrid mode keeps them for its dynamic graph).
// RUN: ge-opt %s --split-input-file -p 'ge-expand-multibatch{input-shape="x:-1,3" dynamic-batch-size="1,4"}' | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-expand-multibatch{input-shape="x:-1,3" dynamic-batch-size="1,4" hybrid=true}' | filecheck %s --check-prefix=HYBRID

// An If: both branches per gear, static after inference.
// CHECK-LABEL: graph.graph @main(
// CHECK:         multibatch.case %{{.*}} branches [@Batch_0, @Batch_1]
// CHECK-LABEL: graph.graph @Batch_0(%x: tensor<1x3xf32>
// CHECK:         graph.if %{{.*}} then_branch @then_ascend_mbatch_batch_0 else_branch @else_ascend_mbatch_batch_0 {node_name = "if_ascend_mbatch_batch_0", _batch_label = "Batch_0"} : (tensor<i1>, tensor<1x3xf32>) -> tensor<1x3xf32>
// CHECK-LABEL: graph.graph @Batch_1(%x: tensor<4x3xf32>
// CHECK:         graph.if %{{.*}} then_branch @then_ascend_mbatch_batch_1 else_branch @else_ascend_mbatch_batch_1
// CHECK-LABEL: graph.graph @then_ascend_mbatch_batch_0(%x: tensor<1x3xf32> {node_name = "x_ascend_mbatch_batch_0", _parent_node_index = 1 : i64}) -> tensor<1x3xf32>
// CHECK-NEXT:    graph.relu %x {node_name = "relu_ascend_mbatch_batch_0", _batch_label = "Batch_0"} : (tensor<1x3xf32>) -> tensor<1x3xf32>
// CHECK-LABEL: graph.graph @else_ascend_mbatch_batch_0(
// CHECK-LABEL: graph.graph @then_ascend_mbatch_batch_1(%x: tensor<4x3xf32>
// CHECK-LABEL: graph.graph @else_ascend_mbatch_batch_1(%x: tensor<4x3xf32>
// CHECK-NOT:   graph.graph @then(
// CHECK-NOT:   graph.graph @else(
// HYBRID-DAG:   graph.graph @then(%x: tensor<?x3xf32>
// HYBRID-DAG:   graph.graph @else(%x: tensor<?x3xf32>
// HYBRID-LABEL: graph.graph @main_dynamic(
// HYBRID:         graph.if %{{.*}} then_branch @then else_branch @else
// HYBRID:       graph.graph @main(
// HYBRID-SAME:    _hybrid_dynamic_graph = @main_dynamic
// HYBRID:         multibatch.case %{{.*}} branches [@Batch_0, @Batch_1]

graph.graph @then(%x: tensor<?x3xf32> {node_name = "x", _parent_node_index = 1 : i64}) -> tensor<?x3xf32> {
  %r = graph.relu %x {node_name = "relu"} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %r : tensor<?x3xf32>
}
graph.graph @else(%x: tensor<?x3xf32> {node_name = "x", _parent_node_index = 1 : i64}) -> tensor<?x3xf32> {
  %r = graph.neg %x {node_name = "neg"} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %r : tensor<?x3xf32>
}
graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}) -> (tensor<?x3xf32> {node_name = "y"}) {
  %s = graph.reduce_sum %x {node_name = "sum"} : (tensor<?x3xf32>) -> tensor<f32>
  %z = graph.const dense<0.0> : tensor<f32> {node_name = "zero"}
  %c = graph.greater %s, %z {node_name = "positive"} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %y = graph.if %c, %x then_branch @then else_branch @else {node_name = "if"} : (tensor<i1>, tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %y : tensor<?x3xf32>
}

// -----

// A While whose body calls a subgraph, and a subgraph shared by cond and body: one copy per gear
// of each (the calls name the gear's copy), the carried shape static per gear.
// CHECK-LABEL: graph.graph @Batch_0(%x: tensor<1x3xf32>
// CHECK:         graph.while %{{.*}}, %{{.*}} cond @cond_ascend_mbatch_batch_0 body @body_ascend_mbatch_batch_0 {{.*}} : (tensor<i32>, tensor<1x3xf32>) -> (tensor<i32>, tensor<1x3xf32>)
// CHECK-LABEL: graph.graph @Batch_1(%x: tensor<4x3xf32>
// CHECK:         graph.while %{{.*}}, %{{.*}} cond @cond_ascend_mbatch_batch_1 body @body_ascend_mbatch_batch_1 {{.*}} : (tensor<i32>, tensor<4x3xf32>) -> (tensor<i32>, tensor<4x3xf32>)
// CHECK-DAG:   graph.graph @body_ascend_mbatch_batch_0(%i: tensor<i32> {{.*}}, %x: tensor<1x3xf32>
// CHECK-DAG:   partition.partitioned_call @step_ascend_mbatch_batch_0(%x) {{.*}} : (tensor<1x3xf32>) -> tensor<1x3xf32>
// CHECK-DAG:   graph.graph @step_ascend_mbatch_batch_0(%a: tensor<1x3xf32>) -> tensor<1x3xf32>
// CHECK-DAG:   graph.graph @step_ascend_mbatch_batch_1(%a: tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-DAG:   graph.graph @count_ascend_mbatch_batch_1(
// CHECK-NOT:   graph.graph @step(
// HYBRID:       graph.graph @step(%a: tensor<?x3xf32>
// HYBRID-LABEL: graph.graph @main_dynamic(
// HYBRID:         graph.while %{{.*}} cond @cond body @body

graph.graph @count(%i: tensor<i32>) -> tensor<i32> {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one {node_name = "inc"} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %j : tensor<i32>
}
graph.graph @step(%a: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %b = graph.add %a, %a {node_name = "dbl"} : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %b : tensor<?x3xf32>
}
graph.graph @cond(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<?x3xf32> {_parent_node_index = 1 : i64}) -> tensor<i32> {
  %j = partition.partitioned_call @count(%i) : (tensor<i32>) -> tensor<i32>
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %j, %n {node_name = "less"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %k = graph.cast %c dst_type i32 {node_name = "cast"} : (tensor<i1>) -> tensor<i32>
  graph.net_output %k : tensor<i32>
}
graph.graph @body(%i: tensor<i32> {_parent_node_index = 0 : i64}, %x: tensor<?x3xf32> {_parent_node_index = 1 : i64}) -> (tensor<i32>, tensor<?x3xf32>) {
  %j = partition.partitioned_call @count(%i) : (tensor<i32>) -> tensor<i32>
  %y = partition.partitioned_call @step(%x) {node_name = "first"} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %j, %y : tensor<i32>, tensor<?x3xf32>
}
graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}) -> (tensor<?x3xf32> {node_name = "y"}) {
  %i = graph.const dense<0> : tensor<i32> {node_name = "i"}
  %r:2 = graph.while %i, %x cond @cond body @body {node_name = "loop"} : (tensor<i32>, tensor<?x3xf32>) -> (tensor<i32>, tensor<?x3xf32>)
  graph.net_output %r#1 : tensor<?x3xf32>
}

// -----

// A branch with a data-dependent op keeps its `?` (it is partitioned into static and dynamic
// parts later); `_dynamic_output_dims` writes GE's -1 for the dims only the run knows.
// CHECK-LABEL: graph.graph @main(
// CHECK:         graph.net_output {_dynamic_output_dims = ["0,0,-1,2", "0,1,1,3", "1,0,-1,2", "1,1,4,3"]}
// CHECK-LABEL: graph.graph @Batch_0(
// CHECK:         graph.non_zero %{{.*}} transpose true {{.*}} : (tensor<1x3xf32>) -> tensor<?x2xi64>
// HYBRID-LABEL: graph.graph @main_dynamic(

graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}) -> (tensor<?x2xi64> {node_name = "idx"}, tensor<?x3xf32> {node_name = "y"}) {
  %nz = graph.non_zero %x transpose true {node_name = "nz"} : (tensor<?x3xf32>) -> tensor<?x2xi64>
  %y = graph.relu %x {node_name = "relu"} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %nz, %y : tensor<?x2xi64>, tensor<?x3xf32>
}
