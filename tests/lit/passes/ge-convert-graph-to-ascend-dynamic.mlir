// RUN: ge-opt %s --split-input-file -p 'ge-partition-dynamic-shape{static-model-ops-lower-limit=1},ge-convert-graph-to-ascend' | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-compile{static-model-ops-lower-limit=-1}' | filecheck %s --check-prefix=ALL

// With GE's -1 limit the whole graph runs dynamically: every node is a dynamic kernel.
// ALL-LABEL: ascend.model @mixed
// ALL-NOT:     ascend.kernel
// ALL:         ascend.dynamic_kernel "Relu" "relu"
// ALL-NOT:     ascend.kernel
// ALL:         ascend.dynamic_kernel "Relu" "relu2"
// ALL-LABEL: ascend.model @whole

// Tests the lowering of unknown-shape partitions (GE's hybrid execution): the nodes of the
// unknown partition (NonZero and what depends on its shape) become dynamic kernels on dynamic
// buffers, reading planned buffers of the known partition before it directly; the known partition after it gets its input copied into a planned
// buffer (the copy checks the run's shape); a `?` output stays a dynamic buffer.

graph.graph @mixed(%x: tensor<4x6xf32> {node_name = "x"}) -> (tensor<?x2xi64> {node_name = "indices"}, tensor<2xf32> {node_name = "dims"}) {
  %r = graph.relu %x {node_name = "relu"} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %z = graph.const dense<0.0> : tensor<f32> {node_name = "zero"}
  %g = graph.greater %r, %z {node_name = "gt"} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xi1>
  %nz = graph.non_zero %g {node_name = "nz"} : (tensor<4x6xi1>) -> tensor<2x?xi64>
  %t = graph.transpose %nz perm [1, 0] {node_name = "tr"} : (tensor<2x?xi64>) -> tensor<?x2xi64>
  %s = graph.shape %t {node_name = "shape"} : (tensor<?x2xi64>) -> tensor<2xi64>
  %f = graph.cast %s dst_type f32 {node_name = "cast"} : (tensor<2xi64>) -> tensor<2xf32>
  %d = graph.relu %f {node_name = "relu2"} : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %t, %d : tensor<?x2xi64>, tensor<2xf32>
}

// CHECK-LABEL: ascend.model @mixed
// CHECK:         ascend.input "x" arena[[[X:[0-9]+]]] : tensor<4x6xf32>
// CHECK-NEXT:    ascend.output "indices" dyn[[[IDX:[0-9]+]]] : tensor<?x2xi64>
// CHECK-NEXT:    ascend.output "dims" arena[[[DIMS:[0-9]+]]] : tensor<2xf32>
// CHECK-NEXT:    ascend.kernel "Relu" "relu" {{.*}} ins(arena[[[X]]] : tensor<4x6xf32>) outs(arena[[[R:[0-9]+]]] : tensor<4x6xf32>)
// CHECK-NEXT:    ascend.kernel "Greater" "gt" {{.*}} ins(arena[[[R]]] : tensor<4x6xf32>, arena[{{[0-9]+}}] : tensor<f32>) outs(arena[[[G:[0-9]+]]] : tensor<4x6xi1>)
// CHECK-NEXT:    ascend.dynamic_kernel "NonZero" "nz" {{.*}} ins(arena[[[G]]] : tensor<4x6xi1>) outs(dyn[[[NZ:[0-9]+]]] : tensor<2x?xi64>)
// CHECK-NEXT:    ascend.dynamic_kernel "Transpose" "tr" {{.*}} ins(dyn[[[NZ]]] : tensor<2x?xi64>) outs(dyn[[[IDX]]] : tensor<?x2xi64>) attrs {perm = array<i64: 1, 0>}
// CHECK-NEXT:    ascend.dynamic_kernel "Shape" "shape" {{.*}} ins(dyn[[[IDX]]] : tensor<?x2xi64>) outs(dyn[[[S:[0-9]+]]] : tensor<2xi64>)
// CHECK-NEXT:    ascend.memcpy_async stream 0 dyn[[[S]]] : tensor<2xi64> to arena[[[SK:[0-9]+]]] : tensor<2xi64>
// CHECK-NEXT:    ascend.kernel "Cast" "cast" {{.*}} ins(arena[[[SK]]] : tensor<2xi64>)
// CHECK-NEXT:    ascend.kernel "Relu" "relu2" {{.*}} outs(arena[[[DIMS]]] : tensor<2xf32>)
// CHECK-NEXT:    ascend.end_graph stream 0

// -----

// Tests a graph with a `?` input that the partitioner leaves whole and unknown (no known node
// worth a static model): every node is a dynamic kernel, the input a dynamic buffer, and an
// output that is the input itself gets a copy of its own.

graph.graph @whole(%x: tensor<?x3xf32> {node_name = "x"}) -> (tensor<?x3xf32> {node_name = "y"}, tensor<?x3xf32> {node_name = "same"}) {
  %e = graph.exp %x {node_name = "exp"} : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %e, %x : tensor<?x3xf32>, tensor<?x3xf32>
}

// CHECK-LABEL: ascend.model @whole
// CHECK:         ascend.input "x" dyn[0] : tensor<?x3xf32>
// CHECK-NEXT:    ascend.output "y" dyn[1] : tensor<?x3xf32>
// CHECK-NEXT:    ascend.output "same" dyn[2] : tensor<?x3xf32>
// CHECK-NEXT:    ascend.dynamic_kernel "Exp" "exp" engine "AIcoreEngine" stream 0 ins(dyn[0] : tensor<?x3xf32>) outs(dyn[1] : tensor<?x3xf32>)
// CHECK-NEXT:    ascend.memcpy_async stream 0 dyn[0] : tensor<?x3xf32> to dyn[2] : tensor<?x3xf32>
