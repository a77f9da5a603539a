// RUN: ge-opt %s -p 'ge-verify-graph{device-memory=12292}' | filecheck %s

// Tests that a valid graph that just fits passes unchanged: weights 4 B plus a peak of
// 12288 B at %c (%a, %b and %c live); ge-verify-graph-invalid.mlir has it one byte short.

// CHECK-LABEL: graph.graph @fits
// CHECK-NEXT:    %[[W:.*]] = graph.const dense<2.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    %[[A:.*]] = graph.exp %[[X:.*]] :
// CHECK-NEXT:    %[[B:.*]] = graph.relu %[[A]] :
// CHECK-NEXT:    %[[C:.*]] = graph.add %[[A]], %[[B]] :
// CHECK-NEXT:    %[[D:.*]] = graph.mul %[[C]], %[[W]] :
// CHECK-NEXT:    graph.net_output %[[D]]
graph.graph @fits(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %w = graph.const dense<2.0> : tensor<1xf32>
  %a = graph.exp %x : (tensor<1024xf32>) -> tensor<1024xf32>
  %b = graph.relu %a : (tensor<1024xf32>) -> tensor<1024xf32>
  %c = graph.add %a, %b : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  %d = graph.mul %c, %w : (tensor<1024xf32>, tensor<1xf32>) -> tensor<1024xf32>
  graph.net_output %d : tensor<1024xf32>
}
