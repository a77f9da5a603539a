// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a branch symbol that does not exist.

// CHECK-LABEL: 'multibatch.case' branch 1 @missing does not exist
graph.graph @b0(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  graph.net_output %x : tensor<1x3xf32>
}
graph.graph @root(%i: tensor<i32>, %x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %r = multibatch.case %i, %x branches [@b0, @missing] : (tensor<i32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  graph.net_output %r : tensor<1x3xf32>
}

// -----

// Tests a branch that is not a graph.

// CHECK-LABEL: 'multibatch.case' branch 0 @f is a 'func.func', not a graph.graph
func.func @f(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  func.return %x : tensor<1x3xf32>
}
graph.graph @root(%i: tensor<i32>, %x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %r = multibatch.case %i, %x branches [@f] : (tensor<i32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  graph.net_output %r : tensor<1x3xf32>
}

// -----

// Tests a nested branch symbol (generic form: the custom syntax only reads flat symbols).

// CHECK-LABEL: Expected SymbolRefAttr with no nested symbols.
graph.graph @root(%i: tensor<i32>, %x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %r = "multibatch.case"(%i, %x) <{branches = [@a::@b]}> : (tensor<i32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  graph.net_output %r : tensor<1x3xf32>
}

// -----

// Tests a Case with more inputs than its branch takes.

// CHECK-LABEL: 'multibatch.case' has 2 inputs but branch 0 @b0 has 1
graph.graph @b0(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  graph.net_output %x : tensor<1x3xf32>
}
graph.graph @root(%i: tensor<i32>, %x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %r = multibatch.case %i, %x, %x branches [@b0] : (tensor<i32>, tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  graph.net_output %r : tensor<1x3xf32>
}

// -----

// Tests an input whose shape fits branch 0 but contradicts branch 1 (gear 1 has batch 4).

// CHECK-LABEL: 'multibatch.case' input 0 has type tensor<1x3xf32>, incompatible with tensor<4x3xf32> of branch 1 @b1
graph.graph @b0(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  graph.net_output %x : tensor<1x3xf32>
}
graph.graph @b1(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  graph.net_output %x : tensor<4x3xf32>
}
graph.graph @root(%i: tensor<i32>, %x: tensor<1x3xf32>) -> tensor<?x3xf32> {
  %r = multibatch.case %i, %x branches [@b0, @b1] : (tensor<i32>, tensor<1x3xf32>) -> tensor<?x3xf32>
  graph.net_output %r : tensor<?x3xf32>
}

// -----

// Tests a Case with fewer results than its branch produces.

// CHECK-LABEL: 'multibatch.case' has 0 results but branch 0 @b0 has 1
graph.graph @b0(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  graph.net_output %x : tensor<1x3xf32>
}
graph.graph @root(%i: tensor<i32>, %x: tensor<1x3xf32>) {
  multibatch.case %i, %x branches [@b0] : (tensor<i32>, tensor<1x3xf32>) -> ()
  graph.net_output
}

// -----

// Tests a result whose element type differs from the branch output.

// CHECK-LABEL: 'multibatch.case' result 0 has type tensor<?x3xf16>, incompatible with tensor<1x3xf32> of branch 0 @b0
graph.graph @b0(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  graph.net_output %x : tensor<1x3xf32>
}
graph.graph @root(%i: tensor<i32>, %x: tensor<?x3xf32>) -> tensor<?x3xf16> {
  %r = multibatch.case %i, %x branches [@b0] : (tensor<i32>, tensor<?x3xf32>) -> tensor<?x3xf16>
  graph.net_output %r : tensor<?x3xf16>
}

// -----

// Tests a branch index that is not one int32.

// CHECK-LABEL: 'multibatch.case' branch_index must be tensor<i32> or tensor<1xi32>, got tensor<2xi32>
graph.graph @b0(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  graph.net_output %x : tensor<1x3xf32>
}
graph.graph @root(%i: tensor<2xi32>, %x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %r = multibatch.case %i, %x branches [@b0] : (tensor<2xi32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  graph.net_output %r : tensor<1x3xf32>
}

// -----

// Tests a Case without branches.

// CHECK-LABEL: 'multibatch.case' needs at least one branch
graph.graph @root(%i: tensor<i32>) {
  multibatch.case %i branches [] : (tensor<i32>) -> ()
  graph.net_output
}

// -----

// Tests MapIndex dims of the wrong element type.

// CHECK-LABEL: 'multibatch.map_index' x must be a 1-D i32 tensor, got tensor<2xi64>
graph.graph @root(%d: tensor<2xi64>, %g: tensor<4xi32>) -> tensor<i32> {
  %i = multibatch.map_index %d, %g : (tensor<2xi64>, tensor<4xi32>) -> tensor<i32>
  graph.net_output %i : tensor<i32>
}

// -----

// Tests a MapIndex gear table that is not 1-D.

// CHECK-LABEL: 'multibatch.map_index' data_seq must be a 1-D i32 tensor, got tensor<2x2xi32>
graph.graph @root(%d: tensor<2xi32>, %g: tensor<2x2xi32>) -> tensor<i32> {
  %i = multibatch.map_index %d, %g : (tensor<2xi32>, tensor<2x2xi32>) -> tensor<i32>
  graph.net_output %i : tensor<i32>
}

// -----

// Tests a MapIndex result that is not one int32.

// CHECK-LABEL: 'multibatch.map_index' result must be tensor<i32> or tensor<1xi32>, got tensor<i64>
graph.graph @root(%d: tensor<2xi32>, %g: tensor<4xi32>) -> tensor<i64> {
  %i = multibatch.map_index %d, %g : (tensor<2xi32>, tensor<4xi32>) -> tensor<i64>
  graph.net_output %i : tensor<i64>
}

// -----

// Tests MapIndex on empty dims.

// CHECK-LABEL: 'multibatch.map_index' x must hold at least one dim
graph.graph @root(%d: tensor<0xi32>, %g: tensor<4xi32>) -> tensor<i32> {
  %i = multibatch.map_index %d, %g : (tensor<0xi32>, tensor<4xi32>) -> tensor<i32>
  graph.net_output %i : tensor<i32>
}

// -----

// Tests a gear table whose length is not a multiple of the gear length.

// CHECK-LABEL: 'multibatch.map_index' data_seq length 5 is not a non-zero multiple of the x length 2
graph.graph @root(%d: tensor<2xi32>, %g: tensor<5xi32>) -> tensor<i32> {
  %i = multibatch.map_index %d, %g : (tensor<2xi32>, tensor<5xi32>) -> tensor<i32>
  graph.net_output %i : tensor<i32>
}

// -----

// Tests an empty gear table.

// CHECK-LABEL: 'multibatch.map_index' data_seq length 0 is not a non-zero multiple of the x length 2
graph.graph @root(%d: tensor<2xi32>, %g: tensor<0xi32>) -> tensor<i32> {
  %i = multibatch.map_index %d, %g : (tensor<2xi32>, tensor<0xi32>) -> tensor<i32>
  graph.net_output %i : tensor<i32>
}

// -----

// Tests more than GE's 100 gears.

// CHECK-LABEL: 'multibatch.map_index' data_seq holds 101 gears, more than the maximum 100
graph.graph @root(%d: tensor<1xi32>, %g: tensor<101xi32>) -> tensor<i32> {
  %i = multibatch.map_index %d, %g : (tensor<1xi32>, tensor<101xi32>) -> tensor<i32>
  graph.net_output %i : tensor<i32>
}

// -----

// Tests an N that differs from the number of inputs.

// CHECK-LABEL: 'multibatch.get_dynamic_dims' N is 2 but it has 1 inputs
graph.graph @root(%s: tensor<2xi64>) -> tensor<1xi32> {
  %d = multibatch.get_dynamic_dims %s shape_info [2, -1, 3] N 2 : (tensor<2xi64>) -> tensor<1xi32>
  graph.net_output %d : tensor<1xi32>
}

// -----

// Tests a negative rank in shape_info.

// CHECK-LABEL: 'multibatch.get_dynamic_dims' shape_info: input 0 has negative rank -1
graph.graph @root(%s: tensor<2xi64>) -> tensor<1xi32> {
  %d = multibatch.get_dynamic_dims %s shape_info [-1, -1, 3] N 1 : (tensor<2xi64>) -> tensor<1xi32>
  graph.net_output %d : tensor<1xi32>
}

// -----

// Tests a shape_info cut short.

// CHECK-LABEL: 'multibatch.get_dynamic_dims' shape_info: input 0 has rank 3 but only 2 dims are left
graph.graph @root(%s: tensor<3xi64>) -> tensor<1xi32> {
  %d = multibatch.get_dynamic_dims %s shape_info [3, -1, 3] N 1 : (tensor<3xi64>) -> tensor<1xi32>
  graph.net_output %d : tensor<1xi32>
}

// -----

// Tests a shape_info dim below -1 (GE's -2 means unknown rank, not allowed here).

// CHECK-LABEL: 'multibatch.get_dynamic_dims' shape_info: input 0 has dims [-2, 3]; a dim is -1 or >= 0
graph.graph @root(%s: tensor<2xi64>) -> tensor<1xi32> {
  %d = multibatch.get_dynamic_dims %s shape_info [2, -2, 3] N 1 : (tensor<2xi64>) -> tensor<1xi32>
  graph.net_output %d : tensor<1xi32>
}

// -----

// Tests a shape_info describing more inputs than there are.

// CHECK-LABEL: 'multibatch.get_dynamic_dims' shape_info describes 2 inputs, expected 1
graph.graph @root(%s: tensor<2xi64>) -> tensor<1xi32> {
  %d = multibatch.get_dynamic_dims %s shape_info [2, -1, 3, 0] N 1 : (tensor<2xi64>) -> tensor<1xi32>
  graph.net_output %d : tensor<1xi32>
}

// -----

// Tests a shape input that is not an integer vector.

// CHECK-LABEL: 'multibatch.get_dynamic_dims' input 0 must be a 1-D i32 or 1-D i64 tensor, got tensor<2xf32>
graph.graph @root(%s: tensor<2xf32>) -> tensor<1xi32> {
  %d = multibatch.get_dynamic_dims %s shape_info [2, -1, 3] N 1 : (tensor<2xf32>) -> tensor<1xi32>
  graph.net_output %d : tensor<1xi32>
}

// -----

// Tests a shape input whose length is not the rank from shape_info.

// CHECK-LABEL: 'multibatch.get_dynamic_dims' input 1 has 3 dims but shape_info gives rank 2
graph.graph @root(%s: tensor<2xi64>, %t: tensor<3xi64>) -> tensor<2xi32> {
  %d = multibatch.get_dynamic_dims %s, %t shape_info [2, -1, 3, 2, 5, -1] N 2 : (tensor<2xi64>, tensor<3xi64>) -> tensor<2xi32>
  graph.net_output %d : tensor<2xi32>
}

// -----

// Tests a result that is not an int32 vector.

// CHECK-LABEL: 'multibatch.get_dynamic_dims' result must be a 1-D i32 tensor, got tensor<1xi64>
graph.graph @root(%s: tensor<2xi64>) -> tensor<1xi64> {
  %d = multibatch.get_dynamic_dims %s shape_info [2, -1, 3] N 1 : (tensor<2xi64>) -> tensor<1xi64>
  graph.net_output %d : tensor<1xi64>
}

// -----

// Tests a result length that differs from the number of -1 dims.

// CHECK-LABEL: 'multibatch.get_dynamic_dims' result has 1 elements but shape_info has 2 unknown (-1) dims
graph.graph @root(%s: tensor<2xi64>) -> tensor<1xi32> {
  %d = multibatch.get_dynamic_dims %s shape_info [2, -1, -1] N 1 : (tensor<2xi64>) -> tensor<1xi32>
  graph.net_output %d : tensor<1xi32>
}

// -----

// Tests a case branch that runs the graph holding the case.

// CHECK-LABEL: 'multibatch.case' in @root calls @root: graphs call each other in a cycle @root -> @root
graph.graph @root(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = multibatch.case %i, %i, %x branches [@root] : (tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
