// Tests ge-run on string tensors at graph level: random string inputs (numerals), a string
// constant with quotes, backslashes and non-ASCII text, StringJoin, LabelEncoder to i64 and
// Cast to string, printed as numpy unicode arrays.

// RUN: ge-run %s --random-inputs 0 | filecheck %s

// CHECK: y: <U{{[0-9]+}}[3] ['8-"q\\', '6-é', '5-']
// CHECK: n: int64[3] {{.*}} [ 8,  6, -1]
// CHECK: s: <U{{[0-9]+}}[3] ['8', '6', '-1']
graph.graph @strings(%x: tensor<3x!graph.string>) -> (tensor<3x!graph.string> {node_name = "y"}, tensor<3xi64> {node_name = "n"}, tensor<3x!graph.string> {node_name = "s"}) {
  %c = graph.const #graph.strings<["-\22q\5C", "-é", "-"] : tensor<3x!graph.string>>
  %y = graph.string_join %x, %c : (tensor<3x!graph.string>, tensor<3x!graph.string>) -> tensor<3x!graph.string>
  %n = graph.label_encoder %x keys #graph.strings<["6", "8"] : tensor<2x!graph.string>> values dense<[6, 8]> : tensor<2xi64> default dense<-1> : tensor<i64> : (tensor<3x!graph.string>) -> tensor<3xi64>
  %s = graph.cast %n dst_type !graph.string : (tensor<3xi64>) -> tensor<3x!graph.string>
  graph.net_output %y, %n, %s : tensor<3x!graph.string>, tensor<3xi64>, tensor<3x!graph.string>
}
