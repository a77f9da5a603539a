"""`ge-merge-trans-op-depth`: GE's TransOpWithoutReshapeFusionPass ("Transform operators
depth fusion")."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gedialects.base import ENGINE_NAME, NODE_NAME, element_nbytes, element_type, of_class
from gedialects.formats import format_of, origin_type, with_format
from gedialects.graph import CastOp, GraphOp, TransDataOp
from gedialects.passes.partition.place_engines import walk_graphs

_CHAIN_OPS = (TransDataOp, CastOp)


def _chain_op(op: Operation) -> bool:
    return of_class(op, _CHAIN_OPS)


def _chain_from(start: Operation) -> list[Operation]:
    chain = [start]
    while True:
        uses = list(chain[-1].results[0].uses)
        if len(uses) != 1 or not _chain_op(uses[0].operation):
            return chain
        chain.append(uses[0].operation)


def _retyped(t: Attribute, elem: Attribute) -> Attribute:
    """`t` with element type `elem`, in `t`'s storage format (its C0 recomputed)."""
    plain = origin_type(t)
    assert isinstance(plain, TensorType)
    enc = format_of(t)
    new = TensorType(elem, plain.get_shape())
    return new if enc is None else with_format(new, enc.fmt, enc.origin)


def _replacement(src: SSAValue, dst: Attribute, origin: str) -> list[tuple[str, Attribute]] | None:
    """The at most two steps (("Cast" | "TransData", result type)) from `src` to type
    `dst`: the format transfer and the Cast, the Cast first when the dtype shrinks (GE
    `InsertCastFirstCheck`); None when a Cast would have to run on a storage whose C0
    changes with the dtype."""
    src_enc, dst_enc = format_of(src.type), format_of(dst)
    src_fmt = origin if src_enc is None else src_enc.fmt
    dst_fmt = origin if dst_enc is None else dst_enc.fmt
    a, b = element_type(src.type), element_type(dst)
    if a == b:
        return [] if src_fmt == dst_fmt else [("TransData", dst)]
    if src_fmt == dst_fmt:
        return [("Cast", dst)] if _retyped(src.type, b) == dst else None
    na, nb = element_nbytes(a) or 0, element_nbytes(b) or 0
    cast_first = nb < na
    for first in (cast_first, not cast_first):
        if first:
            mid = _retyped(src.type, b)  # cast on src's storage
            if _same_storage(src.type, mid):
                return [("Cast", mid), ("TransData", dst)]
        else:
            mid = with_format(src.type, dst_fmt, origin)  # transfer, then cast on dst's
            if _same_storage(mid, dst):
                return [("TransData", mid), ("Cast", dst)]
    return None


def _same_storage(a: Attribute, b: Attribute) -> bool:
    return (
        isinstance(a, TensorType) and isinstance(b, TensorType) and a.get_shape() == b.get_shape()
    )


def merge_depth(graph: GraphOp) -> int:
    """Collapses TransData/Cast chains in `graph`; returns the ops removed."""
    removed = 0
    # The candidates first (a comprehension: `list(ops)` would walk the block twice, once
    # for its length); one a rewrite erased has no parent.
    for start in [o for o in graph.body.ops if of_class(o, _CHAIN_OPS)]:
        if start.parent is None:
            continue
        head = start.operands[0].owner
        if isinstance(head, Operation) and _chain_op(head):
            continue  # not the chain's first op
        chain = _chain_from(start)
        if len(chain) < 2 or sum(isinstance(o, CastOp) for o in chain) > 1:
            continue  # GE's precision check: two casts may hide a lossy one
        transfers = [o for o in chain if isinstance(o, TransDataOp)]
        if not transfers:
            continue
        first = transfers[0]
        enc = format_of(first.src.type)
        origin = first.src_format.data if enc is None else enc.origin
        src = start.operands[0]
        steps = _replacement(src, chain[-1].results[0].type, origin)
        if steps is None or len(steps) >= len(chain):
            continue
        value = src
        last = chain[-1]
        for i, (kind, rtype) in enumerate(steps):
            if kind == "Cast":
                new: Operation = CastOp(value, element_type(rtype), result_type=rtype)
            else:
                new = TransDataOp(
                    value,
                    src_format=_fmt(value.type, origin),
                    dst_format=_fmt(rtype, origin),
                    result_type=rtype,
                )
            template = chain[min(i, len(chain) - 1)]
            for key in (NODE_NAME, ENGINE_NAME):
                attr = template.attributes.get(key)
                if isinstance(attr, StringAttr):
                    new.attributes[key] = attr
            Rewriter.insert_op(new, InsertPoint.before(last))
            value = new.results[0]
        last.results[0].replace_all_uses_with(value)
        for o in reversed(chain):
            Rewriter.erase_op(o)
        removed += len(chain) - len(steps)
    return removed


def _fmt(t: Attribute, origin: str) -> str:
    enc = format_of(t)
    return origin if enc is None else enc.fmt


@dataclass(frozen=True)
class MergeTransOpDepthPass(ModulePass):
    """Collapses a chain of trans ops into at most one TransData and one Cast (GE's
    TransOpWithoutReshapeFusionPass, "Transform operators depth fusion").

    A chain of TransData and Cast nodes between two normal nodes, without a Reshape, each
    read only by the next, is replaced by the format transfer from its first input's
    storage format to its last output's and, if the dtype changes, one Cast (placed first
    when the dtype shrinks, GE's `InsertCastFirstCheck`, and never on a storage whose C0
    changes with the dtype), when that removes nodes. Chains with more than one Cast stay
    (GE's precision-loss check); a chain that ends where it began is gone entirely.
    """

    name = "ge-merge-trans-op-depth"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in walk_graphs(op):
            merge_depth(graph)
