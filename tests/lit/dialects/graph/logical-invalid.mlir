// RUN: ge-opt %s --split-input-file --verify-expected-diagnostics

// Tests a comparison of two element types.

graph.graph @g(%a: tensor<3xf32>, %b: tensor<3xi32>) {
  %y = graph.equal %a, %b : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xi1>
  // expected-error @above {{'graph.equal' op %y: requires one element type for x1 and x2, got f32, i32}}
  graph.net_output
}

// -----

// Tests an ordering comparison of i1 values.

graph.graph @g(%a: tensor<3xi1>) {
  %y = graph.less %a, %a : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  // expected-error @above {{'graph.less' op %y: requires a numeric (integer or floating-point, not i1) element type for x1, got i1}}
  graph.net_output
}

// -----

// Tests a comparison whose result is not i1.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.greater %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.greater' op %y: requires an i1 element type for the result, got f32}}
  graph.net_output
}

// -----

// Tests comparison operands whose shapes do not broadcast.

graph.graph @g(%a: tensor<3xf32>, %b: tensor<2xf32>) {
  %y = graph.less_equal %a, %b : (tensor<3xf32>, tensor<2xf32>) -> tensor<3xi1>
  // expected-error @above {{'graph.less_equal' op %y: operand shapes [3] and [2] do not broadcast}}
  graph.net_output
}

// -----

// Tests a comparison result whose shape is not the broadcast shape.

graph.graph @g(%a: tensor<2x1xf32>, %b: tensor<3xf32>) {
  %y = graph.greater_equal %a, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x1xi1>
  // expected-error @above {{'graph.greater_equal' op %y: result shape [2, 1] differs from the broadcast shape [2, 3]}}
  graph.net_output
}

// -----

// Tests a logical op on floats.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.logical_and %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.logical_and' op %y: requires an i1 element type for x1, got f32}}
  graph.net_output
}

// -----

// Tests LogicalNot of integers.

graph.graph @g(%a: tensor<3xi8>) {
  %y = graph.logical_not %a : (tensor<3xi8>) -> tensor<3xi8>
  // expected-error @above {{'graph.logical_not' op %y: requires an i1 element type for x, got i8}}
  graph.net_output
}

// -----

// Tests a bitwise op on floats.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.bitwise_and %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.bitwise_and' op %y: requires an integer (not i1) element type for x1, got f32}}
  graph.net_output
}

// -----

// Tests Invert of i1 values (LogicalNot is the bool op).

graph.graph @g(%a: tensor<3xi1>) {
  %y = graph.invert %a : (tensor<3xi1>) -> tensor<3xi1>
  // expected-error @above {{'graph.invert' op %y: requires an integer (not i1) element type for x, got i1}}
  graph.net_output
}

// -----

// Tests a shift of floats.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.left_shift %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.left_shift' op %y: requires an integer (not i1) element type for x1, got f32}}
  graph.net_output
}

// -----

// Tests a float predicate on integers.

graph.graph @g(%a: tensor<3xi32>) {
  %y = graph.is_nan %a : (tensor<3xi32>) -> tensor<3xi1>
  // expected-error @above {{'graph.is_nan' op %y: requires a floating-point element type for x, got i32}}
  graph.net_output
}

// -----

// Tests a predicate whose result is not i1.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.is_inf %a : (tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.is_inf' op %y: requires an i1 element type for the result, got f32}}
  graph.net_output
}

// -----

// Tests a predicate result of another shape than x.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.is_pos_inf %a : (tensor<3xf32>) -> tensor<4xi1>
  // expected-error @above {{'graph.is_pos_inf' op %y: result shape [4] differs from the shape of x [3]}}
  graph.net_output
}

// -----

// Tests SelectV2 with a non-i1 condition.

graph.graph @g(%c: tensor<3xi32>, %a: tensor<3xf32>) {
  %y = graph.select_v2 %c, %a, %a : (tensor<3xi32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.select_v2' op %y: requires an i1 element type for condition, got i32}}
  graph.net_output
}

// -----

// Tests SelectV2 branches of two element types.

graph.graph @g(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf16>) {
  %y = graph.select_v2 %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  // expected-error @above {{'graph.select_v2' op %y: requires one element type for x1, x2 and result, got f32, f16, f32}}
  graph.net_output
}

// -----

// Tests SelectV2 operands whose shapes do not broadcast.

graph.graph @g(%c: tensor<2xi1>, %a: tensor<3xf32>) {
  %y = graph.select_v2 %c, %a, %a : (tensor<2xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.select_v2' op %y: condition, x1 and x2 shapes [2], [3], [3] do not broadcast}}
  graph.net_output
}

// -----

// Tests a SelectV2 result whose shape is not the broadcast shape.

graph.graph @g(%c: tensor<2x1xi1>, %a: tensor<3xf32>) {
  %y = graph.select_v2 %c, %a, %a : (tensor<2x1xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.select_v2' op %y: result shape [3] differs from the broadcast shape [2, 3]}}
  graph.net_output
}

// -----

// Tests a Cast whose result element type is not dst_type.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.cast %a dst_type f16 : (tensor<3xf32>) -> tensor<3xi32>
  // expected-error @above {{'graph.cast' op %y: result element type i32 differs from dst_type f16}}
  graph.net_output
}

// -----

// Tests a Cast result of another shape than x.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.cast %a dst_type f16 : (tensor<3xf32>) -> tensor<4xf16>
  // expected-error @above {{'graph.cast' op %y: result shape [4] differs from the shape of x [3]}}
  graph.net_output
}
