// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests graph.tree_ensemble (ONNX ai.onnx.ml TreeEnsemble): a LEQ root with a MEMBER child,
// NaN set terminators and a NaN split printed as bit patterns, round-tripped exactly.

// CHECK-LABEL: graph.graph @trees
// CHECK:         graph.tree_ensemble %{{.*}} n_targets 2 nodes_featureids [0, 1] nodes_modes [0, 6] nodes_splits array<f64: 5.000000e-01, 0x7ff8000000000000> nodes_truenodeids [1, 0] nodes_falsenodeids [2, 1] nodes_trueleafs [0, 1] nodes_falseleafs [1, 1] membership_values array<f64: 1.000000e+00, 2.000000e+00, 0x7ff8000000000000> leaf_targetids [0, 1, 1] leaf_weights array<f64: 1.000000e+00, 2.000000e+00, 3.000000e+00> tree_roots [0] : (tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK:         graph.tree_ensemble %{{.*}} n_targets 1 aggregate_function "MAX" {{.*}} : (tensor<?x2xf64>) -> tensor<?x1xf64>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "trees"
// GENERIC:         "graph.tree_ensemble"(%{{.*}}) <{n_targets = 2 : i64,
graph.graph @trees(%x: tensor<3x2xf32>, %d: tensor<?x2xf64>) -> (tensor<3x2xf32>, tensor<?x1xf64>) {
  %y = graph.tree_ensemble %x n_targets 2 nodes_featureids [0, 1] nodes_modes [0, 6] nodes_splits array<f64: 0.5, 0x7ff8000000000000> nodes_truenodeids [1, 0] nodes_falsenodeids [2, 1] nodes_trueleafs [0, 1] nodes_falseleafs [1, 1] membership_values array<f64: 1.0, 2.0, 0x7ff8000000000000> leaf_targetids [0, 1, 1] leaf_weights array<f64: 1.0, 2.0, 3.0> tree_roots [0] : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %z = graph.tree_ensemble %d n_targets 1 aggregate_function "MAX" nodes_featureids [1] nodes_modes [3] nodes_splits array<f64: 0.25> nodes_truenodeids [0] nodes_falsenodeids [1] nodes_trueleafs [1] nodes_falseleafs [1] leaf_targetids [0, 0] leaf_weights array<f64: -1.0, 1.0> tree_roots [0] : (tensor<?x2xf64>) -> tensor<?x1xf64>
  graph.net_output %y, %z : tensor<3x2xf32>, tensor<?x1xf64>
}
