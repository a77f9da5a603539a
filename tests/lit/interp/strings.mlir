// Tests ge-run on string tensors at graph level: random string inputs (numerals), a string
// constant with quotes, backslashes and non-ASCII text, StringJoin, LabelEncoder to i64 and
// Cast to string, printed as numpy unicode arrays; ONNX's padded StringSplit of the joined
// strings on "-" (once at most) and on whitespace, its padded dim decided by the data.

// RUN: ge-run %s --random-inputs 0 | filecheck %s

// CHECK: y: <U{{[0-9]+}}[3] ['8-"q\\', '6-é', '5-']
// CHECK: n: int64[3] {{.*}} [ 8,  6, -1]
// CHECK: s: <U{{[0-9]+}}[3] ['8', '6', '-1']
// CHECK: parts: <U{{[0-9]+}}[3, 2] ['8', '"q\\', '6', 'é', '5', '']
// CHECK: counts: int64[3] {{.*}} [2, 2, 2]
// CHECK: words: <U{{[0-9]+}}[2, 3] ['a', 'b', 'c', '', '', '']
// CHECK: word_counts: int64[2] {{.*}} [3, 0]
graph.graph @strings(%x: tensor<3x!graph.string>) -> (tensor<3x!graph.string> {node_name = "y"}, tensor<3xi64> {node_name = "n"}, tensor<3x!graph.string> {node_name = "s"}, tensor<3x?x!graph.string> {node_name = "parts"}, tensor<3xi64> {node_name = "counts"}, tensor<2x?x!graph.string> {node_name = "words"}, tensor<2xi64> {node_name = "word_counts"}) {
  %c = graph.const #graph.strings<["-\22q\5C", "-é", "-"] : tensor<3x!graph.string>>
  %y = graph.string_join %x, %c : (tensor<3x!graph.string>, tensor<3x!graph.string>) -> tensor<3x!graph.string>
  %n = graph.label_encoder %x keys #graph.strings<["6", "8"] : tensor<2x!graph.string>> values dense<[6, 8]> : tensor<2xi64> default dense<-1> : tensor<i64> : (tensor<3x!graph.string>) -> tensor<3xi64>
  %s = graph.cast %n dst_type !graph.string : (tensor<3xi64>) -> tensor<3x!graph.string>
  %p, %k = graph.string_split_padded %y delimiter "-" maxsplit 1 : (tensor<3x!graph.string>) -> (tensor<3x?x!graph.string>, tensor<3xi64>)
  %t = graph.const #graph.strings<[" a\09b  c ", " \0A "] : tensor<2x!graph.string>>
  %w, %m = graph.string_split_padded %t : (tensor<2x!graph.string>) -> (tensor<2x?x!graph.string>, tensor<2xi64>)
  graph.net_output %y, %n, %s, %p, %k, %w, %m : tensor<3x!graph.string>, tensor<3xi64>, tensor<3x!graph.string>, tensor<3x?x!graph.string>, tensor<3xi64>, tensor<2x?x!graph.string>, tensor<2xi64>
}
