// RUN: not ge-opt %s --split-input-file -p ge-convert-graph-to-ascend 2>&1 | filecheck %s

// Tests that a string input (GE DT_STRING) is refused with the graph and input named: strings
// have no fixed byte size, the ascend level places every tensor at a static arena offset.

graph.graph @string_input(%x: tensor<2x!graph.string>, %y: tensor<2x!graph.string>) -> tensor<2xi1> {
  %r = graph.equal %x, %y {node_name = "eq"} : (tensor<2x!graph.string>, tensor<2x!graph.string>) -> tensor<2xi1>
  graph.net_output %r : tensor<2xi1>
}
// CHECK: error: ge-convert-graph-to-ascend: @string_input input #0 is a string tensor (tensor<2x!graph.string>); strings have no fixed byte size and run at graph level only

// -----

// Tests that a string constant inside the graph is refused with its node named.

graph.graph @string_const(%x: tensor<2xi1>) -> (tensor<2xi1>, tensor<2x!graph.string>) {
  %c = graph.const #graph.strings<["a", "b"] : tensor<2x!graph.string>> {node_name = "words"}
  graph.net_output %x, %c : tensor<2xi1>, tensor<2x!graph.string>
}
// CHECK: error: ge-convert-graph-to-ascend: @string_const node 'words' (graph.const) makes a string tensor (tensor<2x!graph.string>); strings have no fixed byte size and run at graph level only
