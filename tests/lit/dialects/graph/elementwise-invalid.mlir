// RUN: ge-opt %s --split-input-file --verify-expected-diagnostics

// Tests a numeric op on i1 operands.

graph.graph @g(%a: tensor<3xi1>) {
  %y = graph.add %a, %a : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  // expected-error @above {{'graph.add' op %y: requires a numeric (integer or floating-point, not i1) element type for x1, got i1}}
  graph.net_output
}

// -----

// Tests binary operands with different element types.

graph.graph @g(%a: tensor<3xf32>, %b: tensor<3xi32>) {
  %y = graph.sub %a, %b : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  // expected-error @above {{'graph.sub' op %y: requires one element type for operands and result, got f32, i32, f32}}
  graph.net_output
}

// -----

// Tests binary operands whose shapes do not broadcast.

graph.graph @g(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  %y = graph.div %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  // expected-error @above {{'graph.div' op %y: operand shapes [2, 3] and [4] do not broadcast}}
  graph.net_output
}

// -----

// Tests a binary result whose shape is not the broadcast shape.

graph.graph @g(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %y = graph.maximum %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x3xf32>
  // expected-error @above {{'graph.maximum' op %y: result shape [3, 3] differs from the broadcast shape [2, 3]}}
  graph.net_output
}

// -----

// Tests a float-only unary op on integers.

graph.graph @g(%a: tensor<3xi32>) {
  %y = graph.sqrt %a : (tensor<3xi32>) -> tensor<3xi32>
  // expected-error @above {{'graph.sqrt' op %y: requires a floating-point element type for x, got i32}}
  graph.net_output
}

// -----

// Tests a unary result type that differs from the operand type.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.abs %a : (tensor<3xf32>) -> tensor<3xf16>
  // expected-error @above {{'graph.abs' op %y: result type tensor<3xf16> differs from the operand type tensor<3xf32>}}
  graph.net_output
}

// -----

// Tests Exp with a base that is neither positive nor -1.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.exp %a base 0.0 : (tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.exp' op %y: base must be positive or -1 (e), got 0.0}}
  graph.net_output
}

// -----

// Tests Log with a negative base other than -1.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.log %a base -2.0 : (tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.log' op %y: base must be positive or -1 (e), got -2.0}}
  graph.net_output
}

// -----

// Tests Pow of an i1 base.

graph.graph @g(%a: tensor<3xi1>, %b: tensor<3xf32>) {
  %y = graph.pow %a, %b : (tensor<3xi1>, tensor<3xf32>) -> tensor<3xi1>
  // expected-error @above {{'graph.pow' op %y: requires a numeric (integer or floating-point, not i1) element type for x1, got i1}}
  graph.net_output
}

// -----

// Tests Pow with an i1 exponent.

graph.graph @g(%a: tensor<3xf32>, %b: tensor<3xi1>) {
  %y = graph.pow %a, %b : (tensor<3xf32>, tensor<3xi1>) -> tensor<3xf32>
  // expected-error @above {{'graph.pow' op %y: requires a numeric (integer or floating-point, not i1) element type for x2, got i1}}
  graph.net_output
}

// -----

// Tests Pow whose result element type is not the base's.

graph.graph @g(%a: tensor<3xi32>, %b: tensor<3xf32>) {
  %y = graph.pow %a, %b : (tensor<3xi32>, tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.pow' op %y: requires one element type for x1 and the result, got i32, f32}}
  graph.net_output
}

// -----

// Tests Pow operands whose shapes do not broadcast.

graph.graph @g(%a: tensor<3xf32>, %b: tensor<2xf32>) {
  %y = graph.pow %a, %b : (tensor<3xf32>, tensor<2xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.pow' op %y: operand shapes [3] and [2] do not broadcast}}
  graph.net_output
}

// -----

// Tests a Pow result whose shape is not the broadcast shape.

graph.graph @g(%a: tensor<3xf32>, %b: tensor<1xf32>) {
  %y = graph.pow %a, %b : (tensor<3xf32>, tensor<1xf32>) -> tensor<1xf32>
  // expected-error @above {{'graph.pow' op %y: result shape [1] differs from the broadcast shape [3]}}
  graph.net_output
}

// -----

// Tests ClipByValue of i1 values.

graph.graph @g(%a: tensor<3xi1>, %b: tensor<i1>) {
  %y = graph.clip_by_value %a, %b, %b : (tensor<3xi1>, tensor<i1>, tensor<i1>) -> tensor<3xi1>
  // expected-error @above {{'graph.clip_by_value' op %y: requires a numeric (integer or floating-point, not i1) element type for x, got i1}}
  graph.net_output
}

// -----

// Tests ClipByValue bounds of another element type than x.

graph.graph @g(%a: tensor<3xf32>, %b: tensor<f16>) {
  %y = graph.clip_by_value %a, %b, %b : (tensor<3xf32>, tensor<f16>, tensor<f16>) -> tensor<3xf32>
  // expected-error @above {{'graph.clip_by_value' op %y: requires one element type for x, the bounds and the result, got f32, f16, f16, f32}}
  graph.net_output
}

// -----

// Tests a ClipByValue bound that would grow x.

graph.graph @g(%a: tensor<3xf32>, %lo: tensor<f32>, %hi: tensor<2x3xf32>) {
  %y = graph.clip_by_value %a, %lo, %hi : (tensor<3xf32>, tensor<f32>, tensor<2x3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.clip_by_value' op %y: clip_value_max of type tensor<2x3xf32> does not broadcast to x tensor<3xf32>}}
  graph.net_output
}

// -----

// Tests a ClipByValue result of another shape than x.

graph.graph @g(%a: tensor<3xf32>, %b: tensor<f32>) {
  %y = graph.clip_by_value %a, %b, %b : (tensor<3xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  // expected-error @above {{'graph.clip_by_value' op %y: result type tensor<4xf32> differs from the type tensor<3xf32> of x}}
  graph.net_output
}
