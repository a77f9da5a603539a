"""FE's trans-node insertion: the Reshape / TransposeD / Cast / TransData chain on one edge.

GE's `InsertTransNodesForAllGraph` (`shape_format_transfer/trans_node_manager/
trans_node_insertion/trans_node_insertion.cc`) visits every data edge whose producer output
and consumer input differ in format, dtype or shape and inserts the trans nodes its
strategy gives, made by the generators of `trans_node_implementation/` (`TransData`,
`Cast`, `TransposeD`, `Reshape`, ...). The order, in the code's comment: towards the consumer
`Reshape -> Permute (TransposeD) -> Cast -> TransData`, back from a heavy format
`TransData -> Cast -> Permute -> Reshape`; when producer and consumer differ in origin format
or shape, two strategies are chained (current -> original, original -> current). The Cast's
place against the TransData follows `IsInsertCastFirst`: a Cast that shrinks the dtype runs
as early as it can, one that widens as late as it can, so the TransData moves the smaller
elements; a Cast runs on a storage format only where both dtypes share its C0 (else on the
origin tensor).

Here an edge's two ends are tensor types (`gedialects.formats`): `trans_steps` gives the
chain from one to the other and `insert_trans_nodes` builds it in front of the consumer.
An NCHW <-> NHWC change of one tensor's storage is a TransposeD (GE's Permute), not a
TransData.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from xdsl.dialects.builtin import StringAttr, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gedialects.base import AICORE_ENGINE, ENGINE_NAME, NODE_NAME, element_nbytes, element_type
from gedialects.formats import HEAVY_FORMATS, c0_of, format_of, origin_type, with_format
from gedialects.graph import CastOp, ConstOp, ReshapeOp, TransDataOp, TransposeOp

if TYPE_CHECKING:
    from xdsl.dialects.builtin import AnyDenseElement

PERMS: dict[tuple[str, str], tuple[int, ...]] = {
    ("NCHW", "NHWC"): (0, 2, 3, 1),
    ("NHWC", "NCHW"): (0, 3, 1, 2),
}
"""TransposeD's perm for each origin/storage format change it makes."""
PERMS_FORMATS = frozenset({"NCHW", "NHWC"})


@dataclass(frozen=True)
class Step:
    """One trans node: its GE type (`TransData`, `Cast`, `TransposeD`, `Reshape`) and the
    type it gives."""

    kind: str
    result: TensorType


def _desc(t: TensorType, origin: str) -> tuple[str, str]:
    """(storage format, origin format) of `t`; a plain tensor is stored in `origin`."""
    enc = format_of(t)
    return (origin, origin) if enc is None else (enc.fmt, enc.origin)


def _plain(t: TensorType) -> TensorType:
    plain = origin_type(t)
    assert isinstance(plain, TensorType)
    return plain


def _retyped(t: TensorType, elem: Attribute, origin: str) -> TensorType | None:
    """`t` with element type `elem`, stored as `t` is, when the storage shape stays (same C0):
    where a Cast can run without a format change."""
    fmt, orig = _desc(t, origin)
    new = with_format(TensorType(elem, _plain(t).get_shape()), fmt, orig)
    assert isinstance(new, TensorType)
    return new if new.get_shape() == t.get_shape() else None


def trans_steps(src: TensorType, dst: TensorType, origin: str) -> list[Step]:
    """The trans nodes from a tensor of type `src` to type `dst` in GE's insertion order;
    `origin` is the origin format of a plain tensor. ValueError when no chain joins them
    (different element counts)."""
    if src == dst:
        return []
    sfmt, sorig = _desc(src, origin)
    dfmt, dorig = _desc(dst, origin)
    a, b = element_type(src), element_type(dst)
    shrinks = (element_nbytes(b) or 0) < (element_nbytes(a) or 0)
    steps: list[Step] = []
    cur = src

    def add(kind: str, t: Attribute) -> None:
        nonlocal cur
        assert isinstance(t, TensorType)
        steps.append(Step(kind, t))
        cur = t

    def cast_here() -> bool:
        retyped = _retyped(cur, b, origin) if element_type(cur) != b else None
        if retyped is not None:
            add("Cast", retyped)
            return True
        return False

    # A Cast on one storage, or a storage change of one tensor: one node (and its Cast).
    if _plain(src).get_shape() == _plain(dst).get_shape() and sorig == dorig:
        if sfmt == dfmt and _retyped(src, b, origin) == dst:
            return [Step("Cast", dst)]
        if {sfmt, dfmt} == PERMS_FORMATS:
            if shrinks:
                cast_here()
            add("TransposeD", with_format(cur, dfmt, sorig))
            if element_type(cur) != b and not cast_here():
                raise ValueError(f"no Cast turns {cur} into {dst}")
            return steps
    # Current -> original: out of the producer's storage (a shrinking Cast first).
    if sfmt != sorig:
        if shrinks:
            cast_here()
        back = with_format(_plain(cur), sorig, sorig)
        add("TransposeD" if {sfmt, sorig} == PERMS_FORMATS else "TransData", back)
        if shrinks and element_type(cur) != b:
            cast_here()
    # Original -> current: Reshape -> TransposeD -> Cast -> TransData.
    target = _plain(dst)
    if sorig != dorig:
        if (sorig, dorig) not in PERMS or len(target.get_shape()) != 4:
            raise ValueError(f"no trans node turns origin format {sorig} into {dorig}")
        perm = PERMS[(sorig, dorig)]
        inv = [0] * 4
        for i, p in enumerate(perm):
            inv[p] = i
        dims = target.get_shape()
        before = TensorType(element_type(cur), [dims[inv[i]] for i in range(4)])
        if before.get_shape() != cur.get_shape():
            _check_count(cur, before)
            add("Reshape", before)
        add("TransposeD", TensorType(element_type(cur), dims))
    elif _plain(cur).get_shape() != target.get_shape():
        _check_count(cur, target)
        add("Reshape", TensorType(element_type(cur), target.get_shape()))
    if element_type(cur) != b and not _widens_later(cur, dst, dfmt, dorig):
        add("Cast", TensorType(b, _plain(cur).get_shape()))
    if dfmt != dorig:
        t = with_format(cur, dfmt, dorig)
        add("TransposeD" if {dfmt, dorig} == PERMS_FORMATS else "TransData", t)
    if element_type(cur) != b:
        add("Cast", dst)
    assert cur == dst, (cur, dst)
    return steps


def _widens_later(cur: TensorType, dst: TensorType, dfmt: str, dorig: str) -> bool:
    """Whether a widening Cast waits until after the TransData (`IsInsertCastFirst` false:
    the TransData moves the narrower elements), possible when both dtypes share C0."""
    if dfmt == dorig:
        return False
    a, b = element_type(cur), element_type(dst)
    widens = (element_nbytes(b) or 0) > (element_nbytes(a) or 0)
    return widens and c0_of(a) == c0_of(b) and dfmt in HEAVY_FORMATS


def _check_count(a: TensorType, b: TensorType) -> None:
    from gedialects.base import element_count

    if element_count(a.get_shape()) != element_count(b.get_shape()):
        raise ValueError(f"no Reshape turns {a} into {b}: the element counts differ")


def trans_name(consumer: Operation, index: int, operand: SSAValue, kind: str, count: int) -> str:
    """A trans node's name, unique in the graph once engine subgraphs merge back and tied to
    the nodes it joins (so a gear branch's nodes carry the branch's postfix): after the
    consumer's input, else the producer's output (an engine boundary's End and PlaceHolder
    are named after their subgraph, not a node), else GE's `trans_<kind>_<n>`."""
    from xdsl.ir import OpResult

    from gedialects.partition import EndOp, PlaceHolderOp

    named = consumer.attributes.get(NODE_NAME)
    if isinstance(named, StringAttr) and not isinstance(consumer, EndOp):
        return f"{named.data}_{kind}_in{index}"
    owner = operand.owner
    named = owner.attributes.get(NODE_NAME) if isinstance(owner, Operation) else None
    if isinstance(named, StringAttr) and not isinstance(owner, PlaceHolderOp):
        assert isinstance(operand, OpResult)
        return f"{named.data}_{kind}_out{operand.index}"
    return f"trans_{kind}_{count}"


def build_step(value: SSAValue, step: Step, origin: str) -> list[Operation]:
    """The op(s) of one step reading `value` (a Reshape comes with its shape Const)."""
    t = value.type
    assert isinstance(t, TensorType)
    if step.kind == "Cast":
        return [CastOp(value, element_type(step.result), result_type=step.result)]
    if step.kind == "TransData":
        return [
            TransDataOp(
                value,
                src_format=_desc(t, origin)[0],
                dst_format=_desc(step.result, origin)[0],
                result_type=step.result,
            )
        ]
    if step.kind == "TransposeD":
        sf, so = _desc(t, origin)
        df, do = _desc(step.result, origin)
        key = (sf, df) if (sf, df) in PERMS else (so, do)
        return [TransposeOp(value, PERMS[key], result_type=step.result)]
    from gedialects.passes.fold_constants import dense_of

    dims = step.result.get_shape()
    shape_t = TensorType(i64, [len(dims)])
    import numpy as np

    shape = ConstOp(
        dense_of(np.asarray(dims, np.int64), cast("TensorType[AnyDenseElement]", shape_t))
    )
    return [shape, ReshapeOp(value, shape, result_type=step.result)]


def insert_trans_nodes(
    consumer: Operation,
    index: int,
    dst: TensorType,
    origin: str,
    taken: set[str],
    placed: bool,
    count: int,
) -> list[Operation]:
    """Inserts the chain from `consumer`'s operand `index` to type `dst` in front of
    `consumer` and rewires the operand; returns the trans nodes (shape Consts left out)."""
    value = consumer.operands[index]
    src = value.type
    assert isinstance(src, TensorType)
    made: list[Operation] = []
    for step in trans_steps(src, dst, origin):
        ops = build_step(value, step, origin)
        node = ops[-1]
        name = trans_name(consumer, index, consumer.operands[index], step.kind, count + len(made))
        if name in taken:  # one output converted twice (two engine boundaries, two steps)
            name = f"{name}_{count + len(made)}"
        taken.add(name)
        node.attributes[NODE_NAME] = StringAttr(name)
        if len(ops) > 1:
            ops[0].attributes[NODE_NAME] = StringAttr(f"{name}_shape")
        if placed:
            node.attributes[ENGINE_NAME] = StringAttr(AICORE_ENGINE)
        Rewriter.insert_op(ops, InsertPoint.before(consumer))
        value = node.results[0]
        made.append(node)
    consumer.operands[index] = value
    return made
