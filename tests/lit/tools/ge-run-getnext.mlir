// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.savez('%t/b4.npz', x=np.arange(-6, 6, dtype=np.float32).reshape(4, 3), y=np.ones(4, np.float32)); np.savez('%t/b1.npz', x=np.array([[1, -2, 3]], np.float32), y=np.full(1, 10, np.float32)); np.savez('%t/b2.npz', x=np.ones((2, 3), np.float32), y=np.zeros(2, np.float32)); np.savez('%t/b3.npz', x=np.ones((3, 3), np.float32), y=np.zeros(3, np.float32))"
// RUN: ge-opt %s -p 'ge-sink-inputs,ge-compile{input-shape="x:-1,3;y:-1" dynamic-dims="1,1;4,4;2,2"}' -o %t/model.mlir
// RUN: ge-run %t/model.mlir --inputs %t/b4.npz --inputs %t/b1.npz --inputs %t/b2.npz --check-uninitialized -o %t/out.npz | filecheck %s --check-prefix=QUEUE
// RUN: %python -c "import numpy as np; d = np.load('%t/out.npz'); print(sorted(d.files)); print(d['r:2'].tolist(), d['s:3'].tolist())" | filecheck %s --check-prefix=NPZ
// RUN: ge-run %t/model.mlir --inputs %t/b2.npz | filecheck %s --check-prefix=ONE
// RUN: ge-opt %s -p 'ge-sink-inputs,ge-compile{input-shape="x:-1,3;y:-1" dynamic-dims="1,1;4,4;2,2" iterations-per-loop=2}' -o %t/sunk.mlir
// RUN: ge-run %t/sunk.mlir --inputs %t/b4.npz --inputs %t/b1.npz --inputs %t/b2.npz --inputs %t/b4.npz --check-uninitialized | filecheck %s --check-prefix=SINK
// RUN: not ge-run %t/sunk.mlir --inputs %t/b4.npz --inputs %t/b1.npz --inputs %t/b2.npz 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not ge-run %t/model.mlir --inputs %t/b4.npz --inputs %t/b3.npz 2>&1 | filecheck %s --check-prefix=NOGEAR
// RUN: ge-opt %s -o %t/plain.mlir
// RUN: not ge-run %t/plain.mlir --inputs %t/b4.npz --inputs %t/b1.npz 2>&1 | filecheck %s --check-prefix=PLAIN
// RUN: ge-opt %s -p 'ge-sink-inputs,ge-expand-multibatch{input-shape="x:-1,3;y:-1" dynamic-dims="1,1;4,4;2,2"}' | ge-run - --inputs %t/b4.npz --inputs %t/b1.npz | filecheck %s --check-prefix=GRAPH

// Tests GetNext sink through the tools: each launch's GetNext pulls the next --inputs set,
// GetDynamicDims finds its gear on the device, and the outputs take that gear's shapes
// (read back from the hidden last output). With ge-sink-loop N a launch pulls N sets and
// returns the last iteration's outputs.

// QUEUE:      launch 1:
// QUEUE-NEXT: r: float32[4, 3]
// QUEUE-NEXT: s: float32[4] mean=4.75 {{.*}} [ 1.,  1.,  4., 13.]
// QUEUE-NEXT: yout: float32[4]
// QUEUE-NEXT: launch 2:
// QUEUE-NEXT: r: float32[1, 3] mean=1.33333 std=1.24722 [1., 0., 3.]
// QUEUE-NEXT: s: float32[1] mean=14 std=0 [14.]
// QUEUE-NEXT: yout: float32[1] mean=10
// QUEUE-NEXT: launch 3:
// QUEUE-NEXT: r: float32[2, 3]
// QUEUE-NEXT: s: float32[2] mean=3 std=0 [3., 3.]
// QUEUE-NEXT: yout: float32[2]

// NPZ: ['r:1', 'r:2', 'r:3', 's:1', 's:2', 's:3', 'yout:1', 'yout:2', 'yout:3']
// NPZ: {{\[\[1.0, 0.0, 3.0\]\] \[3.0, 3.0\]}}

// ONE:      r: float32[2, 3]
// ONE-NEXT: s: float32[2] mean=3

// SINK:      launch 1:
// SINK-NEXT: r: float32[1, 3]
// SINK-NEXT: s: float32[1] mean=14
// SINK:      launch 2:
// SINK-NEXT: r: float32[4, 3]
// SINK-NEXT: s: float32[4] mean=4.75

// EMPTY: error: 'ascend.kernel' "IteratorGetNext" (GetNext): GetNext: end of sequence: the input queue is empty after 3 input set(s) (a launch of a model sunk with iterations_per_loop N pulls N)
// NOGEAR: error: {{.*}}E13025{{.*}}[3,3]
// PLAIN: error: --inputs is given 2 times: @main is not fed by a GetNext (ge-sink-inputs), so it takes one input set

// GRAPH:      launch 1:
// GRAPH-NEXT: r: float32[4, 3]
// GRAPH:      launch 2:
// GRAPH-NEXT: r: float32[1, 3] mean=1.33333

graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}, %y: tensor<?xf32> {node_name = "y"})
    -> (tensor<?x3xf32> {node_name = "r"}, tensor<?xf32> {node_name = "s"}, tensor<?xf32> {node_name = "yout"}) {
  %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %axes = graph.const dense<[1]> : tensor<1xi64> {node_name = "axes"}
  %m = graph.reduce_sum %r, %axes : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  %s = graph.add %m, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %r, %s, %y : tensor<?x3xf32>, tensor<?xf32>, tensor<?xf32>
}
