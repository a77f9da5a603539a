// Tests that --verify-expected-diagnostics fails on purpose, exit code 1, naming each line:
// a diagnostic no annotation expects, an annotation no diagnostic matches (wrong text, wrong
// line, wrong severity) and a malformed annotation. The other chunks are still checked.

// RUN: not ge-opt %s --split-input-file --verify-expected-diagnostics 2>&1 >/dev/null | filecheck %s

// CHECK-LABEL: diagnostics-expected-fail.mlir:[[# @LINE + 2]]:8: error: unexpected error: 'graph.relu' op %r: result type tensor<5xf32> differs
graph.graph @unannounced(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<5xf32>
  graph.net_output %x : tensor<4xf32>
}
// CHECK-NEXT: %r = graph.relu %x
// CHECK-NEXT: ^

// -----

// The text differs: both the diagnostic and the annotation are reported.
graph.graph @wrong_text(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{result type tensor<6xf32> differs}}
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<5xf32>
  graph.net_output %x : tensor<4xf32>
}
// CHECK-LABEL: diagnostics-expected-fail.mlir:[[# @LINE - 3]]:8: error: unexpected error: 'graph.relu' op %r: result type tensor<5xf32> differs
// CHECK: diagnostics-expected-fail.mlir:[[# @LINE - 5]]:6: error: expected error "result type tensor<6xf32> differs" was not produced
// CHECK-NEXT: // expected-{{e}}rror @+1 {{[{][{]}}result type tensor<6xf32> differs{{[}][}]}}

// -----

// The line is wrong (@+2 points at the net_output).
graph.graph @wrong_line(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{result type tensor<5xf32> differs}}
  %r = graph.relu %x : (tensor<4xf32>) -> tensor<5xf32>
  graph.net_output %x : tensor<4xf32>
}
// CHECK-LABEL: diagnostics-expected-fail.mlir:[[# @LINE - 3]]:8: error: unexpected error: 'graph.relu' op %r
// CHECK: diagnostics-expected-fail.mlir:[[# @LINE - 5]]:6: error: expected error "result type tensor<5xf32> differs" was not produced

// -----

// The severity is wrong: an error is no warning.
graph.graph @wrong_severity(%x: tensor<4xf32>) -> tensor<3xf32> {
  graph.net_output %x : tensor<4xf32> // expected-warning {{do not match the outputs}}
}
// CHECK-LABEL: diagnostics-expected-fail.mlir:[[# @LINE - 2]]:3: error: unexpected error: 'graph.net_output' op types
// CHECK: diagnostics-expected-fail.mlir:[[# @LINE - 3]]:42: error: expected warning "do not match the outputs" was not produced

// -----

// Nothing fails here, so the annotation is not met; a malformed one is an error of its own.
graph.graph @nothing(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @below {{never}}
  graph.net_output %x : tensor<4xf32>
  // expected-remark @+1 missing braces
}
// CHECK-LABEL: diagnostics-expected-fail.mlir:[[# @LINE - 2]]:6: error: expected-<severity> annotation must be followed by
// CHECK: diagnostics-expected-fail.mlir:[[# @LINE - 5]]:6: error: expected note "never" was not produced

// -----

// A chunk whose annotations all match adds nothing.
graph.graph @fine(%x: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @below {{types (tensor<4xf32>) do not match the outputs of @fine (tensor<3xf32>)}}
  graph.net_output %x : tensor<4xf32>
}
// CHECK-NOT: error:
