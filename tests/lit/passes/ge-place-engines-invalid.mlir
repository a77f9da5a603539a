// RUN: ge-opt %s --split-input-file --verify-diagnostics -p ge-place-engines | filecheck %s
// RUN: not ge-opt %s -p 'ge-place-engines{exclude-engines=AIcore}' 2>&1 | filecheck %s --check-prefix=OPT
// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'ge-place-engines{exclude-engines=DNN_VM_AICPU}' | filecheck %s --check-prefix=EXCL

// Tests that an unknown engine name in `_specified_engine_name` is an error naming the node,
// and that an unknown name in exclude-engines is one too.

graph.graph @unknown_name(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "act", _specified_engine_name = "GPU"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK: ge-place-engines: unknown engine 'GPU' in _specified_engine_name of 'graph.relu' (act) (known: AIcoreEngine, VectorEngine, DNN_VM_AICPU, DNN_VM_DVPP, DNN_VM_HOST_CPU, DNN_VM_GE_LOCAL, DNN_VM_RTS)
// OPT: error: ge-place-engines: unknown engine 'AIcore' in exclude-engines (known: AIcoreEngine,

// -----

// Tests that an unknown name in a placed `_engine_name` is an error too.

graph.graph @unknown_placed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "act", _engine_name = "TPU"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK: ge-place-engines: unknown engine 'TPU' in _engine_name of 'graph.relu' (act)

// -----

// Tests that a node pinned to an excluded engine is refused.

graph.graph @pinned_excluded(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "act", _specified_engine_name = "DNN_VM_AICPU"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// EXCL: ge-place-engines: 'graph.relu' (act) is specified on DNN_VM_AICPU, which exclude-engines excludes

// -----

// Tests that a node no engine supports (GE's EZ3003) lists every engine's reason.

graph.graph @no_engine(%m: tensor<4xi64>) -> tensor<1x?xi64> {
  %n = graph.non_zero %m {node_name = "nz"} : (tensor<4xi64>) -> tensor<1x?xi64>
  graph.net_output %n : tensor<1x?xi64>
}

// EXCL: ge-place-engines: no engine supports 'graph.non_zero' (nz) (GE NonZero): AIcoreEngine: op type NonZero has a data-dependent output shape; VectorEngine: op type NonZero is not in its kernel store; DNN_VM_AICPU: excluded; DNN_VM_DVPP: op type NonZero is not in its kernel store; DNN_VM_HOST_CPU: op type NonZero is not in its kernel store; DNN_VM_GE_LOCAL: op type NonZero is not in its kernel store; DNN_VM_RTS: op type NonZero is not in its kernel store
