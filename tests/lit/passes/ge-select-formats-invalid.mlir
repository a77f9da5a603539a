// RUN: not ge-opt %s -p 'ge-select-formats{precision-mode=fp8}' 2>&1 | filecheck %s --check-prefix=MODE
// RUN: not ge-opt %s -p ge-select-formats 2>&1 | filecheck %s --check-prefix=STORAGE

// Tests bad input to ge-select-formats: an unknown precision mode, and a `storage_format`
// that is no user storage format of its input (NHWC of a rank-2 tensor); one line each.
// MODE: ge-select-formats: unknown precision-mode 'fp8' (one of allow_fp32_to_fp16, force_fp16)
// MODE-NOT: error
// STORAGE: @bad_storage input 0: storage_format "NHWC" of tensor<4x8xf32>: a user storage format is NHWC or NCHW of a rank-4 tensor in the other one
// STORAGE-NOT: error
graph.graph @bad_storage(%x: tensor<4x8xf32> {storage_format = "NHWC"}) -> tensor<4x8xf32> {
  graph.net_output %x : tensor<4x8xf32>
}
