// ge-import turns an ONNX model into graph IR: named inputs with `?` for dim_param, initializers
// as named consts, ONNX node names as `node_name`, outputs named after the ONNX outputs.
// Bad models are one `error:` line, exit 1, and nothing is written to -o.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np, onnx; from onnx import helper as h, numpy_helper as nh, TensorProto as T; g = h.make_graph([h.make_node('Mul', ['x', 'w'], ['xw'], name='scale'), h.make_node('Relu', ['xw'], ['y'], name='act')], 'tiny', [h.make_tensor_value_info('x', T.FLOAT, ['N', 2])], [h.make_tensor_value_info('y', T.FLOAT, ['N', 2])], [nh.from_array(np.array([2, -1], np.float32), 'w')]); onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 17)]), '%t/tiny.onnx')"

// RUN: ge-import %t/tiny.onnx | filecheck %s
// CHECK: graph.graph @tiny(%[[X:[^:]+]]: tensor<?x2xf32> {node_name = "x"}) -> (tensor<?x2xf32> {node_name = "y"}) {
// CHECK-NEXT:    %[[W:[^ ]+]] = graph.const dense<[2.000000e+00, -1.000000e+00]> : tensor<2xf32> {node_name = "w"}
// CHECK-NEXT:    %[[XW:[^ ]+]] = graph.mul %[[X]], %[[W]] {node_name = "scale"} : (tensor<?x2xf32>, tensor<2xf32>) -> tensor<?x2xf32>
// CHECK-NEXT:    %[[Y:[^ ]+]] = graph.relu %[[XW]] {node_name = "act"} : (tensor<?x2xf32>) -> tensor<?x2xf32>
// CHECK-NEXT:    graph.net_output %[[Y]] : tensor<?x2xf32>

// The written IR reads back and runs; ge-opt takes the .onnx directly.
// RUN: ge-import %t/tiny.onnx -o %t/tiny.mlir --graph-name net
// RUN: ge-opt %t/tiny.mlir | filecheck %s --check-prefix=NAMED
// NAMED: graph.graph @net(
// RUN: %python -c "import numpy as np; np.savez('%t/in.npz', x=np.array([[1, 1], [-3, -2]], np.float32))"
// RUN: ge-run %t/tiny.mlir --inputs %t/in.npz | filecheck %s --check-prefix=OUT
// RUN: ge-opt %t/tiny.onnx | filecheck %s --check-prefix=OPT
// OPT: graph.graph @tiny(
// OPT: graph.relu
// OUT: y: float32[2, 2] mean=1 std=1 [2., 0., 0., 2.]

// RUN: head -c 40 %t/tiny.onnx > %t/truncated.onnx
// RUN: not ge-import %t/truncated.onnx -o %t/truncated.mlir 2>&1 | filecheck %s --check-prefix=TRUNC
// TRUNC: error: '{{.*}}truncated.onnx' is not an ONNX model: {{.*}}
// TRUNC-NOT: Traceback
// RUN: not test -e %t/truncated.mlir

// RUN: not ge-import %t/missing.onnx 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: error: cannot read '{{.*}}missing.onnx': No such file or directory

// A graph output takes the dims its declaration knows where inference left `?` (onnxruntime's
// MergeShapeInfo): Reshape to a shape that is a graph input gives `[?, ?]`, declared `[n, 3]`.
// A declaration that contradicts the inferred type is ignored with a warning (a Shape chain
// our inference evaluates, which onnx's checker does not).
// RUN: %python -c "import onnx; from onnx import helper as h, TensorProto as T; v = h.make_tensor_value_info; m = lambda nodes, name, ins, outs: onnx.save(h.make_model(h.make_graph(nodes, name, ins, outs), opset_imports=[h.make_opsetid('', 17)]), '%t/' + name + '.onnx'); m([h.make_node('Reshape', ['x', 's'], ['y'])], 'declared', [v('x', T.FLOAT, [2, 6]), v('s', T.INT64, [2])], [v('y', T.FLOAT, ['n', 3])]); m([h.make_node('Shape', ['x'], ['s']), h.make_node('Reshape', ['x', 's'], ['y'])], 'clash', [v('x', T.FLOAT, [2, 6])], [v('y', T.FLOAT, [3, 4])])"
// RUN: ge-import %t/declared.onnx | filecheck %s --check-prefix=DECLARED
// DECLARED: -> (tensor<?x3xf32> {node_name = "y"})
// DECLARED: graph.reshape %x, %s {{.*}} -> tensor<?x3xf32>
// RUN: %python -c "import numpy as np; np.savez('%t/declared.npz', x=np.arange(12, dtype=np.float32).reshape(2, 6), s=np.array([4, 3]))"
// RUN: ge-import %t/declared.onnx -o %t/declared.mlir
// RUN: ge-run %t/declared.mlir --inputs %t/declared.npz | filecheck %s --check-prefix=DECLARED-OUT
// DECLARED-OUT: y: float32[4, 3]
// RUN: ge-import %t/clash.onnx -o %t/clash.mlir 2>&1 | filecheck %s --check-prefix=CLASH
// CLASH: ge-import: warning: graph output 'y' is declared tensor<3x4xf32> but inferred tensor<2x6xf32>: kept the inferred type
// RUN: filecheck %s --check-prefix=CLASH-IR < %t/clash.mlir
// CLASH-IR: -> (tensor<2x6xf32> {node_name = "y"})
