"""`ge-partition-stage`: GE's StagePartitioner (pipeline stages from `_stage_level`).

Follows `hicann/ge:compiler/graph/partition/stage_partitioner.cc`: `SplitStageLevel` propagates
each marked level to the untagged ancestors, `SplitTailStage` puts the rest in one more stage,
`StagePartition` outlines each stage with `GraphUtils::BuildSubgraphWithNodes` (here
`outline_cluster`). `analyse` is the analysis (plain data), `materialise` the IR change.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import FORCE_UNKNOWN_SHAPE, STAGE_LEVEL, block_ops
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.passes.analysis.graph_view import GraphNodes, bool_value, i64_value
from gedialects.passes.partition.engine import called_symbol_counts
from gedialects.passes.partition.outline import outline_cluster, reorder_graph

_NAME = "ge-partition-stage"


def subgraph_name(level: int) -> str:
    """GE's name of the stage subgraph (`"Subgraph_Level_" + level`)."""
    return f"Subgraph_Level_{level}"


def stage_level(attr: Attribute) -> int | None:
    """The level of a `_stage_level` attribute, None unless a non-negative integer (GE reads
    it as uint32; a bool is not a level)."""
    if not isinstance(attr, IntegerAttr):
        return None
    t = attr.type
    if isinstance(t, IntegerType) and t.width.data == 1:
        return None
    if not isinstance(t, IntegerType | IndexType):
        return None
    value = int(attr.value.data)
    return value if value >= 0 else None


@dataclass
class StageAnalysis:
    """The stage of every node of one graph (plain data)."""

    nodes: GraphNodes
    levels: list[int | None]
    """Level of each node (None: NetOutput, or a Data node no stage reads)."""
    stages: dict[int, list[int]]
    """Level -> op nodes of the stage, in node order (Data nodes are tagged but stay out)."""


def _marked_levels(nodes: GraphNodes) -> list[int | None]:
    root = nodes.graph.sym_name.data
    levels: list[int | None] = [None] * len(nodes)
    for k, op in enumerate(nodes.ops):
        attr = op.attributes.get(STAGE_LEVEL)
        if attr is None or isinstance(op, NetOutputOp):
            continue
        level = stage_level(attr)
        node = len(nodes.args) + k
        if level is None:
            raise PassFailedException(
                f"{_NAME}: @{root}: node '{nodes.names[node]}' ('{op.name}'): "
                f"{STAGE_LEVEL} must be a non-negative integer, got {attr}"
            )
        levels[node] = level
    return levels


def analyse(graph: GraphOp) -> StageAnalysis | None:
    """GE `SplitStageLevel` + `SplitTailStage`; None when no node has a level (no change)."""
    if not any(STAGE_LEVEL in op.attributes for op in block_ops(graph.body.block)):
        return None  # GE's StagePartitioner returns at once (no GraphNodes to build)
    nodes = GraphNodes.of(graph)
    levels = _marked_levels(nodes)
    n_args = len(nodes.args)
    marked: dict[int, list[int]] = {}
    for node, level in enumerate(levels):
        if level is not None:
            marked.setdefault(level, []).append(node)
    if not marked:
        return None
    members: dict[int, set[int]] = {}
    for level in sorted(marked):
        # Backwards from the marked nodes over ancestors that are untagged or of this level; a
        # node of another level stops the walk; Data nodes are tagged but not walked through.
        stack = list(marked[level])
        visited: set[int] = set()
        while stack:
            node = stack.pop()
            if node in visited:
                continue
            visited.add(node)
            for p in nodes.preds[node]:
                if p in visited:
                    continue
                if levels[p] is None:
                    levels[p] = level
                elif levels[p] != level:
                    continue
                if p >= n_args:
                    stack.append(p)
        members[level] = visited
    tail = max(marked) + 1
    terminator = len(nodes) - 1
    for node in range(n_args, terminator):
        if levels[node] is None:
            levels[node] = tail
            members.setdefault(tail, set()).add(node)
    stages = {level: sorted(members[level]) for level in sorted(members)}
    _check_acyclic(nodes, levels, stages)
    return StageAnalysis(nodes, levels, stages)


def _check_acyclic(
    nodes: GraphNodes, levels: list[int | None], stages: dict[int, list[int]]
) -> None:
    """GE fails the root's topological sort after the partition ("maybe stage_level was not
    set correctly"); this finds the cycle before changing the IR and names an edge on it."""
    n_args = len(nodes.args)
    edges: dict[int, dict[int, tuple[int, int]]] = {level: {} for level in stages}
    for level, members in stages.items():
        for node in members:
            for p in nodes.preds[node]:
                # every node past the arguments has a level by now
                if p >= n_args and (p_level := levels[p]) is not None and p_level != level:
                    edges[p_level].setdefault(level, (p, node))
    pending = {level: 0 for level in stages}
    for targets in edges.values():
        for t in targets:
            pending[t] += 1
    ready = [level for level, count in pending.items() if count == 0]
    while ready:
        level = ready.pop()
        for t in edges[level]:
            pending[t] -= 1
            if pending[t] == 0:
                ready.append(t)
    cyclic = {level for level, count in pending.items() if count > 0}
    if not cyclic:
        return
    # Every cycle has an edge from a later stage to an earlier one: report the first such edge.
    for source in sorted(cyclic, reverse=True):
        for target, (p, node) in sorted(edges[source].items()):
            if target in cyclic and target < source:
                raise PassFailedException(
                    f"{_NAME}: @{nodes.graph.sym_name.data}: stage {source} node "
                    f"'{nodes.names[p]}' feeds stage {target} node '{nodes.names[node]}', and "
                    f"stage {target} feeds stage {source}: the stages form a cycle "
                    f"(maybe {STAGE_LEVEL} was not set correctly)"
                )
    raise AssertionError("a cycle without a backward edge")  # pragma: no cover


def _tag_data_nodes(analysis: StageAnalysis) -> None:
    """GE sets `_stage_level` on the Data nodes a stage reads (the lowest such stage)."""
    graph, n_args = analysis.nodes.graph, len(analysis.nodes.args)
    levels = analysis.levels[:n_args]
    if all(level is None for level in levels):
        return
    old = graph.arg_attrs.data if graph.arg_attrs is not None else None
    dicts: list[DictionaryAttr] = []
    for i, level in enumerate(levels):
        entries = dict(old[i].data) if old is not None else {}
        if level is not None:
            entries[STAGE_LEVEL] = i64_value(level)
        dicts.append(DictionaryAttr(entries))
    graph.arg_attrs = ArrayAttr(dicts)


def materialise(analysis: StageAnalysis, module: ModuleOp, taken: set[str]) -> None:
    """GE `StagePartition` and the final stage-ordered topological sort of the root."""
    nodes = analysis.nodes
    graph = nodes.graph
    for level in analysis.stages:
        name = subgraph_name(level)
        if name in taken:
            raise PassFailedException(
                f"{_NAME}: @{graph.sym_name.data}: symbol @{name} already exists"
            )
    for node in range(len(nodes.args), len(nodes) - 1):
        op = nodes.op(node)
        assert op is not None
        op.attributes[STAGE_LEVEL] = i64_value(analysis.levels[node])
    _tag_data_nodes(analysis)
    placed: list[tuple[Operation, int]] = []
    insert_after: Operation = graph
    for level, members in analysis.stages.items():
        name = subgraph_name(level)
        ops = [op for node in members if (op := nodes.op(node)) is not None]
        subgraph, call = outline_cluster(ops, name, f"{name}_PartitionedCall")
        subgraph.attributes[STAGE_LEVEL] = i64_value(level)
        call.attributes[STAGE_LEVEL] = i64_value(level)
        call.attributes[FORCE_UNKNOWN_SHAPE] = bool_value(True)
        module.body.block.insert_op_after(subgraph, insert_after)
        insert_after = subgraph
        taken.add(name)
        placed.append((call, level))
    reorder_graph(graph, placed, {})


def root_graphs(module: ModuleOp) -> list[GraphOp]:
    """Graphs no op calls (GE partitions stages of the root graph only)."""
    called = called_symbol_counts(module)
    return [g for g in module.ops if isinstance(g, GraphOp) and g.sym_name.data not in called]


@dataclass(frozen=True)
class PartitionStagePass(ModulePass):
    """Cuts each root graph into pipeline stages by `_stage_level` (GE StagePartitioner).

    Levels go up the graph: for each level in ascending order, every ancestor of its marked
    nodes that has no level yet (or the same level) joins the stage, and a node of another
    level stops the walk, so an untagged node joins the lowest stage that reads it. Data nodes
    get the level but stay in the root. The remaining nodes (except NetOutput) form the tail
    stage, max level + 1. Each stage becomes `@Subgraph_Level_<L>` with `_stage_level`, called
    by `Subgraph_Level_<L>_PartitionedCall` with `_stage_level` and `_force_unknown_shape =
    true`; the root then holds the calls in stage order. A `_stage_level` that is not a
    non-negative integer, and levels whose stages feed each other in a cycle, are errors.
    """

    name = "ge-partition-stage"

    def skips(self, module: ModuleOp) -> bool:
        """Whether no node of a root graph has `_stage_level` (GE's StagePartitioner returns
        at once: the pass changes nothing)."""
        return not any(
            STAGE_LEVEL in op.attributes
            for graph in root_graphs(module)
            for op in block_ops(graph.body.block)
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        taken = {g.sym_name.data for g in op.ops if isinstance(g, GraphOp)}
        for graph in root_graphs(op):
            analysis = analyse(graph)
            if analysis is not None:
                materialise(analysis, op, taken)
