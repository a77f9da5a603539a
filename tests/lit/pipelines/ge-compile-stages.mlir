// RUN: ge-opt %s -p ge-compile --print-between-passes | filecheck %s
// RUN: ge-opt %s -p ge-compile | filecheck %s --check-prefix=MODEL

// Tests pipeline stages through the whole compile: ge-partition-stage outlines the two
// stages, every later graph pass keeps the calls (DSP treats them as STAGE clusters), and
// ge-convert-graph-to-ascend makes each stage a static model of its own, run by an
// ascend.stage task of the root after the previous stage's sync token; ge-plan-memory plans
// each model's arena on its own.

graph.graph @two(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = graph.const dense<2.0> : tensor<2x4xf32> {node_name = "w"}
  %a = graph.mul %x, %w {node_name = "a", _stage_level = 0} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = graph.relu %a {node_name = "b", _stage_level = 0} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %c = graph.neg %b {node_name = "c", _stage_level = 1} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %d = graph.add %c, %x {node_name = "d", _stage_level = 1} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  graph.net_output %d : tensor<2x4xf32>
}

// CHECK-LABEL: IR after ge-partition-stage:
// CHECK:         partition.partitioned_call @Subgraph_Level_0(%x) {node_name = "Subgraph_Level_0_PartitionedCall", _stage_level = 0 : i64, _force_unknown_shape = true}
// CHECK-NEXT:    partition.partitioned_call @Subgraph_Level_1
// CHECK-LABEL: IR after ge-delete-variable-refs:
// CHECK:         partition.partitioned_call @Subgraph_Level_0(%x)
// CHECK-NEXT:    partition.partitioned_call @Subgraph_Level_1
// CHECK-LABEL: IR after ge-convert-graph-to-ascend:
// CHECK-NEXT:  builtin.module {
// CHECK-NEXT:    ascend.model @two
// CHECK-NOT:       ascend.kernel
// CHECK:           ascend.stage @Subgraph_Level_0 "Subgraph_Level_0_PartitionedCall" level 0 stream 0 after() {{.*}} sync(arena[[[T:[0-9]+]]] : tensor<i32>)
// CHECK-NEXT:      ascend.stage @Subgraph_Level_1 "Subgraph_Level_1_PartitionedCall" level 1 stream 0 after(arena[[[T]]] : tensor<i32>) {{.*}} sync()
// CHECK-NEXT:      ascend.end_graph stream 0
// CHECK-NEXT:    }
// CHECK-NEXT:    ascend.model @Subgraph_Level_0 arena_size {{[0-9]+}} weight_size 512 {
// CHECK:           ascend.kernel "Mul" "a"
// CHECK:           ascend.kernel "Relu" "b"
// CHECK:         ascend.model @Subgraph_Level_1 arena_size {{[0-9]+}} weight_size 0 {
// CHECK:           ascend.kernel "Neg" "c"
// CHECK:           ascend.kernel "Add" "d"

// MODEL-LABEL: ascend.model @two arena_size 2048 weight_size 0 {
// MODEL:         ascend.stage @Subgraph_Level_0 "Subgraph_Level_0_PartitionedCall" level 0 stream 0 after() ins(arena[0] : tensor<2x4xf32>) outs(arena[1024] : tensor<2x4xf32>) sync(arena[1536] : tensor<i32>)
// MODEL-NEXT:    ascend.stage @Subgraph_Level_1 "Subgraph_Level_1_PartitionedCall" level 1 stream 0 after(arena[1536] : tensor<i32>) ins(arena[1024] : tensor<2x4xf32>, arena[0] : tensor<2x4xf32>) outs(arena[512] : tensor<2x4xf32>) sync()
// MODEL-LABEL: ascend.model @Subgraph_Level_0 arena_size 2048 weight_size 512 {
// MODEL:         ascend.kernel "Mul" "a" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<2x4xf32>, arena[0] : tensor<2x4xf32>) outs(arena[1536] : tensor<2x4xf32>)
// MODEL-NEXT:    ascend.kernel "Relu" "b" engine "AIcoreEngine" stream 0 ins(arena[1536] : tensor<2x4xf32>) outs(arena[1024] : tensor<2x4xf32>)
// MODEL-LABEL: ascend.model @Subgraph_Level_1 arena_size 2048 weight_size 0 {
// MODEL:         ascend.kernel "Neg" "c" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<2x4xf32>) outs(arena[1536] : tensor<2x4xf32>)
// MODEL-NEXT:    ascend.kernel "Add" "d" engine "AIcoreEngine" stream 0 ins(arena[1536] : tensor<2x4xf32>, arena[512] : tensor<2x4xf32>) outs(arena[1024] : tensor<2x4xf32>)
