// RUN: not ge-opt %s -p 'ge-expand-multibatch{input-shape="x:-1,3" dynamic-dims="1;4"}' 2>&1 | filecheck %s

// Tests a graph that reads the GetNext's shape output itself: only the gear lookup may.
// CHECK: error: ge-expand-multibatch: the shape output 1 of graph.get_next is read in the graph; only the gear lookup GetNext sink inserts reads the shapes

graph.graph @main() -> (tensor<?x3xf32> {node_name = "r"}, tensor<2xi32> {node_name = "shape"}) {
  %x, %xs = graph.get_next output_names ["x"] : () -> (tensor<?x3xf32>, tensor<2xi32>)
  %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %r, %xs : tensor<?x3xf32>, tensor<2xi32>
}
