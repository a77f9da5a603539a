// RUN: not ge-opt %s -p 'ge-partition-dynamic-shape{static-model-ops-lower-limit=-2}' 2>&1 | filecheck %s

// Tests that a limit below -1 is refused (GE checks the option range [-1, INT64_MAX]).

graph.graph @g(%x: tensor<?xf32>) -> tensor<?xf32> {
  graph.net_output %x : tensor<?xf32>
}

// CHECK: error: ge-partition-dynamic-shape: static-model-ops-lower-limit must be >= -1, got -2
