graph.graph @strings(%x: tensor<4x!graph.string>, %s: tensor<1x!graph.string>) -> (tensor<?x!graph.string>, tensor<4xi1>, tensor<4xi1>, tensor<4xi64>) {
  %n = graph.string_normalizer %x case_change_action "LOWER" : (tensor<4x!graph.string>) -> tensor<?x!graph.string>
  %b = graph.static_regex_full_match %x pattern "a+" : (tensor<4x!graph.string>) -> tensor<4xi1>
  %j = graph.string_join %x, %s : (tensor<4x!graph.string>, tensor<1x!graph.string>) -> tensor<4x!graph.string>
  %e = graph.equal %j, %x : (tensor<4x!graph.string>, tensor<4x!graph.string>) -> tensor<4xi1>
  %l = graph.label_encoder %x keys #graph.strings<["a"] : tensor<1x!graph.string>> values dense<[1]> : tensor<1xi64> default dense<0> : tensor<i64> : (tensor<4x!graph.string>) -> tensor<4xi64>
  graph.net_output %n, %b, %e, %l : tensor<?x!graph.string>, tensor<4xi1>, tensor<4xi1>, tensor<4xi64>
}