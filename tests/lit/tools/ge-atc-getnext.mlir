// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np, onnx; from onnx import helper as h, numpy_helper as nh, TensorProto as T; g = h.make_graph([h.make_node('Relu', ['x'], ['r'], name='act'), h.make_node('ReduceSum', ['r', 'axes'], ['y'], name='sum', keepdims=0)], 'rows', [h.make_tensor_value_info('x', T.FLOAT, ['N', 'T'])], [h.make_tensor_value_info('y', T.FLOAT, ['N'])], [nh.from_array(np.array([1], np.int64), 'axes')]); onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 17)]), '%t/rows.onnx')"
// RUN: %python -c "import numpy as np; np.savez('%t/g0.npz', x=np.array([[1, -2]], np.float32)); np.savez('%t/g1.npz', x=np.arange(-5, 7, dtype=np.float32).reshape(3, 4)); np.savez('%t/off.npz', x=np.ones((2, 2), np.float32))"
// RUN: ge-atc --model=%t/rows.onnx --output=%t/rows --input_shape="x:-1,-1" --dynamic_dims="1,2;3,4" --dynamic_node_type=0 -q
// RUN: filecheck %s --check-prefix=MODEL < %t/rows.mlir
// RUN: ge-run %t/rows.om --inputs %t/g1.npz --inputs %t/g0.npz --inputs %t/g1.npz | filecheck %s
// RUN: not ge-run %t/rows.om --inputs %t/g0.npz --inputs %t/off.npz 2>&1 | filecheck %s --check-prefix=OFF
// RUN: not ge-atc --model=%t/rows.onnx --output=%t/bad --input_shape="x:-1,-1" --dynamic_dims="1,2;3,4" --dynamic_node_type=2 2>&1 | filecheck %s --check-prefix=TYPE
// RUN: not ge-atc --model=%t/rows.onnx --output=%t/bad --input_shape="x:-1,-1" --dynamic_dims="1,2;3,4" --dynamic_node_type=0 --hybrid 2>&1 | filecheck %s --check-prefix=HYBRID
// RUN: not ls %t/bad.om

// Tests ge-atc --dynamic_dims on a GetNext-style model (--dynamic_node_type=0, GE's
// ge.dynamicNodeType): the offline model pulls a queue of input sets of different gears, one
// per run, and each run's output has its gear's shape.

// MODEL-LABEL: ascend.model @rows
// MODEL-SAME:    getnext_sink_dynamic = true
// MODEL:         ascend.kernel "GetNext"
// MODEL:         ascend.kernel "GetDynamicDims"

// CHECK:      launch 1:
// CHECK-NEXT: y: float32[3] mean=7 std=7.87401 [ 0.,  3., 18.]
// CHECK-NEXT: launch 2:
// CHECK-NEXT: y: float32[1] mean=1 std=0 [1.]
// CHECK-NEXT: launch 3:
// CHECK-NEXT: y: float32[3] mean=7 std=7.87401 [ 0.,  3., 18.]

// OFF: error: {{.*}}E13025{{.*}}[2,2]{{.*}}
// TYPE: error: E10001: Value 2 for parameter --dynamic_node_type is invalid. Reason: it must be 0 (GetNext) or 1 (Data).
// HYBRID: error: E10001: Value 0 for parameter --dynamic_node_type is invalid. Reason: --hybrid needs Data inputs (--dynamic_node_type=1).
