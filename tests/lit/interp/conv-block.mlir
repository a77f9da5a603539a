// Tests that the shipped example gives the same numbers before and after ge-compile.

// RUN: rm -rf %t && mkdir -p %t
// RUN: ge-run %S/../../../examples/conv_block.mlir --random-inputs 3 -o %t/graph.npz | filecheck %s --check-prefix=GRAPH
// RUN: ge-opt %S/../../../examples/conv_block.mlir -p ge-compile -o %t/model.mlir
// RUN: ge-run %t/model.mlir --random-inputs 3 --reference %t/graph.npz | filecheck %s --check-prefix=ASCEND

// GRAPH: logits: float32[1, 10]
// ASCEND: logits: float32[1, 10]
// ASCEND-NEXT: MATCH: all 1 outputs equal {{.*}}graph.npz
