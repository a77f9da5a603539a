// RUN: ge-opt %s --split-input-file -p 'ge-sink-loop{iterations=4}' | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-sink-loop{iterations=4}' --print-op-generic | ge-opt --split-input-file | filecheck %s
// RUN: rm -rf %t && mkdir -p %t && ge-opt %s --split-input-file -p 'ge-sink-loop{iterations=4}' -o %t/sunk.mlir
// RUN: %python -c "t = open('%t/sunk.mlir').read(); open('%t/two.mlir', 'w').write(t.split('-' * 5)[1])"
// RUN: ge-run %t/two.mlir --random-inputs 0 --check-uninitialized --schedule-seed 1 | filecheck %s --check-prefix=OUT

// OUT: y: float32[4]

// Tests the loop of one stream: constants appended to the weight region (the other buffers
// move up by one 512-byte block), the counter block at the end of the arena, the reset before
// the head label, AssignAdd / Less / Cast and the switch back to the head or to the exit, where
// end_graph moves.

ascend.model @one arena_size 1536 weight_size 512 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<2.0> : tensor<4xf32>
  ascend.input "x" arena[512] : tensor<4xf32>
  ascend.output "y" arena[1024] : tensor<4xf32>
  ascend.kernel "Mul" "mul" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<4xf32>, arena[0] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
  ascend.end_graph stream 0
}

// CHECK-LABEL: ascend.model @one arena_size 2560 weight_size 1024 attributes {iterations_per_loop = 4 : i64} {
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.weight arena[0] = dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT:    ascend.weight arena[512] = dense<0> : tensor<i64>
// CHECK-NEXT:    ascend.weight arena[520] = dense<1> : tensor<i64>
// CHECK-NEXT:    ascend.weight arena[528] = dense<4> : tensor<i64>
// CHECK-NEXT:    ascend.input "x" arena[1024] : tensor<4xf32>
// CHECK-NEXT:    ascend.output "y" arena[1536] : tensor<4xf32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[512] : tensor<i64> to arena[2048] : tensor<i64>
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.kernel "Mul" "mul" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>, arena[0] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
// CHECK-NEXT:    ascend.kernel "AssignAdd" "FlowCtrl_LoopCond_ASSIGNADD" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<i64>, arena[520] : tensor<i64>) outs(arena[2048] : tensor<i64>)
// CHECK-NEXT:    ascend.kernel "Less" "IteratorCtrl_StreamSwitch/Less" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<i64>, arena[528] : tensor<i64>) outs(arena[2056] : tensor<i1>)
// CHECK-NEXT:    ascend.kernel "Cast" "IteratorCtrl_StreamSwitch/Cast" engine "AIcoreEngine" stream 0 ins(arena[2056] : tensor<i1>) outs(arena[2060] : tensor<i32>) attrs {dst_type = i32}
// CHECK-NEXT:    ascend.label_switch_by_index arena[2060] : tensor<i32> labels [1, 0] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-NEXT:  }

// -----

// Tests the barrier of two streams: stream 1 records "done" (event 2) after its last task, the
// control stream waits for it before counting, then records "go" (event 3) that stream 1 waits
// on before its own switch; labels and events get fresh ids after the existing ones.

ascend.model @two arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcpuEngine"
  ascend.event 0
  ascend.event 1
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "a" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[1024] : tensor<4xf32>)
  ascend.event_record 0 stream 0
  ascend.event_wait 0 stream 1
  ascend.kernel "Exp" "b" engine "AIcpuEngine" stream 1 ins(arena[1024] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
  ascend.event_record 1 stream 1
  ascend.event_wait 1 stream 0
  ascend.kernel "Add" "c" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<4xf32>, arena[1536] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}

// CHECK-LABEL: ascend.model @two arena_size 3072 weight_size 512 attributes {iterations_per_loop = 4 : i64} {
// CHECK:         ascend.event 1
// CHECK-NEXT:    ascend.event 2
// CHECK-NEXT:    ascend.event 3
// CHECK-NEXT:    ascend.input "x" arena[512] : tensor<4xf32>
// CHECK-NEXT:    ascend.output "y" arena[1024] : tensor<4xf32>
// CHECK-NEXT:    ascend.weight arena[0] = dense<0> : tensor<i64>
// CHECK-NEXT:    ascend.weight arena[8] = dense<1> : tensor<i64>
// CHECK-NEXT:    ascend.weight arena[16] = dense<4> : tensor<i64>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[0] : tensor<i64> to arena[2560] : tensor<i64>
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 1
// CHECK-NEXT:    ascend.kernel "Relu" "a" {{.*}} ins(arena[512] : tensor<4xf32>) outs(arena[1536] : tensor<4xf32>)
// CHECK:         ascend.kernel "Add" "c" {{.*}} outs(arena[1024] : tensor<4xf32>)
// CHECK-NEXT:    ascend.event_record 2 stream 1
// CHECK-NEXT:    ascend.event_wait 2 stream 0
// CHECK-NEXT:    ascend.kernel "AssignAdd" "FlowCtrl_LoopCond_ASSIGNADD" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.kernel "Less"
// CHECK-NEXT:    ascend.kernel "Cast"
// CHECK-NEXT:    ascend.event_record 3 stream 0
// CHECK-NEXT:    ascend.event_wait 3 stream 1
// CHECK-NEXT:    ascend.label_switch_by_index arena[2572] : tensor<i32> labels [3, 2] stream 1
// CHECK-NEXT:    ascend.label_switch_by_index arena[2572] : tensor<i32> labels [1, 0] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.label_set 3 stream 1
// CHECK-NEXT:  }
