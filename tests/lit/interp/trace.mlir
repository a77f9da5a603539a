// Tests that ge-run times a compiled model: a Chrome trace with one track per stream and one
// complete ("X") event per executed task, and a profile whose makespan is at least the
// critical path; the numbers are those of the graph level under every instrument. conv1's
// 5HD output goes back to NCHW twice (conv1 itself and relu1 feed the fused mul-add), so the
// second TransData runs on an AI Core stream of its own.

// RUN: rm -rf %t && mkdir -p %t
// RUN: ge-run %S/../../../examples/conv_block.mlir --random-inputs 5 -o %t/graph.npz -q
// RUN: ge-opt %S/../../../examples/conv_block.mlir -p ge-compile -o %t/model.mlir
// RUN: ge-run %t/model.mlir --random-inputs 5 --reference %t/graph.npz --trace %t/trace.json --profile --check-uninitialized --schedule-seed 7 | filecheck %s
// RUN: %python -c "import json, sys; d = json.load(open('%t/trace.json')); ev = d['traceEvents']; x = [e for e in ev if e['ph'] == 'X']; names = sorted(e['args']['name'] for e in ev if e['name'] == 'thread_name'); print('tracks', names); print('tasks', len(x), 'kernels', sum(1 for e in x if e['cat'] in ('Conv2D', 'FusedConv2D', 'MatMul', 'FusedMatMul'))); print('ordered', all(e['dur'] >= 0 and e['ts'] >= 0 for e in x)); o = d['otherData']; print('bound', o['makespan_us'] >= o['crossing_path_us'] >= o['critical_path_us'] > 0)" | filecheck %s --check-prefix=JSON

// CHECK:      logits: float32[1, 10]
// CHECK-NEXT: profile @conv_block (simulated time, us)
// CHECK-NEXT:   makespan {{ *}}[[MAKESPAN:[0-9.]+]]
// CHECK-NEXT:   critical path {{ *}}[[CP:[0-9.]+]]  (makespan / critical path {{1\.[0-9]+}})
// CHECK-NEXT:   with crossings {{ *}}{{[0-9.]+}}  (engine crossings priced; makespan / it {{1\.[0-9]+}})
// CHECK-NEXT:   engine AIcoreEngine {{ *}}busy {{.*}} {{[0-9]+}} tasks
// CHECK:        engine DNN_VM_RTS {{ *}}busy
// CHECK-NEXT:   stream 0 (AIcoreEngine) {{ *}}busy
// CHECK-NEXT:   stream 1 (AIcoreEngine) {{ *}}busy
// CHECK-NEXT:   stream 2 (DNN_VM_GE_LOCAL) {{ *}}busy
// CHECK-NEXT: MATCH: all 1 outputs equal {{.*}}graph.npz

// JSON: tracks ['stream 0 (AIcoreEngine)', 'stream 1 (AIcoreEngine)', 'stream 2 (DNN_VM_GE_LOCAL)']
// JSON-NEXT: tasks {{[0-9]+}} kernels 3
// JSON-NEXT: ordered True
// JSON-NEXT: bound True
