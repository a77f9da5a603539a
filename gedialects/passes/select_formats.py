"""`ge-select-formats`: FE's format selection on the AI Core nodes, with TransData insertion."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gedialects.base import AICORE_ENGINE, ENGINE_NAME, NODE_NAME, GEOp
from gedialects.formats import c0_of, format_of, origin_type, with_format
from gedialects.graph import (
    BatchMatMulV2Op,
    ConstOp,
    Conv2DOp,
    FusedConv2DOp,
    FusedMatMulOp,
    GraphOp,
    MatMulOp,
    TransDataOp,
)
from gedialects.partition import EndOp, PlaceHolderOp

if TYPE_CHECKING:
    from xdsl.dialects.builtin import AnyDenseElement

ALLOW_NZ = "allow_nz"
"""GE's MatMul attribute: the op may take and give FRACTAL_NZ (`IsAllowNzMatmul`)."""

NZ_TYPES = frozenset({MatMulOp.GE_TYPE, BatchMatMulV2Op.GE_TYPE, FusedMatMulOp.GE_TYPE})
"""GE's `IsAllowNzMatmul` types (MatMul, MatMulV2, BatchMatMul, BatchMatMulV2), with the
fused MatMul of `ge-fuse`, which runs as its MatMul."""
CONV_TYPES = frozenset({Conv2DOp.GE_TYPE, FusedConv2DOp.GE_TYPE})

Placement = tuple[str, str]
"""(storage format, origin format) of a tensor."""


def _static(t: Attribute) -> bool:
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def _on_aicore(op: Operation, placed: bool) -> bool:
    """Whether `op` runs on AI Core: its `_engine_name`, or (before placement) the engine
    `ge-place-engines` would give it."""
    engine = op.attributes.get(ENGINE_NAME)
    if isinstance(engine, StringAttr):
        return engine.data == AICORE_ENGINE
    if placed or not isinstance(op, GEOp):
        return False
    from xdsl.utils.exceptions import PassFailedException

    from gedialects.passes.partition.place_engines import select_engine

    try:
        return select_engine(op, frozenset()) == AICORE_ENGINE
    except PassFailedException:
        return False


def heavy_seed(op: Operation, allow_nz: bool) -> dict[str, Placement] | None:
    """The heavy formats FE's op info gives `op`'s ports (Conv2D x/y NC1HWC0 and filter
    FRACTAL_Z, pooling and BatchNorm x/y NC1HWC0, MatMul with `allow_nz` FRACTAL_NZ), or None
    when the op is not heavy here (another layout, dynamic shapes)."""
    if not isinstance(op, GEOp) or not op.HEAVY_PORTS:
        return None
    ports = dict(op.ports())
    if not all(_static(ports[p]) for p in op.HEAVY_PORTS if p in ports):
        return None
    if op.GE_TYPE in NZ_TYPES:
        nz = op.attributes.get(ALLOW_NZ)
        if not (allow_nz or (isinstance(nz, IntegerAttr) and nz.value.data != 0)):
            return None
        return {p: (f, "ND") for p, f in op.HEAVY_PORTS.items()}
    data_format = op.properties.get("data_format")
    layout = data_format.data if isinstance(data_format, StringAttr) else "NCHW"
    if layout not in ("NCHW", "NHWC") or (op.GE_TYPE in CONV_TYPES and layout != "NCHW"):
        return None  # FRACTAL_Z of an HWCN filter is not modelled
    if any(len(tensor_dims(ports[p])) != 4 for p in op.HEAVY_PORTS if p in ports):
        return None
    return {p: (f, layout) for p, f in op.HEAVY_PORTS.items()}


def tensor_dims(t: Attribute) -> tuple[int, ...]:
    plain = origin_type(t)
    return tuple(plain.get_shape()) if isinstance(plain, TensorType) else ()


def _agnostic(op: Operation, placement: Placement) -> bool:
    """Whether the heavy format `placement` passes through `op` (GE `_format_agnostic`): an
    elementwise op whose tensors are one shape (no broadcast) and one C0, and whose result
    can be stored that way."""
    if not isinstance(op, GEOp) or not op.FORMAT_AGNOSTIC or len(op.results) != 1:
        return False
    shape = tensor_dims(op.results[0].type)
    if not _static(op.results[0].type):
        return False
    c0s = set()
    for t in (*op.operand_types, op.results[0].type):
        if not isinstance(t, TensorType) or tensor_dims(t) != shape:
            return False
        c0s.add(c0_of(t.element_type))
    if len(c0s) != 1:
        return False
    try:
        with_format(op.results[0].type, *placement)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class SelectFormatsPass(ModulePass):
    """FE's format selection on AI Core nodes (`FEGraphOptimizer::
    OptimizeOriginalGraphJudgeFormatInsert`): heavy formats from the heavy ops, propagated,
    and TransData on every edge whose formats differ.

    Heavy ops seed their ports' formats (Conv2D `x`/`y` NC1HWC0 and `filter` FRACTAL_Z,
    MaxPoolV3/AvgPoolV2/BatchNorm `x`/`y` NC1HWC0, MatMul/BatchMatMulV2 with `allow_nz`
    FRACTAL_NZ); `HeavyFormatPropagation::PropagateHeavyFormat` carries them depth-first
    forward and backward through format-agnostic AI Core nodes (elementwise ops of one shape)
    and stops at the next heavy op, at other nodes and at NetOutput, so graph outputs are
    back in their origin format. `InsertTransNodesForAllGraph` then puts a `graph.trans_data`
    on every edge whose producer and consumer formats differ, and a Const -> TransData on a
    weight is folded into the Const (`transdata_kernel.cc`), so weights are stored in their
    heavy format at compile time. Nodes off AI Core (by `_engine_name`, or by the engine
    `ge-place-engines` would choose when the graph is not placed) keep origin formats. Each
    graph is selected on its own, its Data and NetOutput in origin formats, so a TransData
    stands on each side of a subgraph boundary; then, as FE's propagation crosses a
    subgraph's Data/NetOutput through the function node, a pair that meets there (a heavy
    tensor turned back only to be passed into a PartitionedCall / If / Case whose Data in
    every branch turns it heavy again, or the same out of their NetOutputs) goes and the
    subgraph's input or output takes the heavy format. Only for subgraphs called from one
    place; a loop's (While, For) boundaries keep their TransData (cond, body input and body
    output would have to agree). Values already stored in a format keep it (a selected graph
    is left as it is). Options: `allow-nz` (every MatMul as if it had
    `allow_nz = true`), `fold-weights` (fold Const -> TransData, default true), `subgraphs`
    (cross subgraph boundaries, default true).
    """

    name = "ge-select-formats"

    allow_nz: bool = False
    fold_weights: bool = True
    subgraphs: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in op.walk():
            if isinstance(graph, GraphOp):
                select_formats(graph, self.allow_nz, self.fold_weights)
        if self.subgraphs:
            cross_subgraph_boundaries(op)


def select_formats(graph: GraphOp, allow_nz: bool = False, fold_weights: bool = True) -> int:
    """Selects formats in `graph` and inserts TransData; returns the TransData count added."""
    ops = list(graph.body.ops)
    placed = any(ENGINE_NAME in o.attributes for o in ops)
    aicore = {o for o in ops if _on_aicore(o, placed)}
    have: dict[SSAValue, Placement] = {}  # storage format chosen for a value
    want: dict[tuple[Operation, int], Placement] = {}  # format an operand is read in
    heavy: set[Operation] = set()
    stack: list[tuple[SSAValue, Placement]] = []
    fixed = _stored_formats(graph, have, want)
    for o in ops:
        if o in fixed:
            continue
        seed = heavy_seed(o, allow_nz) if o in aicore else None
        if seed is None:
            continue
        heavy.add(o)
        assert isinstance(o, GEOp)
        names = [n for n, _ in o.ports()]
        for i, operand in enumerate(o.operands):
            if names[i] in seed:
                want[(o, i)] = seed[names[i]]
                stack.append((operand, seed[names[i]]))
        for j, result in enumerate(o.results):
            name = names[len(o.operands) + j]
            if name in seed:
                have[result] = seed[name]
                stack.append((result, seed[name]))
    _propagate(stack, have, want, heavy, aicore)
    return apply_formats(graph, have, want, placed, fold_weights)


def _stored_formats(
    graph: GraphOp,
    have: dict[SSAValue, Placement],
    want: dict[tuple[Operation, int], Placement],
) -> set[Operation]:
    """Records the formats `graph` already stores values in (a graph selected before, or
    written in storage formats) and returns the ops that touch them: those keep their
    formats, so the pass run twice changes nothing the second time."""
    fixed: set[Operation] = set()
    values = [*graph.body.block.args, *(r for o in graph.body.ops for r in o.results)]
    for value in values:
        enc = format_of(value.type)
        if enc is None:
            continue
        have[value] = (enc.fmt, enc.origin)
        if isinstance(value.owner, Operation):
            fixed.add(value.owner)
        for use in value.uses:
            want[(use.operation, use.index)] = (enc.fmt, enc.origin)
            fixed.add(use.operation)
    return fixed


def apply_formats(
    graph: GraphOp,
    have: dict[SSAValue, Placement],
    want: dict[tuple[Operation, int], Placement],
    placed: bool = False,
    fold_weights: bool = True,
) -> int:
    """Stores each value of `have` in its format and reads each operand of `want` in its
    one, with a TransData on every edge where the two differ (FE's
    `InsertTransNodesForAllGraph`, after a topological order: the block's); returns the
    TransData count. A value or operand not named is in its origin format."""
    ops = list(graph.body.ops)
    stored: dict[SSAValue, Placement] = {}
    for value, p in have.items():
        t = with_format(value.type, *p)
        stored[value if t == value.type else Rewriter.replace_value_with_new_type(value, t)] = p
    return _insert_trans_data(graph, ops, stored, want, placed, fold_weights)


def _propagate(
    stack: list[tuple[SSAValue, Placement]],
    have: dict[SSAValue, Placement],
    want: dict[tuple[Operation, int], Placement],
    heavy: set[Operation],
    aicore: set[Operation],
) -> None:
    """Depth-first through agnostic nodes, both ways; the first format to reach a node wins."""

    def adopt(node: Operation, placement: Placement) -> None:
        result = node.results[0]
        have[result] = placement
        for i, operand in enumerate(node.operands):
            want[(node, i)] = placement
            stack.append((operand, placement))
        stack.append((result, placement))

    def open_node(node: Operation, placement: Placement) -> bool:
        return (
            node in aicore
            and node not in heavy
            and len(node.results) > 0
            and node.results[0] not in have
            and _agnostic(node, placement)
        )

    while stack:
        value, placement = stack.pop()
        if have.get(value) == placement:  # forward: consumers of a value stored this way
            for use in list(value.uses):
                if open_node(use.operation, placement):
                    adopt(use.operation, placement)
        producer = value.owner
        if isinstance(producer, Operation) and open_node(producer, placement):
            adopt(producer, placement)  # backward: the producer of a value read this way


def _trans_name(consumer: Operation, index: int, operand: SSAValue, count: int) -> str:
    """A TransData's node name, unique in the graph once engine subgraphs merge back and
    tied to the nodes it joins (so a gear branch's TransData carry the branch's postfix):
    after the consumer's input, else the producer's output (an engine boundary's End and
    PlaceHolder are named after their subgraph, not a node), else GE's `trans_TransData_<n>`."""
    named = consumer.attributes.get(NODE_NAME)
    if isinstance(named, StringAttr) and not isinstance(consumer, EndOp):
        return f"{named.data}_TransData_in{index}"
    owner = operand.owner
    named = owner.attributes.get(NODE_NAME) if isinstance(owner, Operation) else None
    if isinstance(named, StringAttr) and not isinstance(owner, PlaceHolderOp):
        assert isinstance(operand, OpResult)
        return f"{named.data}_TransData_out{operand.index}"
    return f"trans_TransData_{count}"


def _insert_trans_data(
    graph: GraphOp,
    ops: Iterable[Operation],
    have: dict[SSAValue, Placement],
    want: dict[tuple[Operation, int], Placement],
    placed: bool,
    fold_weights: bool,
) -> int:
    count = 0
    taken: set[str] = set()
    for o in ops:
        for i, operand in enumerate(o.operands):
            src = have.get(operand)
            dst = want.get((o, i))
            src_fmt = src[0] if src else None
            dst_fmt = dst[0] if dst else None
            if src_fmt == dst_fmt:
                continue
            origin = (src or dst or ("ND", "ND"))[1]
            plain = origin_type(operand.type)
            if not isinstance(plain, TensorType):
                continue
            count += 1
            trans = TransDataOp(
                operand,
                src_format=src_fmt or origin,
                dst_format=dst_fmt or origin,
                result_type=with_format(plain, dst_fmt or origin, origin),
            )
            name = _trans_name(o, i, operand, count - 1)
            if name in taken:  # one output converted for two engine boundaries
                name = f"{name}_{count - 1}"
            taken.add(name)
            trans.attributes[NODE_NAME] = StringAttr(name)
            if placed:
                trans.attributes[ENGINE_NAME] = StringAttr(AICORE_ENGINE)
            Rewriter.insert_op(trans, InsertPoint.before(o))
            o.operands[i] = trans.dst
            if fold_weights and isinstance(operand.owner, ConstOp):
                fold_const_trans(trans)
    return count


def fold_const_trans(trans: TransDataOp) -> None:
    """Const -> TransData becomes one Const holding the transferred bytes (GE's host
    TransData kernel on weights); the original Const goes when nothing else reads it."""
    import numpy as np

    from gedialects.interpreters.kernels import run_kernel
    from gedialects.passes.fold_constants import dense_of
    from gedialects.tensors import numpy_from_dense

    const = trans.src.owner
    assert isinstance(const, ConstOp)
    (packed,) = run_kernel(
        "TransData", [np.asarray(numpy_from_dense(const.value))], trans.properties, [trans.dst.type]
    )
    rtype = trans.dst.type
    assert isinstance(rtype, TensorType)
    folded = ConstOp(dense_of(packed, cast("TensorType[AnyDenseElement]", rtype)))
    folded.attributes.update(const.attributes)
    name = const.attributes.get(NODE_NAME)
    enc = format_of(rtype)
    if isinstance(name, StringAttr) and enc is not None:
        folded.attributes[NODE_NAME] = StringAttr(f"{name.data}_{enc.fmt}")
    Rewriter.replace_op(trans, folded)
    if not const.results[0].uses:
        Rewriter.erase_op(const)


# --------------------------------------------------------------------------------------------
# Subgraph boundaries: FE's propagation crosses Data / NetOutput through the function node
# --------------------------------------------------------------------------------------------


def _calls(module: ModuleOp) -> list[tuple[Operation, list[GraphOp], int]]:
    """Each PartitionedCall / If / Case with its subgraphs (each called from there only) and
    the operand index of subgraph input 0; loops (While, For) are left out: their carried
    values' formats would have to agree across cond, body input and body output."""
    from gedialects.graph.control import ControlFlowOp
    from gedialects.partition import PartitionedCallOp

    graphs = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    callers: dict[str, int] = {}
    found: list[tuple[Operation, list[str], int]] = []
    for op in module.walk():
        if isinstance(op, PartitionedCallOp):
            names, offset = op.called_graphs(), 0
        elif isinstance(op, ControlFlowOp) and not op.carried():
            names = op.called_graphs()
            offset = len(op.operands) - len(op.subgraph_args(0))
            count = len(op.operands) - offset
            if any(len(op.subgraph_args(k)) != count for k in range(len(names))):
                continue
        else:
            for name in getattr(op, "called_graphs", lambda: [])():
                callers[name] = callers.get(name, 0) + 2  # a loop's: never crossed
            continue
        for name in names:
            callers[name] = callers.get(name, 0) + 1
        found.append((op, names, offset))
    return [
        (op, [graphs[n] for n in names], offset)
        for op, names, offset in found
        if names and all(n in graphs and callers[n] == 1 for n in names)
    ]


def _only_trans_data_to(value: SSAValue, t: Attribute) -> list[TransDataOp] | None:
    """The TransData reading `value`, when they are all its uses and all give type `t`."""
    users = [use.operation for use in value.uses]
    if users and all(isinstance(u, TransDataOp) and u.dst.type == t for u in users):
        return cast("list[TransDataOp]", users)
    return None


def _heavy_source(value: SSAValue) -> SSAValue | None:
    """The storage-format tensor `value` is the origin-format copy of (a TransData back)."""
    t = value.owner
    if isinstance(t, TransDataOp) and format_of(t.src.type) is not None:
        return t.src if format_of(value.type) is None else None
    return None


def _retype_graph(graph: GraphOp) -> None:
    from xdsl.dialects.builtin import FunctionType

    out = graph.body.block.last_op
    outputs = out.operand_types if out is not None else ()
    graph.properties["function_type"] = FunctionType.from_lists(graph.body.block.arg_types, outputs)


def cross_subgraph_boundaries(module: ModuleOp) -> int:
    """Removes TransData pairs that meet at a subgraph boundary: a heavy tensor turned back to
    its origin format only to be passed into a subgraph whose Data turns it heavy again (or
    out of a subgraph's NetOutput into readers that do the same), so the format propagates
    through the function node; returns the TransData removed."""
    removed = 0
    for call, graphs, offset in _calls(module):
        for i in range(len(call.operands) - offset):
            source = _heavy_source(call.operands[offset + i])
            if source is None:
                continue
            inner = [_only_trans_data_to(g.body.block.args[i], source.type) for g in graphs]
            if any(u is None for u in inner):
                continue
            for g, users in zip(graphs, inner, strict=True):
                arg = Rewriter.replace_value_with_new_type(g.body.block.args[i], source.type)
                for u in users or ():
                    u.dst.replace_all_uses_with(arg)
                    Rewriter.erase_op(u)
                    removed += 1
                _retype_graph(g)
            back = call.operands[offset + i].owner
            call.operands[offset + i] = source
            if isinstance(back, TransDataOp) and not back.dst.uses:
                Rewriter.erase_op(back)
                removed += 1
        for j, result in enumerate(list(call.results)):
            outs = [g.body.block.last_op for g in graphs]
            sources = [_heavy_source(o.operands[j]) if o is not None else None for o in outs]
            if any(s is None for s in sources) or len({s.type for s in sources if s}) != 1:
                continue
            heavy_type = cast(SSAValue, sources[0]).type
            readers = _only_trans_data_to(result, heavy_type)
            if readers is None:
                continue
            for g, out, src in zip(graphs, outs, sources, strict=True):
                assert out is not None and src is not None
                back = out.operands[j].owner
                out.operands[j] = src
                if isinstance(back, TransDataOp) and not back.dst.uses:
                    Rewriter.erase_op(back)
                    removed += 1
                _retype_graph(g)
            new = Rewriter.replace_value_with_new_type(call.results[j], heavy_type)
            for u in readers:
                u.dst.replace_all_uses_with(new)
                Rewriter.erase_op(u)
                removed += 1
    return removed
