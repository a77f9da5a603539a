// RUN: ge-opt %s --split-input-file -p ge-sink-inputs | filecheck %s
// RUN: not ge-opt %s --split-input-file -p 'ge-sink-inputs{entry="nope"}' 2>&1 | filecheck %s --check-prefix=ENTRY

// Tests the inputs of the root turned into the outputs of one GetNext: data first (named as
// the inputs), then their int32 shapes; the root takes no arguments.

// CHECK-LABEL: graph.graph @main() -> (tensor<?x3xf32> {node_name = "r"}, tensor<?xf32> {node_name = "yout"})
// CHECK-NEXT:    %[[X:.*]], %[[Y:.*]], %{{.*}}, %{{.*}} = graph.get_next output_names ["x", "y"] {node_name = "IteratorGetNext"} : () -> (tensor<?x3xf32>, tensor<?xf32>, tensor<2xi32>, tensor<1xi32>)
// CHECK-NEXT:    %[[R:.*]] = graph.relu %[[X]]
// CHECK-NEXT:    graph.net_output %[[R]], %[[Y]]
// ENTRY: error: ge-sink-inputs: no root graph named @nope

graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}, %y: tensor<?xf32> {node_name = "y"})
    -> (tensor<?x3xf32> {node_name = "r"}, tensor<?xf32> {node_name = "yout"}) {
  %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %r, %y : tensor<?x3xf32>, tensor<?xf32>
}
