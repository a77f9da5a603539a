"""`ge-fold-trans-data`: Const -> TransData on weights folded at compile time."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from gedialects.base import of_class
from gedialects.graph import CastOp, ConstOp, GraphOp, ReshapeOp, TransDataOp, TransposeOp
from gedialects.passes.partition.place_engines import walk_graphs
from gedialects.passes.select_formats import fold_const_trans

_FOLDABLE = (TransDataOp, CastOp, TransposeOp, ReshapeOp)
"""The op types a weight's trans-node chain is made of (the only ones this pass folds)."""


def fold_trans_data(graph: GraphOp) -> int:
    """Folds every TransData of a Const in `graph`, and the Cast / TransposeD / Reshape of a
    Const on its way to one (a weight's trans-node chain); returns the count."""
    folded = 0
    # The candidates first (a comprehension: `list(ops)` would walk the block twice, once
    # for its length); an op's class does not change, and the folds only erase Consts.
    for op in [o for o in graph.body.ops if of_class(o, _FOLDABLE)]:
        if not all(isinstance(v.owner, ConstOp) for v in op.operands) or not op.operands:
            continue
        if isinstance(op, TransDataOp) or (
            isinstance(op, CastOp | TransposeOp | ReshapeOp) and _towards_trans_data(op)
        ):
            fold_const_trans(op)
            folded += 1
    return folded


def _towards_trans_data(op: Operation) -> bool:
    """Whether every path from `op` runs through trans nodes into a TransData."""
    users = [u.operation for u in op.results[0].uses]
    return bool(users) and all(
        isinstance(u, TransDataOp)
        or (isinstance(u, CastOp | TransposeOp | ReshapeOp) and _towards_trans_data(u))
        for u in users
    )


@dataclass(frozen=True)
class FoldTransDataPass(ModulePass):
    """Stores weights in the format their readers take: a TransData of a `graph.const`
    becomes one Const holding the transferred bytes (GE's ConstantFoldingPass with the host
    TransData kernel, `transdata_kernel.cc`), named `<const>_<format>`; the original Const
    goes when nothing else reads it. The Cast, TransposeD and Reshape in front of such a
    TransData (`ge-select-formats`' chain Reshape -> TransposeD -> Cast -> TransData on a
    weight) fold the same way first, named `<const>_<type>`.

    AI Core's `OptimizeWholeGraph` hook runs it after the merge: `ge-select-formats` runs on
    AI Core subgraphs, where a weight is a PlaceHolder of the data subgraph, so its TransData
    only meets the Const once the partitions are merged back.
    """

    name = "ge-fold-trans-data"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in walk_graphs(op):
            fold_trans_data(graph)
