// RUN: ge-opt %s --split-input-file -p 'ge-convert-graph-to-ascend,ge-assign-streams' | filecheck %s
// RUN: ge-opt %s --split-input-file -p 'ge-convert-graph-to-ascend,ge-assign-streams{single-stream=true}' | filecheck %s --check-prefix=SINGLE
// RUN: ge-opt %s --split-input-file -p 'ge-convert-graph-to-ascend,ge-assign-streams{max-streams=1}' | filecheck %s --check-prefix=SINGLE
// RUN: ge-opt %s --split-input-file -p 'ge-convert-graph-to-ascend,ge-assign-streams{stats=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// Tests that two independent branches run on two streams and the join waits for the other
// branch through one event, recorded right after the producer.

graph.graph @branches(%x: tensor<2x2xf32>) -> (tensor<2x2xf32> {node_name = "y"}) {
  %w1 = graph.const dense<0.5> : tensor<2x2xf32>
  %w2 = graph.const dense<2.0> : tensor<2x2xf32>
  %a = graph.matmul %x, %w1 {node_name = "a"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %b = graph.matmul %x, %w2 {node_name = "b"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.add %a, %b {node_name = "join"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %y : tensor<2x2xf32>
}

// CHECK-LABEL: ascend.model @branches
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.stream 1 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.event 0
// CHECK-NOT:     ascend.event 1
// CHECK:         ascend.kernel "MatMul" "a" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.kernel "MatMul" "b" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.event_record 0 stream 1
// CHECK-NEXT:    ascend.event_wait 0 stream 0
// CHECK-NEXT:    ascend.kernel "Add" "join" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.end_graph stream 0

// SINGLE-LABEL: ascend.model @branches
// SINGLE-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// SINGLE-NOT:     ascend.stream 1
// SINGLE-NOT:     ascend.event
// SINGLE:         ascend.kernel "Add" "join" engine "AIcoreEngine" stream 0

// STATS: remark: ge-assign-streams @branches: 3 nodes on 2 streams; events 1 before pruning, 1 after

// -----

// Tests that engines get their own streams and that a redundant wait is removed: r needs p
// and q, but q's stream already waited for p, so r waits for q only (3 cross-stream
// dependencies, 2 events).

graph.graph @engines(%x: tensor<2x2xf32>) -> (tensor<2x2xf32> {node_name = "y"}) {
  %w = graph.const dense<0.5> : tensor<2x2xf32>
  %p = graph.matmul %x, %w {node_name = "p"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %q = graph.relu %p {node_name = "q", _specified_engine_name = "VectorEngine"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.add %p, %q {node_name = "r", _specified_engine_name = "DNN_VM_AICPU"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %y : tensor<2x2xf32>
}

// CHECK-LABEL: ascend.model @engines
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.stream 1 engine "VectorEngine"
// CHECK-NEXT:    ascend.stream 2 engine "DNN_VM_AICPU"
// CHECK-NEXT:    ascend.event 0
// CHECK-NEXT:    ascend.event 1
// CHECK-NOT:     ascend.event 2
// CHECK:         ascend.kernel "MatMul" "p" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.event_record 0 stream 0
// CHECK-NEXT:    ascend.event_wait 0 stream 1
// CHECK-NEXT:    ascend.kernel "Relu" "q" engine "VectorEngine" stream 1
// CHECK-NEXT:    ascend.event_record 1 stream 1
// CHECK-NEXT:    ascend.event_wait 1 stream 2
// CHECK-NEXT:    ascend.kernel "Add" "r" engine "DNN_VM_AICPU" stream 2
// CHECK-NEXT:    ascend.end_graph stream 2

// SINGLE-LABEL: ascend.model @engines
// SINGLE-NOT:     ascend.event
// SINGLE:         ascend.kernel "Add" "r" engine "DNN_VM_AICPU" stream 0

// STATS: remark: ge-assign-streams @engines: 3 nodes on 3 streams; events 3 before pruning, 2 after

// -----

// Tests that a case keeps its switch, labels and gotos on one stream (here the AI-core stream
// of its input: the engine with the most work in its branches), that a branch kernel of another
// engine runs on a stream the branch activates (streams never mix engines), joined back before
// the branch's goto, and that the model's events sit outside the labels: the join of the case
// and u waits after the end label.

graph.graph @gears(%i: tensor<i32>, %x: tensor<2x2xf32>) -> (tensor<2x2xf32> {node_name = "y"}) {
  %w = graph.const dense<0.5> : tensor<2x2xf32>
  %v = graph.matmul %x, %w {node_name = "v"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %u = graph.matmul %x, %w {node_name = "u", _specified_engine_name = "VectorEngine"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = multibatch.case %i, %v branches [@vector, @cube] : (tensor<i32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.add %r, %u {node_name = "out"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %y : tensor<2x2xf32>
}
graph.graph @vector(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %b = graph.relu %a {node_name = "b", _specified_engine_name = "VectorEngine"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %b : tensor<2x2xf32>
}
graph.graph @cube(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = graph.const dense<3.0> : tensor<2x2xf32>
  %d = graph.matmul %a, %w {node_name = "d"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %d : tensor<2x2xf32>
}

// CHECK-LABEL: ascend.model @gears
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.stream 1 engine "VectorEngine"
// CHECK-NEXT:    ascend.stream 2 engine "VectorEngine"
// CHECK:         ascend.kernel "MatMul" "v" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.kernel "MatMul" "u" engine "VectorEngine" stream 1
// CHECK-NEXT:    ascend.event_record 0 stream 1
// CHECK-NEXT:    ascend.label_switch_by_index {{.*}} labels [1, 2] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.stream_active 2 stream 0
// CHECK-NEXT:    ascend.kernel "Relu" "b" engine "VectorEngine" stream 2
// CHECK-NEXT:    ascend.memcpy_async stream 2
// CHECK-NEXT:    ascend.event_record 1 stream 2
// CHECK-NEXT:    ascend.event_wait 1 stream 0
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 0
// CHECK-NEXT:    ascend.kernel "MatMul" "d" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.memcpy_async stream 0
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.event_wait 0 stream 0
// CHECK-NEXT:    ascend.kernel "Add" "out" engine "AIcoreEngine" stream 0

// -----

// Tests that a branch with independent work runs part of it on a stream the branch starts
// with a stream_active after its label_set (GE's CaseOpLabelMaker), joined back by an event
// before its label_goto, while switch, labels and goto stay on the switch's stream; a branch
// with nothing to run in parallel activates nothing.

graph.graph @wide(%i: tensor<i32>, %x: tensor<2x2xf32>) -> (tensor<2x2xf32> {node_name = "y"}) {
  %r = multibatch.case %i, %x branches [@two_chains, @one_chain] : (tensor<i32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %r : tensor<2x2xf32>
}
graph.graph @two_chains(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = graph.const dense<0.5> : tensor<2x2xf32>
  %p = graph.matmul %a, %w {node_name = "p"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %p2 = graph.tanh %p {node_name = "p2"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %q = graph.matmul %a, %w {node_name = "q"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %q2 = graph.tanh %q {node_name = "q2"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = graph.add %p2, %q2 {node_name = "s"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %s : tensor<2x2xf32>
}
graph.graph @one_chain(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %n = graph.relu %a {node_name = "n"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %n : tensor<2x2xf32>
}

// CHECK-LABEL: ascend.model @wide
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.stream 1 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.event 0
// CHECK:         ascend.label_switch_by_index {{.*}} labels [1, 2] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.stream_active 1 stream 0
// CHECK-NEXT:    ascend.kernel "MatMul" "p" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.kernel "Tanh" "p2" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.kernel "MatMul" "q" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.kernel "Tanh" "q2" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.event_record 0 stream 1
// CHECK-NEXT:    ascend.event_wait 0 stream 0
// CHECK-NEXT:    ascend.kernel "Add" "s" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.memcpy_async stream 0
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 0
// CHECK-NEXT:    ascend.kernel "Relu" "n" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.memcpy_async stream 0
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.end_graph stream 0

// SINGLE-LABEL: ascend.model @wide
// SINGLE-NOT:     ascend.stream_active
// SINGLE:         ascend.label_set 0 stream 0

// STATS: remark: ge-assign-streams @wide: 1 nodes on 2 streams; events 1 before pruning, 1 after

// -----

// Tests that a While (GE's WhileOpLabelMaker scheme) schedules its body on the loop's stream and
// streams it starts right after the body's label_set (GE's EnterStreamActive), joined back by an
// event before the goto back, so each iteration ends on stream 0 before the next; the cond, a
// chain, starts no stream (its CondStreamActive would activate nothing).

graph.graph @loop(%i: tensor<i32>, %x: tensor<2x2xf32>) -> (tensor<i32> {node_name = "n"}, tensor<2x2xf32> {node_name = "y"}) {
  %r, %y = graph.while %i, %x cond @cond body @body {node_name = "w"} : (tensor<i32>, tensor<2x2xf32>) -> (tensor<i32>, tensor<2x2xf32>)
  graph.net_output %r, %y : tensor<i32>, tensor<2x2xf32>
}
graph.graph @cond(%i: tensor<i32>, %x: tensor<2x2xf32>) -> tensor<i32> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n {node_name = "less"} : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %k = graph.cast %c dst_type i32 {node_name = "cast"} : (tensor<i1>) -> tensor<i32>
  graph.net_output %k : tensor<i32>
}
graph.graph @body(%i: tensor<i32>, %x: tensor<2x2xf32>) -> (tensor<i32>, tensor<2x2xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %w = graph.const dense<0.5> : tensor<2x2xf32>
  %j = graph.add %i, %one {node_name = "inc"} : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %p = graph.matmul %x, %w {node_name = "p"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %p2 = graph.tanh %p {node_name = "p2"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %q = graph.matmul %x, %x {node_name = "q"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %q2 = graph.tanh %q {node_name = "q2"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = graph.add %p2, %q2 {node_name = "s"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %j, %s : tensor<i32>, tensor<2x2xf32>
}

// CHECK-LABEL: ascend.model @loop
// CHECK-NEXT:    ascend.stream 0 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.stream 1 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.stream 2 engine "AIcoreEngine"
// CHECK-NEXT:    ascend.event 0
// CHECK-NEXT:    ascend.event 1
// CHECK:         ascend.memcpy_async stream 0 arena[1536] : tensor<i32> to arena[[[I:[0-9]+]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[2048] : tensor<2x2xf32> to arena[[[X:[0-9]+]]] : tensor<2x2xf32>
// CHECK-NEXT:    ascend.label_set 0 stream 0
// CHECK-NEXT:    ascend.kernel "Less" "less" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.kernel "Cast" "cast" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.label_switch_by_index {{.*}} labels [2, 1] stream 0
// CHECK-NEXT:    ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.stream_active 1 stream 0
// CHECK-NEXT:    ascend.stream_active 2 stream 0
// CHECK-NEXT:    ascend.kernel "Add" "inc" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.kernel "MatMul" "p" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.kernel "Tanh" "p2" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.kernel "MatMul" "q" engine "AIcoreEngine" stream 2
// CHECK-NEXT:    ascend.kernel "Tanh" "q2" engine "AIcoreEngine" stream 2
// CHECK-NEXT:    ascend.event_record 0 stream 2
// CHECK-NEXT:    ascend.event_wait 0 stream 1
// CHECK-NEXT:    ascend.kernel "Add" "s" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.memcpy_async stream 0 arena[{{[0-9]+}}] : tensor<i32> to arena[[[I]]] : tensor<i32>
// CHECK-NEXT:    ascend.memcpy_async stream 1 arena[{{[0-9]+}}] : tensor<2x2xf32> to arena[[[X]]] : tensor<2x2xf32>
// CHECK-NEXT:    ascend.event_record 1 stream 1
// CHECK-NEXT:    ascend.event_wait 1 stream 0
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 0
// CHECK-NEXT:    ascend.end_graph stream 0

// SINGLE-LABEL: ascend.model @loop
// SINGLE-NOT:     ascend.stream_active
// SINGLE-NOT:     ascend.event
// SINGLE:         ascend.label_goto 0 stream 0

// STATS: remark: ge-assign-streams @loop: 3 nodes on 3 streams; events 3 before pruning, 2 after

// -----

// Tests that an If inside a While body is one unit of the body (its switch, labels, branches and
// gotos together on one stream, here a stream the body starts), beside a parallel chain.

graph.graph @wcond2(%i: tensor<i32>, %x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<i32> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %k = graph.cast %c dst_type i32 : (tensor<i1>) -> tensor<i32>
  graph.net_output %k : tensor<i32>
}
graph.graph @then2(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %y = graph.matmul %x, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %z = graph.tanh %y : (tensor<64x64xf32>) -> tensor<64x64xf32>
  graph.net_output %z : tensor<64x64xf32>
}
graph.graph @else2(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %y = graph.matmul %w, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %z = graph.sigmoid %y : (tensor<64x64xf32>) -> tensor<64x64xf32>
  graph.net_output %z : tensor<64x64xf32>
}
graph.graph @wbody2(%i: tensor<i32>, %x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> (tensor<i32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %two = graph.const dense<2> : tensor<i32>
  %m = graph.mod %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %a = graph.if %m, %x, %w then_branch @then2 else_branch @else2 : (tensor<i32>, tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %q = graph.matmul %x, %x : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %q2 = graph.sigmoid %q : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = graph.add %a, %q2 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  graph.net_output %j, %y, %w : tensor<i32>, tensor<64x64xf32>, tensor<64x64xf32>
}
graph.graph @loop_if(%i: tensor<i32>, %x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r_i, %r, %r_w = graph.while %i, %x, %w cond @wcond2 body @wbody2 {node_name = "loop"} : (tensor<i32>, tensor<64x64xf32>, tensor<64x64xf32>) -> (tensor<i32>, tensor<64x64xf32>, tensor<64x64xf32>)
  graph.net_output %r : tensor<64x64xf32>
}

// CHECK-LABEL: ascend.model @loop_if
// CHECK:         ascend.label_set 1 stream 0
// CHECK-NEXT:    ascend.stream_active 1 stream 0
// CHECK-NEXT:    ascend.stream_active 2 stream 0
// CHECK-NEXT:    ascend.kernel "Add" "Add_0" engine "AIcoreEngine" stream 0
// CHECK-NEXT:    ascend.kernel "Mod" "Mod_0" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.event_record 0 stream 1
// CHECK-NEXT:    ascend.label_switch_by_index {{.*}} labels [4, 3] stream 1
// CHECK-NEXT:    ascend.label_set 3 stream 1
// CHECK-NEXT:    ascend.kernel "MatMul" "MatMul_0" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.kernel "Tanh" "Tanh_0" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.memcpy_async stream 1
// CHECK-NEXT:    ascend.label_goto 5 stream 1
// CHECK-NEXT:    ascend.label_set 4 stream 1
// CHECK-NEXT:    ascend.kernel "MatMul" "MatMul_1" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.kernel "Sigmoid" "Sigmoid_0" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.memcpy_async stream 1
// CHECK-NEXT:    ascend.label_set 5 stream 1
// CHECK-NEXT:    ascend.kernel "MatMul" "MatMul_2" engine "AIcoreEngine" stream 2
// CHECK-NEXT:    ascend.kernel "Sigmoid" "Sigmoid_1" engine "AIcoreEngine" stream 2
// CHECK-NEXT:    ascend.event_record 1 stream 2
// CHECK-NEXT:    ascend.event_wait 1 stream 1
// CHECK-NEXT:    ascend.kernel "Add" "Add_1" engine "AIcoreEngine" stream 1
// CHECK-NEXT:    ascend.event_wait 0 stream 0
// CHECK-NEXT:    ascend.memcpy_async stream 0
// CHECK-NEXT:    ascend.memcpy_async stream 1
// CHECK-NEXT:    ascend.event_record 2 stream 1
// CHECK-NEXT:    ascend.event_wait 2 stream 0
// CHECK-NEXT:    ascend.label_goto 0 stream 0
// CHECK-NEXT:    ascend.label_set 2 stream 0

// SINGLE-LABEL: ascend.model @loop_if
// SINGLE-NOT:     ascend.stream_active
// SINGLE:         ascend.label_goto 0 stream 0
