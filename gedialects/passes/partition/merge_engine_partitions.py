"""`ge-merge-engine-partitions`: the inverse of `ge-partition-engine`.

Merging (`MergeAfterSubGraphOptimization` / `RemoveNodeAndEdgeBetweenEndPld`) puts the nodes of
every subgraph back into the parent, connects each End's producer to the consumers of its
PlaceHolder and drops both; nodes without `_stream_label` inherit their subgraph's label. A
var-like copy `ge-partition-engine` made for a ref port (`_ref_peer_index`) gives its users the
ref value its End sent, so the writer takes its variable's chain again.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue, Use
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import (
    ENGINE_NAME,
    STREAM_LABEL,
    block_ops,
    new_string,
    of_class,
    paused_gc,
    set_block_ops,
)
from gedialects.graph import GraphOp, NetOutputOp, VarLikeOp
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp
from gedialects.passes.analysis.graph_view import str_attr
from gedialects.passes.partition import attr_names
from gedialects.passes.partition.engine import (
    REF_PEER_INDEX,
    called_symbol_counts,
    graphs_by_name,
    replace_operands,
    write_operands,
)


class PendingOperands:
    """`replace_all_uses_with` for many values whose users share ops, each user's operand
    tuple built once (`flush`): xDSL's rebuilds the whole tuple per use, quadratic for the
    parent's NetOutput when a call returns thousands of results (7.5k at 40k bench nodes).
    The use lists change at once and in the same order as xDSL's; only the tuples wait, so
    nothing may read a pending op's operands before its `flush`."""

    def __init__(self) -> None:
        self.operands: dict[Operation, list[SSAValue]] = {}

    def replace_all_uses(
        self, old: SSAValue, new: SSAValue, where: Callable[[Use], bool] | None = None
    ) -> None:
        """xDSL's `replace_all_uses_with` (or `replace_uses_with_if` with `where`)."""
        if new is old:
            return
        for use in tuple(old.uses):
            if where is not None and not where(use):
                continue
            user = use.operation
            operands = self.operands.get(user)
            if operands is None:
                operands = self.operands[user] = list(user.operands)
            old.remove_use(use)
            new.add_use(use)
            operands[use.index] = new
        if new.name_hint is None:
            new.name_hint = old.name_hint

    def flush(self, op: Operation | None = None) -> None:
        """Writes the operand tuple of `op` (of every pending op when None)."""
        ops = list(self.operands) if op is None else [op] if op in self.operands else []
        for user in ops:
            write_operands(user, self.operands.pop(user))


_OTHER, _END, _PLACE_HOLDER, _VAR_LIKE, _NET_OUTPUT = range(5)
_ROLES: dict[type[Operation], int] = {}
"""Per op class: what the merge does with its ops (the class tests made once per class, not
four ABC `isinstance` per node: 10k nodes and 25k pair halves at 10k bench nodes)."""


def _role(cls: type[Operation]) -> int:
    role = _ROLES.get(cls)
    if role is None:
        role = _ROLES[cls] = (
            _END
            if issubclass(cls, EndOp)
            else _PLACE_HOLDER
            if issubclass(cls, PlaceHolderOp)
            else _VAR_LIKE
            if issubclass(cls, VarLikeOp)
            else _NET_OUTPUT
            if issubclass(cls, NetOutputOp)
            else _OTHER
        )
    return role


def merge_partitions(graph: GraphOp, graphs: dict[str, GraphOp], uses: Counter[str]) -> bool:
    """GE `MergeSubGraph` for one graph; returns whether it was engine-partitioned.

    `uses` counts the calls of each graph in the module; callees left without one are erased.
    """
    block = graph.body.block
    calls = [op for op in block.ops if isinstance(op, PartitionedCallOp)]
    subs: list[tuple[PartitionedCallOp, GraphOp]] = []
    for call in calls:
        callee = graphs.get(call.callee.root_reference.data)
        if callee is not None and ENGINE_NAME in callee.attributes:
            subs.append((call, callee))
    if not subs:
        return False
    channel: dict[int, SSAValue] = {}
    roles = _ROLES
    pending = PendingOperands()
    left: dict[GraphOp, list[Operation]] = {}
    """What each subgraph's block holds after the merge (for `_erase_subgraph`)."""
    moved: dict[PartitionedCallOp, list[Operation]] = {}
    """The nodes each call's subgraph gives the parent, in block order (they take the call's
    place at the end, the parent's block set once: xDSL's detach + insert_op_before per node
    was a fifth of the pass)."""
    for call, sub in subs:
        pending.flush(call)  # its args may be results of an earlier call
        sub_block = sub.body.block
        mapping: dict[int, SSAValue] = {
            id(arg): value for arg, value in zip(sub_block.args, call.args, strict=True)
        }
        """By `id` of the subgraph's value: an `SSAValue`'s `__hash__` is a Python call (one
        per operand of the 100k merged nodes at 100k bench nodes)."""
        label = str_attr(sub, STREAM_LABEL)
        label_attr = new_string(label) if label else None  # one shared (immutable) attribute
        inherited = attr_names.carried(call, sub)
        get = mapping.get
        nodes = moved.setdefault(call, [])
        kept: list[Operation] = []
        for op in block_ops(sub_block):
            kind = roles.get(type(op))
            if kind is None:
                kind = _role(type(op))
            if kind != _OTHER and (kind != _VAR_LIKE or REF_PEER_INDEX in op.attributes):
                kept.append(op)
            # The operands, results and properties as stored, not by the IRDL accessors
            # (`x`, `y`, `peerIndex`: each searches the op's definition) nor xDSL's views.
            operands = op._operands  # pyright: ignore[reportPrivateUsage]
            if kind == _END:
                (value,) = operands
                channel[cast(IntegerAttr, op.properties["peerIndex"]).value.data] = get(
                    id(value), value
                )
            elif kind == _PLACE_HOLDER:
                peer = cast(IntegerAttr, op.properties["peerIndex"]).value.data
                if peer not in channel:
                    raise PassFailedException(
                        f"ge-merge-engine-partitions: @{sub.sym_name.data}: PlaceHolder "
                        f"peerIndex {peer} has no End in an earlier subgraph"
                    )
                mapping[id(op.results[0])] = channel[peer]
            elif kind == _VAR_LIKE and REF_PEER_INDEX in op.attributes:
                assert isinstance(op, VarLikeOp)
                peer = op.attributes[REF_PEER_INDEX]
                index = peer.value.data if isinstance(peer, IntegerAttr) else None
                if index not in channel:
                    raise PassFailedException(
                        f"ge-merge-engine-partitions: @{sub.sym_name.data}: '{op.name}' "
                        f'"{op.variable}" stands for the ref value of peerIndex {index}, '
                        "which no End in an earlier subgraph sends"
                    )
                mapping[id(op.results[0])] = channel[index]  # the ref value it stood for
            elif kind == _NET_OUTPUT:
                for r, v in zip(call.results, operands, strict=True):
                    pending.replace_all_uses(r, get(id(v), v))
            else:
                changes = {j: m for j, v in enumerate(operands) if (m := get(id(v))) is not None}
                replace_operands(op, changes)
                attrs = op.attributes
                if label_attr is not None and STREAM_LABEL not in attrs:
                    attrs[STREAM_LABEL] = label_attr
                if inherited:
                    attr_names.to_nodes(inherited, op)
                nodes.append(op)
        set_block_ops(sub_block, kept)
        left[sub] = kept
    pending.flush()
    order: list[Operation] = []
    for op in block.ops:
        nodes = moved.get(op) if of_class(op, PartitionedCallOp) else None
        if nodes is None:
            order.append(op)
        else:
            order.extend(nodes)
    set_block_ops(block, order)
    for call, sub in subs:
        # `call.erase()` of a call detached by `set_block_ops` whose results the NetOutput's
        # values replaced: erasing an unused result only builds an `ErasedSSAValue` to
        # replace it in no use (19k results at 100k bench nodes). A use left behind would be
        # a dangling value: refused as erase's safe mode refuses it.
        if any(r.first_use is not None for r in call.results):
            raise PassFailedException(
                f"ge-merge-engine-partitions: internal: a result of the call to "
                f"{call.callee} is still used after the merge"
            )
        call.drop_all_references()
        name = sub.sym_name.data
        uses[name] -= 1
        if uses[name] == 0:
            _erase_subgraph(sub, left[sub])
    return True


def _erase_subgraph(sub: GraphOp, kept: list[Operation]) -> None:
    """`Rewriter.erase_op(sub, safe_erase=False)` of a merged subgraph whose block holds only
    `kept` (pair halves, var-like copies, its NetOutput: no regions, no successors, no result
    used): the uses its ops make of values are dropped (a merged node's result must not keep
    an End as a user) and the graph is detached and erased. xDSL's erase visits every op,
    region and block on the way (227k pair halves in 26k subgraphs at 100k bench nodes)."""
    for op in kept:
        if op._operands:  # pyright: ignore[reportPrivateUsage]  (a PlaceHolder uses nothing)
            op.drop_all_references()
    sub.detach()
    sub.erase(drop_references=False)


@dataclass(frozen=True)
class MergeEnginePartitionsPass(ModulePass):
    """Joins engine subgraphs back into their parent graph (GE MergeAfterSubGraphOptimization).

    Every call of a subgraph with `_engine_name` is replaced by the subgraph's nodes; each
    PlaceHolder's users read the value its End (same `peerIndex`) sent, and both are dropped;
    nodes without `_stream_label` inherit their subgraph's label, and nodes lacking a
    registered partition attribute (`attr_names`) take the call's or the subgraph's. The
    result equals the graph before `ge-partition-engine` up to the order of independent nodes.
    """

    name = "ge-merge-engine-partitions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with paused_gc():  # the IR's millions of objects: a collection walks them all
            self._apply(op)

    def _apply(self, op: ModuleOp) -> None:
        graphs = graphs_by_name(op)
        uses = called_symbol_counts(op)
        for graph in list(graphs.values()):
            if ENGINE_NAME not in graph.attributes:
                merge_partitions(graph, graphs, uses)


__all__ = ["MergeEnginePartitionsPass", "merge_partitions"]
