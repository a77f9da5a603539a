// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// Tests the ops of the second ONNX coverage round (issue 21): the spectral ops, each
// round-tripped through the custom and the generic form.

// CHECK-LABEL: graph.graph @spectral
// CHECK:         graph.dft %{{.*}} axis 1 onesided true : (tensor<1x10x1xf32>) -> tensor<1x6x2xf32>
// CHECK:         graph.dft %{{.*}} axis 1 inverse true onesided true : (tensor<1x6x2xf32>) -> tensor<1x10x1xf32>
// CHECK:         graph.dft %{{.*}} axis -2 dft_length 16 inverse true : (tensor<1x6x2xf32>) -> tensor<1x16x2xf32>
// CHECK:         graph.stft %{{.*}}, %{{.*}} frame_step 8 frame_length 16 : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
// CHECK:         graph.stft %{{.*}} frame_step 4 frame_length 8 onesided false : (tensor<2x16x2xf32>) -> tensor<2x3x8x2xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "spectral"
// GENERIC:       "graph.dft"(%{{.*}}) <{axis = 1 : i64, {{.*}}onesided = true{{.*}}}>
// GENERIC:       "graph.stft"(%{{.*}}, %{{.*}}) <{{{.*}}frame_length = 16 : i64{{.*}}}>
graph.graph @spectral(%x: tensor<1x10x1xf32>, %s: tensor<1x128x1xf32>, %w: tensor<16xf32>, %c: tensor<2x16x2xf32>) -> tensor<1x6x2xf32> {
  %f = graph.dft %x axis 1 onesided true : (tensor<1x10x1xf32>) -> tensor<1x6x2xf32>
  %r = graph.dft %f axis 1 inverse true onesided true : (tensor<1x6x2xf32>) -> tensor<1x10x1xf32>
  %p = graph.dft %f axis -2 dft_length 16 inverse true : (tensor<1x6x2xf32>) -> tensor<1x16x2xf32>
  %st = graph.stft %s, %w frame_step 8 frame_length 16 : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
  %full = graph.stft %c frame_step 4 frame_length 8 onesided false : (tensor<2x16x2xf32>) -> tensor<2x3x8x2xf32>
  graph.net_output %f : tensor<1x6x2xf32>
}

// -----

// Tests Unique with and without an axis, the KV-cache Scatter in both modes, and Col2im.

// CHECK-LABEL: graph.graph @selection
// CHECK:         graph.unique_with_counts_and_sorting %{{.*}} : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
// CHECK:         graph.unique_with_counts_and_sorting %{{.*}} sorted false axis -1 : (tensor<3x3xf32>) -> (tensor<3x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
// CHECK:         graph.scatter %{{.*}}, %{{.*}}, %{{.*}} axis 2 : (tensor<2x1x4x5xf32>, tensor<2x1x1x5xf32>, tensor<2xi64>) -> tensor<2x1x4x5xf32>
// CHECK:         graph.scatter %{{.*}}, %{{.*}} axis -2 mode "circular" : (tensor<2x1x4x5xf32>, tensor<2x1x1x5xf32>) -> tensor<2x1x4x5xf32>
// CHECK:         graph.col2im %{{.*}} output_size [5, 5] kernel_size [2, 2] pads [1, 1, 1, 1] stride [2, 2] : (tensor<1x4x9xf32>) -> tensor<1x1x5x5xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "selection"
// GENERIC:       "graph.unique_with_counts_and_sorting"(%{{.*}}) <{sorted = true}>
// GENERIC:       "graph.col2im"(%{{.*}}) <{{{.*}}kernel_size = array<i64: 2, 2>{{.*}}}>
graph.graph @selection(%v: tensor<6xf32>, %m: tensor<3x3xf32>, %cache: tensor<2x1x4x5xf32>, %u: tensor<2x1x1x5xf32>, %i: tensor<2xi64>, %cols: tensor<1x4x9xf32>) -> tensor<?xf32> {
  %y, %first, %inv, %n = graph.unique_with_counts_and_sorting %v : (tensor<6xf32>) -> (tensor<?xf32>, tensor<?xi64>, tensor<6xi64>, tensor<?xi64>)
  %ya, %fa, %ia, %na = graph.unique_with_counts_and_sorting %m sorted false axis -1 : (tensor<3x3xf32>) -> (tensor<3x?xf32>, tensor<?xi64>, tensor<3xi64>, tensor<?xi64>)
  %w = graph.scatter %cache, %u, %i axis 2 : (tensor<2x1x4x5xf32>, tensor<2x1x1x5xf32>, tensor<2xi64>) -> tensor<2x1x4x5xf32>
  %c = graph.scatter %cache, %u axis -2 mode "circular" : (tensor<2x1x4x5xf32>, tensor<2x1x1x5xf32>) -> tensor<2x1x4x5xf32>
  %img = graph.col2im %cols output_size [5, 5] kernel_size [2, 2] pads [1, 1, 1, 1] stride [2, 2] : (tensor<1x4x9xf32>) -> tensor<1x1x5x5xf32>
  graph.net_output %y : tensor<?xf32>
}

// -----

// Tests AffineGrid in 2-D and 3-D.

// CHECK-LABEL: graph.graph @affine_grid
// CHECK:         graph.affine_grid %{{.*}} size [2, 1, 4, 5] : (tensor<2x2x3xf32>) -> tensor<2x4x5x2xf32>
// CHECK:         graph.affine_grid %{{.*}} size [1, 3, 2, 3, 4] align_corners true : (tensor<1x3x4xf32>) -> tensor<1x2x3x4x3xf32>
// GENERIC-LABEL: "graph.graph"() <{sym_name = "affine_grid"
// GENERIC:       "graph.affine_grid"(%{{.*}}) <{{{.*}}size = array<i64: 2, 1, 4, 5>{{.*}}}>
graph.graph @affine_grid(%t: tensor<2x2x3xf32>, %t3: tensor<1x3x4xf32>) -> tensor<2x4x5x2xf32> {
  %g = graph.affine_grid %t size [2, 1, 4, 5] : (tensor<2x2x3xf32>) -> tensor<2x4x5x2xf32>
  %g3 = graph.affine_grid %t3 size [1, 3, 2, 3, 4] align_corners true : (tensor<1x3x4xf32>) -> tensor<1x2x3x4x3xf32>
  graph.net_output %g : tensor<2x4x5x2xf32>
}

// -----

// Tests TfIdfVectorizer over rows and over one sequence, with weights.

// CHECK-LABEL: graph.graph @tfidf
// CHECK:         graph.tf_idf_vectorizer %{{.*}} min_gram_length 2 max_gram_length 2 mode "TF" ngram_counts [0, 0] ngram_indexes [0, 1] pool [2, 3, 5, 4] : (tensor<2x6xi32>) -> tensor<2x2xf32>
// CHECK:         graph.tf_idf_vectorizer %{{.*}} min_gram_length 1 max_gram_length 2 max_skip_count 2 mode "TFIDF" ngram_counts [0, 2] ngram_indexes [0, 1, 2] pool [2, 3, 5, 4] weights [0.5, 1.0, 2.0] : (tensor<6xi64>) -> tensor<3xf32>
graph.graph @tfidf(%x: tensor<2x6xi32>, %s: tensor<6xi64>) -> tensor<2x2xf32> {
  %y = graph.tf_idf_vectorizer %x min_gram_length 2 max_gram_length 2 mode "TF" ngram_counts [0, 0] ngram_indexes [0, 1] pool [2, 3, 5, 4] : (tensor<2x6xi32>) -> tensor<2x2xf32>
  %w = graph.tf_idf_vectorizer %s min_gram_length 1 max_gram_length 2 max_skip_count 2 mode "TFIDF" ngram_counts [0, 2] ngram_indexes [0, 1, 2] pool [2, 3, 5, 4] weights [0.5, 1.0, 2.0] : (tensor<6xi64>) -> tensor<3xf32>
  graph.net_output %y : tensor<2x2xf32>
}

// -----

// Tests DeformableConv2D with and without a mask.

// CHECK-LABEL: graph.graph @deformable
// CHECK:         graph.deformable_conv2d %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} strides [1, 1] pads [0, 0, 0, 0] : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x8x2x2xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
// CHECK:         graph.deformable_conv2d %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} strides [2, 2] pads [0, 0, 0, 0] groups 2 deformable_groups 2 : (tensor<1x4x4x4xf32>, tensor<2x2x2x2xf32>, tensor<1x16x2x2xf32>, tensor<2xf32>, tensor<1x8x2x2xf32>) -> tensor<1x2x2x2xf32>
graph.graph @deformable(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>, %o: tensor<1x8x2x2xf32>, %b: tensor<1xf32>, %x4: tensor<1x4x4x4xf32>, %w4: tensor<2x2x2x2xf32>, %o4: tensor<1x16x2x2xf32>, %b4: tensor<2xf32>, %m4: tensor<1x8x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %y = graph.deformable_conv2d %x, %w, %o, %b strides [1, 1] pads [0, 0, 0, 0] : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x8x2x2xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
  %z = graph.deformable_conv2d %x4, %w4, %o4, %b4, %m4 strides [2, 2] pads [0, 0, 0, 0] groups 2 deformable_groups 2 : (tensor<1x4x4x4xf32>, tensor<2x2x2x2xf32>, tensor<1x16x2x2xf32>, tensor<2xf32>, tensor<1x8x2x2xf32>) -> tensor<1x2x2x2xf32>
  graph.net_output %y : tensor<1x1x2x2xf32>
}
