// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests the string ops: GE StringNormalizer (stop-word list, flags), StaticRegexFullMatch
// (a pattern with escapes), StringJoin (broadcast inputs, a separator), ONNX's padded
// StringSplit (a delimiter and maxsplit, the whitespace default, an empty input whose
// padded dim is 0) and LabelEncoder (repeated string keys to i64 values and i64 keys to string values).

// CHECK-LABEL: graph.graph @text
// CHECK:         graph.string_normalizer %{{.*}} stopwords ["monday", "\C3\A9t\C3\A9"] is_case_sensitive true case_change_action "UPPER" : (tensor<4x!graph.string>) -> tensor<?x!graph.string>
// CHECK:         graph.string_normalizer %{{.*}} : (tensor<1x3x!graph.string>) -> tensor<1x?x!graph.string>
// CHECK:         graph.static_regex_full_match %{{.*}} pattern "www\\.[\\w.-]+\\.com" : (tensor<4x!graph.string>) -> tensor<4xi1>
// CHECK:         graph.string_join %{{.*}}, %{{.*}} separator ", " : (tensor<4x!graph.string>, tensor<1x!graph.string>) -> tensor<4x!graph.string>
// CHECK:         graph.label_encoder %{{.*}} keys #graph.strings<["a", "a"] : tensor<2x!graph.string>> values dense<[1, 2]> : tensor<2xi64> default dense<-1> : tensor<i64> : (tensor<4x!graph.string>) -> tensor<4xi64>
// CHECK:         graph.label_encoder %{{.*}} keys dense<[1, 2]> : tensor<2xi64> values #graph.strings<["one", "two"] : tensor<2x!graph.string>> default #graph.strings<["_Unused"] : tensor<!graph.string>> : (tensor<4xi64>) -> tensor<4x!graph.string>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "text"
// GENERIC:         "graph.string_normalizer"(%{{.*}}) <{stopwords = ["monday", "\C3\A9t\C3\A9"], is_case_sensitive = true, case_change_action = "UPPER", locale = "C"}>
graph.graph @text(%x: tensor<4x!graph.string>, %r: tensor<1x3x!graph.string>, %s: tensor<1x!graph.string>, %i: tensor<4xi64>) -> (tensor<?x!graph.string>, tensor<1x?x!graph.string>, tensor<4xi1>, tensor<4x!graph.string>, tensor<4xi64>, tensor<4x!graph.string>) {
  %n = graph.string_normalizer %x stopwords ["monday", "été"] is_case_sensitive true case_change_action "UPPER" : (tensor<4x!graph.string>) -> tensor<?x!graph.string>
  %m = graph.string_normalizer %r : (tensor<1x3x!graph.string>) -> tensor<1x?x!graph.string>
  %b = graph.static_regex_full_match %x pattern "www\5C.[\5Cw.-]+\5C.com" : (tensor<4x!graph.string>) -> tensor<4xi1>
  %j = graph.string_join %x, %s separator ", " : (tensor<4x!graph.string>, tensor<1x!graph.string>) -> tensor<4x!graph.string>
  %l = graph.label_encoder %x keys #graph.strings<["a", "a"] : tensor<2x!graph.string>> values dense<[1, 2]> : tensor<2xi64> default dense<-1> : tensor<i64> : (tensor<4x!graph.string>) -> tensor<4xi64>
  %k = graph.label_encoder %i keys dense<[1, 2]> : tensor<2xi64> values #graph.strings<["one", "two"] : tensor<2x!graph.string>> default #graph.strings<["_Unused"] : tensor<!graph.string>> : (tensor<4xi64>) -> tensor<4x!graph.string>
  graph.net_output %n, %m, %b, %j, %l, %k : tensor<?x!graph.string>, tensor<1x?x!graph.string>, tensor<4xi1>, tensor<4x!graph.string>, tensor<4xi64>, tensor<4x!graph.string>
}

// CHECK-LABEL: graph.graph @split
// CHECK:         graph.string_split_padded %{{.*}} delimiter ", " maxsplit 2 : (tensor<2x3x!graph.string>) -> (tensor<2x3x?x!graph.string>, tensor<2x3xi64>)
// CHECK:         graph.string_split_padded %{{.*}} : (tensor<2x3x!graph.string>) -> (tensor<2x3x?x!graph.string>, tensor<2x3xi64>)
// CHECK:         graph.string_split_padded %{{.*}} : (tensor<0x!graph.string>) -> (tensor<0x0x!graph.string>, tensor<0xi64>)
// GENERIC-LABEL: "graph.graph"() <{sym_name = "split"
// GENERIC:         "graph.string_split_padded"(%{{.*}}) <{delimiter = ", ", maxsplit = 2 : i64}> : (tensor<2x3x!graph.string>) -> (tensor<2x3x?x!graph.string>, tensor<2x3xi64>)
// GENERIC:         "graph.string_split_padded"(%{{.*}}) <{delimiter = ""}>
graph.graph @split(%x: tensor<2x3x!graph.string>, %e: tensor<0x!graph.string>) -> (tensor<2x3x?x!graph.string>, tensor<2x3xi64>, tensor<2x3x?x!graph.string>, tensor<0x0x!graph.string>) {
  %y, %n = graph.string_split_padded %x delimiter ", " maxsplit 2 : (tensor<2x3x!graph.string>) -> (tensor<2x3x?x!graph.string>, tensor<2x3xi64>)
  %w, %m = graph.string_split_padded %x : (tensor<2x3x!graph.string>) -> (tensor<2x3x?x!graph.string>, tensor<2x3xi64>)
  %v, %k = graph.string_split_padded %e : (tensor<0x!graph.string>) -> (tensor<0x0x!graph.string>, tensor<0xi64>)
  graph.net_output %y, %n, %w, %v : tensor<2x3x?x!graph.string>, tensor<2x3xi64>, tensor<2x3x?x!graph.string>, tensor<0x0x!graph.string>
}
