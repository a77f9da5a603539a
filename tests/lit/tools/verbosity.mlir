// Tests -v/--verbose and -q/--quiet, the same in every tool (tools/cli.py): -v logs each step
// and its time on stderr, -vv names the logger, -q prints only errors; ge-atc prints atc's
// start and success lines on stdout (GE api/atc/main_impl.cc). Progress bars need a terminal:
// none here (tests/test_progress.py drives a pty).

// RUN: rm -rf %t && mkdir -p %t

// Case: ge-opt -v logs the parse and every pass, stdout keeps the IR
// RUN: ge-opt %s -p ge-infer-shapes,ge-verify-graph -v 2>&1 >/dev/null | filecheck %s --check-prefix=VERBOSE
// VERBOSE:      ge-opt: info: parsed {{.*}}verbosity.mlir in {{[0-9.]+}} s
// VERBOSE-NEXT: ge-opt: info: ran ge-infer-shapes in {{[0-9.]+}} s
// VERBOSE-NEXT: ge-opt: info: ran ge-verify-graph in {{[0-9.]+}} s
// VERBOSE-NOT:  ge-opt:
// RUN: ge-opt %s -p ge-infer-shapes -vv 2>&1 >/dev/null | filecheck %s --check-prefix=DEBUG
// DEBUG: ge-opt: info: gedialects.passes.pipelines: ran ge-infer-shapes in
// RUN: ge-opt %s -p ge-infer-shapes -v 2>/dev/null | filecheck %s --check-prefix=IR
// IR: graph.graph @main

// Case: without -v nothing but the output; with -q nothing but errors
// RUN: ge-opt %s -p ge-infer-shapes -o %t/out.mlir 2>&1 | filecheck %s --allow-empty --check-prefix=EMPTY
// RUN: ge-run %s --random-inputs 0 -q 2>&1 | filecheck %s --allow-empty --check-prefix=EMPTY
// EMPTY-NOT: {{.}}
// RUN: ge-run %s --random-inputs 0 -v 2>&1 >/dev/null | filecheck %s --check-prefix=RAN
// RAN: ge-run: info: ran @main (graph.graph) in {{[0-9.]+}} s
// RUN: not ge-opt %t/missing.mlir -q 2>&1 | filecheck %s --check-prefix=QUIETERR
// QUIETERR: error:
// RUN: not ge-import %t/m.onnx -q -v 2>&1 | filecheck %s --check-prefix=BOTH
// BOTH: error: -q/--quiet and -v/--verbose contradict each other; give one (see 'ge-import --help')

// Case: ge-atc's start and success lines, none with -q
// RUN: %python -c "import onnx; from onnx import helper as h, TensorProto as T; g = h.make_graph([h.make_node('Relu', ['x'], ['y'])], 'tiny', [h.make_tensor_value_info('x', T.FLOAT, [2])], [h.make_tensor_value_info('y', T.FLOAT, [2])]); onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 17)]), '%t/m.onnx')"
// RUN: ge-atc --model=%t/m.onnx --output=%t/m 2>&1 | filecheck %s --check-prefix=ATC
// ATC:      ATC start working now, please wait for a moment.
// ATC-NEXT: ATC run success, welcome to the next use.
// RUN: ge-atc --model=%t/m.onnx --output=%t/q -q 2>&1 | filecheck %s --allow-empty --check-prefix=EMPTY
// RUN: not ge-atc --model=%t/none.onnx --output=%t/n 2>&1 | filecheck %s --check-prefix=ATCFAIL
// ATCFAIL:     ATC start working now, please wait for a moment.
// ATCFAIL-NEXT: error:
// ATCFAIL-NOT: ATC run success

graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
