// Tests the errors of dense literals: hex bit patterns that take a minus sign or do not fit
// the element width, values out of range, and a splat over the memory budget (one line each,
// with the place, exit code 1).

// RUN: echo '"test.op"() {v = dense<[1.0, -0x7F800000]> : tensor<2xf32>} : () -> ()' | not ge-opt 2>&1 | filecheck %s --check-prefix=MINUS
// MINUS: <stdin>:1:30: error: hexadecimal float literal should not have a leading minus
// MINUS-NOT: Traceback

// RUN: echo '"test.op"() {v = dense<[0x10000]> : tensor<1xf16>} : () -> ()' | not ge-opt 2>&1 | filecheck %s --check-prefix=WIDTH
// WIDTH: <stdin>:1:25: error: hexadecimal float literal 0x10000 does not fit f16 (16 bits)

// RUN: echo '"test.op"() {v = dense<[1.0, 1.0e39]> : tensor<2xf32>} : () -> ()' | not ge-opt 2>&1 | filecheck %s --check-prefix=RANGE
// RANGE: <stdin>:1:30: error: value 1e+39 is out of range for f32

// RUN: echo '"test.op"() {v = dense<[1, 300]> : tensor<2xi8>} : () -> ()' | not ge-opt 2>&1 | filecheck %s --check-prefix=INT
// INT: <stdin>:1:28: error: Integer value 300 is out of range for type i8

// RUN: echo '"test.op"() {v = array<f32: 0x17F800000>} : () -> ()' | not ge-opt 2>&1 | filecheck %s --check-prefix=ARRAY
// ARRAY: <stdin>:1:29: error: hexadecimal float literal 0x17F800000 does not fit f32 (32 bits)

// RUN: env GE_MAX_MEMORY=64M not ge-opt %inputs/huge-splat.mlir 2>&1 | filecheck %s --check-prefix=BUDGET
// BUDGET: huge-splat.mlir:3:23: error: dense splat literal of tensor<400000000xf32> needs 1.5 GiB, over the memory limit of 64.0 MiB
// BUDGET-NOT: Traceback
