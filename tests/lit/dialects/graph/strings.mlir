// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests !graph.string (GE DT_STRING) and graph.const holding #graph.strings: quotes,
// backslashes, non-ASCII text, empty strings and NULs (also trailing ones) print as escapes
// and read back as the same strings; one literal for several elements is a splat.

// CHECK-LABEL: graph.graph @string_consts
// CHECK:         graph.const #graph.strings<["a\22b\\", "\C3\A9\E2\82\AC", "", "x\00y", "\00", "tab\09nl\0A"] : tensor<2x3x!graph.string>>
// CHECK:         graph.const #graph.strings<["same"] : tensor<4x!graph.string>>
// CHECK:         graph.const #graph.strings<[""] : tensor<!graph.string>>
// CHECK:         graph.const #graph.strings<[] : tensor<0x2x!graph.string>>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "string_consts"
// GENERIC:         "graph.const"() <{value = #graph.strings<["a\22b\\", "\C3\A9\E2\82\AC", "", "x\00y", "\00", "tab\09nl\0A"] : tensor<2x3x!graph.string>>}> : () -> tensor<2x3x!graph.string>
graph.graph @string_consts(%x: tensor<?x!graph.string>) -> (tensor<?x!graph.string>, tensor<2x3x!graph.string>, tensor<4x!graph.string>, tensor<!graph.string>, tensor<0x2x!graph.string>) {
  %a = graph.const #graph.strings<["a\22b\5C", "é€", "", "x\00y", "\00", "tab\09nl\0A"] : tensor<2x3x!graph.string>>
  %b = graph.const #graph.strings<["same"] : tensor<4x!graph.string>>
  %c = graph.const #graph.strings<[""] : tensor<!graph.string>>
  %d = graph.const #graph.strings<[] : tensor<0x2x!graph.string>>
  graph.net_output %x, %a, %b, %c, %d : tensor<?x!graph.string>, tensor<2x3x!graph.string>, tensor<4x!graph.string>, tensor<!graph.string>, tensor<0x2x!graph.string>
}
