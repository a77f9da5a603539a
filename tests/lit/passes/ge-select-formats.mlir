// RUN: ge-opt %s --split-input-file -p ge-select-formats | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-select-formats{allow-nz=true fold-weights=false}' | filecheck %s --check-prefix=NZ
// RUN: ge-opt %s --split-input-file -p 'ge-select-formats{precision-mode=force_fp16}' | filecheck %s --check-prefix=FP16

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

// -----

// Tests a Cast in GE's insertion order under precision-mode force_fp16 (FeOpDtypeJudge: the
// heavy op runs in float16): towards the conv Cast -> TransData (the Cast shrinks, so it
// runs first), the weight's Cast and TransData folded into one float16 FRACTAL_Z Const;
// back, the Relu that took NC1HWC0 by propagation gets one Cast on the 5HD storage (float16
// and float32 share C0 16) and the Softmax TransData -> Cast (a widening Cast runs last).
// Without the option nothing changes dtype (float32 is supported).
// CHECK-LABEL: graph.graph @force_fp16
// CHECK-NOT:     graph.cast
// CHECK:         graph.net_output
// FP16-LABEL: graph.graph @force_fp16
// FP16:         %[[H:.*]] = graph.cast %x dst_type f16 {node_name = "conv_Cast_in0"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf16>
// FP16-NEXT:    %[[X5:.*]] = graph.trans_data %[[H]] src_format "NCHW" dst_format "NC1HWC0" {node_name = "conv_TransData_in0"} : (tensor<1x3x4x4xf16>) -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
// FP16-NEXT:    %[[W:.*]] = graph.const dense<{{.*}}> : tensor<1x1x16x16xf16, #graph.format<FRACTAL_Z origin NCHW [8, 3, 1, 1]>> {node_name = "w_Cast_FRACTAL_Z"}
// FP16-NEXT:    %[[C:.*]] = graph.conv2d %[[X5]], %[[W]] {{.*}} -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 8, 4, 4]>>
// FP16-NEXT:    %[[RC:.*]] = graph.cast %[[C]] dst_type f32 {node_name = "relu_Cast_in0"} : (tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 8, 4, 4]>>) -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 8, 4, 4]>>
// FP16-NEXT:    %[[R:.*]] = graph.relu %[[RC]] {{.*}} -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 8, 4, 4]>>
// FP16-NEXT:    %[[B:.*]] = graph.trans_data %[[C]] src_format "NC1HWC0" dst_format "NCHW" {node_name = "softmax_TransData_in0"} : ({{.*}}) -> tensor<1x8x4x4xf16>
// FP16-NEXT:    %[[BC:.*]] = graph.cast %[[B]] dst_type f32 {node_name = "softmax_Cast_in0"} : (tensor<1x8x4x4xf16>) -> tensor<1x8x4x4xf32>
// FP16-NEXT:    graph.softmax_v2 %[[BC]]
// FP16-NEXT:    graph.trans_data %[[R]] src_format "NC1HWC0" dst_format "NCHW" {{.*}} -> tensor<1x8x4x4xf32>
// FP16-NOT:     graph.const dense<{{.*}}> : tensor<8x3x1x1xf32>
graph.graph @force_fp16(%x: tensor<1x3x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %w = graph.const dense<0.5> : tensor<8x3x1x1xf32> {node_name = "w"}
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x3x4x4xf32>, tensor<8x3x1x1xf32>) -> tensor<1x8x4x4xf32>
  %r = graph.relu %c {node_name = "relu"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %s = graph.softmax_v2 %c {node_name = "softmax"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  graph.net_output %r, %s : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// Tests a rank change into 5HD: BatchNorm on [N, C, L] and [N, C] runs in NC1HWC0 on the
// 4-D view [N, C, L, 1] / [N, C, 1, 1] (FE's reshape type), so the chain towards it is
// Reshape -> TransData and back TransData -> Reshape; under force_fp16 the Cast goes
// between them, Reshape -> Cast -> TransData (GE's order: Reshape, Permute, Cast, TransData).
// CHECK-LABEL: graph.graph @batch_norm_ranks
// CHECK:         %[[S3:.*]] = graph.const dense<[2, 20, 5, 1]> : tensor<4xi64> {node_name = "bn1d_Reshape_in0_shape"}
// CHECK-NEXT:    %[[X4:.*]] = graph.reshape %x, %[[S3]] {node_name = "bn1d_Reshape_in0"} : (tensor<2x20x5xf32>, tensor<4xi64>) -> tensor<2x20x5x1xf32>
// CHECK-NEXT:    %[[X5:.*]] = graph.trans_data %[[X4]] src_format "NCHW" dst_format "NC1HWC0" {node_name = "bn1d_TransData_in0"} : (tensor<2x20x5x1xf32>) -> tensor<2x2x5x1x16xf32, #graph.format<NC1HWC0 origin NCHW [2, 20, 5, 1]>>
// CHECK-NEXT:    %[[Y:.*]] = graph.batch_norm %[[X5]], {{.*}} -> tensor<2x2x5x1x16xf32, #graph.format<NC1HWC0 origin NCHW [2, 20, 5, 1]>>
// CHECK:         %[[V4:.*]] = graph.reshape %v, %{{.*}} {node_name = "bn0d_Reshape_in0"} : (tensor<2x20xf32>, tensor<4xi64>) -> tensor<2x20x1x1xf32>
// CHECK-NEXT:    %[[V5:.*]] = graph.trans_data %[[V4]] src_format "NCHW" dst_format "NC1HWC0" {{.*}} -> tensor<2x2x1x1x16xf32, #graph.format<NC1HWC0 origin NCHW [2, 20, 1, 1]>>
// CHECK-NEXT:    %[[Z:.*]] = graph.batch_norm %[[V5]]
// CHECK-NEXT:    %[[Y4:.*]] = graph.trans_data %[[Y]] src_format "NC1HWC0" dst_format "NCHW" {{.*}} -> tensor<2x20x5x1xf32>
// CHECK-NEXT:    %[[T3:.*]] = graph.const dense<[2, 20, 5]> : tensor<3xi64>
// CHECK-NEXT:    %[[Y3:.*]] = graph.reshape %[[Y4]], %[[T3]] {node_name = "bn1d_Reshape_out0"} : (tensor<2x20x5x1xf32>, tensor<3xi64>) -> tensor<2x20x5xf32>
// CHECK-NEXT:    %[[Z4:.*]] = graph.trans_data %[[Z]] src_format "NC1HWC0" dst_format "NCHW" {{.*}} -> tensor<2x20x1x1xf32>
// CHECK-NEXT:    %[[T2:.*]] = graph.const dense<[2, 20]> : tensor<2xi64>
// CHECK-NEXT:    %[[Z2:.*]] = graph.reshape %[[Z4]], %[[T2]] {{.*}} -> tensor<2x20xf32>
// CHECK-NEXT:    graph.net_output %[[Y3]], %[[Z2]] : tensor<2x20x5xf32>, tensor<2x20xf32>
// FP16-LABEL: graph.graph @batch_norm_ranks
// FP16:         graph.reshape %x, %{{.*}} -> tensor<2x20x5x1xf32>
// FP16-NEXT:    graph.cast %{{.*}} dst_type f16 {{.*}} -> tensor<2x20x5x1xf16>
// FP16-NEXT:    graph.trans_data %{{.*}} src_format "NCHW" dst_format "NC1HWC0" {{.*}} -> tensor<2x2x5x1x16xf16, #graph.format<NC1HWC0 origin NCHW [2, 20, 5, 1]>>
// FP16:         graph.trans_data %{{.*}} src_format "NC1HWC0" dst_format "NCHW" {{.*}} -> tensor<2x20x5x1xf16>
// FP16-NEXT:    graph.const
// FP16-NEXT:    graph.reshape %{{.*}} -> tensor<2x20x5xf16>
// FP16-NEXT:    graph.cast %{{.*}} dst_type f32 {{.*}} -> tensor<2x20x5xf32>
graph.graph @batch_norm_ranks(%x: tensor<2x20x5xf32>, %v: tensor<2x20xf32>) -> (tensor<2x20x5xf32>, tensor<2x20xf32>) {
  %s = graph.const dense<1.5> : tensor<20xf32>
  %o = graph.const dense<0.25> : tensor<20xf32>
  %m = graph.const dense<-0.5> : tensor<20xf32>
  %q = graph.const dense<2.0> : tensor<20xf32>
  %y = graph.batch_norm %x, %s, %o, %m, %q epsilon 1.0e-05 {node_name = "bn1d"} : (tensor<2x20x5xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>) -> tensor<2x20x5xf32>
  %z = graph.batch_norm %v, %s, %o, %m, %q epsilon 1.0e-05 {node_name = "bn0d"} : (tensor<2x20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>, tensor<20xf32>) -> tensor<2x20xf32>
  graph.net_output %y, %z : tensor<2x20x5xf32>, tensor<2x20xf32>
}

// -----

// Tests a format change between NCHW and NHWC: an input the user stores NHWC (GE's Data
// `storage_format`, here the argument attribute) is turned into NCHW by a TransposeD (GE's
// Permute step, not a TransData) for the Softmax, and by TransposeD -> TransData for the
// conv; under force_fp16 the shrinking Cast runs first, on the NHWC storage.
// CHECK-LABEL: graph.graph @user_nhwc(%x: tensor<1x4x4x3xf32, #graph.format<NHWC origin NCHW [1, 3, 4, 4]>>) -> (tensor<1x3x4x4xf32>, tensor<1x8x4x4xf32>)
// CHECK-NEXT:    %[[P:.*]] = graph.transpose %x perm [0, 3, 1, 2] {node_name = "softmax_TransposeD_in0"} : (tensor<1x4x4x3xf32, #graph.format<NHWC origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    graph.softmax_v2 %[[P]] {{.*}} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %[[Q:.*]] = graph.transpose %x perm [0, 3, 1, 2] {node_name = "conv_TransposeD_in0"} : (tensor<1x4x4x3xf32, #graph.format<NHWC origin NCHW [1, 3, 4, 4]>>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    %[[Q5:.*]] = graph.trans_data %[[Q]] src_format "NCHW" dst_format "NC1HWC0" {{.*}} -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
// CHECK:         graph.conv2d %[[Q5]]
// FP16-LABEL: graph.graph @user_nhwc
// FP16:         %[[H:.*]] = graph.cast %x dst_type f16 {node_name = "conv_Cast_in0"} : (tensor<1x4x4x3xf32, #graph.format<NHWC origin NCHW [1, 3, 4, 4]>>) -> tensor<1x4x4x3xf16, #graph.format<NHWC origin NCHW [1, 3, 4, 4]>>
// FP16-NEXT:    %[[Q:.*]] = graph.transpose %[[H]] perm [0, 3, 1, 2] {{.*}} -> tensor<1x3x4x4xf16>
// FP16-NEXT:    graph.trans_data %[[Q]] src_format "NCHW" dst_format "NC1HWC0" {{.*}} -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
graph.graph @user_nhwc(%x: tensor<1x3x4x4xf32> {storage_format = "NHWC"}) -> (tensor<1x3x4x4xf32>, tensor<1x8x4x4xf32>) {
  %w = graph.const dense<0.5> : tensor<8x3x1x1xf32> {node_name = "w"}
  %s = graph.softmax_v2 %x {node_name = "softmax"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %c = graph.conv2d %x, %w strides [1, 1, 1, 1] {node_name = "conv"} : (tensor<1x3x4x4xf32>, tensor<8x3x1x1xf32>) -> tensor<1x8x4x4xf32>
  graph.net_output %s, %c : tensor<1x3x4x4xf32>, tensor<1x8x4x4xf32>
}
