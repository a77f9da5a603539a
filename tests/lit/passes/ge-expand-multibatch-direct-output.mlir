// RUN: ge-opt %s -p 'ge-expand-multibatch{input-shape="x:-1,3;yin:-1,3" dynamic-batch-size="1,4,8"}' | filecheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: ge-opt %s -p 'ge-expand-multibatch{input-shape="x:-1,3;yin:-1,3" dynamic-batch-size="1,4,8"},ge-compile' -o %t/model.mlir
// RUN: filecheck %s --check-prefix=MODEL < %t/model.mlir
// RUN: %python -c "import numpy as np; np.savez('%t/four.npz', x=np.arange(-6, 6, dtype=np.float32).reshape(4, 3), yin=np.full((4, 3), 7, np.float32))"
// RUN: %python -c "import numpy as np; np.savez('%t/one.npz', x=np.array([[-1, 2, -3]], np.float32), yin=np.full((1, 3), 5, np.float32))"
// RUN: ge-run %t/model.mlir --inputs %t/four.npz | filecheck %s --check-prefix=FOUR
// RUN: ge-run %t/model.mlir --inputs %t/one.npz | filecheck %s --check-prefix=ONE
// RUN: ge-opt %s -p 'ge-compile{input-shape="x:-1,3;yin:-1,3" dynamic-batch-size="1,4,8"}' | filecheck %s --check-prefix=MODEL

// Regression test (issue 19 part 6): an input that is also a graph output (GE's direct output,
// PruneDirectOutput) wrote xDSL's dynamic-dim marker into `_dynamic_output_dims`
// ("-1,1,-9223372036854775808,3"), which `ge-compile` then refused. A direct output of an input
// with -1 dims gets one entry per gear (the input's shape in that gear); no entry holds a
// negative dim.

// CHECK-LABEL: graph.graph @main
// CHECK:         graph.net_output {_dynamic_output_dims = ["0,0,1,3", "1,0,4,3", "2,0,8,3", "0,1,1,3", "1,1,4,3", "2,1,8,3"]}
// CHECK-NOT:     -9223372036854775808

// MODEL-LABEL: ascend.model @main
// MODEL-SAME:    _dynamic_output_dims = ["0,0,1,3", "1,0,4,3", "2,0,8,3", "0,1,1,3", "1,1,4,3", "2,1,8,3"]
// MODEL-NOT:     -9223372036854775808

// FOUR:      y: float32[4, 3]
// FOUR-NEXT: yout: float32[4, 3] mean=7

// ONE:      y: float32[1, 3] mean=0.666667
// ONE-NEXT: yout: float32[1, 3] mean=5

graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}, %yin: tensor<?x3xf32> {node_name = "yin"})
    -> (tensor<?x3xf32> {node_name = "y"}, tensor<?x3xf32> {node_name = "yout"}) {
  %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %r, %yin : tensor<?x3xf32>, tensor<?x3xf32>
}
