// RUN: ge-opt %s --split-input-file -p ge-select-formats | filecheck %s --check-prefix=SELECT
// RUN: ge-opt %s --split-input-file -p ge-select-formats,ge-fold-identity,ge-merge-trans-op-breadth,ge-eliminate-trans-op-symmetry,ge-merge-trans-op-depth | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-select-formats,ge-fold-identity,ge-merge-trans-op-breadth,ge-eliminate-trans-op-symmetry,ge-merge-trans-op-depth,ge-compile | filecheck %s --check-prefix=TASKS
// RUN: ge-opt %s --split-input-file -p ge-compile | filecheck %s --check-prefix=TASKS
// RUN: ge-opt %s --split-input-file -p ge-compile --print-between-passes | filecheck %s --check-prefix=HOOKS
// RUN: ge-opt %s --split-input-file -p 'ge-compile{skip-passes=ge-merge-trans-op-breadth}' | filecheck %s --check-prefix=NO-BREADTH
// RUN: ge-opt %s --split-input-file -p 'ge-compile{formats=false}' | filecheck %s --check-prefix=NCHW

// Tests the format flow on one input read by two convolutions with an Identity between two
// more: selection inserts a TransData per edge (two for the input, a pair around the
// Identity), breadth fusion merges the input's two, and once the Identity is folded the pair
// around it cancels (symmetry); the compiled model keeps two TransData tasks.
// SELECT-LABEL: graph.graph @flow
// SELECT-COUNT-5: graph.trans_data
// SELECT-NOT:     graph.trans_data
// CHECK-LABEL: graph.graph @flow
// CHECK:         %[[X5:.*]] = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0"
// CHECK-NOT:     graph.trans_data
// CHECK:         %[[A:.*]] = graph.conv2d %[[X5]]
// CHECK:         %[[B:.*]] = graph.conv2d %[[X5]]
// CHECK-NEXT:    %[[S:.*]] = graph.add %[[A]], %[[B]]
// CHECK:         %[[C:.*]] = graph.conv2d %[[S]]
// CHECK-NEXT:    %[[Y:.*]] = graph.trans_data %[[C]] src_format "NC1HWC0" dst_format "NCHW"
// CHECK-NEXT:    graph.net_output %[[Y]]
// ge-compile does the same itself: AI Core's OptimizeFusedGraph hook selects formats in its
// subgraph, where each conv reads the input through a PlaceHolder of its own (so two
// TransData of the input, three of weights, one of the output); after the merge the
// OptimizeWholeGraph hook folds the weights' TransData into FRACTAL_Z Consts and breadth
// fusion merges the input's two. Already selected, the module compiles to the same tasks.
// HOOKS-LABEL: IR after ge-optimize-subgraphs:
// HOOKS:         graph.graph @partition0_rank1_new_sub_graph{{[0-9]+}}() attributes {_engine_name = "AIcoreEngine"}
// HOOKS-COUNT-6: graph.trans_data
// HOOKS-NOT:     graph.trans_data
// HOOKS:         graph.net_output
// HOOKS-LABEL: IR after ge-optimize-whole-graph:
// HOOKS:         %[[X5:.*]] = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0"
// HOOKS-NEXT:    %[[W1:.*]] = graph.const {{.*}} : tensor<1x1x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [4, 3, 1, 1]>> {node_name = "w1_FRACTAL_Z"
// HOOKS-NEXT:    graph.conv2d %[[X5]], %[[W1]]
// HOOKS-NEXT:    %[[W2:.*]] = graph.const {{.*}} {node_name = "w2_FRACTAL_Z"
// HOOKS-NEXT:    graph.conv2d %[[X5]], %[[W2]]
// HOOKS-NEXT:    graph.add
// HOOKS-NEXT:    graph.const {{.*}} : tensor<1x1x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [4, 4, 1, 1]>> {node_name = "w3_FRACTAL_Z"
// HOOKS-NEXT:    %[[C:.*]] = graph.conv2d
// HOOKS-NEXT:    %[[Y:.*]] = graph.trans_data %[[C]] src_format "NC1HWC0" dst_format "NCHW"
// HOOKS-NEXT:    graph.net_output {{.*}} %[[Y]]
// NO-BREADTH-LABEL: ascend.model @flow
// NO-BREADTH-COUNT-3: ascend.kernel "TransData"
// NO-BREADTH-NOT:     ascend.kernel "TransData"
// formats=false: the NCHW compile, no TransData, every tensor plain.
// NCHW-LABEL: ascend.model @flow
// NCHW-NOT:   TransData
// NCHW-NOT:   #graph.format
// NCHW:       ascend.end_graph
// TASKS-LABEL: ascend.model @flow
// TASKS-COUNT-2: ascend.kernel "TransData"
// TASKS-NOT:     ascend.kernel "TransData"
graph.graph @flow(%x: tensor<1x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w1 = graph.const dense<0.5> : tensor<4x3x1x1xf32> {node_name = "w1"}
  %w2 = graph.const dense<-0.25> : tensor<4x3x1x1xf32> {node_name = "w2"}
  %w3 = graph.const dense<1.5> : tensor<4x4x1x1xf32> {node_name = "w3"}
  %a = graph.conv2d %x, %w1 strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  %b = graph.conv2d %x, %w2 strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = graph.add %a, %b : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %i = graph.identity %s : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c = graph.conv2d %i, %w3 strides [1, 1, 1, 1] : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %c : tensor<1x4x4x4xf32>
}
