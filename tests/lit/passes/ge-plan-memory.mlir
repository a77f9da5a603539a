// RUN: ge-opt %s --split-input-file -p 'ge-convert-graph-to-ascend,ge-plan-memory' | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-convert-graph-to-ascend,ge-plan-memory{reuse=false}' | filecheck %s --check-prefix=NOREUSE
// RUN: ge-opt %s --split-input-file -p 'ge-convert-graph-to-ascend,ge-plan-memory{strategy="ge-lifetime"}' | filecheck %s --check-prefix=GE
// RUN: ge-opt %s --split-input-file -p 'ge-convert-graph-to-ascend,ge-plan-memory{stats=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// Tests that a chain reuses the buffer of a dead tensor (ping-pong) and that inputs, outputs
// and weights keep their own ranges: weights, then I/O, then feature maps.

graph.graph @chain(%x: tensor<2x2xf32>) -> (tensor<2x2xf32> {node_name = "y"}) {
  %w = graph.const dense<0.5> : tensor<2x2xf32>
  %m1 = graph.matmul %x, %w {node_name = "m1"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %m2 = graph.matmul %m1, %w {node_name = "m2"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %m3 = graph.matmul %m2, %w {node_name = "m3"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.matmul %m3, %w {node_name = "m4"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %y : tensor<2x2xf32>
}

// CHECK-LABEL: ascend.model @chain arena_size 2560 weight_size 512 {
// CHECK:         ascend.weight arena[0] = dense<5.000000e-01> : tensor<2x2xf32>
// CHECK-NEXT:    ascend.input "x" arena[512] : tensor<2x2xf32>
// CHECK-NEXT:    ascend.output "y" arena[1024] : tensor<2x2xf32>
// CHECK-NEXT:    ascend.kernel "MatMul" "m1" {{.*}} outs(arena[1536] : tensor<2x2xf32>)
// CHECK-NEXT:    ascend.kernel "MatMul" "m2" {{.*}} ins(arena[1536] : tensor<2x2xf32>, {{.*}}) outs(arena[2048] : tensor<2x2xf32>)
// CHECK-NEXT:    ascend.kernel "MatMul" "m3" {{.*}} ins(arena[2048] : tensor<2x2xf32>, {{.*}}) outs(arena[1536] : tensor<2x2xf32>)
// CHECK-NEXT:    ascend.kernel "MatMul" "m4" {{.*}} ins(arena[1536] : tensor<2x2xf32>, {{.*}}) outs(arena[1024] : tensor<2x2xf32>)

// NOREUSE-LABEL: ascend.model @chain arena_size 3072 weight_size 512 {
// NOREUSE:         ascend.kernel "MatMul" "m1" {{.*}} outs(arena[1536] : tensor<2x2xf32>)
// NOREUSE-NEXT:    ascend.kernel "MatMul" "m2" {{.*}} outs(arena[2048] : tensor<2x2xf32>)
// NOREUSE-NEXT:    ascend.kernel "MatMul" "m3" {{.*}} outs(arena[2560] : tensor<2x2xf32>)

// GE-LABEL: ascend.model @chain arena_size 2560

// STATS: remark: ge-plan-memory @chain: arena 2560 B = weights 512 + io 1024 + features 1024; lower bound 1024 B, ratio 1.000; no reuse 1536 B (1.50x); 3 tensors in 3 blocks (0 in place); strategy greedy-by-size

// -----

// Tests in-place reuse: an elementwise kernel writes over an input that dies there, a
// non-allow-listed one (MatMul) never does, and an input read later stays intact.

graph.graph @in_place(%x: tensor<2x2xf32>) -> (tensor<2x2xf32> {node_name = "y"}) {
  %w = graph.const dense<0.5> : tensor<2x2xf32>
  %m = graph.matmul %x, %w {node_name = "m"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = graph.relu %m {node_name = "r"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %e = graph.exp %r {node_name = "e"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = graph.add %e, %r {node_name = "s"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.matmul %s, %w {node_name = "out"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %y : tensor<2x2xf32>
}

// CHECK-LABEL: ascend.model @in_place
// CHECK:         ascend.kernel "MatMul" "m" {{.*}} outs(arena[[[M:[0-9]+]]] : tensor<2x2xf32>)
// CHECK-NEXT:    ascend.kernel "Relu" "r" {{.*}} ins(arena[[[M]]] : tensor<2x2xf32>) outs(arena[[[M]]] : tensor<2x2xf32>)
// CHECK-NEXT:    ascend.kernel "Exp" "e" {{.*}} ins(arena[[[M]]] : tensor<2x2xf32>) outs(arena[[[E:[0-9]+]]] : tensor<2x2xf32>)
// CHECK-NEXT:    ascend.kernel "Add" "s" {{.*}} ins(arena[[[E]]] : tensor<2x2xf32>, arena[[[M]]] : tensor<2x2xf32>) outs(arena[[[E]]] : tensor<2x2xf32>)
// CHECK-NEXT:    ascend.kernel "MatMul" "out" {{.*}} ins(arena[[[E]]] : tensor<2x2xf32>, {{.*}})

// STATS: remark: ge-plan-memory @in_place: {{.*}} 4 tensors in 2 blocks (2 in place)

// -----

// Tests the per-gear overlay: on branch 0's path the case input %v dies at its first use
// there, so the branch's next tensor takes its memory although branch 1 reads %v later in
// program order.

graph.graph @gears(%i: tensor<i32>, %x: tensor<2x2xf32>) -> (tensor<2x2xf32> {node_name = "y"}) {
  %w = graph.const dense<0.5> : tensor<2x2xf32>
  %v = graph.matmul %x, %w {node_name = "v"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = multibatch.case %i, %v branches [@two_steps, @one_step] : (tensor<i32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.matmul %r, %w {node_name = "out"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %y : tensor<2x2xf32>
}
graph.graph @two_steps(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = graph.const dense<2.0> : tensor<2x2xf32>
  %b = graph.matmul %a, %w {node_name = "b"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = graph.matmul %b, %w {node_name = "c"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %c : tensor<2x2xf32>
}
graph.graph @one_step(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = graph.const dense<3.0> : tensor<2x2xf32>
  %d = graph.matmul %a, %w {node_name = "d"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %d : tensor<2x2xf32>
}

// CHECK-LABEL: ascend.model @gears
// CHECK:         ascend.kernel "MatMul" "v" {{.*}} outs(arena[[[V:[0-9]+]]] : tensor<2x2xf32>)
// CHECK-NEXT:    ascend.label_switch_by_index
// CHECK-NEXT:    ascend.label_set 1
// CHECK-NEXT:    ascend.kernel "MatMul" "b" {{.*}} ins(arena[[[V]]] : tensor<2x2xf32>, {{.*}}) outs(arena[[[B:[0-9]+]]] : tensor<2x2xf32>)
// CHECK-NEXT:    ascend.kernel "MatMul" "c" {{.*}} ins(arena[[[B]]] : tensor<2x2xf32>, {{.*}}) outs(arena[[[V]]] : tensor<2x2xf32>)
// CHECK:         ascend.label_set 2
// CHECK-NEXT:    ascend.kernel "MatMul" "d" {{.*}} ins(arena[[[V]]] : tensor<2x2xf32>, {{.*}})
