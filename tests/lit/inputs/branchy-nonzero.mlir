// Two branches after a data-dependent op (tests/test_dynamic_tasks.py): the unknown partition
// spans two engines, so stream assignment puts dynamic tasks on several streams.

graph.graph @branchy(%x: tensor<8x4xf32> {node_name = "x"}) -> (tensor<?xf32> {node_name = "a"}, tensor<?xf32> {node_name = "b"}, tensor<f32> {node_name = "s"}) {
  %z = graph.const dense<0.0> : tensor<f32> {node_name = "zero"}
  %g = graph.greater %x, %z {node_name = "gt"} : (tensor<8x4xf32>, tensor<f32>) -> tensor<8x4xi1>
  %nz = graph.non_zero %g {node_name = "nz"} : (tensor<8x4xi1>) -> tensor<2x?xi64>
  %t = graph.transpose %nz perm [1, 0] {node_name = "tr"} : (tensor<2x?xi64>) -> tensor<?x2xi64>
  %v = graph.gather_nd %x, %t {node_name = "pick"} : (tensor<8x4xf32>, tensor<?x2xi64>) -> tensor<?xf32>
  %a = graph.exp %v {node_name = "exp", _specified_engine_name = "DNN_VM_AICPU"} : (tensor<?xf32>) -> tensor<?xf32>
  %b = graph.sqrt %v {node_name = "sqrt"} : (tensor<?xf32>) -> tensor<?xf32>
  %s = graph.reduce_sum %a {node_name = "sum"} : (tensor<?xf32>) -> tensor<f32>
  graph.net_output %a, %b, %s : tensor<?xf32>, tensor<?xf32>, tensor<f32>
}
