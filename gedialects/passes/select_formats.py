"""`ge-select-formats`: FE's format selection on the AI Core nodes, with TransData insertion."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType, f16, f32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from gedialects.base import (
    AICORE_ENGINE,
    ENGINE_NAME,
    NODE_NAME,
    GEOp,
    block_ops,
    element_type,
    of_class,
    walk_ops,
)
from gedialects.formats import (
    HEAVY_FORMATS,
    FormatAttr,
    c0_of,
    format_of,
    origin_type,
    with_format,
)
from gedialects.graph import (
    BatchMatMulV2Op,
    ConstOp,
    Conv2DOp,
    FusedConv2DOp,
    FusedMatMulOp,
    GraphOp,
    MatMulOp,
    TransDataOp,
    TransposeOp,
)
from gedialects.passes.analysis.graph_view import GRAPH_CALLERS, graphs_called_by
from gedialects.passes.partition.place_engines import walk_graphs

if TYPE_CHECKING:
    from xdsl.dialects.builtin import AnyDenseElement

ALLOW_NZ = "allow_nz"
"""GE's MatMul attribute: the op may take and give FRACTAL_NZ (`IsAllowNzMatmul`)."""

NZ_TYPES = frozenset({MatMulOp.GE_TYPE, BatchMatMulV2Op.GE_TYPE, FusedMatMulOp.GE_TYPE})
"""GE's `IsAllowNzMatmul` types (MatMul, MatMulV2, BatchMatMul, BatchMatMulV2), with the
fused MatMul of `ge-fuse`, which runs as its MatMul."""
CONV_TYPES = frozenset({Conv2DOp.GE_TYPE, FusedConv2DOp.GE_TYPE})
BN_TYPE = "BatchNorm"

PRECISION_MODES = ("allow_fp32_to_fp16", "force_fp16")
"""GE's `precision_mode` values modelled (`FeOpDtypeJudge`): `allow_fp32_to_fp16` keeps
float32 where the op supports it (every AI Core op here does), `force_fp16` runs the heavy
ops in float16 where they take float32."""

Placement = tuple[str, str]
"""(storage format, origin format) of a tensor."""


def _static(t: Attribute) -> bool:
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def _on_aicore(op: Operation, placed: bool) -> bool:
    """Whether `op` runs on AI Core: its `_engine_name`, or (before placement) the engine
    `ge-place-engines` would give it."""
    engine = op.attributes.get(ENGINE_NAME)
    if of_class(engine, StringAttr):
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
    nz_type = op.GE_TYPE in NZ_TYPES
    if nz_type:  # tested first: most MatMuls are not `allow_nz` (no ports to read)
        nz = op.attributes.get(ALLOW_NZ)
        if not (allow_nz or (isinstance(nz, IntegerAttr) and nz.value.data != 0)):
            return None
    ports = dict(op.ports())
    if not all(_static(ports[p]) for p in op.HEAVY_PORTS if p in ports):
        return None
    if nz_type:
        return {p: (f, "ND") for p, f in op.HEAVY_PORTS.items()}
    data_format = op.properties.get("data_format")
    layout = data_format.data if isinstance(data_format, StringAttr) else "NCHW"
    if layout not in ("NCHW", "NHWC") or (op.GE_TYPE in CONV_TYPES and layout != "NCHW"):
        return None  # FRACTAL_Z of an HWCN filter is not modelled
    ranks = {len(tensor_dims(ports[p])) for p in op.HEAVY_PORTS if p in ports}
    if ranks != {4} and not (op.GE_TYPE == BN_TYPE and layout == "NCHW" and ranks <= {2, 3}):
        return None
    return {p: (f, layout) for p, f in op.HEAVY_PORTS.items()}


def expanded_dims(dims: tuple[int, ...]) -> tuple[int, ...]:
    """A channels-first [N, C] or [N, C, L] tensor as the 4-D NCHW one FE's 5HD holds: [N, C,
    1, 1] / [N, C, L, 1] (the reshape type `NC` / `NCH` padding the missing H, W with 1)."""
    return (*dims, *(1,) * (4 - len(dims)))


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
    and FE's trans nodes on every edge whose formats, dtypes or shapes differ.

    Heavy ops seed their ports' formats (Conv2D `x`/`y` NC1HWC0 and `filter` FRACTAL_Z,
    MaxPoolV3/AvgPoolV2/BatchNorm `x`/`y` NC1HWC0, MatMul/BatchMatMulV2 with `allow_nz`
    FRACTAL_NZ); `HeavyFormatPropagation::PropagateHeavyFormat` carries them depth-first
    forward and backward through format-agnostic AI Core nodes (elementwise ops of one shape)
    and stops at the next heavy op, at other nodes and at NetOutput, so graph outputs are
    back in their origin format. `InsertTransNodesForAllGraph` then puts on every edge whose
    producer and consumer differ the chain of `gedialects.passes.trans_nodes`, in GE's order
    Reshape -> TransposeD -> Cast -> TransData (and back TransData -> Cast -> TransposeD ->
    Reshape): a TransData for a format change, a Cast where the consumer runs in another
    dtype (`precision-mode=force_fp16`, GE's `precision_mode` through `FeOpDtypeJudge`: the
    heavy ops in float16), a Reshape where a BatchNorm on [N, C] or [N, C, L] runs in 5HD
    on [N, C, 1, 1] / [N, C, L, 1], a TransposeD (not a TransData) between NCHW and NHWC,
    e.g. from an input the user stores NHWC (argument attribute `storage_format`, GE's Data
    `storage_format`). Trans nodes of a weight are folded into the Const
    (`transdata_kernel.cc`, ConstantFolding), so weights are stored in their heavy format
    and dtype at compile time. Nodes off AI Core (by `_engine_name`, or by the engine
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
    `allow_nz = true`), `fold-weights` (fold Const -> trans nodes, default true), `subgraphs`
    (cross subgraph boundaries, default true), `precision-mode` (`allow_fp32_to_fp16`, the
    default: float32 stays where the op takes it, which every AI Core op here does;
    `force_fp16`: heavy ops taking float32 run in float16; the format-agnostic ops around
    them keep their dtype). Not modelled: GE's other precision modes, `_reshape_type`
    attributes other than the channels-first padding, the storage format of a subgraph's or
    an engine subgraph's input (`storage_format` is read on the graph's own arguments, so
    `ge-compile` honours it only after a `ge-select-formats` on the root graph).
    """

    name = "ge-select-formats"

    allow_nz: bool = False
    fold_weights: bool = True
    subgraphs: bool = True
    precision_mode: str = "allow_fp32_to_fp16"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.precision_mode not in PRECISION_MODES:
            from xdsl.utils.exceptions import PassFailedException

            raise PassFailedException(
                f"ge-select-formats: unknown precision-mode '{self.precision_mode}' "
                f"(one of {', '.join(PRECISION_MODES)})"
            )
        for graph in walk_graphs(op):
            select_formats(graph, self.allow_nz, self.fold_weights, self.precision_mode)
        if self.subgraphs:
            cross_subgraph_boundaries(op)


def select_formats(
    graph: GraphOp,
    allow_nz: bool = False,
    fold_weights: bool = True,
    precision_mode: str = "allow_fp32_to_fp16",
) -> int:
    """Selects formats (and, by `precision_mode`, dtypes) in `graph` and inserts the trans
    nodes; returns the count of trans nodes added (weights' folded ones included)."""
    ops = block_ops(graph.body.block)
    placed = any(ENGINE_NAME in o.attributes for o in ops)
    aicore = {o for o in ops if _on_aicore(o, placed)}
    have: dict[SSAValue, Placement] = {}  # storage format chosen for a value
    want: dict[tuple[Operation, int], Placement] = {}  # format an operand is read in
    types: dict[SSAValue | tuple[Operation, int], TensorType] = {}  # exact types, where the
    # dtype (precision mode) or origin shape (a 4-D view for 5HD) changes too
    heavy: set[Operation] = set()
    stack: list[tuple[SSAValue, Placement]] = []
    _user_storage_formats(graph)
    fixed = _stored_formats(graph, ops, have, want)
    for o in ops:
        if o in fixed:
            continue
        seed = heavy_seed(o, allow_nz) if o in aicore else None
        if seed is None:
            continue
        heavy.add(o)
        assert isinstance(o, GEOp)
        fp16 = precision_mode == "force_fp16" and any(
            element_type(t) == f32 for t in (*o.operand_types, *o.result_types)
        )
        names = [n for n, _ in o.ports()]
        for i, operand in enumerate(o.operands):
            placement = seed.get(names[i])
            t = _seeded_type(operand.type, placement, fp16)
            if t is not None:
                types[(o, i)] = t
            if placement is not None:
                want[(o, i)] = placement
                stack.append((operand, placement))
        for j, result in enumerate(o.results):
            placement = seed.get(names[len(o.operands) + j])
            t = _seeded_type(result.type, placement, fp16)
            if t is not None:
                types[result] = t
            if placement is not None:
                have[result] = placement
                stack.append((result, placement))
    _propagate(stack, have, want, heavy, aicore)
    if not have and not want and not types:
        return 0  # no value stored in a format (`_stored_formats` names them all), none chosen
    return apply_formats(graph, have, want, placed, fold_weights, types)


def _seeded_type(t: Attribute, placement: Placement | None, fp16: bool) -> TensorType | None:
    """The exact type a heavy op's port takes when more than its format changes: float16
    under `force_fp16`, the 4-D view of a rank-2/3 BatchNorm tensor; None otherwise."""
    plain = origin_type(t)
    if not isinstance(plain, TensorType):
        return None
    elem = f16 if fp16 and plain.element_type == f32 else plain.element_type
    dims = tuple(plain.get_shape())
    if placement is not None and len(dims) in (2, 3) and placement[0] == "NC1HWC0":
        dims = expanded_dims(dims)
    if elem == plain.element_type and dims == tuple(plain.get_shape()):
        return None
    new = TensorType(elem, dims)
    if placement is None:
        return new
    stored = with_format(new, *placement)
    assert isinstance(stored, TensorType)
    return stored


STORAGE_FORMAT = "storage_format"
"""GE's Data attribute (`storage_format`, read by `PrepareRunningFormatRefiner`) as a graph
argument attribute: the user feeds that input in this storage format (NHWC or NCHW) of its
origin tensor (the other of the two)."""


def _user_storage_formats(graph: GraphOp) -> None:
    """Stores each input with a `storage_format` argument attribute in that format (its
    readers get trans nodes from it) and drops the attribute."""
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr

    if graph.arg_attrs is None:
        return
    dicts = list(graph.arg_attrs.data)
    changed = False
    for i, attrs in enumerate(dicts):
        fmt = attrs.data.get(STORAGE_FORMAT)
        if fmt is None:
            continue
        arg = graph.body.block.args[i]
        name = fmt.data if isinstance(fmt, StringAttr) else str(fmt)
        origin = {"NHWC": "NCHW", "NCHW": "NHWC"}.get(name)
        if origin is None or format_of(arg.type) is not None or len(tensor_dims(arg.type)) != 4:
            from xdsl.utils.exceptions import PassFailedException

            raise PassFailedException(
                f"@{graph.sym_name.data} input {i}: {STORAGE_FORMAT} {fmt} of {arg.type}: a user "
                "storage format is NHWC or NCHW of a rank-4 tensor in the other one"
            )
        Rewriter.replace_value_with_new_type(arg, with_format(arg.type, name, origin))
        dicts[i] = DictionaryAttr({k: v for k, v in attrs.data.items() if k != STORAGE_FORMAT})
        changed = True
    if changed:
        graph.arg_attrs = ArrayAttr(dicts)
        _retype_graph(graph)


def _stored_formats(
    graph: GraphOp,
    ops: list[Operation],
    have: dict[SSAValue, Placement],
    want: dict[tuple[Operation, int], Placement],
) -> set[Operation]:
    """Records the formats `graph` (whose nodes are `ops`) already stores values in (a graph
    selected before, or written in storage formats) and returns the ops that touch them:
    those keep their formats, so the pass run twice changes nothing the second time."""
    fixed: set[Operation] = set()
    values = [*graph.body.block.args, *(r for o in ops for r in o.results)]
    for value in values:
        t = value.type
        # `format_of`, its ABC tests made once per class (150k values at 100k bench nodes)
        if not (of_class(t, TensorType) and of_class(t.encoding, FormatAttr)):
            continue
        enc = cast(FormatAttr, t.encoding)
        have[value] = (enc.fmt, enc.origin)
        if enc.fmt not in HEAVY_FORMATS and not isinstance(value.owner, Operation):
            # a user storage format on an input (GE `storage_format`): its readers are
            # selected as usual and trans nodes turn it into what they take; the trans
            # nodes already there keep reading it
            for use in value.uses:
                if isinstance(use.operation, TransDataOp | TransposeOp):
                    want[(use.operation, use.index)] = (enc.fmt, enc.origin)
                    fixed.add(use.operation)
            continue
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
    types: Mapping[SSAValue | tuple[Operation, int], TensorType] | None = None,
) -> int:
    """Stores each value of `have` in its format and reads each operand of `want` in its
    one (or, where `types` names one, in exactly that type: another dtype or origin shape),
    with the trans nodes on every edge where the two differ (FE's
    `InsertTransNodesForAllGraph`, after a topological order: the block's; the chain of
    `gedialects.passes.trans_nodes`); returns the trans node count. A value or operand not
    named is in its origin format."""
    ops = list(graph.body.ops)
    exact = dict(types or {})
    read = {  # what each operand is read as by default: its origin tensor
        (o, i): cast(TensorType, origin_type(v.type))
        for o in ops
        for i, v in enumerate(o.operands)
        if isinstance(origin_type(v.type), TensorType)
    }
    for value, p in have.items():
        t = exact.pop(value, None) or with_format(value.type, *p)
        if t != value.type:
            Rewriter.replace_value_with_new_type(value, t)
    for key, t in list(exact.items()):
        if isinstance(key, SSAValue):  # an exact type without a format (a Cast result)
            if t != key.type:
                Rewriter.replace_value_with_new_type(key, t)
            del exact[key]
    exact_reads = cast("dict[tuple[Operation, int], TensorType]", exact)
    return _insert_trans_data(ops, read, want, exact_reads, placed, fold_weights)


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


def _insert_trans_data(
    ops: Iterable[Operation],
    read: dict[tuple[Operation, int], TensorType],
    want: dict[tuple[Operation, int], Placement],
    exact: dict[tuple[Operation, int], TensorType],
    placed: bool,
    fold_weights: bool,
) -> int:
    from gedialects.passes.trans_nodes import insert_trans_nodes

    count = 0
    taken: set[str] = set()
    for o in ops:
        for i, operand in enumerate(o.operands):
            src = operand.type
            plain = read.get((o, i))
            if not isinstance(src, TensorType) or plain is None:
                continue
            dst = exact.get((o, i))
            enc = format_of(src)
            if dst is None:
                p = want.get((o, i))
                dst = cast(TensorType, plain if p is None else with_format(plain, *p))
            if dst == src:
                continue
            origin = enc.origin if enc else (want.get((o, i)) or ("ND", _origin_of(dst)))[1]
            made = insert_trans_nodes(o, i, dst, origin, taken, placed, count)
            count += len(made)
            if fold_weights and isinstance(operand.owner, ConstOp):
                for node in made:
                    fold_const_trans(node)
    return count


def _origin_of(t: TensorType) -> str:
    enc = format_of(t)
    return "ND" if enc is None else enc.origin


def fold_const_trans(trans: Operation) -> None:
    """Const -> trans node (TransData, Cast, TransposeD, Reshape with a Const shape) becomes
    one Const holding the result (GE's host TransData kernel on weights, ConstantFolding on
    the others); the original Consts go when nothing else reads them. A Const named `w`
    becomes `w_<format>` (`w_FRACTAL_Z`), or `w_<type>` for a Cast (`w_Cast`), ...."""
    import numpy as np

    from gedialects.interpreters.kernels import run_kernel
    from gedialects.passes.fold_constants import dense_of
    from gedialects.tensors import numpy_from_dense

    consts = [v.owner for v in trans.operands]
    if not consts or not all(isinstance(c, ConstOp) for c in consts):
        return
    consts = cast("list[ConstOp]", consts)
    assert isinstance(trans, GEOp)
    (packed,) = run_kernel(
        trans.GE_TYPE,
        [np.asarray(numpy_from_dense(c.value)) for c in consts],
        trans.properties,
        [trans.results[0].type],
    )
    rtype = trans.results[0].type
    assert isinstance(rtype, TensorType)
    const = consts[0]
    folded = ConstOp(dense_of(np.asarray(packed), cast("TensorType[AnyDenseElement]", rtype)))
    folded.attributes.update(const.attributes)
    name = const.attributes.get(NODE_NAME)
    enc = format_of(rtype)
    if isinstance(name, StringAttr):
        if isinstance(trans, TransDataOp) and enc is not None:
            folded.attributes[NODE_NAME] = StringAttr(f"{name.data}_{enc.fmt}")
        elif not isinstance(trans, TransDataOp):
            folded.attributes[NODE_NAME] = StringAttr(f"{name.data}_{trans.GE_TYPE}")
    Rewriter.replace_op(trans, folded)
    for c in dict.fromkeys(consts):
        if not c.results[0].uses:
            Rewriter.erase_op(c)


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
    # `walk_ops` and `of_class`: a generator walk with ABC tests per op was a fifth of
    # ge-optimize-subgraphs at 100k bench nodes (12.7k subgraphs, 75k nodes).
    for op in walk_ops(module):
        if not of_class(op, GRAPH_CALLERS):
            continue
        if isinstance(op, PartitionedCallOp):
            names, offset = op.called_graphs(), 0
        elif isinstance(op, ControlFlowOp) and not op.carried():
            names = op.called_graphs()
            offset = len(op.operands) - len(op.subgraph_args(0))
            count = len(op.operands) - offset
            if any(len(op.subgraph_args(k)) != count for k in range(len(names))):
                continue
        else:
            for name in graphs_called_by(op):
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
