// RUN: ge-opt %s -p 'ge-dump-dot{file="%t.dot"}' | filecheck %s --check-prefix=IR
// RUN: filecheck %s --input-file %t.dot
// RUN: ge-opt %s -p ge-dump-dot -o %t.mlir | filecheck %s

// Tests the picture: one filled box per graph (green known, orange unknown, by engine for
// engine subgraphs), nodes with GE type, name and shape, dotted call edges and a dashed
// End -> PlaceHolder edge labelled with peerIndex; the IR itself is unchanged.

graph.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> attributes {_is_unknown_shape = true} {
  %y = partition.partitioned_call @g_sub_0_know(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @g_sub_0_know(%p: tensor<4xf32>) -> tensor<4xf32> attributes {_is_unknown_shape = false} {
  %r = graph.relu %p {node_name = "act", _engine_name = "AIcoreEngine"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @producer(%a: tensor<4xf32>) attributes {_engine_name = "DNN_VM_AICPU"} {
  partition.end %a peerIndex 7 : (tensor<4xf32>) -> ()
  graph.net_output
}
graph.graph @consumer() -> tensor<4xf32> attributes {_engine_name = "AIcoreEngine"} {
  %b = partition.place_holder peerIndex 7 : () -> tensor<4xf32>
  graph.net_output %b : tensor<4xf32>
}

// IR: graph.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> attributes {_is_unknown_shape = true}

// CHECK:      digraph module {
// CHECK:        subgraph cluster_0 {
// CHECK-NEXT:     label="@g\nunknown shape"; style="rounded,filled"; fillcolor="#ffe5d0";
// CHECK-NEXT:     g0_a0 [label="Data\nx\n4xf32", shape=ellipse, fillcolor="#ffffff"];
// CHECK-NEXT:     g0_n0 [label="PartitionedCall\n4xf32", fillcolor="#ffffff", shape=box3d];
// CHECK-NEXT:     g0_n1 [label="NetOutput", fillcolor="#ffffff", shape=house];
// CHECK:          label="@g_sub_0_know\nknown shape"; style="rounded,filled"; fillcolor="#d1e7dd";
// CHECK:          g1_n0 [label="Relu\nact\n4xf32", fillcolor="#cfe2ff"];
// CHECK:          label="@producer\nDNN_VM_AICPU"; style="rounded,filled"; fillcolor="#fff3cd";
// CHECK:          g2_n0 [label="End\npeerIndex 7", fillcolor="#ffffff", shape=cds];
// CHECK:          label="@consumer\nAIcoreEngine"; style="rounded,filled"; fillcolor="#cfe2ff";
// CHECK:        g0_a0 -> g0_n0;
// CHECK:        g0_n0 -> g1_a0 [style=dotted];
// CHECK:        g1_n1 -> g0_n0 [style=dotted, arrowhead=empty];
// CHECK:        g2_n0 -> g3_n0 [style=dashed, color="#c0392b", label="7"];
// CHECK:      }
