// RUN: ge-opt %s --split-input-file --disable-verify --verify-diagnostics -p 'ge-infer-shapes{input-shape="x:3,4"}' | filecheck %s

// Tests that a declared static dim that contradicts inference names the op.

graph.graph @conflict(%x: tensor<?x4xf32> {node_name = "x"}) -> tensor<2x4xf32> {
  %r = graph.relu %x {node_name = "relu"} : (tensor<?x4xf32>) -> tensor<2x4xf32>
  graph.net_output %r : tensor<2x4xf32>
}

// CHECK: ge-infer-shapes: @conflict: 'graph.relu' "relu": result 0 is declared tensor<2x4xf32> but inference gives tensor<3x4xf32> (dim 0 is 2 in one and 3 in the other)

// -----

// Tests that operands that cannot go together once pinned (no broadcast) name the op.

graph.graph @no_broadcast(%x: tensor<?x4xf32> {node_name = "x"}) -> tensor<?x4xf32> {
  %c = graph.const dense<1.0> : tensor<5x4xf32>
  %s = graph.add %x, %c {node_name = "sum"} : (tensor<?x4xf32>, tensor<5x4xf32>) -> tensor<?x4xf32>
  graph.net_output %s : tensor<?x4xf32>
}

// CHECK: ge-infer-shapes: @no_broadcast: 'graph.add' "sum": cannot infer its result types: operand shapes [3, 4] and [5, 4] do not broadcast

// -----

// Tests that Case branches yielding different dtypes are an error (a programmatically built
// graph: the verifier would refuse the signature, hence --disable-verify).

graph.graph @dtypes(%i: tensor<i32>, %x: tensor<?x4xf32> {node_name = "x"}) -> tensor<*xf32> {
  %r = multibatch.case %i, %x branches [@f32_branch, @f16_branch] {node_name = "case"} : (tensor<i32>, tensor<?x4xf32>) -> tensor<*xf32>
  graph.net_output %r : tensor<*xf32>
}
graph.graph @f32_branch(%a: tensor<*xf32>) -> tensor<*xf32> {
  %y = graph.relu %a : (tensor<*xf32>) -> tensor<*xf32>
  graph.net_output %y : tensor<*xf32>
}
graph.graph @f16_branch(%a: tensor<*xf32>) -> tensor<*xf16> {
  %y = graph.cast %a dst_type f16 : (tensor<*xf32>) -> tensor<*xf16>
  graph.net_output %y : tensor<*xf16>
}

// CHECK: ge-infer-shapes: @dtypes: 'multibatch.case' "case": branches @f32_branch and @f16_branch give result 0 different element types (tensor<*xf32> and tensor<*xf16>)

// -----

// Tests that a subgraph input declared static and a caller passing another dim conflict.

graph.graph @caller(%x: tensor<?x4xf32> {node_name = "x"}) -> tensor<2x4xf32> {
  %c = partition.partitioned_call @callee(%x) : (tensor<?x4xf32>) -> tensor<2x4xf32>
  graph.net_output %c : tensor<2x4xf32>
}
graph.graph @callee(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  graph.net_output %a : tensor<2x4xf32>
}

// CHECK: ge-infer-shapes: @callee input 0 is declared tensor<2x4xf32> but its callers pass tensor<3x4xf32> (dim 0 is 2 in one and 3 in the other)
