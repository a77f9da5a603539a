// The binary IR (.gebc) and offline model (.om) in every tool: chosen by the file extension,
// a byte-identical text round trip, and a corrupt file is one `file: error:` line, exit 1.

// RUN: rm -rf %t && mkdir -p %t
// RUN: ge-opt %s -o %t/m.gebc
// RUN: ge-opt %s > %t/text.mlir
// RUN: ge-opt %t/m.gebc > %t/back.mlir
// RUN: cmp %t/text.mlir %t/back.mlir
// RUN: ge-opt %t/m.gebc | filecheck %s --check-prefix=TEXT
// TEXT-LABEL: graph.graph @main
// TEXT: graph.const dense<[0x7fc00000, 0xff800000, -0.000000e+00, 1.000000e+00]> : tensor<4xf32> {node_name = "k\C3\B8\E2\86\92\C3\A9"}
// TEXT: graph.mul %x, %k {node_name = "prod"}

// stdin with -f gebc, and -o FILE.om after a pipeline (an ascend-level offline model)
// RUN: ge-opt -f gebc < %t/m.gebc | cmp - %t/text.mlir
// RUN: ge-opt %t/m.gebc -p ge-compile -o %t/m.om
// RUN: ge-run %t/m.om --random-inputs 0 | filecheck %s --check-prefix=OUT
// RUN: ge-run %t/m.gebc --random-inputs 0 | filecheck %s --check-prefix=OUT
// RUN: ge-run --compare %s %t/m.om --random-inputs 0 | filecheck %s --check-prefix=COMPARE
// OUT: prod: float32[4]
// COMPARE: MATCH

// RUN: %python -c "open('%t/bad.gebc', 'wb').write(b'not a binary IR file at all, just text......')"
// RUN: not ge-opt %t/bad.gebc 2>&1 | filecheck %s --check-prefix=MAGIC
// RUN: not ge-run %t/bad.gebc --random-inputs 0 2>&1 | filecheck %s --check-prefix=MAGIC
// MAGIC: bad.gebc: error: not a gedialects binary file (bad magic)
// MAGIC-NOT: Traceback

// RUN: %python -c "d = open('%t/m.gebc', 'rb').read(); open('%t/cut.gebc', 'wb').write(d[:len(d) // 2])"
// RUN: not ge-opt %t/cut.gebc 2>&1 | filecheck %s --check-prefix=CUT
// RUN: not ge-run %t/cut.gebc --random-inputs 0 2>&1 | filecheck %s --check-prefix=CUT
// CUT: cut.gebc: error: truncated:
// CUT-NOT: Traceback

// RUN: %python -c "d = bytearray(open('%t/m.gebc', 'rb').read()); d[60] ^= 4; open('%t/flip.om', 'wb').write(bytes(d))"
// RUN: not ge-run %t/flip.om --random-inputs 0 2>&1 | filecheck %s --check-prefix=FLIP
// FLIP: flip.om: error: corrupt IR section (CRC-32 mismatch)

graph.graph @main(%x: tensor<4xf32>) -> (tensor<4xf32> {node_name = "prod"}) {
  %k = graph.const dense<[0x7FC00000, 0xFF800000, -0.000000e+00, 1.000000e+00]> : tensor<4xf32> {node_name = "kø→é"}
  %p = graph.mul %x, %k {node_name = "prod"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %p : tensor<4xf32>
}
