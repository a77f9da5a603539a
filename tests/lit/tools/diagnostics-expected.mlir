// Tests --verify-expected-diagnostics: each diagnostic must be announced by an
// `expected-error` annotation at its line (as mlir-opt -verify-diagnostics checks them), with
// @+N, @-N, @above, @below, a count, `{{substring}}` and `-re` `{{regex}}`. Exit code 0 and
// nothing on stderr when every diagnostic was expected and every annotation matched.

// RUN: ge-opt %s --split-input-file --verify-expected-diagnostics 2>&1 >/dev/null | filecheck %s --allow-empty --check-prefix=QUIET
// RUN: ge-opt %s --split-input-file --verify-expected-diagnostics 2>/dev/null | filecheck %s
// QUIET-NOT: {{.}}

// CHECK-LABEL: graph.graph @good
graph.graph @good(%x: tensor<4xf32>) -> tensor<4xf32> {
  graph.net_output %x : tensor<4xf32>
}

// -----

// @+1: the line below the annotation.
graph.graph @plus(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'graph.relu' op %r (node_name "act"): result type tensor<5xf32> differs}}
  %r = graph.relu %x {node_name = "act"} : (tensor<4xf32>) -> tensor<5xf32>
  graph.net_output %x : tensor<4xf32>
}

// -----

// @-2 and -re: the regex parts between {{ and }} inside the message.
graph.graph @minus(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<6xf32>
  graph.net_output %x : tensor<4xf32>
  // expected-error-re @-2 {{result type tensor<{{[0-9]+}}xf32> differs from the operand type tensor<4xf32>}}
}

// -----

// @above and @below.
graph.graph @above(%x: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @below {{'graph.net_output' op types (tensor<4xf32>) do not match}}
  graph.net_output %x : tensor<4xf32>
}

// -----

graph.graph @below(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  %s = graph.add %a, %b {node_name = "sum"} : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  // expected-error @above {{operand shapes [4] and [3] do not broadcast}}
  graph.net_output %s : tensor<4xf32>
}

// -----

// On the line of the diagnostic itself; parse errors are checked the same way.
graph.graph @same_line(%x: tensor<4xf32>) -> tensor<4xf32> {
  %1 = graph.bogus %x : tensor<4xf32> // expected-error {{Operation graph.bogus is not registered}}
  graph.net_output %x : tensor<4xf32>
}

// -----

// A chunk after the expected failures is processed and printed.
// CHECK-LABEL: graph.graph @after
graph.graph @after(%x: tensor<4xf32>) -> tensor<4xf32> {
  graph.net_output %x : tensor<4xf32>
}
