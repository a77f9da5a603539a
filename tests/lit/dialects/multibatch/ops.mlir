// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests the root MultiBatchClonePass builds for `--dynamic_batch_size="1,4"`: the current batch
// is looked up in the gear table by map_index and selects one of two static branches.

// CHECK-LABEL: graph.graph @Batch_0
// CHECK-SAME:    (%[[X:.*]]: tensor<1x3xf32>, %[[W:.*]]: tensor<3xf32>) -> tensor<1x3xf32>
graph.graph @Batch_0(%x: tensor<1x3xf32>, %w: tensor<3xf32>) -> tensor<1x3xf32> {
  graph.net_output %x : tensor<1x3xf32>
}

// CHECK-LABEL: graph.graph @Batch_1
// CHECK-SAME:    (%[[X:.*]]: tensor<4x3xf32>, %[[W:.*]]: tensor<3xf32>) -> tensor<4x3xf32>
graph.graph @Batch_1(%x: tensor<4x3xf32>, %w: tensor<3xf32>) -> tensor<4x3xf32> {
  graph.net_output %x : tensor<4x3xf32>
}

// CHECK-LABEL: graph.graph @root
// CHECK-SAME:    (%[[X:.*]]: tensor<?x3xf32>, %[[DIMS:.*]]: tensor<1xi32>) -> tensor<?x3xf32>
// CHECK-NEXT:    %[[GEARS:.*]] = graph.const dense<[1, 4]> : tensor<2xi32>
// CHECK-NEXT:    %[[W:.*]] = graph.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[I:.*]] = multibatch.map_index %[[DIMS]], %[[GEARS]] : (tensor<1xi32>, tensor<2xi32>) -> tensor<i32>
// CHECK-NEXT:    %[[R:.*]] = multibatch.case %[[I]], %[[X]], %[[W]] branches [@Batch_0, @Batch_1] {_batch_num = 2 : i64, _pred_value_0 = array<i64: 1>, _pred_value_1 = array<i64: 4>, mbatch_dynamic_type = 1 : i64, user_designate_shape_order = ["x"]} : (tensor<i32>, tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT:    graph.net_output %[[R]] : tensor<?x3xf32>

// GENERIC-LABEL: "graph.graph"() <{sym_name = "root"
// GENERIC:         "multibatch.map_index"(%{{.*}}, %{{.*}}) : (tensor<1xi32>, tensor<2xi32>) -> tensor<i32>
// GENERIC-NEXT:    "multibatch.case"(%{{.*}}, %{{.*}}, %{{.*}}) <{branches = [@Batch_0, @Batch_1]}> {_batch_num = 2 : i64
graph.graph @root(%x: tensor<?x3xf32>, %dims: tensor<1xi32>) -> tensor<?x3xf32> {
  %gears = graph.const dense<[1, 4]> : tensor<2xi32>
  %w = graph.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %i = multibatch.map_index %dims, %gears : (tensor<1xi32>, tensor<2xi32>) -> tensor<i32>
  %r = multibatch.case %i, %x, %w branches [@Batch_0, @Batch_1] {_batch_num = 2 : i64, _pred_value_0 = array<i64: 1>, _pred_value_1 = array<i64: 4>, mbatch_dynamic_type = 1 : i64, user_designate_shape_order = ["x"]} : (tensor<i32>, tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  graph.net_output %r : tensor<?x3xf32>
}

// -----

// Tests GetNext sink: the gear dims come from the input shapes through get_dynamic_dims
// (input 0 is `[-1, 3]`, input 1 `[-1, -1]`, input 2 a scalar); a one-element index tensor and
// a Case with no inputs and two results.

// CHECK-LABEL: graph.graph @only
// CHECK-LABEL: graph.graph @root
// CHECK-SAME:    (%[[S0:.*]]: tensor<2xi64>, %[[S1:.*]]: tensor<2xi32>, %[[S2:.*]]: tensor<0xi64>, %[[GEARS:.*]]: tensor<?xi32>)
// CHECK-NEXT:    %[[D:.*]] = multibatch.get_dynamic_dims %[[S0]], %[[S1]], %[[S2]] shape_info [2, -1, 3, 2, -1, -1, 0] N 3 : (tensor<2xi64>, tensor<2xi32>, tensor<0xi64>) -> tensor<3xi32>
// CHECK-NEXT:    %[[I:.*]] = multibatch.map_index %[[D]], %[[GEARS]] : (tensor<3xi32>, tensor<?xi32>) -> tensor<1xi32>
// CHECK-NEXT:    %[[R0:.*]], %[[R1:.*]] = multibatch.case %[[I]] branches [@only] : (tensor<1xi32>) -> (tensor<2xf32>, tensor<3xi32>)

// GENERIC-LABEL: "graph.graph"() <{sym_name = "root"
// GENERIC-NEXT:    ^bb0
// GENERIC-NEXT:    "multibatch.get_dynamic_dims"(%{{.*}}, %{{.*}}, %{{.*}}) <{shape_info = array<i64: 2, -1, 3, 2, -1, -1, 0>, N = 3 : i64}> : (tensor<2xi64>, tensor<2xi32>, tensor<0xi64>) -> tensor<3xi32>
graph.graph @only() -> (tensor<2xf32>, tensor<3xi32>) {
  %a = graph.const dense<[1.0, 2.0]> : tensor<2xf32>
  %b = graph.const dense<[1, 2, 3]> : tensor<3xi32>
  graph.net_output %a, %b : tensor<2xf32>, tensor<3xi32>
}
graph.graph @root(%s0: tensor<2xi64>, %s1: tensor<2xi32>, %s2: tensor<0xi64>, %gears: tensor<?xi32>) -> (tensor<2xf32>, tensor<3xi32>, tensor<3xi32>) {
  %d = multibatch.get_dynamic_dims %s0, %s1, %s2 shape_info [2, -1, 3, 2, -1, -1, 0] N 3 : (tensor<2xi64>, tensor<2xi32>, tensor<0xi64>) -> tensor<3xi32>
  %i = multibatch.map_index %d, %gears : (tensor<3xi32>, tensor<?xi32>) -> tensor<1xi32>
  %r:2 = multibatch.case %i branches [@only] : (tensor<1xi32>) -> (tensor<2xf32>, tensor<3xi32>)
  graph.net_output %r#0, %r#1, %d : tensor<2xf32>, tensor<3xi32>, tensor<3xi32>
}
