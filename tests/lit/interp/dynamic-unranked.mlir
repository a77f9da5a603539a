// An unknown-rank value (a Squeeze without axes of an unknown dim: the rank depends on the
// run) in an unknown-shape partition: its dynamic buffers are unranked, `dyn[k] : tensor<*xf32>`,
// and each run gives the rank the data decides, through files, equal to the graph level.

// RUN: rm -rf %t && mkdir -p %t
// RUN: ge-opt %s -p ge-compile -o %t/c.mlir
// RUN: filecheck %s --check-prefix=TASKS < %t/c.mlir
// TASKS-LABEL: ascend.model @unranked
// TASKS:       ascend.input "x" dyn[0] : tensor<?x1x3xf32>
// TASKS:       ascend.output "y" dyn{{\[}}[[Y:[0-9]+]]{{\]}} : tensor<*xf32>
// TASKS:       ascend.dynamic_kernel "SqueezeV3" "squeeze" {{.*}} ins(dyn[0] : tensor<?x1x3xf32>) outs(dyn{{\[}}[[S:[0-9]+]]{{\]}} : tensor<*xf32>)
// TASKS:       ascend.dynamic_kernel "Relu" "relu" {{.*}} ins(dyn{{\[}}[[S]]{{\]}} : tensor<*xf32>) outs(dyn{{\[}}[[Y]]{{\]}} : tensor<*xf32>)

// RUN: %python -c "import numpy as np; np.savez('%t/three.npz', x=np.arange(-4.5, 4.5, dtype=np.float32).reshape(3, 1, 3))"
// RUN: %python -c "import numpy as np; np.savez('%t/one.npz', x=np.arange(-1.5, 1.5, dtype=np.float32).reshape(1, 1, 3))"
// RUN: ge-run %s --inputs %t/three.npz -o %t/three.ref.npz | filecheck %s --check-prefix=THREE
// RUN: ge-run %t/c.mlir --inputs %t/three.npz --check-uninitialized --reference %t/three.ref.npz | filecheck %s --check-prefix=THREE
// THREE: y: float32[3, 3]
// RUN: ge-run %s --inputs %t/one.npz -o %t/one.ref.npz | filecheck %s --check-prefix=ONE
// RUN: ge-run %t/c.mlir --inputs %t/one.npz --check-uninitialized --reference %t/one.ref.npz | filecheck %s --check-prefix=ONE
// ONE: y: float32[3] mean=0.166667

// The generic form keeps the unranked buffers (custom -> generic -> custom).
// RUN: ge-opt %t/c.mlir --print-op-generic | ge-opt | filecheck %s --check-prefix=TASKS

graph.graph @unranked(%x: tensor<?x1x3xf32> {node_name = "x"}) -> (tensor<*xf32> {node_name = "y"}) {
  %s = graph.squeeze_v3 %x {node_name = "squeeze"} : (tensor<?x1x3xf32>) -> tensor<*xf32>
  %y = graph.relu %s {node_name = "relu"} : (tensor<*xf32>) -> tensor<*xf32>
  graph.net_output %y : tensor<*xf32>
}
