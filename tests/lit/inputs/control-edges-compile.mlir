// Control edges to compile (tests/test_control_edges.py): two Identities wait for `writer`.
graph.graph @main(%v: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %e = graph.exp %x {node_name = "writer"} : (tensor<4xf32>) -> tensor<4xf32>
  %u = graph.identity %v, %e {node_name = "v_after_writer"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = graph.add %u, %x {node_name = "use"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %k = graph.const dense<[1.0, 2.0]> : tensor<2xf32> {node_name = "k"}
  %ka = graph.identity %k, %e {node_name = "k_after_writer"} : (tensor<2xf32>, tensor<4xf32>) -> tensor<2xf32>
  graph.net_output %y, %ka : tensor<4xf32>, tensor<2xf32>
}
