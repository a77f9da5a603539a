// RUN: ge-opt %s -p 'ge-convert-graph-to-ascend,ge-assign-streams,ge-dump-dot' -o %t.mlir | filecheck %s
// RUN: ge-opt %t.mlir -t dot | filecheck %s
// RUN: ge-opt %s -p 'ge-convert-graph-to-ascend,ge-assign-streams' | ge-opt - -t dot -o - | filecheck %s

// Tests the picture of an ascend model (it was an empty graph): one box per stream, filled by
// its engine, holding its tasks in program order; a dashed red edge from the event record to
// the wait that consumes it. `-t dot` draws the same.

graph.graph @branches(%x: tensor<2x2xf32>) -> (tensor<2x2xf32> {node_name = "y"}) {
  %w1 = graph.const dense<0.5> : tensor<2x2xf32>
  %w2 = graph.const dense<2.0> : tensor<2x2xf32>
  %a = graph.matmul %x, %w1 {node_name = "a"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %b = graph.matmul %x, %w2 {node_name = "b"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.add %a, %b {node_name = "join"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %y : tensor<2x2xf32>
}

// CHECK-LABEL: digraph module {
// CHECK:         subgraph cluster_model_0 {
// CHECK-NEXT:      label="ascend.model @branches\narena {{[0-9]+}} B";
// CHECK-NEXT:      subgraph cluster_model_0_stream_0 {
// CHECK-NEXT:        label="stream 0\nAIcoreEngine"; style="rounded,filled"; fillcolor="#cfe2ff";
// CHECK-NEXT:        [[A:m0_t[0-9]+]] [label="MatMul\na"];
// CHECK-NEXT:        [[WAIT:m0_t[0-9]+]] [label="event_wait 0", shape=cds];
// CHECK-NEXT:        [[JOIN:m0_t[0-9]+]] [label="Add\njoin"];
// CHECK-NEXT:        [[END:m0_t[0-9]+]] [label="end_graph"];
// CHECK-NEXT:      }
// CHECK-NEXT:      subgraph cluster_model_0_stream_1 {
// CHECK-NEXT:        label="stream 1\nAIcoreEngine";
// CHECK-NEXT:        [[B:m0_t[0-9]+]] [label="MatMul\nb"];
// CHECK-NEXT:        [[REC:m0_t[0-9]+]] [label="event_record 0", shape=cds];
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    [[A]] -> [[WAIT]];
// CHECK-NEXT:    [[WAIT]] -> [[JOIN]];
// CHECK-NEXT:    [[JOIN]] -> [[END]];
// CHECK-NEXT:    [[B]] -> [[REC]];
// CHECK-NEXT:    [[REC]] -> [[WAIT]] [style=dashed, color="#c0392b", label="event 0"];
// CHECK-NEXT:  }
