"""GE's graph partitioners as passes: engine placement, dynamic-shape and engine partitioning.

`clusters` is the shared analysis (GE's BaseCluster/BasePartitioner): it works on node indices
and returns plain data. The passes read a `graph.graph`, run the analysis and materialise the
result as `partition` ops:

- `ge-place-engines` (`place_engines`): GE's EnginePlacer, writes `_engine_name`;
- `ge-partition-dynamic-shape` (`dynamic_shape`): GE's DynamicShapePartitioner, one
  `partition.partitioned_call` per known/unknown cluster;
- `ge-partition-engine` / `ge-merge-engine-partitions` (`engine`): GE's EnginePartitioner, one
  subgraph per engine with `partition.end` / `partition.place_holder` pairs, and the merge back;
- `ge-inline-partitions` (`inline`): GE's ExpandPartitionedCallToParentGraph;
- `ge-dump-dot` (`dump_dot`): a Graphviz picture of the partitions.
"""
