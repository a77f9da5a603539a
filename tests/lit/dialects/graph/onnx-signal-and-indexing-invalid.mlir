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

// -----

// Tests a static count of distinct values (the data decides it).

graph.graph @unique_static(%x: tensor<6xf32>) {
  %y, %f, %i, %n = graph.unique_with_counts_and_sorting %x : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<4xi64>)
  graph.net_output
}
// CHECK-LABEL: 'graph.unique_with_counts_and_sorting' the number of distinct values depends on the data: its dim must be ?

// -----

// Tests a KV-cache write along the batch axis.

graph.graph @scatter_batch_axis(%c: tensor<2x4xf32>, %u: tensor<2x1xf32>) {
  %y = graph.scatter %c, %u axis 0 : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.scatter' axis 0 must be a non-batch axis of var [2, 4]

// -----

// Tests updates longer than the cache.

graph.graph @scatter_overlong(%c: tensor<2x4xf32>, %u: tensor<2x5xf32>) {
  %y = graph.scatter %c, %u axis 1 : (tensor<2x4xf32>, tensor<2x5xf32>) -> tensor<2x4xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.scatter' updates [2, 5] do not fit var [2, 4]

// -----

// Tests Col2im blocks that do not tile the image.

graph.graph @col2im_blocks(%x: tensor<1x4x8xf32>) {
  %y = graph.col2im %x output_size [5, 5] kernel_size [2, 2] pads [1, 1, 1, 1] stride [2, 2] : (tensor<1x4x8xf32>) -> tensor<1x1x5x5xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.col2im' x has 8 blocks; output_size [5, 5] holds 9

// -----

// Tests a 2-D theta for a 3-D size.

graph.graph @affine_grid_rank(%t: tensor<1x2x3xf32>) {
  %g = graph.affine_grid %t size [1, 1, 2, 3, 4] : (tensor<1x2x3xf32>) -> tensor<1x2x3x4x3xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.affine_grid' theta must be [1, 3, 4] for size [1, 1, 2, 3, 4], got [1, 2, 3]

// -----

// Tests a pool that ngram_counts does not split into bigrams.

graph.graph @tfidf_pool(%x: tensor<6xi32>) {
  %y = graph.tf_idf_vectorizer %x min_gram_length 2 max_gram_length 2 mode "TF" ngram_counts [0, 0] ngram_indexes [0] pool [2, 3, 5] : (tensor<6xi32>) -> tensor<1xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.tf_idf_vectorizer' ngram_counts [0, 0] does not split a pool of 3

// -----

// Tests offsets with one shift per tap instead of two.

graph.graph @deformable_offsets(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>, %o: tensor<1x4x2x2xf32>, %b: tensor<1xf32>) {
  %y = graph.deformable_conv2d %x, %w, %o, %b strides [1, 1] pads [0, 0, 0, 0] : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x4x2x2xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
  graph.net_output
}
// CHECK-LABEL: 'graph.deformable_conv2d' offsets must be [N, 8, 2, 2], got [1, 4, 2, 2]
