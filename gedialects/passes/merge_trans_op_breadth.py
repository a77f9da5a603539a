"""`ge-merge-trans-op-breadth`: GE's TransOpBreadthFusionPass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from gedialects.graph import GraphOp
from gedialects.passes.trans_ops import is_trans_op, trans_key


def merge_breadth(graph: GraphOp) -> int:
    """Merges equal trans ops reading one value in `graph`; returns the ops removed."""
    removed = 0
    values = [a for a in graph.body.block.args] + [r for o in graph.body.ops for r in o.results]
    order = {o: i for i, o in enumerate(graph.body.ops)}
    for value in values:
        groups: dict[tuple[object, ...], list[Operation]] = {}
        for use in value.uses:
            user = use.operation
            if is_trans_op(user) and user.operands[0] is value and len(user.operands) == 1:
                groups.setdefault(trans_key(user), []).append(user)
        for group in groups.values():
            if len(group) < 2:
                continue
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
        for graph in op.walk():
            if isinstance(graph, GraphOp):
                merge_breadth(graph)
