// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests a root graph calling two outlined subgraphs whose signatures are more dynamic than the
// calls (`?` and unranked act as wildcards); one call has two results.

// CHECK-LABEL: graph.graph @cluster0
// CHECK-SAME:    (%[[A:.*]]: tensor<?x4xf32>, %[[B:.*]]: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<4xf32>)
// CHECK-NEXT:    graph.net_output %[[A]], %[[B]] : tensor<?x4xf32>, tensor<4xf32>
graph.graph @cluster0(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<4xf32>) {
  graph.net_output %a, %b : tensor<?x4xf32>, tensor<4xf32>
}

// CHECK-LABEL: graph.graph @cluster1
// CHECK-SAME:    (%{{.*}}: tensor<*xf32>, %[[B:.*]]: tensor<?x4xf32>) -> tensor<?x4xf32>
graph.graph @cluster1(%a: tensor<*xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  graph.net_output %b : tensor<?x4xf32>
}

// CHECK-LABEL: graph.graph @root
// CHECK-SAME:    (%[[X:.*]]: tensor<1x4xf32>)
// CHECK-NEXT:    %[[C:.*]] = graph.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[R0:.*]], %[[R1:.*]] = partition.partitioned_call @cluster0(%[[X]], %[[C]]) : (tensor<1x4xf32>, tensor<4xf32>) -> (tensor<1x4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[S:.*]] = partition.partitioned_call @cluster1(%[[R0]], %[[X]]) {_stage_level = 1 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
// CHECK-NEXT:    graph.net_output %[[S]], %[[R1]] : tensor<1x4xf32>, tensor<4xf32>

// GENERIC-LABEL: "graph.graph"() <{sym_name = "root"
// GENERIC:         "partition.partitioned_call"(%{{.*}}, %{{.*}}) <{callee = @cluster0}> : (tensor<1x4xf32>, tensor<4xf32>) -> (tensor<1x4xf32>, tensor<4xf32>)
// GENERIC-NEXT:    "partition.partitioned_call"(%{{.*}}, %{{.*}}) <{callee = @cluster1}> {_stage_level = 1 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
graph.graph @root(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<4xf32>) {
  %c = graph.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r:2 = partition.partitioned_call @cluster0(%x, %c) : (tensor<1x4xf32>, tensor<4xf32>) -> (tensor<1x4xf32>, tensor<4xf32>)
  %s = partition.partitioned_call @cluster1(%r#0, %x) {_stage_level = 1 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  graph.net_output %s, %r#1 : tensor<1x4xf32>, tensor<4xf32>
}

// -----

// Tests an edge cut by the EnginePartitioner: the End in the producer's subgraph and the
// PlaceHolder in the consumer's share peerIndex 0; default-valued properties are not printed.

// CHECK-LABEL: graph.graph @new_sub_graph0
// CHECK-SAME:    (%[[X:.*]]: tensor<2x2xf32>)
// CHECK-NEXT:    partition.end %[[X]] peerIndex 0 parentOpType "Relu" end_rear_node_engine_name "DNN_VM_AICPU" : (tensor<2x2xf32>) -> ()
// CHECK-NEXT:    partition.end %[[X]] peerIndex 1 : (tensor<2x2xf32>) -> ()
// CHECK-NEXT:    graph.net_output
graph.graph @new_sub_graph0(%x: tensor<2x2xf32>) {
  partition.end %x peerIndex 0 parentOpType "Relu" end_rear_node_engine_name "DNN_VM_AICPU" : (tensor<2x2xf32>) -> ()
  partition.end %x peerIndex 1 : (tensor<2x2xf32>) -> ()
  graph.net_output
}

// CHECK-LABEL: graph.graph @new_sub_graph1
// CHECK-NEXT:    %[[P:.*]] = partition.place_holder peerIndex 0 parentOpType "Conv2D" _parentNodeName "conv1" anchorIndex 2 pld_front_node_engine_name "AIcoreEngine" _peerNodeName "new_sub_graph0_End0" : () -> tensor<2x2xf32>
// CHECK-NEXT:    %[[Q:.*]] = partition.place_holder peerIndex 1 : () -> tensor<?x2xf32>
// CHECK-NEXT:    graph.net_output %[[P]], %[[Q]] : tensor<2x2xf32>, tensor<?x2xf32>

// GENERIC-LABEL: "graph.graph"() <{sym_name = "new_sub_graph1"
// GENERIC:         "partition.place_holder"() <{peerIndex = 0 : i64, parentOpType = "Conv2D", _parentNodeName = "conv1", anchorIndex = 2 : i64, pld_front_node_engine_name = "AIcoreEngine", _peerNodeName = "new_sub_graph0_End0"}> : () -> tensor<2x2xf32>
graph.graph @new_sub_graph1() -> (tensor<2x2xf32>, tensor<?x2xf32>) {
  %p = partition.place_holder peerIndex 0 parentOpType "Conv2D" _parentNodeName "conv1" anchorIndex 2 pld_front_node_engine_name "AIcoreEngine" _peerNodeName "new_sub_graph0_End0" : () -> tensor<2x2xf32>
  %q = partition.place_holder peerIndex 1 : () -> tensor<?x2xf32>
  graph.net_output %p, %q : tensor<2x2xf32>, tensor<?x2xf32>
}
