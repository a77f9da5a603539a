// RUN: ge-opt %s --split-input-file -p ge-place-engines | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-place-engines{exclude-engines=AIcoreEngine}' | filecheck %s --check-prefix=NOAIC
// RUN: ge-opt %s --split-input-file -p 'ge-place-engines{exclude-engines=AIcoreEngine,VectorEngine}' | filecheck %s --check-prefix=CPU

// Tests that engines are tried in cost order: AI Core first, GE local for no-task ops.

graph.graph @cost_order(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  %w = graph.const dense<1.0> : tensor<4xf32>
  %a = graph.add %x, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %r = graph.relu %a : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = graph.const dense<[8]> : tensor<1xi64>
  %y = graph.reshape %r, %s : (tensor<2x4xf32>, tensor<1xi64>) -> tensor<8xf32>
  graph.net_output %y : tensor<8xf32>
}

// CHECK-LABEL: graph.graph @cost_order
// CHECK:         graph.const {{.*}} {_engine_name = "DNN_VM_GE_LOCAL"}
// CHECK:         graph.add {{.*}} {_engine_name = "AIcoreEngine"}
// CHECK:         graph.relu {{.*}} {_engine_name = "AIcoreEngine"}
// CHECK:         graph.reshape {{.*}} {_engine_name = "DNN_VM_GE_LOCAL"}
// CHECK:         graph.net_output {_engine_name = "DNN_VM_GE_LOCAL"}

// Excluding AI Core moves the elementwise ops to the Vector Core (next in cost order).
// NOAIC-LABEL: graph.graph @cost_order
// NOAIC:         graph.add {{.*}} {_engine_name = "VectorEngine"}
// NOAIC:         graph.relu {{.*}} {_engine_name = "VectorEngine"}

// CPU-LABEL: graph.graph @cost_order
// CPU:         graph.add {{.*}} {_engine_name = "DNN_VM_AICPU"}
// CPU:         graph.reshape {{.*}} {_engine_name = "DNN_VM_GE_LOCAL"}

// -----

// Tests that the AI Core's dtype, float-only, unknown-rank and data-dependence checks send
// ops to the AI CPU, while `?` dims stay on the AI Core.

graph.graph @checks(%d: tensor<4xf64>, %i: tensor<2x2xi32>, %u: tensor<*xf32>, %q: tensor<?x4xf32>, %m: tensor<4xi64>) -> (tensor<4xf64>, tensor<2x2xi32>, tensor<*xf32>, tensor<?x4xf32>, tensor<1x?xi64>) {
  %a = graph.add %d, %d {node_name = "f64"} : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %b = graph.matmul %i, %i {node_name = "int_matmul"} : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %c = graph.relu %u {node_name = "unranked"} : (tensor<*xf32>) -> tensor<*xf32>
  %e = graph.relu %q {node_name = "dynamic"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %n = graph.non_zero %m {node_name = "nonzero"} : (tensor<4xi64>) -> tensor<1x?xi64>
  graph.net_output %a, %b, %c, %e, %n : tensor<4xf64>, tensor<2x2xi32>, tensor<*xf32>, tensor<?x4xf32>, tensor<1x?xi64>
}

// CHECK-LABEL: graph.graph @checks
// CHECK:         graph.add {{.*}} {node_name = "f64", _engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.matmul {{.*}} {node_name = "int_matmul", _engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.relu {{.*}} {node_name = "unranked", _engine_name = "DNN_VM_AICPU"}
// CHECK:         graph.relu {{.*}} {node_name = "dynamic", _engine_name = "AIcoreEngine"}
// CHECK:         graph.non_zero {{.*}} {node_name = "nonzero", _engine_name = "DNN_VM_AICPU"}

// -----

// Tests that a specified engine wins over the cost order, that a placed engine is kept, and
// that MapIndex goes to the host CPU (GE's HostcpuEngineUpdatePass white list).

graph.graph @pinned(%x: tensor<4xf32>, %dims: tensor<2xi32>) -> (tensor<4xf32>, tensor<i32>) {
  %a = graph.relu %x {node_name = "pinned", _specified_engine_name = "DNN_VM_HOST_CPU"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.relu %a {node_name = "placed", _engine_name = "DNN_VM_AICPU"} : (tensor<4xf32>) -> tensor<4xf32>
  %t = graph.const dense<[1, 2, 3, 4]> : tensor<4xi32>
  %i = multibatch.map_index %dims, %t {node_name = "gear"} : (tensor<2xi32>, tensor<4xi32>) -> tensor<i32>
  graph.net_output %b, %i : tensor<4xf32>, tensor<i32>
}

// CHECK-LABEL: graph.graph @pinned
// CHECK:         graph.relu {{.*}} {node_name = "pinned", _specified_engine_name = "DNN_VM_HOST_CPU", _engine_name = "DNN_VM_HOST_CPU"}
// CHECK:         graph.relu {{.*}} {node_name = "placed", _engine_name = "DNN_VM_AICPU"}
// CHECK:         multibatch.map_index {{.*}} {node_name = "gear", _engine_name = "DNN_VM_HOST_CPU"}
