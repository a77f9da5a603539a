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
