// RUN: ge-opt %s -p ge-compile --print-between-passes 2>&1 | filecheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; x = np.random.default_rng(18).standard_normal((1, 3, 4, 4)).astype(np.float32); np.save('%t/x.npy', x); np.save('%t/t.npy', np.array(1, np.int32)); np.save('%t/f.npy', np.array(0, np.int32))"
// RUN: ge-opt %s -p ge-compile -o %t/compiled.mlir
// RUN: ge-run %s --entry cond --input p=%t/t.npy --input x=%t/x.npy -o %t/then.npz -q
// RUN: ge-run %t/compiled.mlir --entry cond --input p=%t/t.npy --input x=%t/x.npy --reference %t/then.npz --check-uninitialized | filecheck %s --check-prefix=SAME
// RUN: ge-run %s --entry cond --input p=%t/f.npy --input x=%t/x.npy -o %t/else.npz -q
// RUN: ge-run %t/compiled.mlir --entry cond --input p=%t/f.npy --input x=%t/x.npy --reference %t/else.npz --check-uninitialized | filecheck %s --check-prefix=SAME
// RUN: ge-opt %s -p ge-select-formats,ge-compile -o %t/crossed.mlir
// RUN: ge-run %t/crossed.mlir --entry cond --input p=%t/t.npy --input x=%t/x.npy --reference %t/then.npz --check-uninitialized | filecheck %s --check-prefix=SAME
// RUN: ge-run %t/crossed.mlir --entry cond --input p=%t/f.npy --input x=%t/x.npy --reference %t/else.npz --check-uninitialized | filecheck %s --check-prefix=SAME
// RUN: ge-run %s --entry loop --input x=%t/x.npy -o %t/loop.npz -q
// RUN: ge-run %t/compiled.mlir --entry loop --input x=%t/x.npy --reference %t/loop.npz --check-uninitialized | filecheck %s --check-prefix=SAME
// RUN: %python -c "import numpy as np; a, b, c = (np.load('%t/' + n + '.npz') for n in ('then', 'else', 'loop')); assert not np.allclose(a[a.files[0]], b[b.files[0]])"
// SAME-NOT: MISMATCH
// SAME: MATCH: all 1 outputs equal

// Tests formats inside control-flow bodies within ge-compile: the engine partition splits
// each If branch like the root (GE's OptimizeSubgraph: one SubGraphInfo per engine
// subgraph of the root and of every function subgraph), AI Core's OptimizeFusedGraph hook
// selects formats in each branch's AI Core subgraph, and after the merge the branch's conv
// runs in NC1HWC0 with a FRACTAL_Z weight while the branch's Data and NetOutput stay in
// the origin format (the If is a GE-local node: its engine boundary is an End/PlaceHolder
// pair, which FE's propagation does not cross), so each body has one TransData in and one
// out, and the compiled model gives the graph's numbers for both branches.
// With ge-select-formats first, the If takes its operand in NC1HWC0 (FE's propagation
// crossing into the branches) and the branches reuse that operand's bytes once it dies in
// them; the model check follows one branch at a time, and both branches still give the
// graph's numbers.
// CHECK-LABEL: IR after ge-optimize-whole-graph:
// CHECK:         graph.graph @cond(%p: tensor<i32>, %x: tensor<1x3x4x4xf32>)
// CHECK:         graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0"
// CHECK:         %[[B:.*]] = graph.trans_data %{{.*}} src_format "NC1HWC0" dst_format "NCHW" {{.*}} -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    graph.if %p, %[[B]] then_branch @then else_branch @else {{.*}} : (tensor<i32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK:         graph.graph @then(%t: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    %[[T5:.*]] = graph.trans_data %t src_format "NCHW" dst_format "NC1HWC0" {{.*}} -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
// CHECK-NEXT:    %[[W:.*]] = graph.const {{.*}} : tensor<1x1x16x16xf32, #graph.format<FRACTAL_Z origin NCHW [4, 4, 1, 1]>> {node_name = "wt_FRACTAL_Z"
// CHECK-NEXT:    %[[D:.*]] = graph.conv2d %[[T5]], %[[W]] {{.*}} -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
// CHECK-NEXT:    %[[O:.*]] = graph.trans_data %[[D]] src_format "NC1HWC0" dst_format "NCHW" {{.*}} -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    graph.net_output {{.*}} %[[O]] : tensor<1x4x4x4xf32>
// CHECK:         graph.graph @else(%e: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    graph.trans_data %e src_format "NCHW" dst_format "NC1HWC0"
// CHECK:         graph.conv2d {{.*}} -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
// CHECK-NEXT:    %[[E:.*]] = graph.trans_data %{{.*}} src_format "NC1HWC0" dst_format "NCHW"
// CHECK-NEXT:    graph.softmax_v2 %[[E]]
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
  %w = graph.const dense<[[[[1.0]], [[-1.0]], [[0.5]], [[2.0]]], [[[0.25]], [[1.5]], [[-2.0]], [[1.0]]], [[[-0.5]], [[0.0]], [[1.0]], [[0.75]]], [[[2.0]], [[0.5]], [[-1.5]], [[-0.25]]]]> : tensor<4x4x1x1xf32> {node_name = "we"}
  %d = graph.conv2d %e, %w strides [1, 1, 1, 1] : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %s = graph.softmax_v2 %d axes [1] : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %y = graph.relu %s : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %y : tensor<1x4x4x4xf32>
}


// Tests a While body: the body's conv runs in NC1HWC0 inside the loop (its own AI Core
// subgraph), the carried value crosses cond, body input and body output in the origin
// format, and the compiled loop (three iterations, a counter carried in int32) gives the
// graph's numbers.
// (The module's second root, checked in the same IR dump.)
// CHECK:         graph.while {{.*}} cond @loop_cond body @body {{.*}} : (tensor<i32>, tensor<1x4x4x4xf32>) -> (tensor<i32>, tensor<1x4x4x4xf32>)
// CHECK:         graph.graph @body(%i: tensor<i32>, %v: tensor<1x4x4x4xf32>) -> (tensor<i32>, tensor<1x4x4x4xf32>)
// CHECK:         %[[V5:.*]] = graph.trans_data %v src_format "NCHW" dst_format "NC1HWC0" {{.*}} -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
// CHECK:         %[[D:.*]] = graph.conv2d %[[V5]], %{{.*}} -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
// CHECK-NEXT:    %[[T:.*]] = graph.tanh %[[D]] {{.*}} -> tensor<1x1x4x4x16xf32, #graph.format<NC1HWC0 origin NCHW [1, 4, 4, 4]>>
// CHECK-NEXT:    %[[O:.*]] = graph.trans_data %[[T]] src_format "NC1HWC0" dst_format "NCHW" {{.*}} -> tensor<1x4x4x4xf32>
// CHECK:         graph.net_output {{.*}} : tensor<i32>, tensor<1x4x4x4xf32>
// CHECK-LABEL: IR after ge-convert-graph-to-ascend:
// CHECK:         ascend.kernel "TransData"
// CHECK:         ascend.kernel "Conv2D" {{.*}}#graph.format<NC1HWC0
graph.graph @loop(%x: tensor<1x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %w1 = graph.const dense<0.5> : tensor<4x3x1x1xf32> {node_name = "w1"}
  %a = graph.conv2d %x, %w1 strides [1, 1, 1, 1] : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
  %zero = graph.const dense<0> : tensor<i32> {node_name = "zero"}
  %n, %r = graph.while %zero, %a cond @loop_cond body @body : (tensor<i32>, tensor<1x4x4x4xf32>) -> (tensor<i32>, tensor<1x4x4x4xf32>)
  graph.net_output %r : tensor<1x4x4x4xf32>
}
graph.graph @loop_cond(%c: tensor<i32>, %u: tensor<1x4x4x4xf32>) -> tensor<i1> {
  %three = graph.const dense<3> : tensor<i32> {node_name = "three"}
  %lt = graph.less %c, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %lt : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %v: tensor<1x4x4x4xf32>) -> (tensor<i32>, tensor<1x4x4x4xf32>) {
  %one = graph.const dense<1> : tensor<i32> {node_name = "one"}
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %w = graph.const dense<[[[[1.0]], [[-1.0]], [[0.5]], [[2.0]]], [[[0.25]], [[1.5]], [[-2.0]], [[1.0]]], [[[-0.5]], [[0.0]], [[1.0]], [[0.75]]], [[[2.0]], [[0.5]], [[-1.5]], [[-0.25]]]]> : tensor<4x4x1x1xf32> {node_name = "wb"}
  %d = graph.conv2d %v, %w strides [1, 1, 1, 1] : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %t = graph.tanh %d : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  graph.net_output %j, %t : tensor<i32>, tensor<1x4x4x4xf32>
}
