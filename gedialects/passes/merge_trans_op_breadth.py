"""`ge-merge-trans-op-breadth`: GE's TransOpBreadthFusionPass."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from gedialects.base import of_class
from gedialects.graph import GraphOp
from gedialects.passes.partition.place_engines import walk_graphs
from gedialects.passes.trans_ops import TRANS_OPS, trans_key


def merge_breadth(graph: GraphOp) -> int:
    """Merges equal trans ops reading one value in `graph`; returns the ops removed.

    Values are visited in block order, so the readers of a kept op, which a merge joins,
    are visited after it; a value with fewer than two uses, or two trans-op readers, has no
    group and is skipped before its readers' keys are made."""
    removed = 0
    block = graph.body.block
    ops = [o for o in block.ops]  # not `list(ops)`: that walks the block twice (its length)
    order: dict[Operation, int] = {}
    values = chain(block.args, (r for o in ops for r in o.results))
    for value in values:
        if not value.has_more_than_one_use():
            continue
        readers = [
            user
            for use in value.uses
            if of_class(user := use.operation, TRANS_OPS)
            and user.operands[0] is value
            and len(user.operands) == 1
        ]
        if len(readers) < 2:
            continue  # one trans reader: no group, and no key to print
        groups: dict[tuple[object, ...], list[Operation]] = {}
        for user in readers:
            groups.setdefault(trans_key(user), []).append(user)
        for group in groups.values():
            if len(group) < 2:
                continue
            if not order:
                order = {o: i for i, o in enumerate(ops)}
            group = sorted(set(group), key=order.__getitem__)
            keep = group[0]
            for dup in group[1:]:
                dup.results[0].replace_all_uses_with(keep.results[0])
                Rewriter.erase_op(dup)
                removed += 1
    return removed


@dataclass(frozen=True)
class MergeTransOpBreadthPass(ModulePass):
    """Merges equal trans ops on one output into one (GE's TransOpBreadthFusionPass).

    Trans-op readers (TransData, Cast, Transpose) of one tensor with the same id (type,
    attributes, result type: dtypes, formats and shapes) collapse onto the first of them in
    topological order, whose result then feeds all their readers: FE inserts one TransData
    per edge, so a value read by two heavy-format nodes gets two equal TransData.
    """

    name = "ge-merge-trans-op-breadth"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in walk_graphs(op):
            merge_breadth(graph)
