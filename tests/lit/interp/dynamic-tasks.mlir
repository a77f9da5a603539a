// Tests running dynamic tasks: shapes decided by the kernels, dynamic buffers placed at run
// time, and the run-time shape checks where a value meets a static type.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.savez('%t/four.npz', x=np.arange(-12, 12, dtype=np.float32).reshape(4, 6))"
// RUN: %python -c "import numpy as np; np.savez('%t/three.npz', x=np.ones((3, 6), np.float32))"
// RUN: %python -c "import numpy as np; np.savez('%t/rank.npz', x=np.ones((24,), np.float32))"

// RUN: ge-run %s --inputs %t/four.npz --check-uninitialized --profile | filecheck %s --check-prefix=FOUR
// FOUR:      positive: int64[11, 2]
// FOUR-NEXT: known: float32[4, 6]
// FOUR:      makespan
// FOUR:      dynamic memory peak     1024 bytes (placed at run time)

// A batch of 3 reaches the known partition, compiled for 4 rows.
// RUN: not ge-run %s --inputs %t/three.npz 2>&1 | filecheck %s --check-prefix=THREE
// THREE: error: 'ascend.memcpy_async' on stream 0 copies dyn[1] : tensor<?x6xf32> of shape (3, 6) into arena[512] : tensor<4x6xf32>; the known partition that reads it was compiled for that shape
// THREE-NOT: Traceback

// An empty inputs file is a one-line error too.
// RUN: touch %t/empty.npz
// RUN: not ge-run %s --inputs %t/empty.npz 2>&1 | filecheck %s --check-prefix=EMPTY
// EMPTY: error: cannot read {{.*}}empty.npz: No data left in file

// The input's static dim is checked when it is placed.
// RUN: not ge-run %s --inputs %t/rank.npz 2>&1 | filecheck %s --check-prefix=RANK
// RANK: error: input 'x' has shape [24], @main expects [?,6] (tensor<?x6xf32>)

ascend.model @main arena_size 1536 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" dyn[0] : tensor<?x6xf32>
  ascend.output "positive" dyn[3] : tensor<?x2xi64>
  ascend.output "known" arena[1024] : tensor<4x6xf32>
  ascend.dynamic_kernel "Relu" "relu" engine "AIcoreEngine" stream 0 ins(dyn[0] : tensor<?x6xf32>) outs(dyn[1] : tensor<?x6xf32>)
  ascend.dynamic_kernel "NonZero" "nz" engine "DNN_VM_AICPU" stream 0 ins(dyn[1] : tensor<?x6xf32>) outs(dyn[2] : tensor<2x?xi64>)
  ascend.dynamic_kernel "Transpose" "tr" engine "DNN_VM_AICPU" stream 0 ins(dyn[2] : tensor<2x?xi64>) outs(dyn[3] : tensor<?x2xi64>) attrs {perm = array<i64: 1, 0>}
  ascend.memcpy_async stream 0 dyn[1] : tensor<?x6xf32> to arena[512] : tensor<4x6xf32>
  ascend.kernel "Neg" "neg" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<4x6xf32>) outs(arena[1024] : tensor<4x6xf32>)
  ascend.end_graph stream 0
}
