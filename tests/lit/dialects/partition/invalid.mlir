// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a call of a symbol that does not exist.

// CHECK-LABEL: 'partition.partitioned_call' callee @missing does not exist
graph.graph @root(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = partition.partitioned_call @missing(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests a call of a symbol that is not a graph.

// CHECK-LABEL: 'partition.partitioned_call' callee @helper is a 'func.func', not a graph.graph
func.func @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}
graph.graph @root(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = partition.partitioned_call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests a nested symbol reference as callee.

// CHECK-LABEL: Expected SymbolRefAttr with no nested symbols.
graph.graph @root(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = partition.partitioned_call @outer::@inner(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests an operand count that differs from the callee's inputs.

// CHECK-LABEL: 'partition.partitioned_call' has 1 operands but @sub has 2
graph.graph @sub(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %a : tensor<2xf32>
}
graph.graph @root(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = partition.partitioned_call @sub(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests an operand whose element type differs from the callee's input.

// CHECK-LABEL: 'partition.partitioned_call' operand 1 has type tensor<2xf16>, incompatible with tensor<2xf32> of @sub
graph.graph @sub(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %a : tensor<2xf32>
}
graph.graph @root(%x: tensor<2xf32>, %y: tensor<2xf16>) -> tensor<2xf32> {
  %r = partition.partitioned_call @sub(%x, %y) : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}

// -----

// Tests a result count that differs from the callee's outputs.

// CHECK-LABEL: 'partition.partitioned_call' has 2 results but @sub has 1
graph.graph @sub(%a: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %a : tensor<2xf32>
}
graph.graph @root(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r:2 = partition.partitioned_call @sub(%x) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  graph.net_output %r#0 : tensor<2xf32>
}

// -----

// Tests a result whose static shape contradicts the callee's output.

// CHECK-LABEL: 'partition.partitioned_call' result 0 has type tensor<3xf32>, incompatible with tensor<2xf32> of @sub
graph.graph @sub(%a: tensor<?xf32>) -> tensor<2xf32> {
  %c = graph.const dense<[1.0, 2.0]> : tensor<2xf32>
  graph.net_output %c : tensor<2xf32>
}
graph.graph @root(%x: tensor<2xf32>) -> tensor<3xf32> {
  %r = partition.partitioned_call @sub(%x) : (tensor<2xf32>) -> tensor<3xf32>
  graph.net_output %r : tensor<3xf32>
}

// -----

// Tests an End without the peerIndex that pairs it.

// CHECK-LABEL: property 'peerIndex' expected in operation 'partition.end'
graph.graph @producer(%x: tensor<2xf32>) {
  partition.end %x : (tensor<2xf32>) -> ()
  graph.net_output
}

// -----

// Tests a negative End peerIndex.

// CHECK-LABEL: 'partition.end' peerIndex must be >= 0, got -1
graph.graph @producer(%x: tensor<2xf32>) {
  partition.end %x peerIndex -1 : (tensor<2xf32>) -> ()
  graph.net_output
}

// -----

// Tests a negative PlaceHolder peerIndex.

// CHECK-LABEL: 'partition.place_holder' peerIndex must be >= 0, got -3
graph.graph @consumer() -> tensor<2xf32> {
  %p = partition.place_holder peerIndex -3 : () -> tensor<2xf32>
  graph.net_output %p : tensor<2xf32>
}

// -----

// Tests a negative PlaceHolder anchorIndex (the producer's output index).

// CHECK-LABEL: 'partition.place_holder' anchorIndex must be >= 0, got -1
graph.graph @consumer() -> tensor<2xf32> {
  %p = partition.place_holder peerIndex 0 anchorIndex -1 : () -> tensor<2xf32>
  graph.net_output %p : tensor<2xf32>
}


// -----

// Tests two Ends with one peerIndex (the second would overwrite the first one's value).

// CHECK-LABEL: 'partition.end' peerIndex 0 in @p1 is already used by the 'partition.end' in @p0; each End/PlaceHolder pair has its own peerIndex
graph.graph @p0(%x: tensor<2xf32>) {
  partition.end %x peerIndex 0 : (tensor<2xf32>) -> ()
  graph.net_output
}
graph.graph @p1(%x: tensor<2xf32>) {
  %n = graph.neg %x : (tensor<2xf32>) -> tensor<2xf32>
  partition.end %n peerIndex 0 : (tensor<2xf32>) -> ()
  graph.net_output
}
graph.graph @p2() -> tensor<2xf32> {
  %y = partition.place_holder peerIndex 0 : () -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}

// -----

// Tests two PlaceHolders with one peerIndex (one End value cannot feed two edges).

// CHECK-LABEL: 'partition.place_holder' peerIndex 4 in @c1 is already used by the 'partition.place_holder' in @c0; each End/PlaceHolder pair has its own peerIndex
graph.graph @c0() -> tensor<2xf32> {
  %y = partition.place_holder peerIndex 4 : () -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @c1() -> tensor<2xf32> {
  %y = partition.place_holder peerIndex 4 : () -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}

// -----

// Tests a graph that calls itself (the interpreter would recurse without end).

// CHECK-LABEL: 'partition.partitioned_call' in @inner calls @inner: graphs call each other in a cycle @inner -> @inner
graph.graph @loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = partition.partitioned_call @inner(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @inner(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = partition.partitioned_call @inner(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}

// -----

// Tests graphs that call each other through a third.

// CHECK-LABEL: 'partition.partitioned_call' in @c calls @a: graphs call each other in a cycle @a -> @b -> @c -> @a
graph.graph @a(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = partition.partitioned_call @b(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
graph.graph @b(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = partition.partitioned_call @c(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
graph.graph @c(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = partition.partitioned_call @a(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
