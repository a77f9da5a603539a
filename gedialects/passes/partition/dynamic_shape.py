"""`ge-partition-dynamic-shape`: GE's DynamicShapePartitioner.

Cuts a graph into known-shape clusters (compiled to static task lists) and unknown-shape
clusters (run by the dynamic executor), each outlined into a subgraph called by a
`partition.partitioned_call`. The rules follow `hicann/ge:compiler/graph/partition/
dynamic_shape_partition.cc` (`MarkUnknownShapeNodes`, `InitClusters`, `MergeClustersNormal`,
`BuildPartitionFrame`, `SetUnknownAttr`); `analyse` is the analysis (plain data), `apply` the
materialisation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import (
    ENGINE_NAME,
    FORCE_UNKNOWN_SHAPE,
    HOST_CPU_ENGINE,
    IS_UNKNOWN_SHAPE,
    NODE_NAME,
    SPECIFIED_ENGINE_NAME,
    STAGE_LEVEL,
    block_ops,
    of_class,
)
from gedialects.graph import REF_VAR_SRC_VAR_NAME, ConstOp, GraphOp, NetOutputOp, VariableRefOp
from gedialects.graph.array import IdentityOp
from gedialects.graph.control import ControlFlowOp
from gedialects.graph.dataflow import StackCloseOp, StackOp, StackPopOp, StackPushOp
from gedialects.multibatch import ENABLE_DYNAMIC_BATCH, INSERT_BY_MBATCH
from gedialects.partition import PartitionedCallOp
from gedialects.passes.analysis.graph_view import (
    GraphNodes,
    bool_attr,
    bool_value,
    called_symbols,
    ge_type,
    int_attr,
    is_unknown_type,
    str_attr,
)
from gedialects.passes.partition.clusters import ClusterGraph, Clustering
from gedialects.passes.partition.engine import called_symbol_counts
from gedialects.passes.partition.outline import outline_cluster, reorder_graph
from gedialects.target.engines import ENGINE_BY_NAME, TILING_DEPENDS

_NAME = "ge-partition-dynamic-shape"

# Cluster types (GE's type indices 0..5, base_partitioner.h).
DATA = "DATA"
NETOUTPUT = "NETOUTPUT"
INPUT_NODE = "INPUT_NODE"
STAGE = "STAGE"
KNOWN_SHAPE = "KNOWN_SHAPE"
UNKNOWN_SHAPE = "UNKNOWN_SHAPE"

DYNAMIC_SHAPE_PARTITIONED = "_dynamic_shape_partitioned"
OWNER_GRAPH_IS_UNKNOWN = "OwnerGraphIsUnknown"
CONTROL_FLOW_GROUP = "_control_flow_group"
MEMORY_DISCONTIGUOUS_ALLOCATION = "_memory_discontiguous_allocation"
NO_NEED_DYNAMIC_SHAPE_PARTITION = "_no_need_dynamic_shape_partition"
IS_SUPPORT_ADDR_REFRESH = "_is_support_addr_refresh"

DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT = 4
"""GE's `kDefaultMinKnownSubGraphClusterNum` (`ge.exec.static_model_ops_lower_limit`)."""
MERGE_ALL_TO_UNKNOWN = -1
"""GE's `kThresholdForMergeAllToUnknownGraph`: the whole graph runs dynamically."""
SPECIAL_NODE_TYPES = frozenset(
    {"PartitionedCall", "Case", "If", "While", "StreamActive", "StreamSwitch", "StreamMerge",
     "Enter", "RefEnter", "NextIteration", "RefNextIteration"}
)  # fmt: skip
"""GE's `IsSpecialNode` (ops with subgraphs are special too)."""


def merge_shape_kind(this: str, other: str) -> str:
    """`DynamicShapeCluster::Merge` and `MergeAllPath`: unknown if either side is unknown."""
    return UNKNOWN_SHAPE if UNKNOWN_SHAPE in (this, other) else this


def op_engine(op: Operation) -> str | None:
    return str_attr(op, ENGINE_NAME) or str_attr(op, SPECIFIED_ENGINE_NAME)


TILING_RULE = "rule 5: tiling depends on a non-Const input and cannot be sunk"


def tiling_depends_on_data(op: Operation) -> bool:
    """GE `JudgeUnknownShapeForTilingDependNode`: the op's tiling reads the values of an input
    (`TILING_DEPENDS`) that is not a Const, and its engine cannot sink that tiling to the
    device (`EngineSpec.tiling_sink`)."""
    op_type = ge_type(op)
    depends = TILING_DEPENDS.get(op_type)
    if not depends:
        return False
    engine = op_engine(op)
    spec = ENGINE_BY_NAME.get(engine) if engine is not None else None
    if spec is not None and op_type in spec.tiling_sink:
        return False
    operands = op.operands
    return any(i < len(operands) and not isinstance(operands[i].owner, ConstOp) for i in depends)


@dataclass
class ShapeClassifier:
    """GE `IsUnknownShapeNode`, with the recursive subgraph rule memoised per graph."""

    symbols: Operation
    _graph_unknown: dict[str, bool] = field(default_factory=dict)
    _type_unknown: dict[int, tuple[Attribute, bool]] = field(default_factory=dict)

    def is_unknown(self, op: Operation) -> str | None:
        """The GE rule that makes `op` unknown, or None when it is known."""
        if bool_attr(op, IS_UNKNOWN_SHAPE) or bool_attr(op, FORCE_UNKNOWN_SHAPE):
            return "rule 1: _is_unknown_shape / _force_unknown_shape"
        if op_engine(op) == HOST_CPU_ENGINE:
            return "rule 2: host CPU engine"
        known = self._type_unknown
        # `unknown_type`, inlined, over the operand tuple (`operands` is a view iterated by
        # index): 100k nodes
        for value in (*op._operands, *op.results):  # pyright: ignore[reportPrivateUsage]
            t = value.type
            hit = known.get(id(t))
            if hit[1] if hit is not None else self.unknown_type(t):
                return "rule 3: unknown dim or rank"
        if any(self.graph_unknown(name) for name in called_symbols(op)):
            return "rule 4: unknown node in a called subgraph"
        if tiling_depends_on_data(op):
            return TILING_RULE
        if bool_attr(op, IS_SUPPORT_ADDR_REFRESH) is False:
            return "rule 6: _is_support_addr_refresh = false"
        return None

    def unknown_type(self, t: Attribute) -> bool:
        """`is_unknown_type`, memoised by type object (the parser and the passes share type
        objects, and `get_shape` builds a tuple per call): 28k checks at 10k nodes."""
        hit = self._type_unknown.get(id(t))
        if hit is None:
            hit = self._type_unknown[id(t)] = (t, is_unknown_type(t))  # keeps `t` alive
        return hit[1]

    def graph_unknown(self, name: str) -> bool:
        """GE `IsUnknownShapeGraph`: the graph holds an unknown node (recursively)."""
        if name not in self._graph_unknown:
            self._graph_unknown[name] = False  # a recursive call is not a reason
            graph = SymbolTable.lookup_symbol(self.symbols, name)
            if isinstance(graph, GraphOp):
                self._graph_unknown[name] = any(
                    self.is_unknown(op) is not None for op in graph.body.block.ops
                )
        return self._graph_unknown[name]


@dataclass
class ShapeAnalysis:
    """What the partitioner decided for one graph (plain data, see `Clustering`)."""

    nodes: GraphNodes
    unknown: dict[int, str]
    """Nodes in GE's unknown set, with the rule that put them there (`spread` for Consts)."""
    decision: str
    """`partition`, `all-unknown` (whole graph dynamic) or `all-known` (no partition)."""
    clustering: Clustering | None = None


def classify(nodes: GraphNodes, classifier: ShapeClassifier) -> dict[int, str]:
    """GE `MarkUnknownShapeNodes` / `CollectSpreadUnknownShapeNodes`."""
    unknown: dict[int, str] = {}
    for i, arg in enumerate(nodes.args):
        if is_unknown_type(arg.type):
            unknown[i] = "rule 3: unknown dim or rank"
    for k, op in enumerate(nodes.ops):
        node = len(nodes.args) + k
        if node in unknown:
            continue
        rule = classifier.is_unknown(op)
        if rule is None:
            continue
        unknown[node] = rule
        # "Consts linked to a dynamic op go to the dynamic graph, to avoid extra copies".
        for p in nodes.preds[node]:
            if isinstance(nodes.op(p), ConstOp):
                unknown.setdefault(p, "spread: Const feeding an unknown node")
    return unknown


def initial_kind(nodes: GraphNodes, node: int, unknown: dict[int, str]) -> str:
    """GE `InitClusters`: the type of the cluster a node starts in (checked in this order;
    the class tests by `of_class`, asked of every node)."""
    op = nodes.op(node)
    if op is None:
        return DATA
    if of_class(op, ConstOp) and not op.operands:
        return INPUT_NODE
    if of_class(op, NetOutputOp):
        return NETOUTPUT
    if of_class(op, PartitionedCallOp) and STAGE_LEVEL in op.attributes:
        return STAGE
    return UNKNOWN_SHAPE if node in unknown else KNOWN_SHAPE


def merge_clusters(clusters: ClusterGraph, nodes: GraphNodes, limit: int) -> None:
    """GE `MergeClusters` -> `MergeClustersControlFlow` + `MergeClustersNormal`."""
    # 0. Control-flow groups: every ordered pair (front, back) merges all paths between.
    groups: dict[int, list[int]] = {}
    for k, op in enumerate(nodes.ops):
        group = int_attr(op, CONTROL_FLOW_GROUP)
        if group is not None:
            groups.setdefault(group, []).append(len(nodes.args) + k)
    for members in groups.values():
        for i, front in enumerate(members):
            for back in members[i + 1 :]:
                cluster_from, cluster_back = clusters.cluster_of(front), clusters.cluster_of(back)
                if cluster_from != cluster_back:
                    clusters.merge_all_paths_from(cluster_back, cluster_from)

    def is_kind(*kinds: str) -> Callable[[int], bool]:
        return lambda c: clusters.kind(c) in kinds

    # 1-2. Unknown clusters absorb every path from an unknown input.
    _merge_unknown_paths(clusters, clusters.topological_clusters(is_kind(UNKNOWN_SHAPE)))
    # 3-4. Known clusters merge with known inputs where no second path exists; a ref
    # variable joins its writer's cluster whatever its kind.
    ordered = clusters.topological_clusters(is_kind(KNOWN_SHAPE, INPUT_NODE))
    _try_merge_inputs(clusters, ordered, is_kind(KNOWN_SHAPE), nodes)
    # 5. All input Consts into the first.
    first = None
    for c in ordered:
        if clusters.alive(c) and clusters.kind(c) == INPUT_NODE:
            if first is None:
                first = c
            else:
                clusters.merge(first, c)
    # 6. Small known clusters become unknown.
    for c in ordered:
        if clusters.alive(c) and clusters.kind(c) == KNOWN_SHAPE and clusters.size(c) < limit:
            clusters.set_kind(c, UNKNOWN_SHAPE)
    # 7. Adjacent unknown clusters merge.
    unknown = is_kind(UNKNOWN_SHAPE)
    _try_merge_inputs(clusters, clusters.topological_clusters(unknown), unknown, nodes)


def _merge_unknown_paths(clusters: ClusterGraph, ordered: list[int]) -> None:
    """GE `MergeClustersUnknownShape`."""
    expired: set[int] = set()
    for c in ordered:
        if not clusters.alive(c) or clusters.kind(c) == STAGE:
            continue
        for i in clusters.inputs(c):
            if clusters.kind(i) != UNKNOWN_SHAPE or i in expired or not clusters.alive(i):
                continue
            expired.update(clusters.merge_all_paths_from(c, i))


def is_ref_variable(clusters: ClusterGraph, nodes: GraphNodes, cluster: int) -> bool:
    """GE `BaseCluster::IsRefVariable`: a one-node cluster of a var-like node carrying
    `ref_var_src_var_name` (the VariableRef behind a variable's last writer)."""
    members = clusters.nodes(cluster)
    if len(members) != 1:
        return False
    op = nodes.op(members[0])
    return of_class(op, VariableRefOp) and REF_VAR_SRC_VAR_NAME in op.properties


def _try_merge_inputs(
    clusters: ClusterGraph, ordered: list[int], keep: Callable[[int], bool], nodes: GraphNodes
) -> None:
    """GE `TryMergeClusters`: each cluster, in order, tries to absorb its matching inputs; a
    ref variable with exactly one input cluster merges into it with no cycle check (GE's
    `MergeRefVariableCluster`: none can appear, every path into it comes through that one
    input), so the writer and its VariableRef share a PartitionedCall."""
    for c in ordered:
        if not clusters.alive(c) or clusters.kind(c) == STAGE:
            continue
        if is_ref_variable(clusters, nodes, c):
            inputs = clusters.inputs(c)
            if len(inputs) == 1:
                clusters.merge(inputs[0], c)
                continue
        for i in clusters.inputs(c):
            if keep(i):
                clusters.try_merge(c, i)


def analyse(
    graph: GraphOp,
    classifier: ShapeClassifier,
    limit: int = DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT,
) -> ShapeAnalysis:
    """Classification, whole-graph decision and clustering of one graph (no IR change)."""
    nodes = GraphNodes.of(graph)
    unknown = classify(nodes, classifier)
    only_io = all(isinstance(op, NetOutputOp) for op in nodes.ops)
    if limit == MERGE_ALL_TO_UNKNOWN or (only_io and unknown):
        return ShapeAnalysis(nodes, unknown, "all-unknown")
    if not unknown:
        return ShapeAnalysis(nodes, unknown, "all-known")
    kinds = [initial_kind(nodes, i, unknown) for i in range(len(nodes))]
    clusters = ClusterGraph(
        nodes.preds, kinds, names=nodes.names, independent=(STAGE,), merge_kind=merge_shape_kind
    )
    merge_clusters(clusters, nodes, limit)
    return ShapeAnalysis(nodes, unknown, "partition", clusters.result())


def data_flow_groups(graph: GraphOp) -> list[list[Operation]]:
    """The graph's data-flow ops by the stack they act on (GE's `DataFlowPreparePass`, whose
    `_data_flow_handle` numbers these groups): a handle is followed back through Identity
    to its Stack, or to the graph input that brings it; a Stack is in its own group."""
    groups: dict[SSAValue, list[Operation]] = {}
    for op in block_ops(graph.body.block):  # class tests by `of_class`: 100k bench nodes
        if of_class(op, StackOp):
            groups.setdefault(op.handle, []).append(op)
        elif of_class(op, _STACK_USERS):
            source = cast(StackPushOp | StackPopOp | StackCloseOp, op).handle
            while isinstance(source.owner, IdentityOp):
                source = source.owner.x
            groups.setdefault(source, []).append(op)
    return [ops for ops in groups.values() if len(ops) > 1]


_STACK_USERS = (StackPushOp, StackPopOp, StackCloseOp)


def mixed_data_flow_ops(analysis: ShapeAnalysis, groups: list[list[Operation]]) -> list[Operation]:
    """GE `DynamicDataFlowPartitionerPass::GetDataFlowOpNeedProcess`: the ops of every stack
    whose ops landed in both known and unknown clusters."""
    clustering = analysis.clustering
    if clustering is None:
        return []
    nodes = analysis.nodes
    position = {op: len(nodes.args) + k for k, op in enumerate(nodes.ops)}
    mixed: list[Operation] = []
    for ops in groups:
        kinds = {
            clustering.kinds[clustering.cluster_of[position[op]]] == UNKNOWN_SHAPE for op in ops
        }
        if len(kinds) > 1:
            mixed += ops
    return mixed


def analyse_with_data_flow(
    graph: GraphOp, classifier: ShapeClassifier, limit: int
) -> ShapeAnalysis:
    """GE `ReDynamicShapePartitioner`: after the clustering, the data-flow check marks every op
    of a stack split between known and unknown clusters `_force_unknown_shape`, and the
    partitioning runs again, until no stack is split (each round makes a known op unknown,
    so it ends). A stack's state lives behind its handle, which no static task list and
    dynamic executor can share."""
    groups = data_flow_groups(graph)
    analysis = analyse(graph, classifier, limit)
    while mixed := mixed_data_flow_ops(analysis, groups):
        for op in mixed:
            _set_bool(op, FORCE_UNKNOWN_SHAPE, True)
        analysis = analyse(graph, classifier, limit)
    return analysis


def _set_bool(op: Operation, name: str, value: bool) -> None:
    op.attributes[name] = bool_value(value)


def materialise(analysis: ShapeAnalysis, module: ModuleOp) -> None:
    """GE `BuildPartitionFrame` + `BuildPartitionSubgraph` + `SetUnknownAttr`."""
    nodes, clustering = analysis.nodes, analysis.clustering
    assert clustering is not None
    graph = nodes.graph
    root = graph.sym_name.data
    # Frames in GE cluster-id order (the rank of the node whose cluster survived every merge;
    # `PruneUniqueClusters` sorts by it). The DATA/NETOUTPUT/STAGE clusters stay as they are.
    frames = [
        c
        for c in range(clustering.num_clusters)
        if clustering.kinds[c] in (KNOWN_SHAPE, UNKNOWN_SHAPE, INPUT_NODE)
    ]
    frames.sort(key=lambda c: clustering.ids[c])
    position = {op: k for k, op in enumerate(nodes.ops)}
    placed: list[tuple[Operation, int]] = []
    taken = {g.sym_name.data for g in module.ops if isinstance(g, GraphOp)}
    insert_after = graph
    for n, c in enumerate(frames):
        kind = clustering.kinds[c]
        unknown = kind == UNKNOWN_SHAPE
        suffix = "_input" if kind == INPUT_NODE else "_unknow" if unknown else "_know"
        name = f"{root}_sub_{n}{suffix}"
        if name in taken:
            raise PassFailedException(f"{_NAME}: @{root}: symbol @{name} already exists")
        ops = [op for i in clustering.members[c] if (op := nodes.op(i)) is not None]
        subgraph, call = outline_cluster(ops, name, f"{name}_PartitionedCall_{n}")
        _set_bool(call, IS_UNKNOWN_SHAPE, unknown)
        _set_bool(subgraph, IS_UNKNOWN_SHAPE, unknown)
        if unknown:
            _set_bool(subgraph, MEMORY_DISCONTIGUOUS_ALLOCATION, True)
        flag = bool_value(unknown)
        for op in block_ops(subgraph.body.block):
            attrs = op.attributes
            attrs[IS_UNKNOWN_SHAPE] = flag
            attrs[OWNER_GRAPH_IS_UNKNOWN] = flag
        module.body.block.insert_op_after(subgraph, insert_after)
        insert_after = subgraph
        placed.append((call, clustering.members[c][0] - len(nodes.args)))
    reorder_graph(graph, placed, position)
    for op in graph.body.block.ops:
        _set_bool(op, OWNER_GRAPH_IS_UNKNOWN, True)
    _set_bool(graph, DYNAMIC_SHAPE_PARTITIONED, True)
    _set_bool(graph, IS_UNKNOWN_SHAPE, True)


def mark_control_flow_subgraphs(module: ModuleOp, graph: GraphOp) -> None:
    """Marks the subgraphs of every control-flow node under `graph` as their node runs.

    GE's hybrid executor runs the subgraphs of an unknown If/While/For whole, on the host
    with real shapes (`ControlOpNodeExecutor`), and the label makers lower those of a known
    one with its static partition (`LabelAllocator` needs both graphs known). So each subgraph
    gets `_is_unknown_shape` of its node, and so do its nodes (with `OwnerGraphIsUnknown`),
    nested control flow inheriting it; the node is unknown when rule 1-6 made it so (its
    `_is_unknown_shape`, set by the partitioning) or its owner graph is. A subgraph two nodes
    share that run differently is an error: GE gives each node its own subgraph instance.
    """
    by_name = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    marks: dict[str, bool] = {}

    def mark(name: str, unknown: bool, node: Operation) -> GraphOp | None:
        sub = by_name.get(name)
        if sub is None:
            return None
        if marks.get(name, unknown) != unknown:
            raise PassFailedException(
                f"{_NAME}: @{name} is a subgraph of known and of unknown control-flow nodes "
                f"(the last '{str_attr(node, NODE_NAME) or node.name}'); give each its own copy"
            )
        if name in marks:
            return None
        marks[name] = unknown
        _set_bool(sub, IS_UNKNOWN_SHAPE, unknown)
        for inner in sub.body.block.ops:
            _set_bool(inner, IS_UNKNOWN_SHAPE, unknown)
            _set_bool(inner, OWNER_GRAPH_IS_UNKNOWN, unknown)
        return sub

    def visit(g: GraphOp, owner_unknown: bool, seen: set[str]) -> None:
        for op in block_ops(g.body.block):
            if of_class(op, ControlFlowOp):
                unknown = owner_unknown or bool(bool_attr(op, IS_UNKNOWN_SHAPE))
                for name in called_symbols(op):
                    sub = mark(name, unknown, op)
                    if sub is not None:
                        visit(sub, unknown, seen)
            elif of_class(op, PartitionedCallOp):
                name = op.callee.root_reference.data
                callee = by_name.get(name)
                if callee is None or name in seen:
                    continue
                seen.add(name)
                marked = bool_attr(callee, IS_UNKNOWN_SHAPE)
                visit(callee, owner_unknown if marked is None else marked, seen)

    whole = bool(bool_attr(graph, IS_UNKNOWN_SHAPE)) and not bool_attr(
        graph, DYNAMIC_SHAPE_PARTITIONED
    )
    visit(graph, whole, {graph.sym_name.data})


def graphs_to_partition(module: ModuleOp) -> list[GraphOp]:
    """Root graphs (called by nothing) plus the branches of multi-batch Cases when the root has
    `_enable_dynamic_batch` (GE `GetMultiBatchIndependCompileGraphs`)."""
    graphs = [g for g in module.ops if isinstance(g, GraphOp)]
    called = called_symbol_counts(module)
    result = [g for g in graphs if g.sym_name.data not in called]
    by_name = {g.sym_name.data: g for g in graphs}
    for root in list(result):
        if not bool_attr(root, ENABLE_DYNAMIC_BATCH):
            continue
        for op in root.body.block.ops:
            if ge_type(op) == "Case" and bool_attr(op, INSERT_BY_MBATCH):
                result.extend(by_name[s] for s in called_symbols(op) if s in by_name)
    return result


@dataclass(frozen=True)
class PartitionDynamicShapePass(ModulePass):
    """Splits each root graph into known- and unknown-shape subgraphs (GE DynamicShapePartitioner).

    A node is unknown (GE `IsUnknownShapeNode`) if `_is_unknown_shape`/`_force_unknown_shape`
    is set, its engine is DNN_VM_HOST_CPU, a tensor has a `?` dim or unknown rank, a graph it
    calls holds an unknown node, its tiling reads a non-Const input its engine cannot sink
    (op table `TILING_DEPENDS` / `EngineSpec.tiling_sink`; GE then sets
    `_force_unknown_shape`), or `_is_support_addr_refresh` is false. Clusters start one per
    node (Data, NetOutput, input Const, stage call, known, unknown) and merge in GE's order:
    control-flow groups, all paths between unknown clusters, known clusters without a second
    path, all input Consts into one, known clusters smaller than `static-model-ops-lower-limit`
    (default 4) turned unknown, then adjacent unknown clusters. Each known, unknown and input
    cluster becomes `@<graph>_sub_<n>_know|_unknow|_input`, called by a
    `partition.partitioned_call` `<subgraph>_PartitionedCall_<n>` with `_is_unknown_shape`.

    The data-flow check (GE's `DynamicDataFlowPartitionerPass` in `ReDynamicShapePartitioner`):
    when the ops of one stack (Stack, StackPush, StackPop, StackClose of one handle) land in
    both known and unknown clusters, all of them get `_force_unknown_shape` and the graph is
    clustered again, until no stack is split.

    The subgraphs of If/While/For nodes run as their node does (GE's dynamic executor runs an
    unknown one's whole; the label makers need a known one's static): each, at any depth, and
    its nodes get the node's `_is_unknown_shape`; a subgraph shared by a known and an unknown
    node is an error.

    A multi-batch root (`_enable_dynamic_batch`) is not partitioned, only its gear branches:
    its `?` inputs are buffers sized for the largest gear and its MapIndex/Case become GE's
    static label scheme, so the root runs as a static model (docs/design/gears.md).

    Whole-graph decisions: no unknown node leaves the graph as it is with
    `_dynamic_shape_partitioned = false` (and the graph unknown if it has fewer known nodes
    than `host-scheduling-max-threshold`, default 0, and no special node); a limit of -1, or a
    graph of only Data/NetOutput with unknown shapes, marks the whole graph unknown
    (`_is_unknown_shape`, `OwnerGraphIsUnknown` on every node) without partitioning.

    `skip-static`: a module whose shapes are all known (`is_static_module`) is left as it is,
    without the `_dynamic_shape_partitioned = false` marks (the Session's choice for static
    graphs, `ge-compile{partition-static=false}`).
    """

    name = "ge-partition-dynamic-shape"

    static_model_ops_lower_limit: int = DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT
    host_scheduling_max_threshold: int = 0
    skip_static: bool = False

    def skips(self, module: ModuleOp) -> bool:
        """Whether `skip-static` leaves `module` untouched."""
        return self.skip_static and is_static_module(module)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gedialects.base import paused_gc

        with paused_gc():  # the IR's millions of objects: each collection would walk them all
            self._apply(ctx, op)

    def _apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.skips(op):
            return
        limit = self.static_model_ops_lower_limit
        if limit < MERGE_ALL_TO_UNKNOWN:
            raise PassFailedException(
                f"{_NAME}: static-model-ops-lower-limit must be >= -1, got {limit}"
            )
        classifier = ShapeClassifier(op)
        for graph in graphs_to_partition(op):
            if (
                bool_attr(graph, NO_NEED_DYNAMIC_SHAPE_PARTITION)
                or DYNAMIC_SHAPE_PARTITIONED in graph.attributes
                or bool_attr(graph, ENABLE_DYNAMIC_BATCH)
            ):
                continue
            analysis = analyse_with_data_flow(graph, classifier, limit)
            for node, rule in analysis.unknown.items():
                if rule == TILING_RULE and (node_op := analysis.nodes.op(node)) is not None:
                    _set_bool(node_op, FORCE_UNKNOWN_SHAPE, True)  # GE sets it there too
            if analysis.decision == "all-unknown":
                _set_bool(graph, IS_UNKNOWN_SHAPE, True)
                for node in graph.body.block.ops:
                    _set_bool(node, OWNER_GRAPH_IS_UNKNOWN, True)
            elif analysis.decision == "all-known":
                _set_bool(graph, DYNAMIC_SHAPE_PARTITIONED, False)
                known = len(analysis.nodes)
                special = any(
                    ge_type(node) in SPECIAL_NODE_TYPES or called_symbols(node)
                    for node in graph.body.block.ops
                )
                if known < self.host_scheduling_max_threshold and not special:
                    _set_bool(graph, IS_UNKNOWN_SHAPE, True)
            else:
                materialise(analysis, op)
            mark_control_flow_subgraphs(op, graph)


def is_static_module(module: ModuleOp) -> bool:
    """Every value and graph signature of `module` has a known shape, no gear `Case`, and no
    node the partitioner makes unknown for another reason (forced, host CPU, tiling rule)."""
    from xdsl.dialects.builtin import TensorType

    from gedialects.multibatch import CaseOp

    for op in module.walk():
        if isinstance(op, CaseOp):
            return False
        if op.attributes and (
            bool_attr(op, FORCE_UNKNOWN_SHAPE)
            or bool_attr(op, IS_UNKNOWN_SHAPE)
            or op_engine(op) == HOST_CPU_ENGINE
        ):
            return False
        if tiling_depends_on_data(op):
            return False
        types = [r.type for r in op.results]
        if isinstance(op, GraphOp):
            types += list(op.function_type.inputs.data) + list(op.function_type.outputs.data)
        for t in types:
            if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
                return False
    return True
