// Tests that malformed text for the ops with hand-written (fast) parsers is one `error:` line
// naming file:line:col, exit code 1, the same message the declarative format gives: one case
// per op family (engine tasks, event/label/stream tasks, declarations, weights, copies, node
// syntax of graph and partition ops). Inputs are in inputs/syntax/.

// RUN: not ge-opt %inputs/syntax/kernel.mlir 2>&1 | filecheck %s --check-prefix=KERNEL
// KERNEL: kernel.mlir:5:1: error: ')' expected
// KERNEL-NOT: Traceback

// RUN: not ge-opt %inputs/syntax/dynamic-kernel.mlir 2>&1 | filecheck %s --check-prefix=DYNAMIC
// DYNAMIC: dynamic-kernel.mlir:4:40: error: Expected 'engine'
// DYNAMIC-NOT: Traceback

// RUN: not ge-opt %inputs/syntax/event-record.mlir 2>&1 | filecheck %s --check-prefix=EVENT
// EVENT: event-record.mlir:6:1: error: Expected integer literal
// EVENT-NOT: Traceback

// RUN: not ge-opt %inputs/syntax/stream.mlir 2>&1 | filecheck %s --check-prefix=STREAM
// STREAM: stream.mlir:3:26: error: attribute expected
// STREAM-NOT: Traceback

// RUN: not ge-opt %inputs/syntax/input.mlir 2>&1 | filecheck %s --check-prefix=INPUT
// INPUT: input.mlir:3:31: error: expected a tensor type for an arena buffer, got i32
// INPUT-NOT: Traceback

// RUN: not ge-opt %inputs/syntax/weight.mlir 2>&1 | filecheck %s --check-prefix=WEIGHT
// WEIGHT: weight.mlir:3:28: error: 'ascend.weight' expects a dense<...> : tensor<...> value
// WEIGHT-NOT: Traceback

// RUN: not ge-opt %inputs/syntax/memcpy.mlir 2>&1 | filecheck %s --check-prefix=MEMCPY
// MEMCPY: memcpy.mlir:4:57: error: Expected 'to'
// MEMCPY-NOT: Traceback

// RUN: not ge-opt %inputs/syntax/node-type.mlir 2>&1 | filecheck %s --check-prefix=NODETYPE
// NODETYPE: node-type.mlir:4:3: error: Expected '>' after builtin parameter list
// NODETYPE-NOT: Traceback

// RUN: not ge-opt %inputs/syntax/node-attrs.mlir 2>&1 | filecheck %s --check-prefix=NODEATTRS
// NODEATTRS: node-attrs.mlir:3:35: error: attribute expected
// NODEATTRS-NOT: Traceback

// RUN: not ge-opt %inputs/syntax/partition-end.mlir 2>&1 | filecheck %s --check-prefix=PARTITION
// PARTITION: partition-end.mlir:3:54: error: 1 operands but 2 operand types
// PARTITION-NOT: Traceback
