// RUN: ge-opt %s --split-input-file --verify-expected-diagnostics

// Tests Relu of i1 values.

graph.graph @g(%a: tensor<3xi1>) {
  %y = graph.relu %a : (tensor<3xi1>) -> tensor<3xi1>
  // expected-error @above {{'graph.relu' op %y: requires a numeric (integer or floating-point, not i1) element type for x, got i1}}
  graph.net_output
}

// -----

// Tests a float-only activation on integers.

graph.graph @g(%a: tensor<3xi32>) {
  %y = graph.leaky_relu %a negative_slope 0.1 : (tensor<3xi32>) -> tensor<3xi32>
  // expected-error @above {{'graph.leaky_relu' op %y: requires a floating-point element type for x, got i32}}
  graph.net_output
}

// -----

// Tests an activation result of another type than x.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.sigmoid %a : (tensor<3xf32>) -> tensor<4xf32>
  // expected-error @above {{'graph.sigmoid' op %y: result type tensor<4xf32> differs from the operand type tensor<3xf32>}}
  graph.net_output
}

// -----

// Tests CeluV2 with alpha 0 (a division by zero).

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.celu_v2 %a alpha 0.0 : (tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.celu_v2' op %y: alpha must not be 0}}
  graph.net_output
}

// -----

// Tests Gelu with an unknown approximation.

graph.graph @g(%a: tensor<3xf32>) {
  %y = graph.gelu %a approximate "fast" : (tensor<3xf32>) -> tensor<3xf32>
  // expected-error @above {{'graph.gelu' op %y: approximate must be "none" or "tanh", got "fast"}}
  graph.net_output
}

// -----

// Tests PRelu of i1 values.

graph.graph @g(%a: tensor<3xi1>) {
  %y = graph.prelu %a, %a : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  // expected-error @above {{'graph.prelu' op %y: requires a numeric (integer or floating-point, not i1) element type for x, got i1}}
  graph.net_output
}

// -----

// Tests a PRelu weight of another element type than x.

graph.graph @g(%a: tensor<3xf32>, %w: tensor<3xf16>) {
  %y = graph.prelu %a, %w : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  // expected-error @above {{'graph.prelu' op %y: requires one element type for x, weight and result, got f32, f16, f32}}
  graph.net_output
}

// -----

// Tests a PRelu weight that does not broadcast to x (a channel slope of NCHW must be [C, 1, 1]).

graph.graph @g(%a: tensor<1x3x4x4xf32>, %w: tensor<3xf32>) {
  %y = graph.prelu %a, %w : (tensor<1x3x4x4xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
  // expected-error @above {{'graph.prelu' op %y: weight of type tensor<3xf32> does not broadcast to x tensor<1x3x4x4xf32>}}
  graph.net_output
}

// -----

// Tests a PRelu result of another type than x.

graph.graph @g(%a: tensor<3xf32>, %w: tensor<1xf32>) {
  %y = graph.prelu %a, %w : (tensor<3xf32>, tensor<1xf32>) -> tensor<1xf32>
  // expected-error @above {{'graph.prelu' op %y: result type tensor<1xf32> differs from the type tensor<3xf32> of x}}
  graph.net_output
}
