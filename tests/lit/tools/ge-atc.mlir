// ge-atc: import + gears + ge-compile in one command, atc's --flag=value spelling. It writes
// OUT.mlir, a self-contained ascend model: the gear input is one buffer of the largest gear
// that every branch reads in place (a prefix view with the gear's shape), each branch copies
// its output into the start of the largest-gear output buffer, and the model keeps the gear
// table and the per-gear output dims for the runtime. Errors: one line, exit 1, no file.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np, onnx; from onnx import helper as h, numpy_helper as nh, TensorProto as T; g = h.make_graph([h.make_node('Mul', ['x', 'w'], ['xw'], name='scale'), h.make_node('Relu', ['xw'], ['y'], name='act')], 'tiny', [h.make_tensor_value_info('x', T.FLOAT, ['N', 2])], [h.make_tensor_value_info('y', T.FLOAT, ['N', 2])], [nh.from_array(np.array([2, -1], np.float32), 'w')]); onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 17)]), '%t/tiny.onnx')"
// RUN: %python -c "import numpy as np; np.savez('%t/b2.npz', x=np.array([[1, 1], [-3, -2]], np.float32)); np.savez('%t/b3.npz', x=np.array([[1, 1], [-3, -2], [2, -5]], np.float32))"

// RUN: ge-atc --model=%t/tiny.onnx --output=%t/tiny --framework=5 --input_shape=x:-1,2 --dynamic_batch_size=1,2,4 --soc_version=Ascend310 2>&1 | filecheck %s --check-prefix=NOTE
// NOTE: note: --soc_version=Ascend310 is ignored: the ascend model runs on the gedialects interpreter
// RUN: filecheck %s < %t/tiny.mlir
// CHECK:      ascend.model @tiny arena_size {{[0-9]+}} weight_size {{[0-9]+}} attributes {_batch_num = 3 : i64, _pred_value_0 = array<i64: 1>, _pred_value_1 = array<i64: 2>, _pred_value_2 = array<i64: 4>, mbatch_dynamic_type = 1 : i64, user_designate_shape_order = ["x"], _shape_env = ["s0 = x[0]"], _dynamic_output_dims = ["0,0,1,2", "1,0,2,2", "2,0,4,2"], _symbolic_output_shape = [["s0", "2"]], _enable_dynamic_batch = true, label_num = 4 : i64} {
// CHECK:        ascend.input "x" arena[[[X:[0-9]+]]] : tensor<4x2xf32> {_mbatch_origin_input_dims = array<i64: -1, 2>, _mbatch_max_input_dims = array<i64: 4, 2>, _dynamic_batch_unknown_dim_index = array<i64: 0>}
// CHECK-NEXT:   ascend.input "ascend_mbatch_shape_data" arena[[[SD:[0-9]+]]] : tensor<1xi32> {_is_multi_batch_shape_data = true, _dynamic_batch_unknown_data_index = array<i64: 0>}
// CHECK-NEXT:   ascend.output "y" arena[[[Y:[0-9]+]]] : tensor<4x2xf32>
// CHECK-NEXT:   ascend.kernel "MapIndex" "ascend_mbatch_shape_mapindex" {{.*}} ins(arena[[[SD]]] : tensor<1xi32>
// CHECK:        ascend.label_switch_by_index {{.*}} labels [1, 2, 3]
// CHECK-NEXT:   ascend.label_set 1
// CHECK-NEXT:   ascend.kernel "Mul" "scale_ascend_mbatch_batch_0" {{.*}} ins(arena[[[X]]] : tensor<1x2xf32>,
// CHECK:        ascend.memcpy_async {{.*}} to arena[[[Y]]] : tensor<1x2xf32>
// CHECK:        ascend.label_set 2
// CHECK-NEXT:   ascend.kernel "Mul" "scale_ascend_mbatch_batch_1" {{.*}} ins(arena[[[X]]] : tensor<2x2xf32>,
// CHECK:        ascend.memcpy_async {{.*}} to arena[[[Y]]] : tensor<2x2xf32>
// CHECK:        ascend.label_set 3
// CHECK-NEXT:   ascend.kernel "Mul" "scale_ascend_mbatch_batch_2" {{.*}} ins(arena[[[X]]] : tensor<4x2xf32>,
// CHECK:        ascend.memcpy_async {{.*}} to arena[[[Y]]] : tensor<4x2xf32>
// CHECK-NEXT:   ascend.label_set 0

// A gear runs and returns that gear's shape; a batch of no gear is GE's E13025.
// RUN: ge-run %t/tiny.mlir --inputs %t/b2.npz | filecheck %s --check-prefix=B2
// B2: y: float32[2, 2] mean=1 std=1 [2., 0., 0., 2.]
// RUN: not ge-run %t/tiny.mlir --inputs %t/b3.npz 2>&1 | filecheck %s --check-prefix=B3
// B3: error: E13025: Input tensor is invalid. Reason: The input tensor dimension [3] (x:[3,2]) is not in the dynamic dimension list [[1], [2], [4]] configured by --dynamic_batch_size.

// Hybrid: the dynamic graph, compiled beside the gear graph on a second worker (as the Session
// does), rides along as a model of dynamic tasks and runs the shapes of no gear.
// RUN: ge-atc --model=%t/tiny.onnx --output=%t/hybrid.mlir --input_shape=x:-1,2 --dynamic_batch_size=1,2,4 --hybrid
// RUN: filecheck %s --check-prefix=HYBRID < %t/hybrid.mlir
// HYBRID:      ascend.model @tiny_dynamic
// HYBRID:        ascend.input "x" dyn[0] : tensor<?x2xf32>
// HYBRID:        ascend.dynamic_kernel
// HYBRID:      ascend.model @tiny {{.*}}label_num = 4 : i64, _hybrid_dynamic_graph = @tiny_dynamic}
// RUN: ge-run %t/hybrid.mlir --inputs %t/b3.npz | filecheck %s --check-prefix=HB3
// HB3: y: float32[3, 2] mean=2.16667 std=1.86339 [2., 0., 0., 2., 4., 5.]
// RUN: ge-run %t/hybrid.mlir --inputs %t/b2.npz | filecheck %s --check-prefix=B2

// Errors: one line, exit 1, nothing written.
// RUN: not ge-atc --model=%t/tiny.onnx --output=%t/bad --input_shape=x:-1,2 --dynamic_batch_size=2 2>&1 | filecheck %s --check-prefix=ONE
// ONE: error: ge-expand-multibatch: E10035: --dynamic_batch_size, --dynamic_image_size, or --dynamic_dims has 1 profiles, which is less than the minimum 2.
// ONE-NOT: Traceback
// RUN: not test -e %t/bad.mlir
// RUN: not ge-atc --model=%t/tiny.onnx --output=%t/bad --input_shape=x:-1,2 --dynamic_batch_size=1,2 --framework=3 2>&1 | filecheck %s --check-prefix=FW
// FW: error: --framework=3 (TensorFlow) is not supported: ge-atc reads ONNX models (--framework=5)
// RUN: not test -e %t/bad.mlir
