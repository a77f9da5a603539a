// RUN: ge-opt %s --split-input-file -p ge-fold-constants | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-fold-constants{max-size=4095}' | filecheck %s --check-prefix=SMALL
// RUN: ge-opt %s --split-input-file -p 'ge-fold-constants{cse=false dce=false}' | filecheck %s --check-prefix=FOLDONLY

// Tests that a chain of ops on constants becomes one constant named after its last node, and
// that the constants it used go.

// CHECK-LABEL: graph.graph @chain
// CHECK-NEXT:    %[[E:.*]] = graph.const dense<{{\[\[}}1.64872122, 2.71828198], [4.48168898, 7.38905573]]> : tensor<2x2xf32> {node_name = "e"}
// CHECK-NEXT:    %[[Y:.*]] = graph.add %{{.*}}, %[[E]]
// CHECK-NEXT:    graph.net_output %[[Y]]
// CHECK-NOT:     graph.mul
// CHECK-NOT:     graph.exp
// FOLDONLY-LABEL: graph.graph @chain
// FOLDONLY-COUNT-4: graph.const
// FOLDONLY-NEXT:   graph.add
graph.graph @chain(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %a = graph.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<400000000x2xf32> {node_name = "a"}
  %b = graph.const dense<0.5> : tensor<2x2xf32> {node_name = "b"}
  %m = graph.mul %a, %b {node_name = "m"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %e = graph.exp %m {node_name = "e"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.add %x, %e {node_name = "y"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %y : tensor<2x2xf32>
}

// -----

// Tests that max-size keeps a large result unmaterialised, and that an all-equal result is a
// splat.

// CHECK-LABEL: graph.graph @big_fill
// CHECK-NEXT:    %[[F:.*]] = graph.const dense<1.500000e+00> : tensor<64x64xf32> {node_name = "big"}
// CHECK-NEXT:    graph.net_output %[[F]]
// SMALL-LABEL: graph.graph @big_fill
// SMALL:         graph.fill
graph.graph @big_fill() -> tensor<64x64xf32> {
  %d = graph.const dense<[64, 64]> : tensor<2xi64>
  %v = graph.const dense<1.5> : tensor<f32>
  %f = graph.fill %d, %v {node_name = "big"} : (tensor<2xi64>, tensor<f32>) -> tensor<64x64xf32>
  graph.net_output %f : tensor<64x64xf32>
}

// -----

// Tests that Shape and Size of a static tensor fold, whatever produces the tensor, and that
// Shape of a dynamic tensor stays.

// CHECK-LABEL: graph.graph @shapes
// CHECK-DAG:     %[[S:.*]] = graph.const dense<[3, 5]> : tensor<2xi32> {node_name = "s"}
// CHECK-DAG:     %[[N:.*]] = graph.const dense<15> : tensor<i64>
// CHECK-DAG:     %[[D:.*]] = graph.shape %{{.*}} : (tensor<?x5xf32>) -> tensor<2xi64>
// CHECK:         graph.net_output %[[S]], %[[N]], %[[D]]
// CHECK-NOT:     graph.relu
graph.graph @shapes(%x: tensor<3x5xf32>, %z: tensor<?x5xf32>) -> (tensor<2xi32>, tensor<i64>, tensor<2xi64>) {
  %r = graph.relu %x : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = graph.shape %r dtype i32 {node_name = "s"} : (tensor<3x5xf32>) -> tensor<2xi32>
  %n = graph.size %r : (tensor<3x5xf32>) -> tensor<i64>
  %d = graph.shape %z : (tensor<?x5xf32>) -> tensor<2xi64>
  graph.net_output %s, %n, %d : tensor<2xi32>, tensor<i64>, tensor<2xi64>
}

// -----

// Tests that ops with side effects (End, PlaceHolder) are never folded, even on constants.

// CHECK-LABEL: graph.graph @effects
// CHECK:         %[[C:.*]] = graph.const
// CHECK-NEXT:    partition.end %[[C]]
// CHECK-NEXT:    %[[P:.*]] = partition.place_holder
// CHECK-NEXT:    graph.abs %[[P]]
graph.graph @effects() -> tensor<2xf32> {
  %c = graph.const dense<[1.0, -2.0]> : tensor<2xf32>
  partition.end %c peerIndex 0 : (tensor<2xf32>) -> ()
  %p = partition.place_holder peerIndex 0 : () -> tensor<2xf32>
  %a = graph.abs %p : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %a : tensor<2xf32>
}

// -----

// Tests that CSE merges nodes differing only by node_name (the first stays), keeps nodes with
// other discardable attributes apart, and that dead nodes go.

// CHECK-LABEL: graph.graph @cse
// CHECK-NEXT:    %[[C1:.*]] = graph.const dense<2.000000e+00> : tensor<4xf32> {node_name = "c1"}
// CHECK-NEXT:    %[[A:.*]] = graph.mul %[[X:.*]], %[[C1]] {node_name = "a"}
// CHECK-NEXT:    %[[S1:.*]] = graph.add %[[A]], %[[A]] {node_name = "s1"}
// CHECK-NEXT:    %[[S2:.*]] = graph.sub %[[A]], %[[X]] {_stream_label = "one", node_name = "s2"}
// CHECK-NEXT:    %[[S3:.*]] = graph.sub %[[A]], %[[X]] {node_name = "s3"}
// CHECK-NEXT:    graph.concat_d %[[S1]], %[[S2]], %[[S3]]
// CHECK-NOT:     "c2"
// CHECK-NOT:     graph.exp
// FOLDONLY-LABEL: graph.graph @cse
// FOLDONLY:        graph.exp
graph.graph @cse(%x: tensor<4xf32>) -> tensor<12xf32> {
  %c1 = graph.const dense<0x7F800000> : tensor<4xf32> {node_name = "c1"}
  %c2 = graph.const dense<2.0> : tensor<4xf32> {node_name = "c2"}
  %a = graph.mul %x, %c1 {node_name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = graph.mul %x, %c2 {node_name = "b"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %dead = graph.exp %b : (tensor<4xf32>) -> tensor<4xf32>
  %s1 = graph.add %a, %b {node_name = "s1"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s2 = graph.sub %a, %x {_stream_label = "one", node_name = "s2"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s3 = graph.sub %b, %x {node_name = "s3"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = graph.concat_d %s1, %s2, %s3 concat_dim 0 : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<12xf32>
  graph.net_output %t : tensor<12xf32>
}
