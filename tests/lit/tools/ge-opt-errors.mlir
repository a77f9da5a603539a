// Tests that every kind of user error is one `error:` line on stderr and exit code 1.

// RUN: not ge-opt %s -p ge-no-such-pass 2>&1 | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: bad pass pipeline: unknown pass 'ge-no-such-pass' (ge-opt --list-passes lists every pass)
// UNKNOWN-NOT: Traceback

// RUN: not ge-opt %s -p 'ge-convert-graph-to-ascend{' 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX: error: bad pass pipeline: {{.+}}
// SYNTAX-NOT: Traceback

// RUN: not ge-opt %s -p 'ge-convert-graph-to-ascend{no-such-option=1}' 2>&1 | filecheck %s --check-prefix=OPTION
// OPTION: error: bad pass pipeline: ge-convert-graph-to-ascend has no option 'no-such-option' (its options: default-engine, alignment; see ge-opt --list-passes)
// OPTION-NOT: Traceback

// RUN: not ge-opt %inputs/malformed.mlir 2>&1 | filecheck %s --check-prefix=PARSE
// PARSE: malformed.mlir:4:{{[0-9]+}}: error: {{.+}}
// PARSE-NOT: Traceback

// RUN: not ge-opt %inputs/bad-verify.mlir 2>&1 | filecheck %s --check-prefix=VERIFY
// VERIFY: bad-verify.mlir:3:3: error: 'graph.net_output' op types
// VERIFY-NOT: Traceback

// RUN: not ge-opt %inputs/no-such-file.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: error: [Errno 2] No such file or directory
// MISSING-NOT: Traceback

// RUN: env COLUMNS=1000 ge-opt --help | filecheck %s --check-prefix=HELP
// HELP: ge-compile
// HELP-SAME: ge-convert-graph-to-ascend

graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
