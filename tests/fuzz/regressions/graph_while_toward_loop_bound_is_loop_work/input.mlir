graph.graph @cond(%i: tensor<i32> {_parent_node_index = 0 : i64}) -> tensor<i1> {
  %n = graph.const dense<2147483647> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>) -> (tensor<i32> {_parent_node_index = 0 : i64}) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %j : tensor<i32>
}
graph.graph @main(%i: tensor<i32>) -> tensor<i32> {
  %r = graph.while %i cond @cond body @body : (tensor<i32>) -> (tensor<i32>)
  graph.net_output %r : tensor<i32>
}
