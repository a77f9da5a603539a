// RUN: ge-opt %s --split-input-file -p ge-convert-graph-to-ascend | filecheck %s

// Tests GE's label makers (LabelAllocator::AssignFunctionalLabels): the exact task sequence of
// If, While, For (ForPass's While) and Case, labels numbered by one counter over the model and
// the total in `label_num`, the switch reading the int32 cond in place.

// IfOpLabelMaker: then = 0, else = 1, leave = 2; the switch list is [else, then].

graph.graph @then(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x {node_name = "t"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @else(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.neg %x {node_name = "e"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @if(%c: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.if %c, %x then_branch @then else_branch @else {node_name = "if"} : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @if arena_size {{[0-9]+}} weight_size 0 attributes {label_num = 3 : i64} {
// CHECK:         ascend.input "c" arena[[[C:[0-9]+]]] : tensor<i32>
// CHECK-NEXT:    ascend.input "x" arena[[[X:[0-9]+]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.output "output0" arena[[[R:[0-9]+]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.label_switch_by_index arena[[[C]]] : tensor<i32> labels [1, 0] stream 0
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.kernel "Relu" "t" {{.*}} ins(arena[[[X]]] : tensor<4xf32>) outs(arena[[[T:[0-9]+]]] : tensor<4xf32>)
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[T]]] : tensor<4xf32> to arena[[[R]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.label_goto 2 stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.kernel "Neg" "e" {{.*}} ins(arena[[[X]]] : tensor<4xf32>) outs(arena[[[E:[0-9]+]]] : tensor<4xf32>)
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[E]]] : tensor<4xf32> to arena[[[R]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.label_set 2 stream 0
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-NEXT:  }

// -----

// WhileOpLabelMaker: cond = 0, body = 1, leave = 2. The carried values are copied into their
// own buffers, the cond graph's int32 is the switch index ([leave, body]), the body's outputs
// go back into the carried buffers before the goto to the cond label.

graph.graph @cond(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<i32> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n {node_name = "less"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %k = graph.cast %c dst_type i32 {node_name = "cast"} : (tensor<i1>) -> tensor<i32>
  graph.net_output %k : tensor<i32>
}
graph.graph @body(%i: tensor<i32>, %x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one {node_name = "inc"} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = graph.add %x, %x {node_name = "dbl"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %j, %y : tensor<i32>, tensor<4xf32>
}
graph.graph @while(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r:2 = graph.while %i, %x cond @cond body @body {node_name = "w"} : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  graph.net_output %r#1 : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @while {{.*}} attributes {label_num = 3 : i64} {
// CHECK:         ascend.input "i" arena[[[I:[0-9]+]]] : tensor<i32>
// CHECK-NEXT:    ascend.input "x" arena[[[X:[0-9]+]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.output "output0" arena[[[CX:[0-9]+]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[I]]] : tensor<i32> to arena[[[CI:[0-9]+]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[X]]] : tensor<4xf32> to arena[[[CX]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.kernel "Less" "less" {{.*}} ins(arena[[[CI]]] : tensor<i32>, {{.*}}) outs(arena[[[L:[0-9]+]]] : tensor<i1>)
// CHECK-NEXT:    ascend.kernel "Cast" "cast" {{.*}} ins(arena[[[L]]] : tensor<i1>) outs(arena[[[K:[0-9]+]]] : tensor<i32>)
// CHECK-NEXT:    ascend.label_switch_by_index arena[[[K]]] : tensor<i32> labels [2, 1] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.kernel "Add" "inc" {{.*}} ins(arena[[[CI]]] : tensor<i32>, {{.*}}) outs(arena[[[J:[0-9]+]]] : tensor<i32>)
// CHECK-NEXT:    ascend.kernel "Add" "dbl" {{.*}} ins(arena[[[CX]]] : tensor<4xf32>, arena[[[CX]]] : tensor<4xf32>) outs(arena[[[Y:[0-9]+]]] : tensor<4xf32>)
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[J]]] : tensor<i32> to arena[[[CI]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[Y]]] : tensor<4xf32> to arena[[[CX]]] : tensor<4xf32>
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 0
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-NEXT:  }

// -----

// A body that swaps its carried values copies one of them through a buffer of its own first
// (copying straight back would read a value the first copy overwrote); a carried value the
// body passes through at its own index needs no copy.

graph.graph @cond(%a: tensor<i32>, %b: tensor<i32>, %n: tensor<i32>) -> tensor<i32> {
  graph.net_output %n : tensor<i32>
}
graph.graph @swap(%a: tensor<i32>, %b: tensor<i32>, %n: tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>) {
  %one = graph.const dense<1> : tensor<i32>
  %m = graph.sub %n, %one {node_name = "dec"} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %b, %a, %m : tensor<i32>, tensor<i32>, tensor<i32>
}
graph.graph @swapper(%a: tensor<i32>, %b: tensor<i32>, %n: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %r:3 = graph.while %a, %b, %n cond @cond body @swap : (tensor<i32>, tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>, tensor<i32>)
  graph.net_output %r#0, %r#1 : tensor<i32>, tensor<i32>
}

// CHECK-LABEL: ascend.model @swapper
// CHECK:         ascend.memcpy_async stream 0 {{.*}} to arena[[[A:[0-9]+]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 {{.*}} to arena[[[B:[0-9]+]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 {{.*}} to arena[[[N:[0-9]+]]] : tensor<i32>
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.label_switch_by_index arena[[[N]]] : tensor<i32> labels [2, 1] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.kernel "Sub" "dec" {{.*}} ins(arena[[[N]]] : tensor<i32>, {{.*}}) outs(arena[[[M:[0-9]+]]] : tensor<i32>)
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[B]]] : tensor<i32> to arena[[[TB:[0-9]+]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[A]]] : tensor<i32> to arena[[[TA:[0-9]+]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[TB]]] : tensor<i32> to arena[[[A]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[TA]]] : tensor<i32> to arena[[[B]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[[[M]]] : tensor<i32> to arena[[[N]]] : tensor<i32>
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 0

// -----

// For: GE's ForPass makes it a While over [i, |delta|, |limit - start|, start, delta, x]
// (i = Identity(0)), whose cond `Cast(Less(Mul(i, |delta|), range))` (CondPass's int32) and
// body (`i + 1`, the loop variable `start + i * delta`, then the For's body) WhileOpLabelMaker
// lowers.

graph.graph @fbody(%v: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %f = graph.cast %v dst_type f32 {node_name = "tof"} : (tensor<i32>) -> tensor<f32>
  %y = graph.add %x, %f {node_name = "acc"} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @for(%s: tensor<i32>, %l: tensor<i32>, %d: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.for %s, %l, %d, %x body @fbody {node_name = "loop"} : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @for {{.*}} attributes {label_num = 3 : i64} {
// CHECK:         ascend.kernel "Identity" "loop_i"
// CHECK-NEXT:    ascend.kernel "Abs"
// CHECK-NEXT:    ascend.kernel "Sub"
// CHECK-NEXT:    ascend.kernel "Abs"
// CHECK-COUNT-6: ascend.memcpy_async
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.kernel "Mul"
// CHECK-NEXT:    ascend.kernel "Less"
// CHECK-NEXT:    ascend.kernel "Cast" "loop_While_Cast"
// CHECK-NEXT:    ascend.label_switch_by_index {{.*}} labels [2, 1] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.kernel "Add"
// CHECK-NEXT:    ascend.kernel "Mul"
// CHECK-NEXT:    ascend.kernel "Add"
// CHECK-NEXT:    ascend.kernel "Cast" "tof"
// CHECK-NEXT:    ascend.kernel "Add" "acc"
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 0
// CHECK-NEXT:    ascend.end_graph stream 0
// CHECK-NOT:   ascend.model @fbody

// -----

// CaseOpLabelMaker: last = 0, branch i = 1 + i; the last branch ends at the leave label.
// Labels run on across makers: an If after the Case takes 4, 5, 6 (label_num 7).

graph.graph @b0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @b1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.neg %x {node_name = "n"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @b2(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.abs %x {node_name = "a"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @case(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = multibatch.case %i, %x branches [@b0, @b1, @b2] : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  %s = graph.if %i, %r then_branch @b0 else_branch @b1 : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %s : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @case {{.*}} attributes {label_num = 7 : i64} {
// CHECK:         ascend.label_switch_by_index {{.*}} labels [1, 2, 3] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.kernel "Relu" "r"
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 0
// CHECK-NEXT:    ascend.kernel "Neg" "n"
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 3 stream 0
// CHECK-NEXT:    ascend.kernel "Abs" "a"
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.label_switch_by_index {{.*}} labels [5, 4] stream 0
// CHECK-NEXT:    ascend.label_set 4 stream 0
// CHECK-NEXT:    ascend.kernel "Relu" "r_1"
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.label_goto 6 stream 0
// CHECK-NEXT:    ascend.label_set 5 stream 0
// CHECK-NEXT:    ascend.kernel "Neg" "n_1"
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.label_set 6 stream 0
// CHECK-NEXT:    ascend.end_graph stream 0

// -----

// A Case of one branch gets no labels (CaseOpLabelMaker does nothing), nor label_num.

graph.graph @only(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @one_case(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = multibatch.case %i, %x branches [@only] : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @one_case arena_size {{[0-9]+}} weight_size 0 {
// CHECK-NEXT:    ascend.stream 0
// CHECK-NEXT:    ascend.input "i"
// CHECK-NEXT:    ascend.input "x"
// CHECK-NEXT:    ascend.output
// CHECK-NEXT:    ascend.kernel "Relu" "r"
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.end_graph stream 0

// -----

// An If inside a While's body: the body's If takes the labels after the While's (the running
// index), and its switch reads the body's cond in place.

graph.graph @wc(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<i32> {
  graph.net_output %i : tensor<i32>
}
graph.graph @wb(%i: tensor<i32>, %x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.sub %i, %one {node_name = "dec"} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = graph.if %j, %x then_branch @b0 else_branch @b1 : (tensor<i32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %j, %y : tensor<i32>, tensor<4xf32>
}
graph.graph @b0(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @b1(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.neg %x {node_name = "n"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
graph.graph @nested(%i: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r:2 = graph.while %i, %x cond @wc body @wb : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
  graph.net_output %r#1 : tensor<4xf32>
}

// CHECK-LABEL: ascend.model @nested {{.*}} attributes {label_num = 6 : i64} {
// CHECK:         ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.label_switch_by_index arena[[[CI:[0-9]+]]] : tensor<i32> labels [2, 1] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.kernel "Sub" "dec" {{.*}} outs(arena[[[J:[0-9]+]]] : tensor<i32>)
// CHECK-NEXT:    ascend.label_switch_by_index arena[[[J]]] : tensor<i32> labels [4, 3] stream 0
// CHECK-NEXT:    ascend.label_set 3 stream 0
// CHECK-NEXT:    ascend.kernel "Relu" "r"
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.label_goto 5 stream 0
// CHECK-NEXT:    ascend.label_set 4 stream 0
// CHECK-NEXT:    ascend.kernel "Neg" "n"
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.label_set 5 stream 0
// CHECK-NEXT:    ascend.memcpy_async stream 0 {{.*}} to arena[[[CI]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 0
// CHECK-NEXT:    ascend.end_graph stream 0
