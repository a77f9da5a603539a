"""`ge-partition-engine`: GE's EnginePartitioner (undone by `ge-merge-engine-partitions`).

Partitioning (`hicann/ge:compiler/graph/partition/engine_partitioner.cc`):

1. `Initialize`: one cluster per node in topological order; data-like nodes without inputs
   (Data, Const) get engine `ENGINE_DEFAULT_DATA`, the others their placed engine (nodes not
   placed yet are placed as `ge-place-engines` does; the composite mode uses the composite
   engine, "" for nodes that have none), plus their `_stream_label`;
2. `MarkClusters`: for each child cluster in index order, its parents sorted by ascending
   output count; a parent merges with the child when both have the same engine and the same
   stream label and no second path joins them (`HasSecondPath`); the smaller index survives;
3. `SplitSubGraphs`: one subgraph `new_sub_graph<k>` per cluster; every edge between two
   clusters becomes an End (`<graph>_End<i>`) in the producer's subgraph and a PlaceHolder
   (`<graph>_PlaceHolder<i>`) in the consumer's, sharing `peerIndex` = i;
4. `SortSubGraphs`: all ENGINE_DEFAULT_DATA subgraphs become rank 0 `inputNodeGraph`, the others
   get ranks in the order their first node appears; each is renamed
   `partition<t>_rank<r>_<name>` (t counts the graphs partitioned).

In the IR each subgraph is a `graph.graph` carrying `_engine_name` (and `_stream_label`); the
partitioned graph's body becomes one `partition.partitioned_call` per subgraph, in a
topological order of the subgraphs (rank order where it allows). The Data nodes are the
inputs of `inputNodeGraph`; the subgraph holding NetOutput returns the graph's outputs. Values
cross subgraphs only through End/PlaceHolder pairs. `peerIndex` is unique in the module (GE's
counter is per graph) so that the pairs of nested partitions never share a channel.

Variables. A variable is read where it stands, after the writers before it, and a writer's ref
port takes the variable itself (GE's memory assignment resolves it by the variable's address,
`ref_var_src_var_name`, not through a PlaceHolder copy). So, for a graph with var-like nodes,
writers, VariableRefs or calls that write variables (`variable_accesses`):

- GE's control edges between the accesses of each variable join the cluster graph (GE's
  clusters count control edges): every access after the last writer before it, every writer
  after the accesses since the writer before; so no merge reorders a read and a write. A control
  edge between two subgraphs that no data edge joins becomes an End/PlaceHolder pair whose
  PlaceHolder has no user (GE's pair on control anchors): the calls run in that order;
- a var-like node is a data node of `inputNodeGraph` (its value crosses as GE's does, a copy
  by End/PlaceHolder) unless a writer of its variable comes before it: then it stays where it
  stands, in a subgraph of its engine;
- a ref value (a variable, a writer's ref output, a call result every subgraph returns as one)
  cut from an operand that must be a ref (a writer's ref port, a graph output, a subgraph input
  written as a ref) reaches it as a copy of the variable in the consumer's subgraph (same name,
  type and initial value: one memory; a RefData for a ref input of the graph), as
  `ge-split-variables-into-subgraphs` (GE's CopyVarIntoSubgraph) names a variable in another
  graph. The pair stays as the edge; the copy carries its `peerIndex` as `_ref_peer_index`, and
  `ge-merge-engine-partitions` puts the ref value back in the copy's place;
- a VariableRef takes its writer's engine and label, so it stays beside its writer (GE's
  `MergeRefVariableCluster` in DSP).

`ge-compile` lowers the merged graph, where a writer writes its variable's memory in place as
before; the partitioned graph lowers as it is too (each copy names the variable's memory).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import ClassVar, cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue, SSAValues
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import (
    ENGINE_NAME,
    GE_LOCAL_ENGINE,
    NODE_NAME,
    STREAM_LABEL,
    new_i64,
    new_op,
    new_string,
    of_class,
    paused_gc,
    set_block_ops,
    walk_ops,
)
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.graph.variables import (
    RefDataOp,
    RefWriterOp,
    VariableRefOp,
    VarLikeOp,
    ref_inputs,
    ref_results,
    ref_root,
    ref_roots_fixed,
    subgraph_feeds,
    writes_of,
    written_variables,
)
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp
from gedialects.passes.analysis.graph_view import (
    GraphNodes,
    bool_attr,
    i64_value,
    str_attr,
    string_value,
)
from gedialects.passes.partition import attr_names
from gedialects.passes.partition.clusters import ClusterGraph, Clustering
from gedialects.passes.partition.place_engines import select_engine
from gedialects.target.engines import (
    ENGINE_DEFAULT_DATA,
    INPUT_NODES_SUBGRAPH,
    composite_engine,
)

_NAME = "ge-partition-engine"
MODES = ("atomic", "composite")
DATA_LIKE_TYPES = frozenset({"Data", "Const", "Constant", "Variable", "VariableV2", "RefData"})
ENABLE_CV_PARALLEL = "_enable_cv_parallel"
NO_NEED_PARTITION = "_no_need_partition"
PARENT_ID = "parentId"
REF_PEER_INDEX = "_ref_peer_index"
"""On a var-like copy that stands, in the consumer's subgraph, for a ref value cut from another
subgraph: the `peerIndex` of that edge's End/PlaceHolder pair (`ge-merge-engine-partitions`
puts the End's value back in its place)."""


@dataclass
class VariableAccesses:
    """The order of a graph's variable accesses that partitioning must keep (GE's control edges
    between the writers of a variable and its readers, re-created between the subgraphs).

    `control[i]`: the nodes that must run before node `i` though no data edge says so: for
    each variable, every access (a user of one of its ref values, a var-like op read after a
    writer, a writer) after the last writer before it, and each writer after every access
    since the writer before it. `reread`: the var-like nodes read after a writer of their
    variable, placed where they stand instead of in `inputNodeGraph` (which runs first).
    `variable_of`: the variable each ref value of the graph stands for."""

    control: list[list[int]]
    reread: set[int]
    variable_of: dict[SSAValue, str]
    maybe: set[SSAValue]
    """Call results only some of the callee's subgraphs return as a ref (read in order, not
    copied)."""
    refs: dict[BlockArgument, str]
    graphs: dict[str, GraphOp]


def _returned_refs(op: Operation, found: list[tuple[SSAValue, str]]) -> dict[SSAValue, str]:
    """Of the ref results `found` of a call, those every subgraph it may run returns as a
    ref value of one variable (an If whose other branch returns a plain value gives none)."""
    callees = len(subgraph_feeds(op))
    seen: dict[SSAValue, list[str]] = {}
    for result, name in found:
        seen.setdefault(result, []).append(name)
    return {
        r: names[0] for r, names in seen.items() if len(names) == callees and len(set(names)) == 1
    }


def variable_accesses(
    nodes: GraphNodes,
    refs: dict[BlockArgument, str],
    written: dict[str, frozenset[str]],
    graphs: dict[str, GraphOp],
) -> VariableAccesses:
    """GE's order of a variable's reads and writes (see `VariableAccesses`), by block order."""
    n_args = len(nodes.args)
    variable_of: dict[SSAValue, str] = {a: refs[a] for a in nodes.args if refs.get(a)}
    maybe: set[SSAValue] = set()
    for op in nodes.ops:
        if isinstance(op, VarLikeOp | RefWriterOp | VariableRefOp):
            root = ref_root(op.results[0])
            owner = root.owner
            name = owner.variable if isinstance(owner, VarLikeOp) else None
            if name is None and isinstance(root, BlockArgument):
                name = refs.get(root)
            if name:
                variable_of[op.results[0]] = name
        elif op.results:
            found = ref_results(op, graphs, refs)
            variable_of.update(found)  # for the order: a maybe-ref is read like a ref
            definite = _returned_refs(op, found)
            maybe.update(r for r, _ in found if r not in definite)
    control: list[list[int]] = [[] for _ in range(len(nodes))]
    position = {op: n_args + k for k, op in enumerate(nodes.ops)}
    reread: set[int] = set()
    last: dict[str, int] = {}
    since: dict[str, list[int]] = {}
    for k, op in enumerate(nodes.ops):
        node = n_args + k
        wrote = writes_of(op, written, refs)
        read = {variable_of[v] for v in op.operands if v in variable_of}
        # A ref value defined after the last writer is ordered after it already (a writer's
        # output, its VariableRef, a var-like node read again): no edge to the writer.
        implied = {
            variable_of[v]
            for v in op.operands
            if v in variable_of
            and isinstance(v.owner, VarLikeOp | RefWriterOp | VariableRefOp)
            and position[v.owner] >= last.get(variable_of[v], 0)
        }
        if isinstance(op, VarLikeOp) and op.variable in last:
            reread.add(node)
            read.add(op.variable)
        before: set[int] = set()
        for name in sorted(read | wrote):
            previous = last.get(name)
            if previous is not None and (name in wrote or name not in implied):
                before.add(previous)
            if name in wrote:
                before.update(since.pop(name, ()))
                last[name] = node
            else:
                since.setdefault(name, []).append(node)
        before.discard(node)
        control[node] = sorted(before - set(nodes.preds[node]))
    return VariableAccesses(control, reread, variable_of, maybe, refs, graphs)


@dataclass
class EngineAnalysis:
    """Engine partitioning of one graph as plain data."""

    nodes: GraphNodes
    engines: list[str]
    """Atomic engine of each node (`DNN_VM_GE_LOCAL` for Data)."""
    keys: list[str]
    """Cluster engine of each node: ENGINE_DEFAULT_DATA, the atomic or the composite engine."""
    labels: list[str]
    clustering: Clustering
    subgraph_names: list[str] = field(default_factory=list)
    """GE's `new_sub_graph<k>` name of each cluster (clusters in first-node order)."""
    ranks: list[int] = field(default_factory=list)
    """Rank of each cluster; every data cluster has rank 0 (they form `inputNodeGraph`)."""
    accesses: VariableAccesses | None = None


def analyse(graph: GraphOp, mode: str, accesses: VariableAccesses | None = None) -> EngineAnalysis:
    """GE `Initialize` + `MarkClusters` + the naming of `SplitSubGraphs` / `SortSubGraphs`.

    With `accesses` (a graph with variables), its control edges join the cluster graph, as
    GE's clusters count control edges, so no merge puts a read and a write of one variable in
    an order the graph does not have; a var-like node read after a writer is no data node,
    and a VariableRef takes its writer's engine and label (GE's `MergeRefVariableCluster`
    keeps them together in DSP; here the VariableRef's ref port must see the writer)."""
    nodes = GraphNodes.of(graph)
    reread = accesses.reread if accesses is not None else set()
    engines: list[str] = []
    keys: list[str] = []
    labels: list[str] = []
    for i in range(len(nodes)):
        op = nodes.op(i)
        if op is None:
            engines.append(GE_LOCAL_ENGINE)
            keys.append(ENGINE_DEFAULT_DATA)
            labels.append("")
            continue
        engine = str_attr(op, ENGINE_NAME)
        if engine is None:
            engine = select_engine(op, frozenset())
            op.attributes[ENGINE_NAME] = string_value(engine)
        labels.append(str_attr(op, STREAM_LABEL) or "")
        engines.append(engine)
        if isinstance(op, VariableRefOp) and nodes.preds[i]:
            writer = nodes.preds[i][0]
            keys.append(keys[writer])
            labels[-1] = labels[writer]
        elif not op.operands and nodes.node_type(i) in DATA_LIKE_TYPES and i not in reread:
            keys.append(ENGINE_DEFAULT_DATA)
        elif op.attributes.get(ENABLE_CV_PARALLEL) is not None:
            keys.append("VectorEngine")
        elif mode == "composite":
            keys.append(composite_engine(engine, nodes.node_type(i)))
        else:
            keys.append(engine)
    preds = nodes.preds
    if accesses is not None:
        preds = [p + c for p, c in zip(nodes.preds, accesses.control, strict=True)]
    clusters = ClusterGraph(preds, keys, names=nodes.names)
    mark_clusters(clusters, labels)
    clustering = clusters.result()
    analysis = EngineAnalysis(nodes, engines, keys, labels, clustering, accesses=accesses)
    # SplitSubGraphs names clusters in first-node order; SortSubGraphs ranks the non-data ones.
    analysis.subgraph_names = [f"new_sub_graph{k}" for k in range(clustering.num_clusters)]
    has_data = any(kind == ENGINE_DEFAULT_DATA for kind in clustering.kinds)
    rank = 1 if has_data else 0
    for kind in clustering.kinds:
        if kind == ENGINE_DEFAULT_DATA:
            analysis.ranks.append(0)
        else:
            analysis.ranks.append(rank)
            rank += 1
    return analysis


def mark_clusters(clusters: ClusterGraph, labels: list[str]) -> None:
    """GE `MarkClusters` (`IsMergeable`: same engine, same stream label, no second path)."""
    for child in range(clusters.n):
        parents = clusters.inputs(child)
        parents.sort(key=clusters.out_degree)
        merged = child
        for parent in parents:
            if not (clusters.alive(parent) and clusters.alive(merged)):
                continue
            if clusters.kind(parent) != clusters.kind(merged) or labels[parent] != labels[merged]:
                continue
            small, big = min(parent, merged), max(parent, merged)
            if clusters.try_merge(small, big):
                merged = small


_PAIR_HALVES = (EndOp, PlaceHolderOp)
_INDEXED = (OpResult, BlockArgument)


def _next_peer_index(module: ModuleOp) -> int:
    peers = [
        cast(IntegerAttr, op.properties["peerIndex"]).value.data
        for op in walk_ops(module)
        if of_class(op, _PAIR_HALVES)
    ]
    return max(peers, default=-1) + 1


def _partition_times(module: ModuleOp) -> int:
    """GE's `partition_times_`: one more than the largest `partition<t>_` symbol prefix."""
    times = -1
    for op in module.ops:
        if isinstance(op, GraphOp):
            name = op.sym_name.data
            head, _, rest = name.partition("_rank")
            if head.startswith("partition") and head[9:].isdigit() and rest:
                times = max(times, int(head[9:]))
    return times + 1


def graphs_by_name(module: ModuleOp) -> dict[str, GraphOp]:
    """The module's graphs by symbol (one scan; `SymbolTable.lookup_symbol` scans per call)."""
    return {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}


_SYMBOL_TYPES: dict[type, int] = {}
"""Per attribute class: 1 for a `SymbolRefAttr`, 2 for an `ArrayAttr`, 0 for any other."""


def _symbol_kind(cls: type) -> int:
    kind = _SYMBOL_TYPES.get(cls)
    if kind is None:
        kind = _SYMBOL_TYPES[cls] = (
            1 if issubclass(cls, SymbolRefAttr) else 2 if issubclass(cls, ArrayAttr) else 0
        )
    return kind


_SYMBOL_FREE: dict[type[Operation], bool] = {}
"""Per op class: whether none of its properties can be a symbol (`_symbol_free`)."""


def _symbol_free(cls: type[Operation]) -> bool:
    """Whether every property IRDL declares for `cls` has a constraint whose bases are neither
    a `SymbolRefAttr` nor an `ArrayAttr` nor one of their bases: an End or a PlaceHolder
    (two thirds of the ops after ge-partition-engine) names no graph. A verified op has no
    property its definition does not declare."""
    if not issubclass(cls, IRDLOperation):
        return False
    for prop in cls.get_irdl_definition().properties.values():
        bases = prop.constr.get_bases()
        if bases is None:
            return False
        for base in bases:
            for symbolic in (SymbolRefAttr, ArrayAttr):
                if issubclass(base, symbolic) or issubclass(symbolic, base):
                    return False
    return True


def called_symbol_counts(module: ModuleOp) -> Counter[str]:
    """How many times each graph is called in `module`: the symbols of `called_symbols`, for
    every op, with the class tests made once per attribute class instead of an ABC
    `isinstance` per property (40k ops with 3 to 4 properties each at 10k nodes)."""
    uses: Counter[str] = Counter()
    kinds = _SYMBOL_TYPES
    free = _SYMBOL_FREE
    for o in walk_ops(module):
        skip = free.get(type(o))
        if skip is None:
            skip = free[type(o)] = _symbol_free(type(o))
        if skip:
            continue
        for value in o.properties.values():
            kind = kinds.get(type(value))
            if kind is None:
                kind = _symbol_kind(type(value))
            if kind == 1:
                assert isinstance(value, SymbolRefAttr)
                uses[value.root_reference.data] += 1
            elif kind == 2:
                assert isinstance(value, ArrayAttr)
                for item in value.data:
                    if _symbol_kind(type(item)) == 1:
                        uses[item.root_reference.data] += 1
    return uses


def is_engine_partitioned(graph: GraphOp, graphs: dict[str, GraphOp]) -> bool:
    for op in graph.body.block.ops:
        if isinstance(op, PartitionedCallOp):
            callee = graphs.get(op.callee.root_reference.data)
            if callee is not None and ENGINE_NAME in callee.attributes:
                return True
    return False


@dataclass
class _Split:
    """The IR being built for one partitioned graph."""

    graphs: list[GraphOp]
    placeholders: list[list[Operation]]
    ends: list[list[Operation]]
    deps: list[set[int]]
    """The subgraphs whose End feeds a PlaceHolder of each subgraph (by rank)."""


def materialise(
    analysis: EngineAnalysis, module: ModuleOp, times: int, peer: int, taken: set[str]
) -> int:
    """Builds the subgraphs, the End/PlaceHolder pairs and the calls; returns the next peer."""
    nodes, clustering = analysis.nodes, analysis.clustering
    graph = nodes.graph
    n_args = len(nodes.args)
    cluster_of = clustering.cluster_of
    data_clusters = [c for c, k in enumerate(clustering.kinds) if k == ENGINE_DEFAULT_DATA]
    # One graph per rank: data clusters share rank 0 (inputNodeGraph).
    rank_count = max(analysis.ranks, default=-1) + 1
    rank_name = [""] * rank_count
    rank_engine = [""] * rank_count
    rank_label = [""] * rank_count
    for c in range(clustering.num_clusters):
        r = analysis.ranks[c]
        if clustering.kinds[c] == ENGINE_DEFAULT_DATA:
            rank_name[r], rank_engine[r] = "inputNodeGraph", INPUT_NODES_SUBGRAPH
        else:
            rank_name[r], rank_engine[r] = analysis.subgraph_names[c], clustering.kinds[c]
            rank_label[r] = analysis.labels[clustering.members[c][0]]
    input_types = [a.type for a in nodes.args] if data_clusters else []
    terminator = nodes.ops[-1]
    assert isinstance(terminator, NetOutputOp)
    out_rank = analysis.ranks[cluster_of[len(nodes) - 1]]
    graphs: list[GraphOp] = []
    for r in range(rank_count):
        name = f"partition{times}_rank{r}_{rank_name[r]}"
        if name in taken:
            raise PassFailedException(f"{_NAME}: symbol @{name} already exists")
        taken.add(name)
        outs = list(terminator.outputs.types) if r == out_rank else []
        sub = GraphOp(name, input_types if (data_clusters and r == 0) else [], outs)
        if data_clusters and r == 0:
            sub.arg_attrs = graph.arg_attrs
        sub.attributes[ENGINE_NAME] = new_string(rank_engine[r])
        if rank_label[r]:
            sub.attributes[STREAM_LABEL] = new_string(rank_label[r])
        graphs.append(sub)
    split = _Split(graphs, [[] for _ in graphs], [[] for _ in graphs], [set() for _ in graphs])
    # Values as seen inside their own subgraph (root Data nodes are inputNodeGraph's args).
    local: dict[SSAValue, SSAValue] = {}
    if data_clusters:
        local.update(zip(nodes.args, graphs[0].body.block.args, strict=True))
    counter = [peer]
    ranks, subgraph_names = analysis.ranks, analysis.subgraph_names
    members: list[list[Operation]] = [[] for _ in graphs]
    """The nodes of each subgraph in block order, without its End/PlaceHolder/NetOutput."""

    described: dict[int, tuple[StringAttr, StringAttr]] = {}
    """Per node: its type and engine as attributes (an End names its consumer's, a
    PlaceHolder its producer's; shared, as attributes are immutable)."""
    as_producer: dict[int, tuple[StringAttr, StringAttr]] = {}
    """Per producer: its name and PlaceHolder `parentId` as attributes."""
    anchors: dict[int, IntegerAttr] = {}

    def describe(node: int) -> tuple[StringAttr, StringAttr]:
        found = described[node] = (
            string_value(nodes.node_type(node)),
            string_value(analysis.engines[node]),
        )
        return found

    def cut(value: SSAValue, producer: int, consumer: int) -> SSAValue:
        """GE `AddPlaceHolderEndInSrcDstGraph` for one edge; returns the PlaceHolder."""
        src_c, dst_c = cluster_of[producer], cluster_of[consumer]
        src_r, dst_r = ranks[src_c], ranks[dst_c]
        src_name = subgraph_names[src_c]
        k = counter[0]
        counter[0] += 1
        end_name = new_string(f"{src_name}_End{k}")  # the End's name and the PlaceHolder's peer
        peer_attr = new_i64(k)  # unique: no cache
        consumer_type, consumer_engine = described.get(consumer) or describe(consumer)
        # `new_op`: xDSL's generic `create` was two thirds of a cut (11k pairs at 10k nodes).
        end = new_op(
            EndOp,
            [local.get(value, value)],
            properties={
                "peerIndex": peer_attr,
                "parentOpType": consumer_type,
                "end_rear_node_engine_name": consumer_engine,
            },
            attributes={NODE_NAME: end_name},
        )
        split.ends[src_r].append(end)
        # every SSAValue is an OpResult or a BlockArgument
        indexed = producer >= n_args and of_class(value, _INDEXED)
        anchor = cast("OpResult | BlockArgument", value).index if indexed else 0
        anchor_attr = anchors.get(anchor)
        if anchor_attr is None:
            anchor_attr = anchors[anchor] = i64_value(anchor)
        producer_type, producer_engine = described.get(producer) or describe(producer)
        named = as_producer.get(producer)
        if named is None:
            named = as_producer[producer] = (
                new_string(nodes.names[producer]),
                new_string(f"{src_name}:{producer}"),
            )
        pld = new_op(
            PlaceHolderOp,
            result_types=[value.type],
            properties={
                "peerIndex": peer_attr,
                "parentOpType": producer_type,
                "_parentNodeName": named[0],
                "anchorIndex": anchor_attr,
                "pld_front_node_engine_name": producer_engine,
                "_peerNodeName": end_name,
            },
            attributes={
                NODE_NAME: new_string(f"{subgraph_names[dst_c]}_PlaceHolder{k}"),
                PARENT_ID: named[1],
            },
        )
        split.placeholders[dst_r].append(pld)
        split.deps[dst_r].add(src_r)
        return pld.results[0]  # not the IRDL accessor `y`: it searches the op's definition

    accesses = analysis.accesses
    linked: set[tuple[int, int]] = set()
    """Subgraph pairs (producer rank, consumer rank) an End/PlaceHolder pair joins."""
    unlinked: list[tuple[int, int]] = []
    """Control edges between subgraphs whose producer has no value to send (order only)."""
    for k, op in enumerate(nodes.ops):
        node = n_args + k
        r = analysis.ranks[cluster_of[node]]
        operands = op.operands
        changes: dict[int, SSAValue] = {}
        for j, p in enumerate(nodes.preds[node]):
            if cluster_of[p] != cluster_of[node]:
                value = operands[j]
                changes[j] = cut(value, p, node)
                linked.add((analysis.ranks[cluster_of[p]], r))
                variable = accesses.variable_of.get(value) if accesses is not None else None
                if variable and accesses is not None and value not in accesses.maybe:
                    replace_operands(op, changes)  # takes_ref reads the operands as cut so far
                    changes = {}
                    if takes_ref(op, j, accesses):
                        copy = _variable_copy(value, variable, f"{nodes.names[node]}_{variable}")
                        copy.attributes[REF_PEER_INDEX] = i64_value(counter[0] - 1)
                        members[r].append(copy)
                        changes[j] = copy.y
            elif p < n_args:
                changes[j] = local[operands[j]]
        replace_operands(op, changes)
        if op is terminator:
            split.ends[r].append(NetOutputOp(list(op.operands)))
            continue
        members[r].append(op)
    # Every node moves: the parent's block is emptied at once and each subgraph's block is
    # set once (xDSL's detach + add_op per node, with its ancestry walk, was a fifth of the
    # pass: 100k nodes at 100k bench nodes).
    root_block = graph.body.block
    set_block_ops(root_block, ())
    terminator.erase()
    if accesses is not None:
        # GE's control edges between subgraphs: one End/PlaceHolder pair per subgraph pair
        # that no data edge joins yet (the PlaceHolder has no user: it only orders the calls).
        for node, before in enumerate(accesses.control):
            dst = analysis.ranks[cluster_of[node]]
            for p in before:
                src = analysis.ranks[cluster_of[p]]
                if src == dst or (src, dst) in linked:
                    continue
                linked.add((src, dst))
                producer = nodes.op(p)
                if producer is None or not producer.results:
                    unlinked.append((src, dst))
                    continue
                cut(producer.results[0], p, node)
    for r, sub in enumerate(graphs):
        tail = split.ends[r]
        if not tail or not isinstance(tail[-1], NetOutputOp):
            tail.append(NetOutputOp([]))
        set_block_ops(sub.body.block, split.placeholders[r] + members[r] + tail)
    # The parent: one call per subgraph, in a topological order of the subgraphs.
    out_values: list[SSAValue] = []
    calls: list[tuple[Operation, int]] = []
    for r, sub in enumerate(graphs):
        args = list(root_block.args) if data_clusters and r == 0 else []
        call = PartitionedCallOp(sub.sym_name.data, args, list(sub.function_type.outputs.data))
        attr_names.to_call(members[r], call, sub)
        calls.append((call, r))
        if r == out_rank:
            out_values = list(call.results)
    # Ranks follow first appearance; a subgraph's producers can rank after it, so the calls
    # are ordered by the subgraph graph (End -> PlaceHolder), ranks breaking ties.
    deps = split.deps
    for src, dst in unlinked:
        deps[dst].add(src)
    root_block.add_ops(call for call, _ in _order_calls(calls, deps))
    root_net_output = NetOutputOp(out_values)
    root_net_output.attributes.update(terminator.attributes)
    root_block.add_op(root_net_output)
    anchor_op: Operation = graph
    for sub in graphs:
        module.body.block.insert_op_after(sub, anchor_op)
        anchor_op = sub
    return counter[0]


def replace_operands(op: Operation, changes: dict[int, SSAValue]) -> None:
    """`op.operands[j] = value` for each `j, value` of `changes` in turn, the operand tuple
    built once: xDSL's `OpOperands.__setitem__` copies the whole tuple on every call, which
    is quadratic for a NetOutput of thousands of operands (7.5k at 40k bench nodes: 3.5 s of
    ge-partition-engine's 7.3). The use lists change as the single assignments change them
    (a use keeps its object and moves to the front of its new value's list)."""
    if not changes:
        return
    operands = list(op.operands)
    uses = op._operand_uses  # pyright: ignore[reportPrivateUsage]
    for j, value in changes.items():
        operands[j].remove_use(uses[j])
        value.add_use(uses[j])
        operands[j] = value
    write_operands(op, operands)


def write_operands(op: Operation, operands: list[SSAValue]) -> None:
    """Sets `op`'s operand tuple to `operands` whose uses are already in place: the one write
    of xDSL's private tuple that `replace_operands` and the merge's `PendingOperands` share."""
    op._operands = SSAValues(operands)  # pyright: ignore[reportPrivateUsage]


def takes_ref(op: Operation, j: int, accesses: VariableAccesses) -> bool:
    """Whether operand `j` of `op` must be a ref value: a writer's ref port, a VariableRef's
    input, a graph output (a caller may take it as a ref, `ref_results`), or a subgraph
    input its subgraph writes through (`ref_inputs`)."""
    if isinstance(op, RefWriterOp | VariableRefOp):
        return j == 0
    if isinstance(op, NetOutputOp):
        return True  # a returned ref value is the variable's memory to the caller
    value = op.operands[j]
    for name, first, values in subgraph_feeds(op):
        graph = accesses.graphs.get(name)
        if graph is None:
            continue
        args = graph.body.block.args
        for k, fed in enumerate(values):
            if fed is value and first + k < len(args) and args[first + k] in accesses.refs:
                return True
    return False


def _variable_copy(value: SSAValue, variable: str, node_name: str) -> VarLikeOp:
    """The variable `value` is a ref value of, as a node of the consumer's subgraph: a copy of
    its var-like op (same name, type and initial value: one memory), or a RefData for a ref
    the graph takes as an input. GE resolves a ref port by the variable's address
    (`ref_var_src_var_name`); a copy is how this IR names that address in another graph, as
    `ge-split-variables-into-subgraphs` (GE's CopyVarIntoSubgraph) does."""
    root = ref_root(value)
    owner = root.owner
    if isinstance(owner, VarLikeOp):
        copy = owner.clone()
        copy.attributes.pop(ENGINE_NAME, None)
        copy.attributes.pop(STREAM_LABEL, None)
    else:
        assert isinstance(value.type, TensorType)
        copy = RefDataOp(variable, value.type)
    copy.attributes[NODE_NAME] = StringAttr(node_name)
    return copy


def _order_calls(
    calls: list[tuple[Operation, int]], deps: list[set[int]]
) -> list[tuple[Operation, int]]:
    import heapq

    pending = [len(d) for d in deps]
    users: list[list[int]] = [[] for _ in deps]
    for r, d in enumerate(deps):
        for p in d:
            users[p].append(r)
    heap = [r for r in range(len(deps)) if pending[r] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        r = heapq.heappop(heap)
        order.append(calls[r])
        for u in users[r]:
            pending[u] -= 1
            if pending[u] == 0:
                heapq.heappush(heap, u)
    if len(order) != len(calls):
        raise PassFailedException(f"{_NAME}: engine subgraphs depend on each other in a cycle")
    return order


@dataclass(frozen=True)
class PartitionEnginePass(ModulePass):
    """Splits every graph into one subgraph per engine (GE EnginePartitioner).

    Adjacent clusters merge when they have the same engine and the same `_stream_label` and no
    second path joins them; every edge between two subgraphs becomes a `partition.end` in the
    producer's subgraph and a `partition.place_holder` in the consumer's (same `peerIndex`,
    GE's attributes). Subgraphs are `@partition<t>_rank<r>_new_sub_graph<k>` (rank 0:
    `inputNodeGraph` with the Data inputs and Consts) with `_engine_name`; the graph becomes
    one `partition.partitioned_call` per subgraph; the registered partition attributes
    (`attr_names`) a subgraph's nodes share go on its call and graph. `mode=atomic`
    (default) uses the placed engines, `mode=composite` GE's composite engines (`ffts_plus`
    for AI Core, AI CPU, GE local and RTS nodes; "" for the rest). Graphs with variables are
    partitioned too, keeping the order of their reads and writes (module docstring). Graphs with
    `_no_need_partition` are skipped; partitioning an engine-partitioned graph again is an
    error (`skip-partitioned`: it is left as it is, as `ge-compile` does with a module that
    arrives engine-partitioned: its subgraphs are optimised and merged with the rest). Undo
    with `ge-merge-engine-partitions`.
    """

    name = "ge-partition-engine"
    OPTION_CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"mode": MODES}
    """Checked by `ge-opt` when it reads the pipeline (`tools.pass_catalog`)."""

    mode: str = "atomic"
    skip_partitioned: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with paused_gc():  # the IR's millions of objects: a collection walks them all
            self._apply(op)

    def _apply(self, op: ModuleOp) -> None:
        if self.mode not in MODES:
            raise PassFailedException(
                f"{_NAME}: mode must be atomic or composite, got '{self.mode}'"
            )
        graphs = [g for g in op.ops if isinstance(g, GraphOp)]
        by_name = graphs_by_name(op)
        taken = {sym.sym_name.data for sym in op.ops if isinstance(sym, GraphOp)}
        todo = []
        for graph in graphs:
            if ENGINE_NAME in graph.attributes or bool_attr(graph, NO_NEED_PARTITION):
                continue
            if is_engine_partitioned(graph, by_name):
                if self.skip_partitioned:
                    continue
                raise PassFailedException(
                    f"{_NAME}: @{graph.sym_name.data} is already engine-partitioned; "
                    "run ge-merge-engine-partitions first"
                )
            todo.append(graph)
        times = _partition_times(op)
        peer = _next_peer_index(op)
        stateful = any(holds_variables(g) for g in graphs)
        with ref_roots_fixed():  # nothing is cut before every graph's accesses are known
            refs = ref_inputs(by_name) if stateful else {}
            written = written_variables(by_name, refs) if stateful else {}
            # Every graph's accesses before any is cut: a call's ref results are read from its
            # callee's NetOutput as it stands now.
            accesses = [
                variable_accesses(GraphNodes.of(graph), refs, written, by_name)
                if stateful and (holds_variables(graph) or written.get(graph.sym_name.data))
                else None
                for graph in todo
            ]
        for graph, found in zip(todo, accesses, strict=True):
            analysis = analyse(graph, self.mode, found)
            peer = materialise(analysis, op, times, peer, taken)
            times += 1


_VARIABLE_NODES = (VarLikeOp, RefWriterOp, VariableRefOp)


def holds_variables(graph: GraphOp) -> bool:
    """Whether the graph has var-like nodes, writers or VariableRefs."""
    return any(of_class(o, _VARIABLE_NODES) for o in graph.body.block.ops)


__all__ = [
    "REF_PEER_INDEX",
    "EngineAnalysis",
    "PartitionEnginePass",
    "VariableAccesses",
    "analyse",
    "called_symbol_counts",
    "holds_variables",
    "variable_accesses",
]
