// Tests ge-run's variables: --variables IN.npz replaces initial values, --dump-variables
// OUT.npz writes every variable after the run (at both levels), and bad variables are one
// `error:` line with exit code 1.

// RUN: rm -rf %t && mkdir -p %t
// RUN: ge-opt %s -p 'ge-compile{iterations-per-loop=3}' -o %t/model.mlir
// RUN: ge-run %t/model.mlir --random-inputs 0 --dump-variables %t/after.npz -q 2>&1 | filecheck %s --allow-empty --check-prefix=QUIET
// QUIET-NOT: error
// RUN: %python -c "import numpy as np; d = np.load('%t/after.npz'); print(sorted(d), d['n'])" | filecheck %s --check-prefix=SUNK
// SUNK: ['n', 'w'] 13

// The binary model (.gebc) carries the variable region: the same numbers.
// RUN: ge-opt %t/model.mlir -o %t/model.gebc
// RUN: ge-run %t/model.gebc --random-inputs 0 --dump-variables %t/binary.npz -q
// RUN: %python -c "import numpy as np; a, b = np.load('%t/after.npz'), np.load('%t/binary.npz'); print(all((a[k] == b[k]).all() for k in a))" | filecheck %s --check-prefix=BINARY
// BINARY: True

// RUN: ge-run %s --random-inputs 0 --dump-variables %t/graph.npz -q
// RUN: %python -c "import numpy as np; d = np.load('%t/graph.npz'); print(d['n'])" | filecheck %s --check-prefix=ONCE
// ONCE: 11

// RUN: %python -c "import numpy as np; np.savez('%t/start.npz', n=np.array(100, np.int64))"
// RUN: ge-run %t/model.mlir --random-inputs 0 --variables %t/start.npz --dump-variables - -q | %python -c "import io, sys, numpy as np; print(np.load(io.BytesIO(sys.stdin.buffer.read()))['n'])" | filecheck %s --check-prefix=GIVEN
// GIVEN: 103

// RUN: %python -c "import numpy as np; np.savez('%t/shape.npz', w=np.zeros(3, np.float32))"
// RUN: not ge-run %t/model.mlir --random-inputs 0 --variables %t/shape.npz 2>&1 | filecheck %s --check-prefix=SHAPE
// SHAPE: error: {{.*}}shape.npz: variable 'w' is float32 [2], the value given is float32 [3]
// SHAPE-NOT: Traceback

// RUN: %python -c "import numpy as np; np.savez('%t/dtype.npz', n=np.array(1, np.int32))"
// RUN: not ge-run %s --random-inputs 0 --variables %t/dtype.npz 2>&1 | filecheck %s --check-prefix=DTYPE
// DTYPE: error: {{.*}}dtype.npz: variable 'n' is int64 [], the value given is int32 []

// RUN: %python -c "import numpy as np; np.savez('%t/unknown.npz', m=np.zeros(2, np.float32))"
// RUN: not ge-run %s --random-inputs 0 --variables %t/unknown.npz 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unknown variable 'm' (the module's variables: n, w), in {{.*}}unknown.npz

// A variable read before it has a value, at both levels (the model declares it without one).
// RUN: sed 's/"w" = dense<\[1.0, 2.0\]> : tensor<2xf32>/"w" : tensor<2xf32>/' %s > %t/noinit.mlir
// RUN: not ge-run %t/noinit.mlir --random-inputs 0 2>&1 | filecheck %s --check-prefix=NOINIT
// RUN: ge-opt %t/noinit.mlir -p ge-compile | not ge-run - --random-inputs 0 2>&1 | filecheck %s --check-prefix=NOINIT-MODEL
// NOINIT: error: 'graph.variable' in @main reads the variable "w" before it is initialised (give it an initial value, a value with Session.write_variable or ge-run --variables, or graph.assign it first)
// NOINIT-NOT: Traceback
// NOINIT-MODEL: error: 'ascend.model' @main reads the variable "w" before it is initialised

// RUN: not ge-run %s --random-inputs 0 --dump-variables - -o - 2>&1 | filecheck %s --check-prefix=STDOUT
// STDOUT: error: --dump-variables - and another output both write to stdout

graph.graph @main(%x: tensor<2xf32>) -> (tensor<2xf32> {node_name = "y"}) {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %n = graph.variable "n" = dense<10> : tensor<i64>
  %one = graph.const dense<1> : tensor<i64>
  %y = graph.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %n1 = graph.assign_add %n, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  graph.net_output %y : tensor<2xf32>
}
