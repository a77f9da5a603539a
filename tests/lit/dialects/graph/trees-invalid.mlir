// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a branch node whose true child points back at the root: a walk would never end.

graph.graph @cycle(%x: tensor<2x2xf32>) {
  %y = graph.tree_ensemble %x n_targets 1 nodes_featureids [0, 0] nodes_modes [0, 0] nodes_splits array<f64: 0.0, 0.0> nodes_truenodeids [1, 0] nodes_falsenodeids [0, 0] nodes_trueleafs [0, 0] nodes_falseleafs [1, 1] leaf_targetids [0] leaf_weights array<f64: 1.0> tree_roots [0] : (tensor<2x2xf32>) -> tensor<2x1xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.tree_ensemble' the branches form a cycle: a walk from a root would never end

// -----

// Tests a MEMBER node without its NaN-terminated set.

graph.graph @member_without_set(%x: tensor<2x2xf32>) {
  %y = graph.tree_ensemble %x n_targets 1 nodes_featureids [0] nodes_modes [6] nodes_splits array<f64: 0.0> nodes_truenodeids [0] nodes_falsenodeids [1] nodes_trueleafs [1] nodes_falseleafs [1] leaf_targetids [0, 0] leaf_weights array<f64: 1.0, 2.0> tree_roots [0] : (tensor<2x2xf32>) -> tensor<2x1xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.tree_ensemble' membership_values holds 0 NaN-terminated sets for 1 MEMBER nodes

// -----

// Tests a feature index beyond x's features.

graph.graph @feature_out_of_range(%x: tensor<2x2xf32>) {
  %y = graph.tree_ensemble %x n_targets 1 nodes_featureids [2] nodes_modes [0] nodes_splits array<f64: 0.0> nodes_truenodeids [0] nodes_falsenodeids [1] nodes_trueleafs [1] nodes_falseleafs [1] leaf_targetids [0, 0] leaf_weights array<f64: 1.0, 2.0> tree_roots [0] : (tensor<2x2xf32>) -> tensor<2x1xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.tree_ensemble' nodes_featureids out of range (x has 2 features)

// -----

// Tests a post transform other than NONE.

graph.graph @post_transform(%x: tensor<2x2xf32>) {
  %y = graph.tree_ensemble %x n_targets 1 post_transform "SOFTMAX" nodes_featureids [0] nodes_modes [0] nodes_splits array<f64: 0.0> nodes_truenodeids [0] nodes_falsenodeids [1] nodes_trueleafs [1] nodes_falseleafs [1] leaf_targetids [0, 0] leaf_weights array<f64: 1.0, 2.0> tree_roots [0] : (tensor<2x2xf32>) -> tensor<2x1xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.tree_ensemble' post_transform must be one of NONE

// -----

// Tests an integer x.

graph.graph @integer_x(%x: tensor<2x2xi32>) {
  %y = graph.tree_ensemble %x n_targets 1 nodes_featureids [0] nodes_modes [0] nodes_splits array<f64: 0.0> nodes_truenodeids [0] nodes_falsenodeids [1] nodes_trueleafs [1] nodes_falseleafs [1] leaf_targetids [0, 0] leaf_weights array<f64: 1.0, 2.0> tree_roots [0] : (tensor<2x2xi32>) -> tensor<2x1xi32>
  graph.net_output
}
// CHECK-LABEL: 'graph.tree_ensemble' x must be an f16, f32 or f64 tensor, got tensor<2x2xi32>
