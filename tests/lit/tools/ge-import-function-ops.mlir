// An ONNX op GE has no kernel for but ONNX defines by a function (here CenterCropPad) imports
// as its function body: each body node converted by its own converter, named `<node>/<op>_<i>`,
// and the model runs to the padded result, also after ge-compile.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np, onnx; from onnx import helper as h, numpy_helper as nh, TensorProto as T; g = h.make_graph([h.make_node('CenterCropPad', ['x', 'shape'], ['y'], name='crop', axes=[1])], 'crop', [h.make_tensor_value_info('x', T.FLOAT, [2, 3])], [h.make_tensor_value_info('y', T.FLOAT, [2, 5])], [nh.from_array(np.array([5], np.int64), 'shape')]); onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 18)]), '%t/crop.onnx')"

// RUN: ge-import %t/crop.onnx -o %t/crop.mlir
// RUN: filecheck %s < %t/crop.mlir
// CHECK:      graph.graph @crop(%x: tensor<2x3xf32> {node_name = "x"}) -> (tensor<2x5xf32> {node_name = "y"}) {
// CHECK:        graph.shape %x {node_name = "crop/Shape_2"}
// CHECK:        graph.pad_v3 %x, {{.*}} {node_name = "crop/Pad_9"} : {{.*}} -> tensor<2x5xf32>
// CHECK:        %y = graph.strided_slice_v2 {{.*}} {node_name = "crop/Slice_15"}
// CHECK-NEXT:   graph.net_output %y : tensor<2x5xf32>

// RUN: %python -c "import numpy as np; np.savez('%t/in.npz', x=np.arange(1, 7, dtype=np.float32).reshape(2, 3))"
// RUN: ge-run %t/crop.mlir --inputs %t/in.npz | filecheck %s --check-prefix=OUT
// RUN: ge-opt %t/crop.mlir -p ge-compile -o %t/compiled.mlir
// RUN: ge-run %t/compiled.mlir --inputs %t/in.npz | filecheck %s --check-prefix=OUT
// OUT: y: float32[2, 5] mean=2.1 std=2.16564 [0., 1., 2., 3., 0., 0.] ...
