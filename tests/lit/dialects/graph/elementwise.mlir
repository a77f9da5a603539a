// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests the binary arithmetic ops: broadcasting, integer and unranked operands, a Pow with a float
// exponent of an integer base, ClipByValue with scalar and per-column bounds.

// CHECK-LABEL: graph.graph @arith
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<2x3xi32>, %[[J:.*]]: tensor<1x3xi32>, %[[E:.*]]: tensor<?x3xf16>, %[[U:.*]]: tensor<*xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
// CHECK-NEXT:    %[[ADD:.*]] = graph.add %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[SUB:.*]] = graph.sub %[[ADD]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[MUL:.*]] = graph.mul %[[SUB]], %[[A]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[DIV:.*]] = graph.div %[[I]], %[[J]] : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[MAX:.*]] = graph.maximum %[[MUL]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[MIN:.*]] = graph.minimum %[[MAX]], %[[U]] : (tensor<2x3xf32>, tensor<*xf32>) -> tensor<*xf32>
// CHECK-NEXT:    %[[MOD:.*]] = graph.mod %[[I]], %[[J]] : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[FMOD:.*]] = graph.floor_mod %[[MOD]], %[[J]] : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[POW:.*]] = graph.pow %[[I]], %[[B]] : (tensor<2x3xi32>, tensor<3xf32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[LO:.*]] = graph.const dense<-1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[HI:.*]] = graph.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[CLIP:.*]] = graph.clip_by_value %[[MAX]], %[[LO]], %[[HI]] : (tensor<2x3xf32>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[DYN:.*]] = graph.add %[[E]], %[[E]] : (tensor<?x3xf16>, tensor<?x3xf16>) -> tensor<?x3xf16>
// CHECK-NEXT:    graph.net_output %[[CLIP]], %[[POW]] : tensor<2x3xf32>, tensor<2x3xi32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "arith"
// GENERIC:       %{{.*}} = "graph.add"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC:       %{{.*}} = "graph.sub"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC:       %{{.*}} = "graph.mul"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC:       %{{.*}} = "graph.div"(%{{.*}}, %{{.*}}) : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
// GENERIC:       %{{.*}} = "graph.maximum"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC:       %{{.*}} = "graph.minimum"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<*xf32>) -> tensor<*xf32>
// GENERIC:       %{{.*}} = "graph.mod"(%{{.*}}, %{{.*}}) : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
// GENERIC:       %{{.*}} = "graph.floor_mod"(%{{.*}}, %{{.*}}) : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
// GENERIC:       %{{.*}} = "graph.pow"(%{{.*}}, %{{.*}}) : (tensor<2x3xi32>, tensor<3xf32>) -> tensor<2x3xi32>
// GENERIC:       %{{.*}} = "graph.const"() <{value = dense<-1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// GENERIC:       %{{.*}} = "graph.const"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>}> : () -> tensor<3xf32>
// GENERIC:       %{{.*}} = "graph.clip_by_value"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC:       %{{.*}} = "graph.add"(%{{.*}}, %{{.*}}) : (tensor<?x3xf16>, tensor<?x3xf16>) -> tensor<?x3xf16>
// GENERIC:       "graph.net_output"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2x3xi32>) -> ()

graph.graph @arith(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2x3xi32>, %j: tensor<1x3xi32>, %e: tensor<?x3xf16>, %u: tensor<*xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %add = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %sub = graph.sub %add, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %mul = graph.mul %sub, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %div = graph.div %i, %j : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  %max = graph.maximum %mul, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %min = graph.minimum %max, %u : (tensor<2x3xf32>, tensor<*xf32>) -> tensor<*xf32>
  %mod = graph.mod %i, %j : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  %fmod = graph.floor_mod %mod, %j : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  %pow = graph.pow %i, %b : (tensor<2x3xi32>, tensor<3xf32>) -> tensor<2x3xi32>
  %lo = graph.const dense<-1.000000e+00> : tensor<f32>
  %hi = graph.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
  %clip = graph.clip_by_value %max, %lo, %hi : (tensor<2x3xf32>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xf32>
  %dyn = graph.add %e, %e : (tensor<?x3xf16>, tensor<?x3xf16>) -> tensor<?x3xf16>
  graph.net_output %clip, %pow : tensor<2x3xf32>, tensor<2x3xi32>
}

// -----

// Tests the unary math ops, Exp/Log with GE's base, scale and shift, Round with decimals.

// CHECK-LABEL: graph.graph @unary
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi64>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ABS:.*]] = graph.abs %[[I]] : (tensor<4xi64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[NEG:.*]] = graph.neg %[[ABS]] : (tensor<4xi64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[SIGN:.*]] = graph.sign %[[NEG]] : (tensor<4xi64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[REC:.*]] = graph.reciprocal %[[X]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SQRT:.*]] = graph.sqrt %[[REC]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[EXP:.*]] = graph.exp %[[SQRT]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[EXP2:.*]] = graph.exp %[[EXP]] base 2.0 scale 0.5 shift -1.0 : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[LOG:.*]] = graph.log %[[EXP2]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[LOG10:.*]] = graph.log %[[LOG]] base 10.0 scale 2.0 shift 1.0 : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ERF:.*]] = graph.erf %[[LOG10]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[CEIL:.*]] = graph.ceil %[[ERF]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[FLOOR:.*]] = graph.floor %[[CEIL]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ROUND:.*]] = graph.round %[[FLOOR]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ROUND2:.*]] = graph.round %[[ROUND]] decimals 2 : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SIN:.*]] = graph.sin %[[ROUND2]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[COS:.*]] = graph.cos %[[SIN]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[TAN:.*]] = graph.tan %[[COS]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ASIN:.*]] = graph.asin %[[TAN]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ACOS:.*]] = graph.acos %[[ASIN]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ATAN:.*]] = graph.atan %[[ACOS]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SINH:.*]] = graph.sinh %[[ATAN]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[COSH:.*]] = graph.cosh %[[SINH]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ASINH:.*]] = graph.asinh %[[COSH]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ACOSH:.*]] = graph.acosh %[[ASINH]] : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[ATANH:.*]] = graph.atanh %[[ACOSH]] {node_name = "last"} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    graph.net_output %[[ATANH]] : tensor<4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "unary"
// GENERIC:       %{{.*}} = "graph.abs"(%{{.*}}) : (tensor<4xi64>) -> tensor<4xi64>
// GENERIC:       %{{.*}} = "graph.neg"(%{{.*}}) : (tensor<4xi64>) -> tensor<4xi64>
// GENERIC:       %{{.*}} = "graph.sign"(%{{.*}}) : (tensor<4xi64>) -> tensor<4xi64>
// GENERIC:       %{{.*}} = "graph.reciprocal"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.sqrt"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.exp"(%{{.*}}) <{base = -1.000000e+00 : f32, scale = 1.000000e+00 : f32, shift = 0.000000e+00 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.exp"(%{{.*}}) <{base = 2.000000e+00 : f32, scale = 5.000000e-01 : f32, shift = -1.000000e+00 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.log"(%{{.*}}) <{base = -1.000000e+00 : f32, scale = 1.000000e+00 : f32, shift = 0.000000e+00 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.log"(%{{.*}}) <{base = 1.000000e+01 : f32, scale = 2.000000e+00 : f32, shift = 1.000000e+00 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.erf"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.ceil"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.floor"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.round"(%{{.*}}) <{decimals = 0 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.round"(%{{.*}}) <{decimals = 2 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.sin"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.cos"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.tan"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.asin"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.acos"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.atan"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.sinh"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.cosh"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.asinh"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.acosh"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{.*}} = "graph.atanh"(%{{.*}}) {node_name = "last"} : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       "graph.net_output"(%{{.*}}) : (tensor<4xf32>) -> ()

graph.graph @unary(%x: tensor<4xf32>, %i: tensor<4xi64>) -> tensor<4xf32> {
  %abs = graph.abs %i : (tensor<4xi64>) -> tensor<4xi64>
  %neg = graph.neg %abs : (tensor<4xi64>) -> tensor<4xi64>
  %sign = graph.sign %neg : (tensor<4xi64>) -> tensor<4xi64>
  %rec = graph.reciprocal %x : (tensor<4xf32>) -> tensor<4xf32>
  %sqrt = graph.sqrt %rec : (tensor<4xf32>) -> tensor<4xf32>
  %exp = graph.exp %sqrt : (tensor<4xf32>) -> tensor<4xf32>
  %exp2 = graph.exp %exp base 2.0 scale 0.5 shift -1.0 : (tensor<4xf32>) -> tensor<4xf32>
  %log = graph.log %exp2 : (tensor<4xf32>) -> tensor<4xf32>
  %log10 = graph.log %log base 10.0 scale 2.0 shift 1.0 : (tensor<4xf32>) -> tensor<4xf32>
  %erf = graph.erf %log10 : (tensor<4xf32>) -> tensor<4xf32>
  %ceil = graph.ceil %erf : (tensor<4xf32>) -> tensor<4xf32>
  %floor = graph.floor %ceil : (tensor<4xf32>) -> tensor<4xf32>
  %round = graph.round %floor : (tensor<4xf32>) -> tensor<4xf32>
  %round2 = graph.round %round decimals 2 : (tensor<4xf32>) -> tensor<4xf32>
  %sin = graph.sin %round2 : (tensor<4xf32>) -> tensor<4xf32>
  %cos = graph.cos %sin : (tensor<4xf32>) -> tensor<4xf32>
  %tan = graph.tan %cos : (tensor<4xf32>) -> tensor<4xf32>
  %asin = graph.asin %tan : (tensor<4xf32>) -> tensor<4xf32>
  %acos = graph.acos %asin : (tensor<4xf32>) -> tensor<4xf32>
  %atan = graph.atan %acos : (tensor<4xf32>) -> tensor<4xf32>
  %sinh = graph.sinh %atan : (tensor<4xf32>) -> tensor<4xf32>
  %cosh = graph.cosh %sinh : (tensor<4xf32>) -> tensor<4xf32>
  %asinh = graph.asinh %cosh : (tensor<4xf32>) -> tensor<4xf32>
  %acosh = graph.acosh %asinh : (tensor<4xf32>) -> tensor<4xf32>
  %atanh = graph.atanh %acosh {node_name = "last"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %atanh : tensor<4xf32>
}
