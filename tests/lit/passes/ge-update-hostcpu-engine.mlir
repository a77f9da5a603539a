// RUN: ge-opt %s --split-input-file -p ge-update-hostcpu-engine | filecheck %s

// Tests GE's HostcpuEngineUpdatePass rule: from a host Data (`_host_tensor`) and a Const, the
// small Add on AI Core and the Mul on AI CPU after it move to host CPU with
// `SmallShapeHostcpu`; the Relu on a device Data stays.

graph.graph @chain(%x: tensor<2xi32> {node_name = "x", _host_tensor = true}, %y: tensor<4x4xf32> {node_name = "y"}) -> (tensor<2xi32>, tensor<4x4xf32>) {
  %c = graph.const dense<[1, 2]> : tensor<2xi32> {node_name = "c", _engine_name = "DNN_VM_GE_LOCAL"}
  %a = graph.add %x, %c {node_name = "a", _engine_name = "AIcoreEngine"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %b = graph.mul %a, %c {node_name = "b", _engine_name = "DNN_VM_AICPU"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %r = graph.relu %y {node_name = "r", _engine_name = "AIcoreEngine"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  graph.net_output {_engine_name = "DNN_VM_GE_LOCAL"} %b, %r : tensor<2xi32>, tensor<4x4xf32>
}

// CHECK-LABEL: graph.graph @chain(
// CHECK:         graph.add {{.*}}{node_name = "a", _engine_name = "DNN_VM_HOST_CPU", SmallShapeHostcpu = true}
// CHECK-NEXT:    graph.mul {{.*}}{node_name = "b", _engine_name = "DNN_VM_HOST_CPU", SmallShapeHostcpu = true}
// CHECK-NEXT:    graph.relu {{.*}}{node_name = "r", _engine_name = "AIcoreEngine"}

// -----

// Tests the walk from a GE-local Shape anchor through a GE-local Reshape (marked host-executed,
// not moved) to an Add that moves; a Data without `_host_tensor` is no anchor.

graph.graph @shape_anchor(%x: tensor<2x3xf32> {node_name = "x"}, %i: tensor<2xi64> {node_name = "i"}) -> (tensor<2xi64>, tensor<2xi64>) {
  %s = graph.shape %x {node_name = "s", _engine_name = "DNN_VM_GE_LOCAL"} : (tensor<2x3xf32>) -> tensor<2xi64>
  %c = graph.const dense<[2]> : tensor<1xi64> {node_name = "c", _engine_name = "DNN_VM_GE_LOCAL"}
  %r = graph.reshape %s, %c {node_name = "r", _engine_name = "DNN_VM_GE_LOCAL"} : (tensor<2xi64>, tensor<1xi64>) -> tensor<2xi64>
  %a = graph.add %r, %r {node_name = "a", _engine_name = "AIcoreEngine"} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %d = graph.add %i, %i {node_name = "d", _engine_name = "AIcoreEngine"} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  graph.net_output {_engine_name = "DNN_VM_GE_LOCAL"} %a, %d : tensor<2xi64>, tensor<2xi64>
}

// CHECK-LABEL: graph.graph @shape_anchor(
// CHECK:         graph.reshape {{.*}}{node_name = "r", _engine_name = "DNN_VM_GE_LOCAL"}
// CHECK-NEXT:    graph.add {{.*}}{node_name = "a", _engine_name = "DNN_VM_HOST_CPU", SmallShapeHostcpu = true}
// CHECK-NEXT:    graph.add {{.*}}{node_name = "d", _engine_name = "AIcoreEngine"}

// -----

// Tests the refusals: 9 elements (more than GE's 8), an op type host CPU has no kernel for
// (Relu), and a consumer of a refused node (its input is no longer host-executed).

graph.graph @refused(%x: tensor<9xf32> {node_name = "x", _host_tensor = true}, %y: tensor<2xf32> {node_name = "y", _host_tensor = true}) -> (tensor<9xf32>, tensor<2xf32>) {
  %a = graph.add %x, %x {node_name = "big", _engine_name = "AIcoreEngine"} : (tensor<9xf32>, tensor<9xf32>) -> tensor<9xf32>
  %r = graph.relu %y {node_name = "relu", _engine_name = "AIcoreEngine"} : (tensor<2xf32>) -> tensor<2xf32>
  %m = graph.mul %r, %y {node_name = "after", _engine_name = "AIcoreEngine"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output {_engine_name = "DNN_VM_GE_LOCAL"} %a, %m : tensor<9xf32>, tensor<2xf32>
}

// CHECK-LABEL: graph.graph @refused(
// CHECK-NOT:     DNN_VM_HOST_CPU
// CHECK:         graph.net_output
