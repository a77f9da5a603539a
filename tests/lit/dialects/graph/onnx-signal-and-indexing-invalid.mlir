// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// Tests a DFT along the last axis, which holds the real and imaginary parts.

graph.graph @dft_last_axis(%x: tensor<1x10x2xf32>) {
  %y = graph.dft %x axis 2 : (tensor<1x10x2xf32>) -> tensor<1x10x2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.dft' axis 2 must be a signal axis of x [1, 10, 2] (not the last)

// -----

// Tests a DFT whose result keeps the full spectrum though it is one-sided.

graph.graph @dft_onesided_shape(%x: tensor<1x10x1xf32>) {
  %y = graph.dft %x axis 1 onesided true : (tensor<1x10x1xf32>) -> tensor<1x10x2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.dft' result shape [1, 10, 2] differs from the transform's shape [1, 6, 2]

// -----

// Tests an STFT window whose length is not the frame length.

graph.graph @stft_window(%s: tensor<1x128x1xf32>, %w: tensor<8xf32>) {
  %y = graph.stft %s, %w frame_step 8 frame_length 16 : (tensor<1x128x1xf32>, tensor<8xf32>) -> tensor<1x15x9x2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.stft' window must be [16] (frame_length), got [8]

// -----

// Tests an integer signal.

graph.graph @stft_int(%s: tensor<1x128x1xi32>) {
  %y = graph.stft %s frame_step 8 frame_length 16 : (tensor<1x128x1xi32>) -> tensor<1x15x9x2xi32>
  graph.net_output
}
// CHECK-LABEL: 'graph.stft' signal must be a floating-point tensor, got tensor<1x128x1xi32>
