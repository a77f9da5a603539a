// RUN: not ge-opt %s -p 'ge-infer-shapes{input-shape="z:1,4"}' 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not ge-opt %s -p 'ge-infer-shapes{input-shape="x:1,4,1"}' 2>&1 | filecheck %s --check-prefix=RANK
// RUN: not ge-opt %s -p 'ge-infer-shapes{input-shape="x:2,5"}' 2>&1 | filecheck %s --check-prefix=STATIC
// RUN: not ge-opt %s -p 'ge-infer-shapes{input-shape="x:2,four"}' 2>&1 | filecheck %s --check-prefix=INT
// RUN: not ge-opt %s -p 'ge-infer-shapes{input-shape="x"}' 2>&1 | filecheck %s --check-prefix=ITEM
// RUN: ge-opt %s -p 'ge-infer-shapes{input-shape="x:-1,4;scope:y:7"}' | filecheck %s --check-prefix=KEEP

// Tests the errors of the input-shape option (atc's --input_shape grammar: items split on ';',
// each at its last ':'; -1 keeps a dim unknown).

// UNKNOWN: error: ge-infer-shapes: input-shape names 'z', which is not a graph input (x, scope:y)
// RANK: error: ge-infer-shapes: input-shape gives 'x' 3 dims (1,4,1) but @main declares rank 2 (tensor<?x4xf32>)
// STATIC: error: ge-infer-shapes: input-shape dim 1 of 'x' is 5 but @main declares 4 (tensor<?x4xf32>)
// INT: error: ge-infer-shapes: input-shape dim 'four' of 'x' is not an integer
// ITEM: error: ge-infer-shapes: input-shape item 'x' is not NAME:DIMS

// KEEP-LABEL: graph.graph @main
// KEEP-SAME:    tensor<?x4xf32> {node_name = "x"}, %{{.*}}: tensor<7xf32> {node_name = "scope:y"}
graph.graph @main(%x: tensor<?x4xf32> {node_name = "x"}, %y: tensor<?xf32> {node_name = "scope:y"}) -> tensor<?x4xf32> {
  graph.net_output %x : tensor<?x4xf32>
}
