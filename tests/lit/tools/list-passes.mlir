// RUN: ge-opt --list-passes | filecheck %s
// RUN: env COLUMNS=200 ge-opt --help | filecheck %s --check-prefix=HELP
// RUN: ge-opt --list-passes < /dev/null | head -n 3 | filecheck %s --check-prefix=HEAD

// Tests `--list-passes`: every pass, its one-line summary (the docstring's first paragraph)
// and its options as users type them (kebab-case), with type, default, the docstring's words
// on the option and the choices a pass declares; `--help` points to it; no input is read.

// CHECK-LABEL: Passes (run with -p 'NAME' or -p 'NAME{option=value option=value}'
// CHECK-LABEL:   ge-assign-streams
// CHECK-NEXT:      Assigns each `ascend.model`'s tasks to streams and inserts the events between them.
// CHECK-NEXT:      max-streams: int = 8
// CHECK-NEXT:          the most streams running at once: the model's plus one branch's per case
// CHECK-NEXT:      single-stream: bool = false
// CHECK-NEXT:          GE's SingleStreamPass: everything on stream 0, no events
// CHECK-NEXT:      stats: bool = false
// CHECK-LABEL:   ge-compile
// CHECK-NEXT:      The whole compilation, graph to tasks, in GE's order.
// CHECK-NEXT:      input-shape: string = ""
// CHECK:           disable-fusion: list of string = (none) (one of: identity, quant, casts,
// CHECK:           default-engine: string = "AIcoreEngine"
// CHECK-LABEL:   ge-fuse-gelu
// CHECK-NEXT:      {{[A-Z].+}}
// CHECK-NEXT:    ge-fuse-hard-swish
// CHECK-LABEL:   ge-plan-memory
// CHECK:           strategy: string = "greedy-by-size" (one of: greedy-by-size, ge-lifetime)
// CHECK-NEXT:          `greedy-by-size`: TFLite's best fit, largest first; `ge-lifetime`: GE's size
// CHECK-LABEL:   ge-verify-model
// CHECK-NEXT:      {{[A-Z].+}}

// HELP: `ge-opt --list-passes` describes every pass and its options
// HELP: --list-passes{{ +}}list every pass with its summary and options

// HEAD: Passes
