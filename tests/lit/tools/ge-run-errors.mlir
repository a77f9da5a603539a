// Tests that bad inputs to ge-run are one `error:` line on stderr and exit code 1.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.savez('%t/missing.npz', x=np.zeros((2, 3), np.float32))"
// RUN: not ge-run %s --inputs %t/missing.npz 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: error: missing input 'y' (tensor<3xf32>) for @main; given: x
// MISSING-NOT: Traceback

// RUN: %python -c "import numpy as np; np.savez('%t/shape.npz', x=np.zeros((3, 2), np.float32), y=np.zeros(3, np.float32))"
// RUN: not ge-run %s --inputs %t/shape.npz 2>&1 | filecheck %s --check-prefix=SHAPE
// SHAPE: error: input 'x' has shape [3,2], @main expects [2,3] (tensor<2x3xf32>)

// RUN: %python -c "import numpy as np; np.savez('%t/dtype.npz', x=np.zeros((2, 3), np.int32), y=np.zeros(3, np.float32))"
// RUN: not ge-run %s --inputs %t/dtype.npz 2>&1 | filecheck %s --check-prefix=DTYPE
// DTYPE: error: input 'x' has dtype int32, @main expects float32 (tensor<2x3xf32>)

// RUN: not ge-run %inputs/malformed.mlir --random-inputs 0 2>&1 | filecheck %s --check-prefix=PARSE
// PARSE: malformed.mlir:4:{{[0-9]+}}: error: Operation graph.relu_typo is not registered

// RUN: ge-run %s --random-inputs 0 | filecheck %s --check-prefix=OK
// OK: sum: float32[2, 3]

graph.graph @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32> {node_name = "sum"}) {
  %s = graph.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  graph.net_output %s : tensor<2x3xf32>
}
