// RUN: ge-opt %s -p ge-optimize-original-graph | filecheck %s
// RUN: ge-opt %s -p 'ge-optimize-original-graph{fusion=false}' | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s -p 'ge-optimize-original-graph{disable-fusion=mul-add}' | filecheck %s --check-prefix=OFF
// RUN: ge-opt %s -p 'ge-optimize-original-graph{skip=ge-fuse}' | filecheck %s --check-prefix=OFF
// RUN: not ge-opt %s -p 'ge-optimize-original-graph{disable-fusion=bogus}' 2>&1 | filecheck %s --check-prefix=BAD

// Tests that the original-graph hooks run AI Core's graph fusion (GE FE's
// OptimizeOriginalGraph, `ge-fuse`) on the whole graph, and the options that switch it off:
// fusion=false (GE's fusion switch `GraphFusion ALL off`), one kind disabled, the hook pass
// skipped by name; an unknown fusion kind is an error.

graph.graph @mul_add(%x: tensor<4xf32>, %s: tensor<4xf32>) -> tensor<4xf32> {
  %m = graph.mul %x, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = graph.add %m, %s {node_name = "y"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}

// CHECK-LABEL: graph.graph @mul_add(
// CHECK-NEXT:    graph.fused_mul_add %x, %s, %s {node_name = "y"}
// CHECK-NEXT:    graph.net_output

// OFF-LABEL: graph.graph @mul_add(
// OFF-NEXT:    graph.mul
// OFF-NEXT:    graph.add
// OFF-NEXT:    graph.net_output

// BAD: ge-fuse: unknown fusion kind 'bogus' in disable
