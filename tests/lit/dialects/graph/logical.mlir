// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests the comparisons (i1 results, broadcasting, unranked, i1 operands of Equal) and the logical ops.

// CHECK-LABEL: graph.graph @compare
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<2x1xi64>, %[[J:.*]]: tensor<*xi64>, %[[P:.*]]: tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[EQ:.*]] = graph.equal %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[BEQ:.*]] = graph.equal %[[EQ]], %[[P]] : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[LT:.*]] = graph.less %[[A]], %[[B]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[LE:.*]] = graph.less_equal %[[I]], %[[J]] : (tensor<2x1xi64>, tensor<*xi64>) -> tensor<*xi1>
// CHECK-NEXT:    %[[GT:.*]] = graph.greater %[[A]], %[[A]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[GE:.*]] = graph.greater_equal %[[I]], %[[I]] : (tensor<2x1xi64>, tensor<2x1xi64>) -> tensor<2x1xi1>
// CHECK-NEXT:    %[[NOT:.*]] = graph.logical_not %[[BEQ]] : (tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[AND:.*]] = graph.logical_and %[[NOT]], %[[LT]] : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[OR:.*]] = graph.logical_or %[[AND]], %[[GE]] : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[XOR:.*]] = graph.xor %[[OR]], %[[GT]] : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    graph.net_output %[[XOR]] : tensor<2x3xi1>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "compare"
// GENERIC:       %{{.*}} = "graph.equal"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// GENERIC:       %{{.*}} = "graph.equal"(%{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// GENERIC:       %{{.*}} = "graph.less"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// GENERIC:       %{{.*}} = "graph.less_equal"(%{{.*}}, %{{.*}}) : (tensor<2x1xi64>, tensor<*xi64>) -> tensor<*xi1>
// GENERIC:       %{{.*}} = "graph.greater"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// GENERIC:       %{{.*}} = "graph.greater_equal"(%{{.*}}, %{{.*}}) : (tensor<2x1xi64>, tensor<2x1xi64>) -> tensor<2x1xi1>
// GENERIC:       %{{.*}} = "graph.logical_not"(%{{.*}}) : (tensor<2x3xi1>) -> tensor<2x3xi1>
// GENERIC:       %{{.*}} = "graph.logical_and"(%{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// GENERIC:       %{{.*}} = "graph.logical_or"(%{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
// GENERIC:       %{{.*}} = "graph.xor"(%{{.*}}, %{{.*}}) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// GENERIC:       "graph.net_output"(%{{.*}}) : (tensor<2x3xi1>) -> ()

graph.graph @compare(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2x1xi64>, %j: tensor<*xi64>, %p: tensor<2x3xi1>) -> tensor<2x3xi1> {
  %eq = graph.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %beq = graph.equal %eq, %p : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %lt = graph.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %le = graph.less_equal %i, %j : (tensor<2x1xi64>, tensor<*xi64>) -> tensor<*xi1>
  %gt = graph.greater %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %ge = graph.greater_equal %i, %i : (tensor<2x1xi64>, tensor<2x1xi64>) -> tensor<2x1xi1>
  %not = graph.logical_not %beq : (tensor<2x3xi1>) -> tensor<2x3xi1>
  %and = graph.logical_and %not, %lt : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %or = graph.logical_or %and, %ge : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
  %xor = graph.xor %or, %gt : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  graph.net_output %xor : tensor<2x3xi1>
}

// -----

// Tests the bitwise ops and shifts on unsigned and signed integers.

// CHECK-LABEL: graph.graph @bitwise
// CHECK-SAME:    (%[[U:.*]]: tensor<4xui8>, %[[V:.*]]: tensor<1xui8>, %[[I:.*]]: tensor<4xi32>) -> tensor<4xui8>
// CHECK-NEXT:    %[[AND:.*]] = graph.bitwise_and %[[U]], %[[V]] : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
// CHECK-NEXT:    %[[OR:.*]] = graph.bitwise_or %[[AND]], %[[U]] : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
// CHECK-NEXT:    %[[XOR:.*]] = graph.bitwise_xor %[[I]], %[[I]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[INV:.*]] = graph.invert %[[OR]] : (tensor<4xui8>) -> tensor<4xui8>
// CHECK-NEXT:    %[[SHL:.*]] = graph.left_shift %[[INV]], %[[V]] : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
// CHECK-NEXT:    %[[SHR:.*]] = graph.right_shift %[[SHL]], %[[V]] : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
// CHECK-NEXT:    graph.net_output %[[SHR]] : tensor<4xui8>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "bitwise"
// GENERIC:       %{{.*}} = "graph.bitwise_and"(%{{.*}}, %{{.*}}) : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
// GENERIC:       %{{.*}} = "graph.bitwise_or"(%{{.*}}, %{{.*}}) : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
// GENERIC:       %{{.*}} = "graph.bitwise_xor"(%{{.*}}, %{{.*}}) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// GENERIC:       %{{.*}} = "graph.invert"(%{{.*}}) : (tensor<4xui8>) -> tensor<4xui8>
// GENERIC:       %{{.*}} = "graph.left_shift"(%{{.*}}, %{{.*}}) : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
// GENERIC:       %{{.*}} = "graph.right_shift"(%{{.*}}, %{{.*}}) : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
// GENERIC:       "graph.net_output"(%{{.*}}) : (tensor<4xui8>) -> ()

graph.graph @bitwise(%u: tensor<4xui8>, %v: tensor<1xui8>, %i: tensor<4xi32>) -> tensor<4xui8> {
  %and = graph.bitwise_and %u, %v : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
  %or = graph.bitwise_or %and, %u : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %xor = graph.bitwise_xor %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %inv = graph.invert %or : (tensor<4xui8>) -> tensor<4xui8>
  %shl = graph.left_shift %inv, %v : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
  %shr = graph.right_shift %shl, %v : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
  graph.net_output %shr : tensor<4xui8>
}

// -----

// Tests the float predicates, SelectV2 with a scalar branch, and Cast to f32, i1 and ui8.

// CHECK-LABEL: graph.graph @predicates
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf16>) -> (tensor<?x4xi1>, tensor<?x4xf32>)
// CHECK-NEXT:    %[[NAN:.*]] = graph.is_nan %[[X]] : (tensor<?x4xf16>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[INF:.*]] = graph.is_inf %[[X]] : (tensor<?x4xf16>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[POS:.*]] = graph.is_pos_inf %[[X]] : (tensor<?x4xf16>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[NEG:.*]] = graph.is_neg_inf %[[X]] : (tensor<?x4xf16>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[ZERO:.*]] = graph.const dense<0.000000e+00> : tensor<f16>
// CHECK-NEXT:    %[[SEL:.*]] = graph.select_v2 %[[NAN]], %[[ZERO]], %[[X]] : (tensor<?x4xi1>, tensor<f16>, tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT:    %[[F32:.*]] = graph.cast %[[SEL]] dst_type f32 : (tensor<?x4xf16>) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[BOOL:.*]] = graph.cast %[[F32]] dst_type i1 : (tensor<?x4xf32>) -> tensor<?x4xi1>
// CHECK-NEXT:    %[[U8:.*]] = graph.cast %[[BOOL]] dst_type ui8 : (tensor<?x4xi1>) -> tensor<?x4xui8>
// CHECK-NEXT:    graph.net_output %[[INF]], %[[F32]] : tensor<?x4xi1>, tensor<?x4xf32>
// CHECK-NEXT:  }

// GENERIC-LABEL: "graph.graph"() <{sym_name = "predicates"
// GENERIC:       %{{.*}} = "graph.is_nan"(%{{.*}}) : (tensor<?x4xf16>) -> tensor<?x4xi1>
// GENERIC:       %{{.*}} = "graph.is_inf"(%{{.*}}) : (tensor<?x4xf16>) -> tensor<?x4xi1>
// GENERIC:       %{{.*}} = "graph.is_pos_inf"(%{{.*}}) : (tensor<?x4xf16>) -> tensor<?x4xi1>
// GENERIC:       %{{.*}} = "graph.is_neg_inf"(%{{.*}}) : (tensor<?x4xf16>) -> tensor<?x4xi1>
// GENERIC:       %{{.*}} = "graph.const"() <{value = dense<0.000000e+00> : tensor<f16>}> : () -> tensor<f16>
// GENERIC:       %{{.*}} = "graph.select_v2"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x4xi1>, tensor<f16>, tensor<?x4xf16>) -> tensor<?x4xf16>
// GENERIC:       %{{.*}} = "graph.cast"(%{{.*}}) <{dst_type = f32}> : (tensor<?x4xf16>) -> tensor<?x4xf32>
// GENERIC:       %{{.*}} = "graph.cast"(%{{.*}}) <{dst_type = i1}> : (tensor<?x4xf32>) -> tensor<?x4xi1>
// GENERIC:       %{{.*}} = "graph.cast"(%{{.*}}) <{dst_type = ui8}> : (tensor<?x4xi1>) -> tensor<?x4xui8>
// GENERIC:       "graph.net_output"(%{{.*}}, %{{.*}}) : (tensor<?x4xi1>, tensor<?x4xf32>) -> ()

graph.graph @predicates(%x: tensor<?x4xf16>) -> (tensor<?x4xi1>, tensor<?x4xf32>) {
  %nan = graph.is_nan %x : (tensor<?x4xf16>) -> tensor<?x4xi1>
  %inf = graph.is_inf %x : (tensor<?x4xf16>) -> tensor<?x4xi1>
  %pos = graph.is_pos_inf %x : (tensor<?x4xf16>) -> tensor<?x4xi1>
  %neg = graph.is_neg_inf %x : (tensor<?x4xf16>) -> tensor<?x4xi1>
  %zero = graph.const dense<0.000000e+00> : tensor<f16>
  %sel = graph.select_v2 %nan, %zero, %x : (tensor<?x4xi1>, tensor<f16>, tensor<?x4xf16>) -> tensor<?x4xf16>
  %f32 = graph.cast %sel dst_type f32 : (tensor<?x4xf16>) -> tensor<?x4xf32>
  %bool = graph.cast %f32 dst_type i1 : (tensor<?x4xf32>) -> tensor<?x4xi1>
  %u8 = graph.cast %bool dst_type ui8 : (tensor<?x4xi1>) -> tensor<?x4xui8>
  graph.net_output %inf, %f32 : tensor<?x4xi1>, tensor<?x4xf32>
}
