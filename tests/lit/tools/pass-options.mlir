// RUN: not ge-opt %s -p 'ge-assign-streams{max-streams=abc}' 2>&1 | filecheck %s --check-prefix=INT
// RUN: not ge-opt %s -p 'ge-assign-streams{max-streams=true}' 2>&1 | filecheck %s --check-prefix=INT-BOOL
// RUN: not ge-opt %s -p 'ge-assign-streams{single-stream=1}' 2>&1 | filecheck %s --check-prefix=BOOL
// RUN: not ge-opt %s -p 'ge-assign-streams{max-streams}' 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not ge-opt %s -p 'ge-dump-dot{file=3}' 2>&1 | filecheck %s --check-prefix=STRING
// RUN: not ge-opt %s -p 'ge-assign-streams{max-stream=2}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not ge-opt %s -p 'ge-assign-streams{max_stream=2}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not ge-opt %s -p 'ge-assign-streams{bogus=2}' 2>&1 | filecheck %s --check-prefix=OPTION-FAR
// RUN: not ge-opt %s -p 'ge-fuse-gelu{disable=x}' 2>&1 | filecheck %s --check-prefix=NO-OPTIONS
// RUN: not ge-opt %s -p 'ge-infer-shapes,ge-assign-stream' 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not ge-opt %s -p 'ge-no-such-pass' 2>&1 | filecheck %s --check-prefix=PASS-FAR
// RUN: not ge-opt %s -p 'ge-plan-memory{strategy=greedy}' 2>&1 | filecheck %s --check-prefix=CHOICE
// RUN: not ge-opt %s -p 'ge-compile{disable-fusion=gelu,swish}' 2>&1 | filecheck %s --check-prefix=CHOICE-LIST
// RUN: ge-opt %s -p 'ge-convert-graph-to-ascend,ge-assign-streams{max_streams=1}' | filecheck %s --check-prefix=SNAKE

// Tests that a bad pass option is refused before anything runs, naming the option as users
// type it (kebab-case), the type it expects and its choices, with a "did you mean" for a
// misspelt pass, option or choice; snake_case still works (xDSL normalises it).

graph.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.relu %x {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}

// INT: error: bad pass pipeline: ge-assign-streams{max-streams=abc}: option 'max-streams' expects an int, got 'abc'
// INT-NOT: Traceback
// INT-BOOL: error: bad pass pipeline: ge-assign-streams{max-streams=true}: option 'max-streams' expects an int, got 'true'
// BOOL: error: bad pass pipeline: ge-assign-streams{single-stream=1}: option 'single-stream' expects a bool (true or false), got '1'
// EMPTY: error: bad pass pipeline: ge-assign-streams: option 'max-streams' needs a value (int)
// STRING: error: bad pass pipeline: ge-dump-dot{file=3}: option 'file' expects a string, got '3' (quote it: file="3")
// OPTION: error: bad pass pipeline: ge-assign-streams has no option 'max-stream'; did you mean 'max-streams'? (its options: max-streams, single-stream, stats; see ge-opt --list-passes)
// OPTION-FAR: error: bad pass pipeline: ge-assign-streams has no option 'bogus' (its options: max-streams, single-stream, stats; see ge-opt --list-passes)
// NO-OPTIONS: error: bad pass pipeline: ge-fuse-gelu takes no options, got 'disable'
// PASS: error: bad pass pipeline: unknown pass 'ge-assign-stream'; did you mean 'ge-assign-streams'? (ge-opt --list-passes lists every pass)
// PASS-FAR: error: bad pass pipeline: unknown pass 'ge-no-such-pass' (ge-opt --list-passes lists every pass)
// CHOICE: error: bad pass pipeline: ge-plan-memory{strategy=greedy}: option 'strategy' takes one of greedy-by-size, ge-lifetime; got 'greedy'; did you mean 'greedy-by-size'?
// CHOICE-LIST: error: bad pass pipeline: ge-compile{disable-fusion=gelu,swish}: option 'disable-fusion' takes one of identity, {{.*}}, mul-add; got 'swish'; did you mean 'hard-swish'?

// SNAKE: ascend.model @g
// SNAKE: ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0
