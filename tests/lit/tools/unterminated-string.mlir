// Tests that a string literal missing its closing quote is one error line in milliseconds in
// every tool that parses text (xDSL 0.74's lexer alone backtracks on it for hours; see
// gedialects/lexer_workaround.py). `timeout` turns a regression into a failure, not a hang.

// RUN: not timeout 60 ge-opt %inputs/unterminated-string.mlir 2>&1 | filecheck %s
// RUN: not timeout 60 ge-opt --split-input-file %s 2>&1 | filecheck %s --check-prefix=SPLIT
// RUN: not timeout 60 ge-run %inputs/unterminated-string.mlir --random-inputs 0 2>&1 | filecheck %s
// RUN: not timeout 60 ge-run --compare %inputs/unterminated-string.mlir %inputs/unterminated-string.mlir --random-inputs 0 2>&1 | filecheck %s
// RUN: not timeout 60 xdsl-opt %inputs/unterminated-string.mlir 2>&1 | filecheck %s --check-prefix=XDSL

// CHECK: unterminated-string.mlir:5:35: error: End of file reached before closing string literal.
// CHECK-NOT: Traceback
// XDSL: End of file reached before closing string literal.

// With --split-input-file: the third chunk, at its line in the file.
// SPLIT: unterminated-string.mlir:27:40: error: End of file reached before closing string literal.
// SPLIT-NOT: Traceback

builtin.module {}

// -----

builtin.module attributes {ok = "a closed string"} {}

// -----

builtin.module attributes {node_name = "conv1_in_a_block_of_forty_characters_xx}
