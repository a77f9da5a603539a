// Tests the one error convention of every tool (tools/cli.py): a usage error is one line
// naming the flag with a pointer to --help and exit code 1; empty or folder output paths are
// refused; a failed write is `cannot write OUT: reason`; numbers are ASCII digits.

// RUN: rm -rf %t && mkdir -p %t/folder && touch %t/file

// Case: usage errors
// RUN: not ge-opt %s --no-such-flag 2>&1 | filecheck %s --check-prefix=OPT
// OPT: error: unrecognized arguments: --no-such-flag (see 'ge-opt --help')
// OPT-NOT: usage:
// RUN: not ge-run %s --no-such-flag 2>&1 | filecheck %s --check-prefix=RUNNER
// RUNNER: error: unrecognized arguments: --no-such-flag (see 'ge-run --help')
// RUNNER-NOT: usage:
// RUN: not ge-import 2>&1 | filecheck %s --check-prefix=IMPORT
// IMPORT: error: the following arguments are required: model (see 'ge-import --help')
// RUN: not ge-atc --output=%t/m 2>&1 | filecheck %s --check-prefix=ATC
// ATC: error: the following arguments are required: --model (see 'ge-atc --help')

// Case: seeds and numbers
// RUN: not ge-run %s --random-inputs -1 2>&1 | filecheck %s --check-prefix=SEED
// SEED: error: argument --random-inputs: invalid seed -1 (seeds are integers >= 0) (see 'ge-run --help')
// RUN: not ge-run %s --random-inputs ١ 2>&1 | filecheck %s --check-prefix=DIGIT
// DIGIT: error: argument --random-inputs: invalid integer '١' (ASCII digits only)

// Case: output paths
// RUN: not ge-run %s --random-inputs 0 -o %t/folder 2>&1 | filecheck %s --check-prefix=FOLDER
// FOLDER: error: -o/--output: '{{.*}}folder' is a folder; give a file name
// RUN: not ge-run %s --random-inputs 0 -o "" 2>&1 | filecheck %s --check-prefix=EMPTY
// EMPTY: error: -o/--output: empty output path; give a file name
// RUN: %python -c "import numpy as np; np.savez('%t/ok.npz', x=np.ones(3, np.float32), y=np.ones(3, np.float32))"
// RUN: not ge-run %s --inputs %t/ok.npz -q -o %t/file/out 2>&1 | filecheck %s --check-prefix=WRITE
// WRITE: error: cannot write {{.*}}file/out.npz: {{.+}}
// RUN: not ge-opt %s -o %t/file/out.mlir 2>&1 | filecheck %s --check-prefix=OPTWRITE
// OPTWRITE: error: cannot write {{.*}}file/out.mlir: Not a directory
// RUN: not ge-opt %s -o %t/folder 2>&1 | filecheck %s --check-prefix=OPTFOLDER
// OPTFOLDER: error: -o/--output-file: '{{.*}}folder' is a folder

// Case: run time
// RUN: %python -c "import numpy as np; np.savez('%t/bc.npz', x=np.ones(3, np.float32), y=np.ones(4, np.float32))"
// RUN: not ge-run %s --inputs %t/bc.npz 2>&1 | filecheck %s --check-prefix=BROADCAST
// BROADCAST: error: broadcast of [3] and [4] in op 'graph.add' (%z) in @main
// BROADCAST-NOT: Traceback

graph.graph @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = graph.add %x, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %z : tensor<?xf32>
}
