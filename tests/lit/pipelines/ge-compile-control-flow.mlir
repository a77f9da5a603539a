// Control flow through ge-compile: If, While and For lowered by GE's label makers (For as
// ForPass's While), run at the ascend level with the same numbers as the graph level, under
// random stream schedules and with the uninitialised-memory check, and once more sunk
// (ge-sink-loop around a model that has loops of its own). The While and For bodies run part of
// their work on a stream they start after their label (GE's EnterStreamActive), joined before
// the goto back.
// x = [1, -2], i = 0: relu(x) = [1, 0], doubled three times = [8, 0], then For adds 0+1+2 = 3.
// c = 0 takes else: neg(x) = [-1, 2] -> [-8, 16] -> [-5, 19].

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.array([1, -2], np.float32)); np.save('%t/i.npy', np.array(0, np.int32)); np.save('%t/t.npy', np.array(True)); np.save('%t/f.npy', np.array(False))"
// RUN: ge-opt %s -p ge-compile -o %t/compiled.mlir
// RUN: filecheck %s --input-file %t/compiled.mlir
// RUN: ge-run %s --entry main --input i=%t/i.npy --input x=%t/x.npy --input c=%t/t.npy | filecheck %s --check-prefix=THEN
// RUN: ge-run %t/compiled.mlir --entry main --input i=%t/i.npy --input x=%t/x.npy --input c=%t/t.npy | filecheck %s --check-prefix=THEN
// RUN: ge-run %t/compiled.mlir --entry main --input i=%t/i.npy --input x=%t/x.npy --input c=%t/t.npy --check-uninitialized --schedule-seed 3 | filecheck %s --check-prefix=THEN
// RUN: ge-run %s --entry main --input i=%t/i.npy --input x=%t/x.npy --input c=%t/f.npy | filecheck %s --check-prefix=ELSE
// RUN: ge-run %t/compiled.mlir --entry main --input i=%t/i.npy --input x=%t/x.npy --input c=%t/f.npy --check-uninitialized --schedule-seed 11 | filecheck %s --check-prefix=ELSE
// RUN: ge-opt %s -p 'ge-compile{iterations-per-loop=3}' -o %t/sunk.mlir
// RUN: ge-run %t/sunk.mlir --entry main --input i=%t/i.npy --input x=%t/x.npy --input c=%t/f.npy --check-uninitialized --schedule-seed 5 | filecheck %s --check-prefix=ELSE

// THEN: n: int32[] {{.*}} [3]
// THEN: w: float32[2] {{.*}} [11.,  3.]
// ELSE: n: int32[] {{.*}} [3]
// ELSE: w: float32[2] {{.*}} [-5., 19.]

// CHECK-LABEL: ascend.model @main {{.*}}label_num = 9
// CHECK:         ascend.label_switch_by_index {{.*}} labels [1, 0]
// CHECK:         ascend.label_switch_by_index {{.*}} labels [5, 4]
// CHECK-NEXT:    ascend.label_set 4 stream 0
// CHECK-NEXT:    ascend.stream_active 1 stream 0
// CHECK:         ascend.label_goto 3
// CHECK:         ascend.label_switch_by_index {{.*}} labels [8, 7]
// CHECK-NEXT:    ascend.label_set 7 stream 0
// CHECK-NEXT:    ascend.stream_active 2 stream 0
// CHECK:         ascend.label_goto 6
// CHECK-NOT:     ascend.model

graph.graph @cond(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %x: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = graph.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %j, %y : tensor<i32>, tensor<2xf32>
}
graph.graph @then(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @else(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.neg %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @fbody(%v: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %f = graph.cast %v dst_type f32 : (tensor<i32>) -> tensor<f32>
  %y = graph.add %x, %f : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @main(%i: tensor<i32>, %x: tensor<2xf32>, %c: tensor<i1>) -> (tensor<i32> {node_name = "n"}, tensor<2xf32> {node_name = "w"}) {
  %a = graph.if %c, %x then_branch @then else_branch @else : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  %r, %y = graph.while %i, %a cond @cond body @body : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  %s = graph.const dense<0> : tensor<i32>
  %l = graph.const dense<3> : tensor<i32>
  %d = graph.const dense<1> : tensor<i32>
  %f = graph.for %s, %l, %d, %y body @fbody : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r, %f : tensor<i32>, tensor<2xf32>
}
