// The memory budget through the tools: only regular files are read, `--max-memory SIZE` (or
// GE_MAX_MEMORY) bounds every allocation sized by the input, and a refusal is one line naming
// what, how much and the limit, exit 1, before anything is allocated.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/n5.npy', np.array(5.0, np.float32)); np.save('%t/n1e12.npy', np.array(1e12, np.float32))"

// Tests that a run within the budget runs.
// RUN: ge-run %s --input n=%t/n5.npy --max-memory 1M | filecheck %s
// CHECK-LABEL: output0: float32[5]

// Tests that a Range whose count comes from data is refused before its output is allocated.
// RUN: not ge-run %s --input n=%t/n1e12.npy --max-memory 1M 2>&1 | filecheck %s --check-prefix=RANGE
// RANGE: error: 'graph.range' "r": Range output float32[999999995904] needs 3.6 TiB, over the memory limit of 1.0 MiB (raise it with --max-memory or GE_MAX_MEMORY)
// RANGE-NOT: Traceback

// Tests the same at the ascend level, where Range is a dynamic kernel.
// RUN: ge-opt %s -p ge-compile -o %t/range.mlir
// RUN: not ge-run %t/range.mlir --input n=%t/n1e12.npy 2>&1 | filecheck %s --check-prefix=TASK
// TASK: error: 'ascend.dynamic_kernel' "r" (Range): Range output float32[999999995904] needs 3.6 TiB, over the memory limit of

// Tests that a file larger than the budget is not read.
// RUN: not ge-opt %s --max-memory 1K 2>&1 | filecheck %s --check-prefix=FILE
// FILE: error: reading {{.*}}max-memory.mlir needs {{.*}} KiB, over the memory limit of 1.0 KiB

// Tests that devices and FIFOs are refused, not read without end.
// RUN: not ge-run /dev/zero 2>&1 | filecheck %s --check-prefix=DEV
// DEV: error: cannot read /dev/zero: it is a character device, not a regular file
// RUN: not ge-opt /dev/zero 2>&1 | filecheck %s --check-prefix=DEVOPT
// DEVOPT: /dev/zero: error: it is a character device, not a regular file

// Tests that a bad size is one line.
// RUN: not ge-run %s --max-memory 8X 2>&1 | filecheck %s --check-prefix=SIZE
// SIZE: error: --max-memory: expected a byte count with an optional K/M/G/T suffix, got '8X'
// RUN: env GE_MAX_MEMORY=lots not ge-opt %s 2>&1 | filecheck %s --check-prefix=ENV
// ENV: error: GE_MAX_MEMORY: expected a byte count with an optional K/M/G/T suffix, got 'lots'

graph.graph @main(%n: tensor<f32>) -> (tensor<?xf32>) {
  %s = graph.const dense<0.0> : tensor<f32>
  %d = graph.const dense<1.0> : tensor<f32>
  %y = graph.range %s, %n, %d {node_name = "r"} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  graph.net_output %y : tensor<?xf32>
}
