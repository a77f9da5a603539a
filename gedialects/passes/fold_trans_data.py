"""`ge-fold-trans-data`: Const -> TransData on weights folded at compile time."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gedialects.graph import ConstOp, GraphOp, TransDataOp
from gedialects.passes.select_formats import fold_const_trans


def fold_trans_data(graph: GraphOp) -> int:
    """Folds every TransData of a Const in `graph`; returns the count."""
    folded = 0
    for op in list(graph.body.ops):
        if isinstance(op, TransDataOp) and isinstance(op.src.owner, ConstOp):
            fold_const_trans(op)
            folded += 1
    return folded


@dataclass(frozen=True)
class FoldTransDataPass(ModulePass):
    """Stores weights in the format their readers take: a TransData of a `graph.const`
    becomes one Const holding the transferred bytes (GE's ConstantFoldingPass with the host
    TransData kernel, `transdata_kernel.cc`), named `<const>_<format>`; the original Const
    goes when nothing else reads it.

    AI Core's `OptimizeWholeGraph` hook runs it after the merge: `ge-select-formats` runs on
    AI Core subgraphs, where a weight is a PlaceHolder of the data subgraph, so its TransData
    only meets the Const once the partitions are merged back.
    """

    name = "ge-fold-trans-data"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in op.walk():
            if isinstance(graph, GraphOp):
                fold_trans_data(graph)
