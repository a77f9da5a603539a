// RUN: ge-opt %s --split-input-file -p ge-select-formats | filecheck %s
// RUN: ge-opt %s --split-input-file -p ge-select-formats | ge-opt --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-select-formats{subgraphs=false}' | filecheck %s --check-prefix=APART

// Tests formats across a PartitionedCall: the conv's NC1HWC0 output goes into @inner, whose
// Relu and conv take NC1HWC0 too, so the TransData pair at the Data goes and @inner's input is
// NC1HWC0; the same at its NetOutput, read by a conv outside. Only the graph's own input and
// output keep a TransData (NetOutput of the root graph: back to the origin format).
// CHECK-LABEL: graph.graph @main
// CHECK:         graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0"
// CHECK-NOT:     graph.trans_data
// CHECK:         %[[B:.*]] = partition.partitioned_call @inner(%{{.*}}) : (tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
// CHECK-NOT:     graph.trans_data
// CHECK:         %[[C:.*]] = graph.conv2d %[[B]]
// CHECK-NEXT:    %[[Y:.*]] = graph.trans_data %[[C]] src_format "NC1HWC0" dst_format "NCHW"
// CHECK-NEXT:    graph.net_output %[[Y]] : tensor<1x4x4x4xf32>
// CHECK-LABEL: graph.graph @inner(%y: tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
// CHECK-NOT:     graph.trans_data
// CHECK:         graph.net_output %{{.*}} : tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
// Without crossing, each graph alone: a TransData on each side of the boundary, both ways.
// APART-LABEL: graph.graph @main
// APART-COUNT-4: graph.trans_data
// APART-NOT:     graph.trans_data
// APART-LABEL: graph.graph @inner(%y: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// APART-COUNT-2: graph.trans_data
// APART-NOT:     graph.trans_data
// APART:         graph.net_output
graph.graph @main(%x: tensor<1x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w1 = graph.const dense<0.5> : tensor<4x3x1x1xf32> {node_name = "w1"}
  %a = graph.conv2d %x, %w1 strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  %b = partition.partitioned_call @inner(%a) : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %w3 = graph.const dense<1.5> : tensor<4x4x1x1xf32> {node_name = "w3"}
  %c = graph.conv2d %b, %w3 strides [1, 1, 1, 1] : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %c : tensor<1x4x4x4xf32>
}
graph.graph @inner(%y: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w2 = graph.const dense<-0.25> : tensor<4x4x1x1xf32> {node_name = "w2"}
  %r = graph.relu %y : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %d = graph.conv2d %r, %w2 strides [1, 1, 1, 1] : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %d : tensor<1x4x4x4xf32>
}

// -----

// Tests If: both branches read their input into a conv, so the input crosses in NC1HWC0 into
// each; the else branch returns its input through a Softmax (not format-agnostic), so the
// outputs disagree and stay in origin formats, with the TransData inside each branch.
// CHECK-LABEL: graph.graph @cond
// CHECK:         %[[A:.*]] = graph.conv2d
// CHECK-NOT:     graph.trans_data
// CHECK:         %[[R:.*]] = graph.if %p, %[[A]] then_branch @then else_branch @else : (tensor<i32>, tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>) -> tensor<1x4x4x4xf32>
// CHECK-LABEL: graph.graph @then(%t: tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>) -> tensor<1x4x4x4xf32>
// CHECK-NOT:     graph.trans_data %t
// CHECK:         graph.trans_data %{{.*}} src_format "NC1HWC0" dst_format "NCHW"
// CHECK-LABEL: graph.graph @else(%e: tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>) -> tensor<1x4x4x4xf32>
graph.graph @cond(%p: tensor<i32>, %x: tensor<1x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w1 = graph.const dense<0.5> : tensor<4x3x1x1xf32> {node_name = "w1"}
  %a = graph.conv2d %x, %w1 strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  %r = graph.if %p, %a then_branch @then else_branch @else : (tensor<i32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %r : tensor<1x4x4x4xf32>
}
graph.graph @then(%t: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = graph.const dense<-0.25> : tensor<4x4x1x1xf32> {node_name = "wt"}
  %d = graph.conv2d %t, %w strides [1, 1, 1, 1] : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %d : tensor<1x4x4x4xf32>
}
graph.graph @else(%e: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = graph.const dense<2.0> : tensor<4x4x1x1xf32> {node_name = "we"}
  %d = graph.conv2d %e, %w strides [1, 1, 1, 1] : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = graph.softmax_v2 %d axes [1] : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %s : tensor<1x4x4x4xf32>
}

// -----

// Tests While: a loop's boundaries keep their TransData (cond, body input and body output
// would all have to agree), so the body is selected on its own.
// CHECK-LABEL: graph.graph @loop
// CHECK:         graph.trans_data %{{.*}} src_format "NC1HWC0" dst_format "NCHW"
// CHECK-NEXT:    graph.while {{.*}} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-LABEL: graph.graph @body(%v: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK:         graph.trans_data %v src_format "NCHW" dst_format "NC1HWC0"
graph.graph @loop(%x: tensor<1x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w1 = graph.const dense<0.5> : tensor<4x3x1x1xf32> {node_name = "w1"}
  %a = graph.conv2d %x, %w1 strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  %r = graph.while %a cond @loop_cond body @body : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %r : tensor<1x4x4x4xf32>
}
graph.graph @loop_cond(%c: tensor<1x4x4x4xf32>) -> tensor<i32> {
  %z = graph.const dense<0> : tensor<i32> {node_name = "z"}
  graph.net_output %z : tensor<i32>
}
graph.graph @body(%v: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w = graph.const dense<-0.25> : tensor<4x4x1x1xf32> {node_name = "wb"}
  %d = graph.conv2d %v, %w strides [1, 1, 1, 1] : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %d : tensor<1x4x4x4xf32>
}
