// `ge-compile` is a named pipeline: ge-opt expands it into its stages, ordinary passes.
// (cmp, not diff: lit's out-of-process `diff` builtin sets PYTHONPATH to lit's own folder for
// every later RUN line of the file, TestRunner.py, which would run another gedialects.)
// RUN: ge-opt %s -p 'ge-compile{input-shape="x:2,3"}' --print-between-passes | filecheck %s --check-prefix=STAGES
// RUN: ge-opt %s -p 'ge-compile{input-shape="x:2,3"}' -o %t.pipeline.mlir
// RUN: ge-opt %s -p 'ge-infer-shapes{input-shape="x:2,3"},ge-verify-graph,ge-convert-for-to-while,ge-split-variables-into-subgraphs,ge-normalize-conds,ge-fuse-quant,ge-fold-constants,ge-optimize-original-graph,ge-prepare-variables,ge-partition-stage,ge-place-engines,ge-update-hostcpu-engine,ge-partition-dynamic-shape,ge-place-engines,ge-partition-engine{skip-partitioned=true},ge-optimize-subgraphs,ge-merge-engine-partitions,ge-optimize-whole-graph,ge-delete-variable-refs,ge-convert-graph-to-ascend,ge-assign-streams,ge-plan-memory' -o %t.stages.mlir
// RUN: cmp %t.pipeline.mlir %t.stages.mlir
// RUN: xdsl-opt %s -p 'ge-compile{input-shape="x:2,3"}' -o %t.xdsl.mlir
// RUN: cmp %t.pipeline.mlir %t.xdsl.mlir
// RUN: ge-opt %s -p 'ge-compile{input-shape="x:-1,3" dynamic-batch-size="1,4" hybrid=true}' --print-between-passes | filecheck %s --check-prefix=GEARS
// RUN: ge-opt %s -p 'ge-compile{input-shape="x:2,3" iterations-per-loop=2 fold=false fusion=false}' --print-between-passes | filecheck %s --check-prefix=SINK
// RUN: ge-opt %s -p 'ge-compile{input-shape="x:2,3" partition-static=false}' --print-between-passes | filecheck %s --check-prefix=STATIC
// RUN: ge-opt %s -p 'ge-compile{partition-static=false}' --print-between-passes | filecheck %s --check-prefix=DYNAMIC
// RUN: ge-opt %s -p 'ge-compile{input-shape="x:2,3" formats=false}' --print-between-passes | filecheck %s --check-prefix=NO-FORMATS
// RUN: ge-opt %s -p 'ge-compile{input-shape="x:2,3"},cse' --time-passes -o %t.timed.mlir 2>&1 | filecheck %s --check-prefix=TIME
// RUN: not ge-opt %s -p 'ge-compile{bogus=1}' 2>&1 | filecheck %s --check-prefix=BAD-NAME
// RUN: not ge-opt %s -p 'ge-compile{multi-stream=3}' 2>&1 | filecheck %s --check-prefix=BAD-VALUE
// RUN: not ge-opt %s -p 'ge-compile{hybrid=true}' 2>&1 | filecheck %s --check-prefix=HYBRID
// RUN: not ge-opt %s -p 'ge-compile{iterations-per-loop=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not ge-opt %s -p 'ge-compile{input-shape="x:-1,3" dynamic-batch-size="4"}' 2>&1 | filecheck %s --check-prefix=ONE-GEAR

graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}) -> (tensor<?x3xf32> {node_name = "y"}) {
  %w = graph.const dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
  %m = graph.mul %x, %w : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %r = graph.relu %m : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %r : tensor<?x3xf32>
}

// The stages in GE's order, the IR printed after each (the last one is the output); the
// same module as the stages spelled out, and as stock xdsl-opt running ge-compile as one pass.
// GE's OptimizeSubgraph order: stage partition (nothing to do here), placement, the host-CPU
// update, the dynamic-shape partition and a second placement, then the engine partition,
// each engine's subgraphs optimised by its optimiser, the merge.
// STAGES-LABEL: IR after ge-infer-shapes:
// STAGES: graph.graph @main(%x: tensor<2x3xf32>
// STAGES-LABEL: IR after ge-verify-graph:
// STAGES-LABEL: IR after ge-fuse-quant:
// STAGES-LABEL: IR after ge-fold-constants:
// STAGES-LABEL: IR after ge-optimize-original-graph:
// STAGES-LABEL: IR after ge-partition-stage:
// STAGES-LABEL: IR after ge-place-engines:
// STAGES: graph.mul {{.*}}_engine_name = "AIcoreEngine"
// STAGES-LABEL: IR after ge-update-hostcpu-engine:
// STAGES-LABEL: IR after ge-partition-dynamic-shape:
// STAGES: _dynamic_shape_partitioned = false
// STAGES-LABEL: IR after ge-place-engines:
// STAGES: graph.net_output {_engine_name = "DNN_VM_GE_LOCAL"}
// STAGES-LABEL: IR after ge-partition-engine:
// STAGES: partition.partitioned_call @partition0_rank0_inputNodeGraph(%x)
// STAGES: graph.graph @partition0_rank1_new_sub_graph2() attributes {_engine_name = "AIcoreEngine"}
// STAGES-LABEL: IR after ge-optimize-subgraphs:
// STAGES-LABEL: IR after ge-merge-engine-partitions:
// STAGES-NOT: partition.
// STAGES-LABEL: IR after ge-optimize-whole-graph:
// STAGES-LABEL: IR after ge-convert-graph-to-ascend:
// STAGES: ascend.model @main
// STAGES-LABEL: IR after ge-assign-streams:
// STAGES: ascend.output "y" arena[1536] : tensor<2x3xf32>
// STAGES-NOT: IR after
// STAGES: ascend.model @main arena_size 2048 weight_size 512 {
// STAGES-NEXT: ascend.stream 0 engine "AIcoreEngine"
// STAGES-NEXT: ascend.weight arena[0] = dense<[1.000000e+00, -2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// STAGES-NEXT: ascend.input "x" arena[512] : tensor<2x3xf32>
// STAGES-NEXT: ascend.output "y" arena[1024] : tensor<2x3xf32>
// STAGES-NEXT: ascend.kernel "Mul" "Mul_0" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<2x3xf32>, arena[0] : tensor<3xf32>) outs(arena[1536] : tensor<2x3xf32>)
// STAGES-NEXT: ascend.kernel "Relu" "Relu_0" engine "AIcoreEngine" stream 0 ins(arena[1536] : tensor<2x3xf32>) outs(arena[1024] : tensor<2x3xf32>)
// STAGES-NEXT: ascend.end_graph stream 0

// Gear options put the gear expansion first; hybrid keeps the fully dynamic model.
// GEARS-LABEL: IR after ge-expand-multibatch:
// GEARS: _hybrid_dynamic_graph = @main_dynamic
// GEARS-LABEL: IR after ge-infer-shapes:
// GEARS-LABEL: IR after ge-verify-graph:
// GEARS-LABEL: IR after ge-fold-constants:
// GEARS-LABEL: IR after ge-optimize-original-graph:
// GEARS-LABEL: IR after ge-place-engines:
// GEARS-LABEL: IR after ge-partition-dynamic-shape:
// GEARS-LABEL: IR after ge-partition-engine:
// GEARS-LABEL: IR after ge-merge-engine-partitions:
// GEARS-LABEL: IR after ge-convert-graph-to-ascend:
// GEARS-LABEL: IR after ge-assign-streams:
// GEARS-NOT: IR after
// GEARS: ascend.model @main_dynamic arena_size
// GEARS: ascend.dynamic_kernel "Mul" "Mul_0"
// GEARS: ascend.model @main arena_size {{[0-9]+}} weight_size {{[0-9]+}} attributes {_batch_num = 2 : i64
// GEARS: ascend.label_switch_by_index

// Without folding and fusion those stages are gone (AI Core's ge-fuse was the only pass of the
// original-graph hooks); iterations-per-loop > 1 ends in the sink.
// SINK-LABEL: IR after ge-infer-shapes:
// SINK-LABEL: IR after ge-verify-graph:
// SINK-NOT: IR after ge-fold-constants:
// SINK-NOT: IR after ge-optimize-original-graph:
// SINK-LABEL: IR after ge-place-engines:
// SINK-LABEL: IR after ge-partition-dynamic-shape:
// SINK-LABEL: IR after ge-convert-graph-to-ascend:
// SINK-LABEL: IR after ge-assign-streams:
// SINK-LABEL: IR after ge-plan-memory:
// SINK: ascend.model @main arena_size 2048 weight_size 512 {
// SINK-NOT: IR after
// SINK: ascend.model @main arena_size {{[0-9]+}} weight_size {{[0-9]+}} attributes {iterations_per_loop = 2 : i64}

// formats=false: AI Core's format passes are left out, and with them the whole-graph hook
// (its one built-in pass is AI Core's weight fold).
// NO-FORMATS-LABEL: IR after ge-merge-engine-partitions:
// NO-FORMATS-NOT: IR after ge-optimize-whole-graph:
// NO-FORMATS-LABEL: IR after ge-convert-graph-to-ascend:

// partition-static=false (the Session's choice): a static module is not marked; a dynamic
// one is partitioned as always.
// STATIC-LABEL: IR after ge-partition-dynamic-shape:
// STATIC-NOT: _dynamic_shape_partitioned
// STATIC-LABEL: IR after ge-convert-graph-to-ascend:
// DYNAMIC-LABEL: IR after ge-partition-dynamic-shape:
// DYNAMIC: graph.graph @main({{.*}}_dynamic_shape_partitioned = true
// DYNAMIC: partition.partitioned_call @main_sub_1_unknow
// DYNAMIC-LABEL: IR after ge-convert-graph-to-ascend:
// DYNAMIC: ascend.dynamic_kernel "Mul" "Mul_0"

// --time-passes: MLIR's execution time report, each stage under its pipeline, on stderr.
// TIME-LABEL: ... Execution time report ...
// TIME: Total Execution Time: {{[0-9]+\.[0-9]+}} seconds
// TIME: ----Wall Time----  ----Name----
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Parser
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  'ge-compile' Pipeline
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-infer-shapes
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-verify-graph
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-convert-for-to-while
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-split-variables-into-subgraphs
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-normalize-conds
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-fuse-quant
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-fold-constants
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-optimize-original-graph
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-prepare-variables
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-partition-stage
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-place-engines
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-update-hostcpu-engine
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-partition-dynamic-shape
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-place-engines (2)
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-partition-engine
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-optimize-subgraphs
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-merge-engine-partitions
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-optimize-whole-graph
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-delete-variable-refs
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-convert-graph-to-ascend
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-assign-streams
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)    ge-plan-memory
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  cse
// TIME-NEXT: {{[0-9]+\.[0-9]+}} ({{ *[0-9]+\.[0-9]}}%)  Output
// TIME-NEXT: {{[0-9]+\.[0-9]+}} (100.0%)  Total

// BAD-NAME-LABEL: error: bad pass pipeline: ge-compile has no option 'bogus' (its options: input-shape,
// BAD-NAME-SAME: partition-static, iterations-per-loop, skip-passes, symbolic-gears; see ge-opt --list-passes)
// BAD-VALUE-LABEL: error: bad pass pipeline: ge-compile{multi-stream=3}: option 'multi-stream' expects a bool (true or false), got '3'
// HYBRID-LABEL: error: ge-compile: hybrid needs gears: give dynamic-batch-size, dynamic-image-size or dynamic-dims
// ZERO-LABEL: error: ge-compile: iterations-per-loop must be at least 1, got 0
// ONE-GEAR-LABEL: error: ge-expand-multibatch: E10035: --dynamic_batch_size, --dynamic_image_size, or --dynamic_dims has 1 profiles, which is less than the minimum 2.
