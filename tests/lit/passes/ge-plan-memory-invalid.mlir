// RUN: not ge-opt %s --split-input-file -p 'ge-plan-memory' 2>&1 | filecheck %s
// RUN: not ge-opt %s --split-input-file -p 'ge-plan-memory{device-memory=2048}' 2>&1 | filecheck %s --check-prefix=DEVICE
// RUN: not ge-opt %s -p 'ge-plan-memory{strategy="first-fit"}' 2>&1 | filecheck %s --check-prefix=STRATEGY

// Tests that an arena larger than device-memory is an error naming the largest tensors.

ascend.model @big arena_size 8192 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<256xf32>
  ascend.output "y" arena[1024] : tensor<4xf32>
  ascend.kernel "Relu" "wide" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<256xf32>) outs(arena[2048] : tensor<256xf32>)
  ascend.kernel "Exp" "wider" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<256xf32>) outs(arena[4096] : tensor<256xf32>)
  ascend.kernel "Add" "sum" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<256xf32>, arena[4096] : tensor<256xf32>) outs(arena[6144] : tensor<256xf32>)
  ascend.kernel "ReduceSum" "head" engine "AIcoreEngine" stream 0 ins(arena[6144] : tensor<256xf32>) outs(arena[1024] : tensor<4xf32>)
}

// DEVICE: error: ge-plan-memory: @big: needs an arena of 3584 bytes (weights 0, inputs/outputs 1536, features 2048), more than device-memory=2048; largest tensors: arena[1536] : tensor<256xf32> written by 'ascend.kernel' "wide" (1024 B); arena[2560] : tensor<256xf32> written by 'ascend.kernel' "wider" (1024 B)

// -----

// Tests that a model whose feature buffers already overlap (planned with reuse) is refused.

ascend.model @planned arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "a" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
  ascend.kernel "Neg" "b" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>) outs(arena[1024] : tensor<2x2xf32>)
  ascend.kernel "Reshape" "c" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<2x2xf32>) outs(arena[512] : tensor<4xf32>) attrs {shape = array<i64: 4>}
}

// CHECK: error: ge-plan-memory: @planned: is already planned: feature buffers arena[1024] : tensor<4xf32> (written by 'ascend.kernel' "a") and arena[1024] : tensor<2x2xf32> (written by 'ascend.kernel' "b") overlap; ge-plan-memory needs the one-buffer-per-tensor model of ge-convert-graph-to-ascend

// STRATEGY: error: bad pass pipeline: ge-plan-memory{strategy=first-fit}: option 'strategy' takes one of greedy-by-size, ge-lifetime; got 'first-fit'
