graph.graph @detection(%b: tensor<1x6x4xf32>, %s: tensor<1x1x6xf32>, %x: tensor<1x3x8x8xf32>, %r: tensor<4x5xf32>) -> tensor<?x3xi64> {
  %m = graph.const dense<3> : tensor<1xi64>
  %iou = graph.const dense<5.000000e-01> : tensor<1xf32>
  %st = graph.const dense<0.000000e+00> : tensor<1xf32>
  %sel = graph.non_max_suppression_v6 %b, %s, %m, %iou, %st center_point_box 1 : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  %y = graph.roialign %x, %r spatial_scale 0x7FC00001 pooled_height 2 pooled_width 2 roi_end_mode 2 pool_mode "max" : (tensor<1x3x8x8xf32>, tensor<4x5xf32>) -> tensor<4x3x2x2xf32>
  graph.net_output %sel : tensor<?x3xi64>
}