// Tests the errors of ge-expand-multibatch: GE's option checks against the graph (E10016,
// E10001), option syntax (the position is named on the one-line CLI message), a branch that
// stays dynamic, and graphs the pass does not take.

// RUN: not ge-opt %s --split-input-file -p 'ge-expand-multibatch{input-shape="x:-1,3;z:-1" dynamic-batch-size="1,2"}' 2>&1 | filecheck %s --check-prefix=NAME
// NAME: error: ge-expand-multibatch: E10016: Op name z specified in --input_shape is not found in the model. Confirm whether this node name exists, or whether the node is not split with the specified delimiter ';' (inputs of @main: x, y).

// RUN: not ge-opt %s --split-input-file -p 'ge-expand-multibatch{input-shape="x:-1,3" dynamic-batch-size="1,2"}' 2>&1 | filecheck %s --check-prefix=COUNT
// COUNT: error: ge-expand-multibatch: E10001: Value 1 for parameter input_shape is invalid. Reason: Count:2 of data_nodes in graph:main should be equal to input_shape count:1 from option (missing: y).

// RUN: not ge-opt %s --split-input-file -p 'ge-expand-multibatch{input-shape="x:-1,3,1;y:-1" dynamic-batch-size="1,2"}' 2>&1 | filecheck %s --check-prefix=RANK
// RANK: error: ge-expand-multibatch: E10001: Value [-1,3] for parameter x is invalid. Reason: The output shape of x is [-1,3], the input shape from options of x is [-1,3,1], graph:main.

// RUN: not ge-opt %s --split-input-file -p 'ge-expand-multibatch{input-shape="x:-1,4;y:-1" dynamic-batch-size="1,2"}' 2>&1 | filecheck %s --check-prefix=FIXED
// FIXED: error: ge-expand-multibatch: E10001: Value [-1,4] for parameter input_shape is invalid. Reason: Value of input shape [-1,4] from option and output shape [-1,3] of data op:x should be equal, index:1, graph:main.

// RUN: not ge-opt %s --split-input-file -p 'ge-expand-multibatch{input-shape="x:-1,3;y:-1" dynamic-batch-size="1,2;4"}' 2>&1 | filecheck %s --check-prefix=SYNTAX
// SYNTAX: error: ge-expand-multibatch: E10003: Value 1,2;4 for parameter --dynamic_batch_size is invalid. Reason: It can only contain digits and ",". [--dynamic_batch_size=1,2;4 at column 4]

// RUN: not ge-opt %s --split-input-file -p 'ge-expand-multibatch{input-shape="x:-1,3;y:-1" dynamic-batch-size="1,2" dynamic-dims="1;2"}' 2>&1 | filecheck %s --check-prefix=EXCLUSIVE
// EXCLUSIVE: error: ge-expand-multibatch: E10009: --dynamic_batch_size, --dynamic_image_size, --input_shape_range, and --dynamic_dims are mutually exclusive (given: --dynamic_batch_size, --dynamic_dims).

// RUN: not ge-opt %s --split-input-file -p 'ge-expand-multibatch{input-shape="x:2,3;y:2"}' 2>&1 | filecheck %s --check-prefix=NONE
// NONE: error: ge-expand-multibatch: E10058: Parameter --dynamic_batch_size, --dynamic_image_size or --dynamic_dims is not configured or is empty.

// RUN: not ge-opt %s --split-input-file -p 'ge-expand-multibatch{input-shape="x:-1,3;y:-1" dynamic-batch-size="1,2" get-dynamic-dims=true}' 2>&1 | filecheck %s --check-prefix=GETNEXT
// GETNEXT: error: ge-expand-multibatch: get-dynamic-dims gathers 2 -1 dims from the inputs but a gear of --dynamic_batch_size has 1 values; use the shape-data input (the default)

graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}, %y: tensor<?xf32> {node_name = "y"}) -> tensor<?x3xf32> {
  graph.net_output %x : tensor<?x3xf32>
}

// -----

// The splits below, with `--verify-diagnostics` (one error per split; the first split is the
// graph above, whose second input is not in this --input_shape).
// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'ge-expand-multibatch{input-shape="x:-1" dynamic-batch-size="1,2" static-branches=true}' | filecheck %s --check-prefix=SPLIT
// SPLIT: ge-expand-multibatch: E10001: {{.*}}(missing: y).
// SPLIT-NEXT: {{/}}/ -----
// SPLIT-NEXT: ge-expand-multibatch: expands exactly one root graph, found @main, @other; choose with entry=
// SPLIT-NEXT: {{/}}/ -----
// SPLIT-NEXT: ge-expand-multibatch: the module already has a symbol @callee_ascend_mbatch_batch_0
// SPLIT-NEXT: {{/}}/ -----
// SPLIT-NEXT: ge-expand-multibatch: 'test.op' (unnamed) in @Batch_0 has type tensor<?xf32> after shape inference; every value of a gear branch must be static (GE: Multi-batch not support middle dynamic shape; drop static-branches to partition the branch into static and dynamic parts)

// RUN: ge-opt %s --split-input-file --verify-diagnostics -p 'ge-expand-multibatch{input-shape="x:-1" dynamic-batch-size="1,2" entry=other}' | filecheck %s --check-prefix=ENTRY
// ENTRY: ge-expand-multibatch: no root graph named @other
// ENTRY: graph.graph @other(%x: tensor<?xf32> {node_name = "x", {{.*}}}, %shape_data: tensor<1xi32>

graph.graph @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %x : tensor<?xf32>
}
graph.graph @other(%x: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %x : tensor<?xf32>
}

// -----

graph.graph @callee(%a: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %a : tensor<?xf32>
}
graph.graph @caller(%x: tensor<?xf32> {node_name = "x"}) -> tensor<?xf32> {
  %r = partition.partitioned_call @callee(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %s = partition.partitioned_call @callee_ascend_mbatch_batch_0(%r) : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %s : tensor<?xf32>
}
// gear 0's copy of @callee would take this name
graph.graph @callee_ascend_mbatch_batch_0(%a: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %a : tensor<?xf32>
}

// -----

graph.graph @dynamic(%x: tensor<?xf32> {node_name = "x"}) -> tensor<?xf32> {
  %r = "test.op"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %r : tensor<?xf32>
}
