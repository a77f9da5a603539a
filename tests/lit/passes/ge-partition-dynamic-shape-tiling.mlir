// RUN: ge-opt %s --split-input-file -p 'ge-partition-dynamic-shape{static-model-ops-lower-limit=1}' | filecheck %s

// Tests DSP's tiling-dependency rule (GE `JudgeUnknownShapeForTilingDependNode`, op table
// `TILING_DEPENDS`): a Tile whose multiples come from a Data is unknown-shape although every
// shape is known, and gets `_force_unknown_shape`; the Relu before it stays known.

graph.graph @tile_from_data(%x: tensor<2x3xf32> {node_name = "x"}, %m: tensor<2xi64> {node_name = "m"}) -> tensor<4x6xf32> {
  %r = graph.relu %x {node_name = "r", _engine_name = "AIcoreEngine"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = graph.tile %r, %m {node_name = "t", _engine_name = "AIcoreEngine"} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  graph.net_output %t : tensor<4x6xf32>
}

// CHECK-LABEL: graph.graph @tile_from_data(
// CHECK:         partition.partitioned_call @tile_from_data_sub_0_know
// CHECK:         partition.partitioned_call @tile_from_data_sub_1_unknow
// CHECK-LABEL: graph.graph @tile_from_data_sub_0_know(
// CHECK:         graph.relu
// CHECK-LABEL: graph.graph @tile_from_data_sub_1_unknow(
// CHECK:         graph.tile {{.*}}_force_unknown_shape = true

// -----

// Tests that Const multiples leave the Tile known: the graph is not partitioned.

graph.graph @tile_from_const(%x: tensor<2x3xf32> {node_name = "x"}) -> tensor<4x6xf32> {
  %m = graph.const dense<[2, 2]> : tensor<2xi64>
  %t = graph.tile %x, %m {node_name = "t", _engine_name = "AIcoreEngine"} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  graph.net_output %t : tensor<4x6xf32>
}

// CHECK-LABEL: graph.graph @tile_from_const(
// CHECK-SAME:    _dynamic_shape_partitioned = false
// CHECK-NOT:     _force_unknown_shape
// CHECK:         graph.net_output
