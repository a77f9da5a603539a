// RUN: ge-opt %s --split-input-file -p ge-convert-graph-to-ascend | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-convert-graph-to-ascend{alignment=64 default-engine="VectorEngine"}' | filecheck %s --check-prefix=OPTS

// Tests that a graph becomes a model: weights first, then inputs/outputs, one kernel per node.

graph.graph @relu_bias(%x: tensor<2x4xf32>) -> (tensor<2x4xf32> {node_name = "y"}) {
  %b = graph.const dense<1.0> : tensor<4xf32>
  %s = graph.add %x, %b {node_name = "bias"} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %r = graph.relu %s {node_name = "act", _specified_engine_name = "DNN_VM_AICPU"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  graph.net_output %r : tensor<2x4xf32>
}

// CHECK-LABEL: ascend.model @relu_bias arena_size 2048 weight_size 512 {
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.weight arena[0] = dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    ascend.input "x" arena[512] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.output "y" arena[1536] : tensor<2x4xf32>
// CHECK-NEXT:    ascend.kernel "Add" "bias" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<2x4xf32>, arena[0] : tensor<4xf32>) outs(arena[1024] : tensor<2x4xf32>)
// CHECK-NEXT:    ascend.kernel "Relu" "act" engine "DNN_VM_AICPU" stream 0 ins(arena[1024] : tensor<2x4xf32>) outs(arena[1536] : tensor<2x4xf32>)
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-NEXT:  }
// CHECK-NOT:   graph.

// OPTS-LABEL: ascend.model @relu_bias arena_size 256 weight_size 64 {
// OPTS-NEXT:    ascend.stream 0 engine "VectorEngine"
// OPTS:         ascend.kernel "Add" "bias" engine "VectorEngine" stream 0 ins(arena[64] : tensor<2x4xf32>, arena[0] : tensor<4xf32>) outs(arena[128] : tensor<2x4xf32>)

// -----

// Tests that outputs which are inputs, weights or repeated values get their own copies.

graph.graph @aliases(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %w = graph.const dense<2.0> : tensor<4xf32>
  %m = graph.mul %x, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %x, %w, %m, %m : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: ascend.model @aliases
// CHECK:         ascend.input "x" arena[[[X:[0-9]+]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.output "output0" arena[[[O0:[0-9]+]]]
// CHECK-NEXT:    ascend.output "output1" arena[[[O1:[0-9]+]]]
// CHECK-NEXT:    ascend.output "output2" arena[[[M:[0-9]+]]]
// CHECK-NEXT:    ascend.output "output3" arena[[[O3:[0-9]+]]]
// CHECK-NEXT:    ascend.kernel "Mul" "Mul_0" {{.*}} outs(arena[[[M]]] : tensor<4xf32>)
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[X]]] : tensor<4xf32> to arena[[[O0]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[0] : tensor<4xf32> to arena[[[O1]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[M]]] : tensor<4xf32> to arena[[[O3]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.end_graph stream 0

// -----

// Tests that a partitioned_call is inlined and its callee removed.

graph.graph @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = partition.partitioned_call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %z = partition.partitioned_call @callee(%y) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %z : tensor<4xf32>
}
graph.graph @callee(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %a {node_name = "inner"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @caller
// CHECK:         ascend.kernel "Relu" "inner" {{.*}} outs(arena[[[A:[0-9]+]]]
// CHECK-NEXT:    ascend.kernel "Relu" "inner_1" {{.*}} ins(arena[[[A]]] : tensor<4xf32>)
// CHECK-NOT:     @callee

// -----

// Tests that a case becomes GE's label scheme: switch, one labelled block per branch, gotos.

graph.graph @gears(%x: tensor<2xi32>, %v: tensor<4xf32>) -> tensor<4xf32> {
  %table = graph.const dense<[1, 2, 3, 4]> : tensor<4xi32>
  %i = multibatch.map_index %x, %table {node_name = "pick"} : (tensor<2xi32>, tensor<4xi32>) -> tensor<i32>
  %r = multibatch.case %i, %v branches [@double, @negate] : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @double(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @negate(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.sub %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @gears
// CHECK:         ascend.output "output0" arena[[[OUT:[0-9]+]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.kernel "MapIndex" "pick" engine "DNN_VM_HOST_CPU" {{.*}} outs(arena[[[I:[0-9]+]]] : tensor<i32>)
// CHECK-NEXT:    ascend.label_switch_by_index arena[[[I]]] : tensor<i32> labels [1, 2] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.kernel "Add"
// CHECK-NEXT:    ascend.memcpy_async stream 0 {{.*}} to arena[[[OUT]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 0
// CHECK-NEXT:    ascend.kernel "Sub"
// CHECK-NEXT:    ascend.memcpy_async stream 0 {{.*}} to arena[[[OUT]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.end_graph stream 0

// -----

// Tests that an End / PlaceHolder pair shares one buffer across the engine boundary.

graph.graph @boundary(%x: tensor<4xf32>) -> tensor<4xf32> {
  partition.partitioned_call @producer(%x) : (tensor<4xf32>) -> ()
  %y = partition.partitioned_call @consumer() : () -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @producer(%a: tensor<4xf32>) -> () {
  %r = graph.relu %a {node_name = "produce"} : (tensor<4xf32>) -> tensor<4xf32>
  partition.end %r peerIndex 0 : (tensor<4xf32>) -> ()
  graph.net_output
}
graph.graph @consumer() -> tensor<4xf32> {
  %p = partition.place_holder peerIndex 0 : () -> tensor<4xf32>
  %r = graph.add %p, %p {node_name = "consume"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @boundary
// CHECK:         ascend.kernel "Relu" "produce" {{.*}} outs(arena[[[P:[0-9]+]]] : tensor<4xf32>)
// CHECK-NEXT:    ascend.kernel "Add" "consume" {{.*}} ins(arena[[[P]]] : tensor<4xf32>, arena[[[P]]] : tensor<4xf32>)
