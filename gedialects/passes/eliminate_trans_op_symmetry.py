"""`ge-eliminate-trans-op-symmetry`: GE's TransOpSymmetryEliminationPass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from gedialects.base import int_array_values, is_static, of_class
from gedialects.graph import CastOp, ConstOp, GraphOp, ReshapeOp, TransDataOp, TransposeOp
from gedialects.passes.partition.place_engines import walk_graphs
from gedialects.passes.trans_ops import lossless_cast

_PAIRED = (TransDataOp, CastOp, TransposeOp, ReshapeOp)
"""The op types a cancelling pair is made of."""


def _cancels(first: Operation, second: Operation) -> bool:
    """Whether `second` undoes `first` exactly, so both can go."""
    if type(first) is not type(second):
        return False
    src: SSAValue = first.operands[0]
    if second.results[0].type != src.type:
        return False  # GE: src input == dst output in dtype, format and shape
    if isinstance(first, TransDataOp):
        return True  # a format transfer is lossless, its inverse restores the bytes
    if isinstance(first, ReshapeOp):
        # lossless too, but equal types with `?` dims are not equal shapes: the second
        # reshape's shape operand decides them at run time
        return is_static(src.type)
    if isinstance(first, CastOp):
        return lossless_cast(src.type, first.results[0].type)
    if isinstance(first, TransposeOp) and isinstance(second, TransposeOp):
        p1, p2 = int_array_values(first.perm), int_array_values(second.perm)
        return len(p1) == len(p2) and all(p1[p2[i]] == i for i in range(len(p1)))
    return False


def eliminate_symmetry(graph: GraphOp) -> int:
    """Removes every trans op pair that cancels in `graph`; returns the ops removed."""
    removed = 0
    # The candidates first (a comprehension: `list(ops)` would walk the block twice, once
    # for its length); a pair erases only ops before `second` and Consts.
    for second in [o for o in graph.body.ops if of_class(o, _PAIRED)]:
        first = second.operands[0].owner
        if not isinstance(first, Operation) or not _cancels(first, second):
            continue
        second.results[0].replace_all_uses_with(first.operands[0])
        shapes = [second.operands[1].owner] if isinstance(second, ReshapeOp) else []
        Rewriter.erase_op(second)
        removed += 1
        if not first.results[0].uses:
            if isinstance(first, ReshapeOp):
                shapes.append(first.operands[1].owner)
            Rewriter.erase_op(first)
            removed += 1
        for shape in dict.fromkeys(shapes):  # a Reshape's shape Const read by nothing else
            if isinstance(shape, ConstOp) and not shape.results[0].uses:
                Rewriter.erase_op(shape)
    return removed


@dataclass(frozen=True)
class EliminateTransOpSymmetryPass(ModulePass):
    """Removes a trans op followed by its inverse (GE's TransOpSymmetryEliminationPass).

    A TransData, Cast, Transpose (TransposeD) or Reshape whose input feeds a node of the
    same type that gives back exactly the first one's input type (dtype, storage format and
    shape) is dropped with it, and the second's readers read the original tensor: TransData
    and Reshape always cancel (a format transfer or a reshape loses nothing), a Cast pair
    only when the first Cast loses no precision (`CheckPrecisionLoss`: widening only, so
    f32 -> f16 -> f32 stays: it rounds), a Transpose pair when `perm1[perm2[i]] == i` (the
    NCHW <-> NHWC storage changes `ge-select-formats` inserts included); a Reshape pair only
    on a static shape (with `?` dims the second Reshape's shape operand may give another
    shape than the input's at run time). The first op stays
    while others still read it; a Reshape's shape Const goes with it when nothing else
    reads it.
    """

    name = "ge-eliminate-trans-op-symmetry"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in walk_graphs(op):
            eliminate_symmetry(graph)
