// RUN: ge-opt %s --split-input-file --disable-verify --verify-diagnostics -p ge-verify-model | filecheck %s
// RUN: not ge-opt %s --disable-verify -p ge-verify-model 2>&1 | filecheck %s --check-prefix=EXIT

// ge-opt runs the same check when it loads a model, so these plans are loaded with
// --disable-verify (as a pipeline that built them would hand them over), and the pass is what
// refuses them.

// Tests that a plan whose tensor "t" overwrites the upper half of "s" while "sum" still reads
// "s" is refused, naming both tensors and the bytes.
// EXIT: error: ge-verify-model: 'ascend.model' @clobbered: arena[1040]
// CHECK-LABEL: ge-verify-model: 'ascend.model' @clobbered: arena[1040] : tensor<4xf32> (written by 'ascend.kernel' "t") overwrites bytes [1040, 1056) of arena[1024] : tensor<8xf32> (written by 'ascend.kernel' "s") while that tensor may still be read
ascend.model @clobbered arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<8xf32>
  ascend.input "z" arena[128] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<8xf32>
  ascend.kernel "Relu" "s" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.kernel "Neg" "t" engine "AIcoreEngine" stream 0 ins(arena[128] : tensor<4xf32>) outs(arena[1040] : tensor<4xf32>)
  ascend.kernel "Add" "sum" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<8xf32>, arena[0] : tensor<8xf32>) outs(arena[512] : tensor<8xf32>)
}

// -----

// Tests that two tensors on different streams with no event between them may be live at once:
// sharing bytes is refused even though program order alone would allow it.
// CHECK-LABEL: ge-verify-model: 'ascend.model' @unordered_streams: arena[1024] : tensor<8xf32> (written by 'ascend.kernel' "t") overwrites bytes [1024, 1056) of {{.*}} while that tensor may still be read
ascend.model @unordered_streams arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<8xf32>
  ascend.output "y" arena[512] : tensor<8xf32>
  ascend.output "w" arena[768] : tensor<8xf32>
  ascend.kernel "Relu" "s" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.kernel "Neg" "u" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<8xf32>) outs(arena[512] : tensor<8xf32>)
  ascend.kernel "Abs" "t" engine "AIcoreEngine" stream 1 ins(arena[0] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.kernel "Exp" "v" engine "AIcoreEngine" stream 1 ins(arena[1024] : tensor<8xf32>) outs(arena[768] : tensor<8xf32>)
}

// -----

// Tests that a read of bytes another stream writes, with no event ordering the write first, is
// refused: whether "u" reads "s"'s value or the bytes before it depends on the schedule
// (make fuzz's unordered cross-stream read).
// CHECK-LABEL: ge-verify-model: 'ascend.model' @read_races_write: 'ascend.kernel' "u" reads arena[1024] : tensor<8xf32> (bytes [1024, 1056)) written by 'ascend.kernel' "s" on stream 1, but no event orders the write before the read: which value it reads depends on the schedule
ascend.model @read_races_write arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<8xf32>
  ascend.output "y" arena[512] : tensor<8xf32>
  ascend.kernel "Relu" "s" engine "AIcoreEngine" stream 1 ins(arena[0] : tensor<8xf32>) outs(arena[1024] : tensor<8xf32>)
  ascend.kernel "Neg" "u" engine "AIcoreEngine" stream 0 ins(arena[1024] : tensor<8xf32>) outs(arena[512] : tensor<8xf32>)
}

// -----

// Tests that a branch reading bytes only the other branch writes is refused as uninitialised:
// only one branch runs, so "e1" never sees what "t1" wrote (in program order, before the path
// state of each branch, this read passed).
// CHECK-LABEL: ge-verify-model: 'ascend.model' @other_branch_wrote_it: 'ascend.kernel' "e1" reads arena[2048] : tensor<4xf32> (bytes [2048, 2064)), but no earlier task writes bytes [2048, 2064) (uninitialised memory)
ascend.model @other_branch_wrote_it arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "p" arena[256] : tensor<i32>
  ascend.input "x" arena[512] : tensor<4xf32>
  ascend.output "y" arena[768] : tensor<4xf32>
  ascend.label_switch_by_index arena[256] : tensor<i32> labels [1, 0] stream 0
  ascend.label_set 0 stream 0
  ascend.kernel "Neg" "t1" engine "AIcoreEngine" stream 0 ins(arena[512] : tensor<4xf32>) outs(arena[2048] : tensor<4xf32>)
  ascend.memcpy_async stream 0 arena[2048] : tensor<4xf32> to arena[768] : tensor<4xf32>
  ascend.label_goto 2 stream 0
  ascend.label_set 1 stream 0
  ascend.kernel "Abs" "e1" engine "AIcoreEngine" stream 0 ins(arena[2048] : tensor<4xf32>) outs(arena[768] : tensor<4xf32>)
  ascend.label_set 2 stream 0
  ascend.end_graph stream 0
}
