// Tests that verifier and pass errors are in MLIR's form: `file:line:col: error:`, the op
// with its SSA name and node_name, the source line and a caret under the op name; that
// --split-input-file processes every chunk and counts lines in the original file (parse
// errors too, which stay one line).

// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s --strict-whitespace
// RUN: not ge-opt %s --split-input-file 2>/dev/null | filecheck %s --check-prefix=OUT
// RUN: not ge-run %inputs/bad-verify.mlir 2>&1 | filecheck %s --check-prefix=GERUN
// RUN: not ge-opt %inputs/malformed.mlir 2>&1 | filecheck %s --check-prefix=PARSE --strict-whitespace
// RUN: not ge-opt %s --split-input-file -p ge-convert-graph-to-ascend 2>&1 >/dev/null | filecheck %s --check-prefix=PASS

// CHECK-LABEL: diagnostics-locations.mlir:[[# @LINE + 2]]:8: error: 'graph.relu' op %r (node_name "act"): result type tensor<5xf32> differs from the operand type tensor<4xf32>
graph.graph @names(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "act"} : (tensor<4xf32>) -> tensor<5xf32>
  graph.net_output %x : tensor<4xf32>
}
// CHECK-NEXT: {{^}}  %r = graph.relu %x {node_name = "act"} : (tensor<4xf32>) -> tensor<5xf32>{{$}}
// CHECK-NEXT: {{^}}       ^{{$}}

// -----

// A good chunk between failing ones still gives its output.
// OUT-LABEL: graph.graph @good
// OUT-NEXT: graph.net_output %x
graph.graph @good(%x: tensor<4xf32>) -> tensor<4xf32> {
  graph.net_output %x : tensor<4xf32>
}

// -----

// CHECK-LABEL: diagnostics-locations.mlir:[[# @LINE + 2]]:3: error: 'graph.net_output' op types (tensor<4xf32>) do not match the outputs of @no_names (tensor<3xf32>)
graph.graph @no_names(%x: tensor<4xf32>) -> tensor<3xf32> {
  graph.net_output %x : tensor<4xf32>
}
// CHECK-NEXT: {{^}}  graph.net_output %x : tensor<4xf32>{{$}}
// CHECK-NEXT: {{^}}  ^{{$}}

// -----

// CHECK-LABEL: diagnostics-locations.mlir:[[# @LINE + 3]]:20: error: Operation graph.bogus is not registered
graph.graph @parse(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.bogus %0 : tensor<4xf32>
  graph.net_output %x : tensor<4xf32>
}
// A parse error stays xdsl-opt's one line (the parser's position is a token).
// CHECK-NOT: graph.bogus %0

// -----

// Generic-form ops are located too: the caret is under the quoted name.
// CHECK-LABEL: diagnostics-locations.mlir:[[# @LINE + 2]]:8: error: 'graph.relu' op %0: result type tensor<5xf32> differs
graph.graph @generic(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "graph.relu"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  graph.net_output %x : tensor<4xf32>
}
// CHECK-NEXT: {{^}}  %0 = "graph.relu"(%x) : (tensor<4xf32>) -> tensor<5xf32>{{$}}
// CHECK-NEXT: {{^}}       ^{{$}}

// -----

// Verifies, but task generation needs static shapes (PASS below).
graph.graph @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %r = graph.relu %x {node_name = "dyn"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  graph.net_output %r : tensor<?x4xf32>
}

// -----

// The last chunk is reached although earlier ones failed.
// CHECK-LABEL: diagnostics-locations.mlir:[[# @LINE + 2]]:8: error: 'graph.add' op %s (node_name "sum"):
graph.graph @last(%a: tensor<4xf32>, %b: tensor<3xf32>) -> tensor<4xf32> {
  %s = graph.add %a, %b {node_name = "sum"} : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  graph.net_output %s : tensor<4xf32>
}
// CHECK-NOT: error:
// CHECK-NOT: Traceback

// ge-run locates the verifier errors of the file it runs.
// GERUN-LABEL: bad-verify.mlir:3:3: error: 'graph.net_output' op types (tensor<2xf32>) do not match the outputs of @main (tensor<3xf32>)
// GERUN-NEXT: graph.net_output %x : tensor<2xf32>
// GERUN-NEXT: ^
// GERUN-NOT: Traceback

// PARSE-LABEL: malformed.mlir:4:24: error: Operation graph.relu_typo is not registered
// PARSE-NOT: graph.relu_typo %x

// A failing pass names itself and the op it failed on, at the op's line; the chunks before
// and after it are reported as well.
// PASS-LABEL: diagnostics-locations.mlir:14:8: error: 'graph.relu' op %r (node_name "act")
// PASS-LABEL: diagnostics-locations.mlir:64:8: error: ge-convert-graph-to-ascend: 'graph.relu' (dyn) reads a value of unknown shape
// PASS-NEXT: %r = graph.relu %x {node_name = "dyn"}
// PASS-NEXT: ^
// PASS-LABEL: error: 'graph.add' op %s (node_name "sum")
