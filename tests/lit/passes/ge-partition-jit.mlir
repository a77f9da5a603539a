// RUN: ge-opt %s --split-input-file -p 'ge-partition-jit{known=auto}' | filecheck %s --check-prefix=AUTO
// RUN: ge-opt %s --split-input-file -p 'ge-partition-jit{nodes=w,a,b}' | filecheck %s --check-prefix=NODES
// RUN: ge-opt %s --split-input-file -p 'ge-partition-jit{nodes=a}' | filecheck %s --check-prefix=ONE

// Tests JIT slicing (GE BinaryPartitioner). known=auto takes the nodes whose tensors are all
// static (w, a, b; c reads the dynamic %y). The sliced graph takes every original input and
// returns the one value the remaining graph reads (b, once although c and e both read it); the
// Const w is copied into the remaining graph instead of crossing the cut (GE IsReplaceNode);
// the remaining graph takes the input it reads (%y, index 0) and the sliced output (index 1),
// and returns the original outputs. The root calls both with that wiring.

graph.graph @g(%x: tensor<4xf32>, %y: tensor<?xf32>) -> (tensor<4xf32>, tensor<?xf32>) {
  %w = graph.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32> {node_name = "w"}
  %a = graph.relu %x {node_name = "a"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.mul %a, %w {node_name = "b"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = graph.add %b, %y {node_name = "c"} : (tensor<4xf32>, tensor<?xf32>) -> tensor<?xf32>
  %d = graph.mul %c, %w {node_name = "d"} : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
  %e = graph.sub %d, %b {node_name = "e"} : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
  graph.net_output %b, %e : tensor<4xf32>, tensor<?xf32>
}

// AUTO-LABEL: graph.graph @g(%x: tensor<4xf32>, %y: tensor<?xf32>) -> (tensor<4xf32>, tensor<?xf32>) {
// AUTO-NEXT:    %[[S:.*]] = partition.partitioned_call @Sliced_Graph(%x, %y) {node_name = "Sliced_Graph_PartitionedCall"} : (tensor<4xf32>, tensor<?xf32>) -> tensor<4xf32>
// AUTO-NEXT:    %[[R0:[0-9a-z_]+]], %[[R1:[0-9a-z_]+]] = partition.partitioned_call @Remaining_Graph(%y, %[[S]]) {node_name = "Remaining_Graph_PartitionedCall"} : (tensor<?xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<?xf32>)
// AUTO-NEXT:    graph.net_output %[[R0]], %[[R1]] : tensor<4xf32>, tensor<?xf32>
// AUTO-NEXT:  }
// AUTO-NEXT:  graph.graph @Sliced_Graph(%x: tensor<4xf32>, %y: tensor<?xf32>) -> tensor<4xf32> {
// AUTO-NEXT:    %w = graph.const {{.*}} {node_name = "w"}
// AUTO-NEXT:    %a = graph.relu %x {node_name = "a"}
// AUTO-NEXT:    %b = graph.mul %a, %w {node_name = "b"}
// AUTO-NEXT:    graph.net_output {node_name = "Node_Output"} %b : tensor<4xf32>
// AUTO-NEXT:  }
// AUTO-NEXT:  graph.graph @Remaining_Graph(%y: tensor<?xf32> {index = 0 : i64}, %b: tensor<4xf32> {node_name = "Remaining_Graph_Data_1", index = 1 : i64}) -> (tensor<4xf32>, tensor<?xf32>) {
// AUTO-NEXT:    %w = graph.const {{.*}} {node_name = "w"}
// AUTO-NEXT:    %c = graph.add %b, %y {node_name = "c"}
// AUTO-NEXT:    %d = graph.mul %c, %w {node_name = "d"}
// AUTO-NEXT:    %e = graph.sub %d, %b {node_name = "e"}
// AUTO-NEXT:    graph.net_output %b, %e : tensor<4xf32>, tensor<?xf32>
// AUTO-NEXT:  }

// NODES-LABEL: graph.graph @Sliced_Graph
// NODES:         graph.net_output {node_name = "Node_Output"} %b : tensor<4xf32>
// NODES-LABEL: graph.graph @Remaining_Graph(%y: tensor<?xf32> {index = 0 : i64}, %b: tensor<4xf32> {node_name = "Remaining_Graph_Data_1", index = 1 : i64})

// -----

// Tests two sliced outputs (a and b, in node order), and a smaller known set: with nodes=a
// only `a` is sliced, the remaining graph takes both original inputs it reads (%x for b, %y
// for c) and a's output; w, not known, is an ordinary remaining node.

graph.graph @partial(%x: tensor<4xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %w = graph.const dense<1.0> : tensor<4xf32> {node_name = "w"}
  %a = graph.relu %x {node_name = "a"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.mul %x, %w {node_name = "b"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = graph.add %a, %y {node_name = "c"} : (tensor<4xf32>, tensor<?xf32>) -> tensor<?xf32>
  %d = graph.add %c, %b {node_name = "d"} : (tensor<?xf32>, tensor<4xf32>) -> tensor<?xf32>
  graph.net_output %d : tensor<?xf32>
}

// NODES-LABEL: graph.graph @partial
// NODES:         graph.graph @Remaining_Graph(%y: tensor<?xf32> {index = 0 : i64}, %a: {{.*}}, %b: {{.*}})

// ONE-LABEL: graph.graph @partial
// ONE-NEXT:    %[[S:.*]] = partition.partitioned_call @Sliced_Graph(%x, %y)
// ONE-NEXT:    %[[R:.*]] = partition.partitioned_call @Remaining_Graph(%x, %y, %[[S]])
// ONE-NEXT:    graph.net_output %[[R]]
// ONE:         graph.graph @Sliced_Graph
// ONE-NEXT:      %a = graph.relu %x
// ONE-NEXT:      graph.net_output {node_name = "Node_Output"} %a
// ONE:         graph.graph @Remaining_Graph(%x: tensor<4xf32> {index = 0 : i64}, %y: tensor<?xf32> {index = 1 : i64}, %a: tensor<4xf32> {node_name = "Remaining_Graph_Data_2", index = 2 : i64})
// ONE-NEXT:      %w = graph.const
// ONE-NEXT:      %b = graph.mul %x, %w
// ONE-NEXT:      %c = graph.add %a, %y

// AUTO-LABEL: graph.graph @partial
// AUTO-NEXT:    %[[S:[0-9a-z_]+]], %[[S1:[0-9a-z_]+]] = partition.partitioned_call @Sliced_Graph(%x, %y)
// AUTO-NEXT:    %[[R:.*]] = partition.partitioned_call @Remaining_Graph(%y, %[[S]], %[[S1]])
// AUTO-NEXT:    graph.net_output %[[R]]
// AUTO:        graph.graph @Sliced_Graph
// AUTO-NEXT:     graph.const
// AUTO-NEXT:     %a = graph.relu %x
// AUTO-NEXT:     %b = graph.mul %x, %w
// AUTO-NEXT:     graph.net_output {node_name = "Node_Output"} %a, %b
// AUTO:        graph.graph @Remaining_Graph(%y: tensor<?xf32> {index = 0 : i64}, %a: tensor<4xf32> {node_name = "Remaining_Graph_Data_1", index = 1 : i64}, %b: tensor<4xf32> {node_name = "Remaining_Graph_Data_2", index = 2 : i64})
// AUTO-NEXT:     %c = graph.add %a, %y
// AUTO-NEXT:     %d = graph.add %c, %b
