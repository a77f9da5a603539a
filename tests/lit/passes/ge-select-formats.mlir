// RUN: ge-opt %s --split-input-file -p ge-select-formats | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-select-formats{allow-nz=true fold-weights=false}' | filecheck %s --check-prefix=NZ

// Tests Conv2D seeding NC1HWC0 on x/y and FRACTAL_Z on its filter, propagation forward
// through Relu and Add (format-agnostic) to MaxPoolV3, a TransData at the graph input and one
// back to NCHW before NetOutput, and the filter's Const -> TransData folded into the Const.
// CHECK-LABEL: graph.graph @conv_chain
// CHECK:         %[[X5:.*]] = graph.trans_data %{{.*}} src_format "NCHW" dst_format "NC1HWC0" {node_name = "trans_TransData_0"} : (tensor<1x3x4x4xf16>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
// CHECK:         %[[W:.*]] = graph.const dense<{{.*}}> : tensor<1x1x16x16xf16, #graph.format<FRACTAL_Z origin NCHW [8, 3, 1, 1]>> {node_name = "w_FRACTAL_Z"}
// CHECK-NEXT:    %[[C:.*]] = graph.conv2d %[[X5]], %[[W]] {{.*}} -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 8, 4, 4]>>
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[C]] {{.*}} -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 8, 4, 4]>>
// CHECK-NEXT:    %[[A:.*]] = graph.add %[[R]], %[[C]] {{.*}} -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 8, 4, 4]>>
// CHECK-NEXT:    %[[P:.*]] = graph.max_pool_v3 %[[A]] {{.*}} -> tensor<1x1x2x2x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 8, 2, 2]>>
// CHECK-NEXT:    %[[Y:.*]] = graph.trans_data %[[P]] src_format "NC1HWC0" dst_format "NCHW" {{.*}} -> tensor<1x8x2x2xf16>
// CHECK-NEXT:    graph.net_output %[[Y]] : tensor<1x8x2x2xf16>
// CHECK-NOT:     graph.const dense<{{.*}}> : tensor<8x3x1x1xf16>
graph.graph @conv_chain(%x: tensor<1x3x4x4xf16>) -> tensor<1x8x2x2xf16> {
  %w = graph.const dense<0.5> : tensor<8x3x1x1xf16> {node_name = "w"}
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf16>, tensor<8x3x1x1xf16>) -> tensor<1x8x4x4xf16>
  %r = graph.relu %c : (tensor<1x8x4x4xf16>) -> tensor<1x8x4x4xf16>
  %a = graph.add %r, %c : (tensor<1x8x4x4xf16>, tensor<1x8x4x4xf16>) -> tensor<1x8x4x4xf16>
  %p = graph.max_pool_v3 %a ksize [1, 1, 2, 2] strides [1, 1, 2, 2] : (tensor<1x8x4x4xf16>) -> tensor<1x8x2x2xf16>
  graph.net_output %p : tensor<1x8x2x2xf16>
}

// -----

// Tests backward propagation: Relu before a Conv2D takes NC1HWC0, so the TransData moves to
// the graph input; a Softmax after it is not format-agnostic and stops propagation.
// CHECK-LABEL: graph.graph @backward_and_stop
// CHECK:         graph.trans_data %{{.*}} src_format "NCHW" dst_format "NC1HWC0"
// CHECK-NEXT:    graph.relu %{{.*}} -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
// CHECK:         graph.conv2d
// CHECK-NEXT:    %[[B:.*]] = graph.trans_data %{{.*}} src_format "NC1HWC0" dst_format "NCHW"
// CHECK-NEXT:    graph.softmax_v2 %[[B]] : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
graph.graph @backward_and_stop(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %r = graph.relu %x : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c = graph.conv2d %r, %w strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = graph.softmax_v2 %c : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %s : tensor<1x4x4x4xf32>
}

// -----

// Tests that a node off AI Core (placed on AI CPU) keeps origin formats, so the Conv2D placed
// there stays NCHW and no TransData is inserted.
// CHECK-LABEL: graph.graph @off_aicore
// CHECK-NOT:     graph.trans_data
// CHECK:         graph.conv2d {{.*}} -> tensor<1x4x4x4xf32>
graph.graph @off_aicore(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] {_engine_name = "DNN_VM_AICPU"} : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %c : tensor<1x4x4x4xf32>
}

// -----

// Tests that an Add broadcasting a bias is not format-agnostic here: propagation stops before
// it; a placed graph's TransData are placed on AI Core.
// CHECK-LABEL: graph.graph @broadcast_stops
// CHECK:         graph.conv2d
// CHECK-NEXT:    %[[B:.*]] = graph.trans_data %{{.*}} src_format "NC1HWC0" dst_format "NCHW" {node_name = "trans_TransData_2", _engine_name = "AIcoreEngine"}
// CHECK-NEXT:    graph.add %[[B]], %{{.*}} : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>)
graph.graph @broadcast_stops(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x1x1xf32>, %b: tensor<1x4x1x1xf32>) -> tensor<1x4x4x4xf32> {
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] {_engine_name = "AIcoreEngine"} : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  %a = graph.add %c, %b {_engine_name = "AIcoreEngine"} : (tensor<1x4x4x4xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %a : tensor<1x4x4x4xf32>
}

// -----

// Tests MatMul: FRACTAL_NZ only with allow_nz (the attribute or the allow-nz option); without
// fold-weights the weight's TransData stays a node.
// CHECK-LABEL: graph.graph @matmul
// CHECK:         graph.matmul %{{.*}}, %{{.*}} {allow_nz = true} : (tensor<3x2x16x16xf32, #graph.format<FRACTAL_NZ origin ND [20, 33]>>, tensor<1x3x16x16xf32, #graph.format<FRACTAL_NZ origin ND [33, 8]>>) -> tensor<1x2x16x16xf32, #graph.format<FRACTAL_NZ origin ND [20, 8]>>
// CHECK:         graph.trans_data %{{.*}} src_format "FRACTAL_NZ" dst_format "ND"
// CHECK:         graph.matmul %{{.*}}, %{{.*}} : (tensor<20x8xf32>, tensor<8x4xf32>) -> tensor<20x4xf32>
// NZ-LABEL: graph.graph @matmul
// NZ:         graph.trans_data %{{.*}} src_format "ND" dst_format "FRACTAL_NZ" {{.*}} -> tensor<3x2x16x16xf32, #graph.format<FRACTAL_NZ origin ND [20, 33]>>
// NZ:         graph.trans_data %{{.*}} src_format "ND" dst_format "FRACTAL_NZ" {{.*}} -> tensor<1x3x16x16xf32, #graph.format<FRACTAL_NZ origin ND [33, 8]>>
// NZ:         graph.matmul
// NZ:         graph.matmul %{{.*}}, %{{.*}} : (tensor<1x2x16x16xf32, #graph.format<FRACTAL_NZ origin ND [20, 8]>>, tensor<1x1x16x16xf32, #graph.format<FRACTAL_NZ origin ND [8, 4]>>) -> tensor<1x2x16x16xf32, #graph.format<FRACTAL_NZ origin ND [20, 4]>>
// NZ:         graph.trans_data %{{.*}} src_format "FRACTAL_NZ" dst_format "ND"
graph.graph @matmul(%x: tensor<20x33xf32>, %w: tensor<33x8xf32>) -> tensor<20x4xf32> {
  %v = graph.const dense<1.0> : tensor<8x4xf32>
  %y = graph.matmul %x, %w {allow_nz = true} : (tensor<20x33xf32>, tensor<33x8xf32>) -> tensor<20x8xf32>
  %z = graph.matmul %y, %v : (tensor<20x8xf32>, tensor<8x4xf32>) -> tensor<20x4xf32>
  graph.net_output %z : tensor<20x4xf32>
}

// -----

// Tests that dynamic shapes keep origin formats (heavy formats need static shapes).
// CHECK-LABEL: graph.graph @dynamic
// CHECK-NOT:     graph.trans_data
graph.graph @dynamic(%x: tensor<?x3x4x4xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<?x4x4x4xf32> {
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] : (tensor<?x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<?x4x4x4xf32>
  graph.net_output %c : tensor<?x4x4x4xf32>
}
