// RUN: ge-opt %s -p ge-fuse-gelu --split-input-file | filecheck %s

// Tests PyTorch's export of nn.GELU(): x * (erf(x / sqrt(2)) + 1) * 0.5.
// CHECK-LABEL: graph.graph @erf
// CHECK-SAME:    (%[[X:.*]]: tensor<4x64xf32>)
// CHECK-NEXT:    %[[Y:.*]] = graph.gelu %[[X]] {node_name = "/act/Mul_1"} : (tensor<4x64xf32>) -> tensor<4x64xf32>
// CHECK-NEXT:    graph.net_output %[[Y]]
// CHECK-NOT:     graph.erf
graph.graph @erf(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %c = graph.const dense<1.41421354> : tensor<f32>
  %a = graph.div %x, %c : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %e = graph.erf %a : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %one = graph.const dense<1.0> : tensor<f32>
  %b = graph.add %e, %one : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %m = graph.mul %x, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %half = graph.const dense<0.5> : tensor<f32>
  %y = graph.mul %m, %half {node_name = "/act/Mul_1"} : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  graph.net_output %y : tensor<4x64xf32>
}

// -----

// Tests that swapped operands still fuse: 0.5 * ((1 + erf(x / sqrt(2))) * x).
// CHECK-LABEL: graph.graph @erf_swapped
// CHECK-NEXT:    %[[Y:.*]] = graph.gelu %{{.*}} : (tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    graph.net_output %[[Y]]
graph.graph @erf_swapped(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c = graph.const dense<1.41421354> : tensor<f32>
  %a = graph.div %x, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e = graph.erf %a : (tensor<8xf32>) -> tensor<8xf32>
  %one = graph.const dense<1.0> : tensor<f32>
  %b = graph.add %one, %e : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %m = graph.mul %b, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %half = graph.const dense<0.5> : tensor<f32>
  %y = graph.mul %half, %m : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  graph.net_output %y : tensor<8xf32>
}

// -----

// Tests that another grouping, (0.5 * x) * (1 + erf(x / sqrt(2))), x * (1 / sqrt(2)) and
// a sqrt(2) off by one f32 ulp stay unfused: each computes other numbers than graph.gelu.
// CHECK-LABEL: graph.graph @erf_regrouped
// CHECK-NOT:     graph.gelu
// CHECK-COUNT-3: graph.erf
graph.graph @erf_regrouped(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %half = graph.const dense<0.5> : tensor<f32>
  %one = graph.const dense<1.0> : tensor<f32>
  %c = graph.const dense<1.41421354> : tensor<f32>
  %h = graph.mul %half, %x : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %a = graph.div %x, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e = graph.erf %a : (tensor<8xf32>) -> tensor<8xf32>
  %b = graph.add %one, %e : (tensor<f32>, tensor<8xf32>) -> tensor<8xf32>
  %y = graph.mul %h, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %r = graph.const dense<0.707106769> : tensor<f32>
  %a2 = graph.mul %x, %r : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e2 = graph.erf %a2 : (tensor<8xf32>) -> tensor<8xf32>
  %b2 = graph.add %e2, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %m2 = graph.mul %x, %b2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y2 = graph.mul %m2, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %c3 = graph.const dense<1.41421342> : tensor<f32>
  %a3 = graph.div %x, %c3 : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e3 = graph.erf %a3 : (tensor<8xf32>) -> tensor<8xf32>
  %b3 = graph.add %e3, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %m3 = graph.mul %x, %b3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y3 = graph.mul %m3, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  graph.net_output %y, %y2, %y3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests PyTorch's export of nn.GELU(approximate="tanh") (x * (x * x) for the cube); a Pow(x, 3)
// variant regrouped as (x * 0.5) * (...) computes other numbers and stays unfused.
// CHECK-LABEL: graph.graph @tanh
// CHECK-SAME:    (%[[X:.*]]: tensor<4x64xf32>)
// CHECK:         %[[Y:.*]] = graph.gelu %[[X]] approximate "tanh" : (tensor<4x64xf32>) -> tensor<4x64xf32>
// CHECK-NOT:     graph.gelu
// CHECK:         graph.pow
// CHECK:         graph.tanh
// CHECK:         graph.net_output %[[Y]], %{{.*}}
graph.graph @tanh(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %sq = graph.mul %x, %x : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %cube = graph.mul %x, %sq : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %k = graph.const dense<4.471500e-02> : tensor<f32>
  %kc = graph.mul %k, %cube : (tensor<f32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %s = graph.add %x, %kc : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %beta = graph.const dense<0.797884583> : tensor<f32>
  %in = graph.mul %beta, %s : (tensor<f32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %t = graph.tanh %in : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %one = graph.const dense<1.0> : tensor<f32>
  %b = graph.add %one, %t : (tensor<f32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %m = graph.mul %x, %b : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %half = graph.const dense<0.5> : tensor<f32>
  %y = graph.mul %half, %m : (tensor<f32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %three = graph.const dense<3.0> : tensor<f32>
  %p = graph.pow %x, %three : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %kp = graph.mul %p, %k : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %s2 = graph.add %kp, %x : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %in2 = graph.mul %s2, %beta : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %t2 = graph.tanh %in2 : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %b2 = graph.add %t2, %one : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %h2 = graph.mul %x, %half : (tensor<4x64xf32>, tensor<f32>) -> tensor<4x64xf32>
  %z = graph.mul %h2, %b2 : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  graph.net_output %y, %z : tensor<4x64xf32>, tensor<4x64xf32>
}

// -----

// Tests what blocks the fusion: the erf used elsewhere, a wrong constant (0.6 instead of 0.5), and another x in the erf.
// CHECK-LABEL: graph.graph @blocked
// CHECK-NOT:     graph.gelu
// CHECK-COUNT-3: graph.erf
graph.graph @blocked(%x: tensor<8xf32>, %w: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %c = graph.const dense<1.41421354> : tensor<f32>
  %one = graph.const dense<1.0> : tensor<f32>
  %half = graph.const dense<0.5> : tensor<f32>
  %a = graph.div %x, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e = graph.erf %a : (tensor<8xf32>) -> tensor<8xf32>
  %b = graph.add %e, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %m = graph.mul %x, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y = graph.mul %m, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %six = graph.const dense<0.6> : tensor<f32>
  %a2 = graph.div %x, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e2 = graph.erf %a2 : (tensor<8xf32>) -> tensor<8xf32>
  %b2 = graph.add %e2, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %m2 = graph.mul %x, %b2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y2 = graph.mul %m2, %six : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %a3 = graph.div %w, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %e3 = graph.erf %a3 : (tensor<8xf32>) -> tensor<8xf32>
  %b3 = graph.add %e3, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %m3 = graph.mul %x, %b3 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %y3 = graph.mul %m3, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  graph.net_output %y, %e, %y2, %y3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests that erf of a graph input (a block argument: no op to match as x / sqrt(2)) is left
// alone; it was an internal error ('Block' object has no attribute 'operands').
// CHECK-LABEL: graph.graph @erf_of_input
// CHECK:         graph.erf %{{.*}}
// CHECK-NOT:     graph.gelu
// CHECK:         graph.net_output
graph.graph @erf_of_input(%x: tensor<8xf32>, %z: tensor<8xf32>) -> tensor<8xf32> {
  %e = graph.erf %z : (tensor<8xf32>) -> tensor<8xf32>
  %one = graph.const dense<1.0> : tensor<f32>
  %b = graph.add %e, %one : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %m = graph.mul %x, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %half = graph.const dense<0.5> : tensor<f32>
  %y = graph.mul %m, %half : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  graph.net_output %y : tensor<8xf32>
}
