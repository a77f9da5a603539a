"""ONNX converters of control flow: If -> `graph.if`, Loop and Scan -> `graph.while`.

If follows GE's ONNX adapter (`if_subgraph_adapter.cc`): the outer-scope names either branch
reads (at any depth) become extra inputs of the If and of both branches, in sorted order;
branch input d has `_parent_node_index` d+1. The cond (a one-element bool tensor) is reshaped
to a scalar, since GE's truthiness counts a non-scalar as true when it has elements.

GE has no Loop or Scan plugin; both become a While (docs/onnx.md, "Control flow"):

- Loop(M, cond, v...) carries `[iter (i64), cond (i1), M (i64, when given), v..., acc...,
  captured...]`. The cond graph is `cond && iter < M` (either part when only one is given,
  `true` when neither: ONNX's infinite loop, stopped by the interpreter's loop bound). The body
  runs the ONNX body on (iter, cond, v..., captured...) and gives `iter + 1`, its cond (or the
  carried one when Loop has no cond input: ONNX ignores the body's then), the v', each scan
  output appended to its accumulator (`Concat(acc, Unsqueeze(s, 0))`, starting from an empty
  `[0, ...s]` constant) and the captured values unchanged.
- Scan(init..., xs...) carries `[i (i64), T (i64), state..., acc..., xs..., captured...]`
  with T the length of the first scan input on its axis; the body takes element i of each
  scan input (`T-1-i` when reversed) and appends (or, reversed, prepends) each scan output on
  its output axis.
- Scan-8 (batch axis, `sequence_lens`) becomes an ONNX Loop over the batch around a Scan-9
  on `x[b][:len[b]]`, converted as above (`scan8`).

The carried types are GE's While fixed point: the body is built from the initial types and
rebuilt with the join of what it takes and gives until they agree (a growing accumulator is
`?` on its stacking axis). A scan output needs a known rank per iteration (`Stacker`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import onnx
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from gedialects.base import NODE_NAME, PARENT_NODE_INDEX, element_type
from gedialects.frontend.onnx.importer import SCAN8_DOMAIN, tensor_type
from gedialects.frontend.onnx.ops.array import one_element_scalar
from gedialects.frontend.onnx.registry import ImportState, NodeContext, Outputs, converter
from gedialects.graph import ConstOp, GraphOp, NetOutputOp
from gedialects.graph.array import ConcatDOp, ShapeOp, UnsqueezeV3Op
from gedialects.graph.control import IfOp, WhileOp, join_types
from gedialects.graph.elementwise import AddOp, SubOp
from gedialects.graph.indexing import GatherV2DOp
from gedialects.graph.logical import EqualOp, LessOp, LogicalAndOp
from gedialects.tensors import dense_from_numpy

I64_SCALAR = TensorType(i64, [])
BOOL_SCALAR = TensorType(i1, [])
MAX_FIXED_POINT_ROUNDS = 64
"""Body rebuilds of a loop before its carried types must agree (each round widens)."""


def _graph_attr(ctx: NodeContext, name: str) -> onnx.GraphProto:
    """The subgraph attribute `name`; its declared inputs and outputs must be tensors (a
    sequence or optional is refused here, naming the value and its kind)."""
    for a in ctx.node.attribute:
        if a.name == name:
            if a.type != onnx.AttributeProto.GRAPH:
                ctx.fail(f"attribute '{name}' is not a graph")
            for kind, values in (("input", a.g.input), ("output", a.g.output)):
                for v in values:
                    if v.type.WhichOneof("value") not in (None, "tensor_type"):
                        tensor_type(v.type, f"{name} {kind} '{v.name}'")
            return a.g
    ctx.fail(f"attribute '{name}' is required")


def _check_elem(ctx: NodeContext, value: SSAValue, want: Attribute, what: str) -> None:
    if element_type(value.type) != want:
        ctx.fail(f"{what} has type {value.type}; ONNX {ctx.node.op_type} takes {want}")


def _verify(ctx: NodeContext, op: IfOp | WhileOp, graphs: Sequence[GraphOp]) -> None:
    """The op's subgraph checks before the module exists (the verifier's, by name)."""
    by_name = {g.sym_name.data: g for g in graphs}

    def lookup(_op: object, ref: object, what: str) -> GraphOp:
        name = getattr(getattr(ref, "root_reference", None), "data", "")
        return by_name[name]

    try:
        op.verify_subgraphs(lookup)
    except VerifyException as e:
        ctx.fail(str(e))


# --------------------------------------------------------------------------------------------
# If
# --------------------------------------------------------------------------------------------


@converter("If")
def if_(ctx: NodeContext) -> Outputs:
    """If -> `graph.if` with GE's sorted outer-scope inputs (module docstring)."""
    host = ctx.host
    branches = [_graph_attr(ctx, "then_branch"), _graph_attr(ctx, "else_branch")]
    for g in branches:
        if len(g.input):
            ctx.fail(f"branch '{g.name}' has {len(g.input)} inputs; If branches take none")
    captured = host.free_names(branches)
    label = f"node '{ctx.name}' (If)"
    values = [host.lookup(name, label) for name in captured]
    cond = ctx.input(0)
    _check_elem(ctx, cond, i1, "cond")
    cond = one_element_scalar(ctx, cond, "cond")
    inputs = [(name, v.type) for name, v in zip(captured, values, strict=True)]
    parents = [d + 1 for d in range(len(values))]
    graphs: list[GraphOp] = []
    for index, (attr, g) in enumerate(zip(("then_branch", "else_branch"), branches, strict=True)):
        name = host.graph_name(ctx.name, index, attr)
        graphs.append(host.subgraph(g, name, inputs, parents))
    then_outs = graphs[0].function_type.outputs.data
    else_outs = graphs[1].function_type.outputs.data
    if len(then_outs) != len(else_outs) or len(then_outs) != len(ctx.node.output):
        ctx.fail(
            f"then_branch gives {len(then_outs)} outputs, else_branch {len(else_outs)}, "
            f"the node has {len(ctx.node.output)}"
        )
    results: list[Attribute] = []
    for i, (a, b) in enumerate(zip(then_outs, else_outs, strict=True)):
        joined = join_types(a, b)
        if joined is None:
            ctx.fail(f"output {i} is {a} in then_branch but {b} in else_branch")
        results.append(joined)
    op = IfOp(cond, values, graphs[0].sym_name.data, graphs[1].sym_name.data, results)
    ctx.emit(op)
    _verify(ctx, op, graphs)
    host.keep(graphs)
    return list(op.results)


# --------------------------------------------------------------------------------------------
# Loops: the shared While construction
# --------------------------------------------------------------------------------------------


def _const(array: np.ndarray) -> ConstOp:
    return ConstOp(dense_from_numpy(np.asarray(array)))


def _named(op: Operation, name: str) -> None:
    op.attributes[NODE_NAME] = StringAttr(name)


def _cond_graph(
    name: str, types: Sequence[Attribute], build: Callable[[Block, list[SSAValue]], SSAValue]
) -> GraphOp:
    """A cond graph over the carried `types`; `build(block, args)` appends ops and returns
    the one output."""
    block = Block(arg_types=list(types))
    out = build(block, list(block.args))
    block.add_op(NetOutputOp([out]))
    graph = GraphOp(name, list(types), [out.type], Region(block))
    graph.arg_attrs = _parent_attrs(range(len(types)))
    return graph


def _fixed_point(
    ctx: NodeContext,
    start: list[Attribute],
    build,
) -> tuple[list[Attribute], GraphOp]:
    """GE's While fixed point on the carried types: rebuild the body from the join of what it
    takes and gives until they agree; returns the types and the kept, final body."""
    types = list(start)
    for _ in range(MAX_FIXED_POINT_ROUNDS):
        with ctx.host.trial():
            body = build(types)
        outs = body.function_type.outputs.data
        joined: list[Attribute] = []
        for i, (t, o) in enumerate(zip(types, outs, strict=True)):
            j = join_types(t, o)
            if j is None:
                ctx.fail(
                    f"body output for loop-carried value {i} is {o} but the value is {t}; "
                    "a loop-carried value keeps its element type"
                )
            joined.append(j)
        if joined == types:
            return types, build(types)
        types = joined
    ctx.fail(f"the loop-carried types reach no fixed point in {MAX_FIXED_POINT_ROUNDS} rounds")


class Stacker:
    """Stacks one scan output of per-iteration type `t` on `axis` (prepends when `reverse`).

    A static `t` starts from an empty constant `[.., 0 at axis, ..]` and appends with
    `Concat(acc, Unsqueeze(s))`. A `t` with `?` dims (known rank) cannot have that constant,
    so the accumulator starts as an empty tensor of the right rank (its known dims kept) and the
    first iteration replaces it:
    `If(iter == 0, Unsqueeze(s), Concat(acc, Unsqueeze(s)))`.
    """

    def __init__(self, ctx: NodeContext, t: Attribute, axis: int, reverse: bool, what: str):
        if not isinstance(t, TensorType):
            ctx.fail(f"{what} has type {t} per iteration; stacking it needs its rank")
        rank = t.get_num_dims() + 1
        if not -rank <= axis < rank:
            ctx.fail(f"{what}: axis {axis} is out of range for rank {rank}")
        self.t, self.axis, self.reverse, self.what = t, axis % rank, reverse, what
        self.static = all(d >= 0 for d in t.get_shape())

    def init(self, ctx: NodeContext) -> SSAValue:
        from gedialects.tensors import numpy_dtype

        assert isinstance(self.t, TensorType)
        # a `?` dim starts at 0 (the first iteration replaces the value); the known dims keep
        # their size so that the Concat of the other branch verifies against them
        shape = [max(d, 0) for d in self.t.get_shape()]
        shape.insert(self.axis, 0)
        dtype = numpy_dtype(self.t.element_type)
        return ctx.const(np.zeros(shape, dtype), f"{self.what}_init")

    def _append(self, block_ctx: NodeContext, acc: SSAValue, value: SSAValue) -> SSAValue:
        axes = block_ctx.const(np.array([self.axis], np.int64), f"{self.what}_axes")
        piece = block_ctx.emit(UnsqueezeV3Op(value, axes), f"{self.what}_unsqueeze").results[0]
        parts = [piece, acc] if self.reverse else [acc, piece]
        return block_ctx.emit(ConcatDOp(parts, self.axis), f"{self.what}_concat").results[0]

    def append(self, sub: NodeContext, acc: SSAValue, value: SSAValue, i: SSAValue) -> SSAValue:
        if self.static:
            return self._append(sub, acc, value)
        host = sub.host
        graphs: list[GraphOp] = []
        for index, attr in enumerate(("first", "next")):
            block = Block(arg_types=[value.type, acc.type])
            state_ctx = NodeContext(sub.node, [], sub.opset, _state_for(sub, block))
            s_arg, acc_arg = block.args
            if attr == "first":
                axes = state_ctx.const(np.array([self.axis], np.int64), f"{self.what}_axes")
                out = state_ctx.emit(UnsqueezeV3Op(s_arg, axes), self.what).results[0]
            else:
                out = self._append(state_ctx, acc_arg, s_arg)
            block.add_op(NetOutputOp([out]))
            name = host.graph_name(f"{sub.name}_{self.what}", index, attr)
            graph = GraphOp(name, [value.type, acc.type], [out.type], Region(block))
            graph.arg_attrs = _parent_attrs([1, 2])
            graphs.append(graph)
        zero = sub.const(np.array(0, np.int64), f"{self.what}_zero")
        first = sub.emit(EqualOp(i, zero), f"{self.what}_first").results[0]
        joined = join_types(*(g.function_type.outputs.data[0] for g in graphs))
        assert joined is not None
        op = IfOp(first, [value, acc], graphs[0].sym_name.data, graphs[1].sym_name.data, [joined])
        sub.emit(op, f"{self.what}_stack")
        host.keep(graphs)
        return op.results[0]


def _state_for(ctx: NodeContext, block: Block) -> ImportState:
    return ImportState(block, host=ctx.state.host)


def _parent_attrs(indices: Sequence[int]) -> ArrayAttr[DictionaryAttr]:
    return ArrayAttr([DictionaryAttr({PARENT_NODE_INDEX: IntegerAttr(i, i64)}) for i in indices])


# --------------------------------------------------------------------------------------------
# Loop
# --------------------------------------------------------------------------------------------


@converter("Loop")
def loop(ctx: NodeContext) -> Outputs:
    """Loop -> `graph.while` (module docstring)."""
    host = ctx.host
    body_proto = _graph_attr(ctx, "body")
    trip = ctx.optional_input(0)
    cond = ctx.optional_input(1)
    initial = [ctx.input(i) for i in range(2, len(ctx.inputs))]
    n = len(initial)
    if len(body_proto.input) != n + 2:
        ctx.fail(
            f"body takes {len(body_proto.input)} inputs; with {n} loop-carried values "
            f"it takes {n + 2} (iteration number, cond, values)"
        )
    k = len(body_proto.output) - 1 - n
    if k < 0:
        ctx.fail(f"body gives {len(body_proto.output)} outputs; it gives at least {n + 1}")
    if trip is not None:
        _check_elem(ctx, trip, i64, "M (trip count)")
        trip = one_element_scalar(ctx, trip, "M")
    if cond is not None:
        _check_elem(ctx, cond, i1, "cond")
        cond = one_element_scalar(ctx, cond, "cond")
    label = f"node '{ctx.name}' (Loop)"
    captured = host.free_names([body_proto])
    cap_values = [host.lookup(name, label) for name in captured]
    iter0 = ctx.const(np.array(0, np.int64), "iter_init")
    cond0 = cond if cond is not None else ctx.const(np.array(True), "cond_init")
    head = [iter0, cond0, *([trip] if trip is not None else [])]
    h = len(head)

    def body_of(types: list[Attribute]) -> GraphOp:
        names: list[str | None] = [body_proto.input[0].name, body_proto.input[1].name]
        names += [None] * (h - 2) + [v.name for v in body_proto.input[2:]]
        names += [None] * k + list(captured)
        inputs = list(zip(names, types, strict=True))

        def finish(sub: NodeContext, args: list[SSAValue], outs: list[SSAValue]) -> list[SSAValue]:
            one = sub.const(np.array(1, np.int64), "iter_one")
            following: list[SSAValue] = [sub.emit(AddOp(args[0], one), "iter_next").results[0]]
            if cond is not None:
                _check_elem(sub, outs[0], i1, "body cond output")
                following.append(one_element_scalar(sub, outs[0], "body_cond"))
            else:
                following.append(args[1])  # ONNX ignores the body's cond without a cond input
            following += args[2:h] + outs[1 : n + 1]
            scans = outs[1 + n :]
            if probing is not None:
                probing[:] = [v.type for v in scans]
                following += args[h + n : h + n + k]
            else:
                for j, stacker in enumerate(stackers):
                    acc = args[h + n + j]
                    following.append(stacker.append(sub, acc, scans[j], args[0]))
            return following + args[h + n + k :]

        name = host.graph_name(ctx.name, 0, "body")
        return host.subgraph(body_proto, name, inputs, range(len(types)), finish, ctx.node)

    # Probe once for the scan outputs' per-iteration types, then the fixed point.
    v_types = [v.type for v in initial]
    probe_types = [
        *(v.type for v in head),
        *v_types,
        *[UnrankedTensorType(i1)] * k,  # the probe passes its accumulators through
        *(v.type for v in cap_values),
    ]
    probing: list[Attribute] | None = []
    with host.trial():
        body_of(probe_types)
    assert probing is not None
    stackers = [Stacker(ctx, t, 0, False, f"scan_output_{j}") for j, t in enumerate(probing)]
    probing = None
    accs = [stacker.init(ctx) for stacker in stackers]
    start = [
        *(v.type for v in head),
        *v_types,
        *(a.type for a in accs),
        *(v.type for v in cap_values),
    ]
    types, body = _fixed_point(ctx, start, body_of)
    cond_graph = _cond_graph(
        host.graph_name(ctx.name, 1, "cond"),
        types,
        lambda block, args: _loop_cond(ctx, block, args, trip is not None, cond is not None),
    )
    operands = [*head, *initial, *accs, *cap_values]
    op = WhileOp(operands, cond_graph.sym_name.data, body.sym_name.data, types)
    ctx.emit(op)
    _verify(ctx, op, [cond_graph, body])
    host.keep([cond_graph, body])
    return list(op.results[h : h + n + k])


def _loop_cond(
    ctx: NodeContext, block: Block, args: list[SSAValue], has_trip: bool, has_cond: bool
) -> SSAValue:
    """ONNX Loop's condition over the carried `[iter, cond, M?, ...]`."""
    name = ctx.name
    if not has_trip and not has_cond:
        op = _const(np.array(True))
        _named(op, f"{name}/forever")
        block.add_op(op)
        return op.results[0]
    if not has_trip:
        return args[1]
    less = LessOp(args[0], args[2])
    _named(less, f"{name}/iter_less_M")
    block.add_op(less)
    if not has_cond:
        return less.results[0]
    both = LogicalAndOp(args[1], less.results[0])
    _named(both, f"{name}/cond_and_M")
    block.add_op(both)
    return both.results[0]


# --------------------------------------------------------------------------------------------
# Scan
# --------------------------------------------------------------------------------------------


@converter("Scan")
def scan(ctx: NodeContext) -> Outputs:
    """Scan (opset 9+) -> `graph.while` over a slice index (module docstring)."""
    host = ctx.host
    body_proto = _graph_attr(ctx, "body")
    m = int(ctx.attr("num_scan_inputs"))
    values = [ctx.input(i) for i in range(len(ctx.inputs))]
    n = len(values) - m
    if m < 1 or n < 0:
        ctx.fail(f"num_scan_inputs {m} does not fit its {len(values)} inputs")
    states, xs = values[:n], values[n:]
    k = len(body_proto.output) - n
    if len(body_proto.input) != n + m or k < 0:
        ctx.fail(
            f"body takes {len(body_proto.input)} inputs and gives {len(body_proto.output)}; "
            f"with {n} states and {m} scan inputs it takes {n + m} and gives at least {n}"
        )
    in_axes = list(ctx.attr("scan_input_axes", [0] * m))
    in_dirs = list(ctx.attr("scan_input_directions", [0] * m))
    out_axes = list(ctx.attr("scan_output_axes", [0] * k))
    out_dirs = list(ctx.attr("scan_output_directions", [0] * k))
    if not (len(in_axes) == len(in_dirs) == m and len(out_axes) == len(out_dirs) == k):
        ctx.fail("scan_input/output_axes and _directions need one entry per scan input/output")
    for j, x in enumerate(xs):
        t = x.type
        if not isinstance(t, TensorType):
            ctx.fail(f"scan input {j} has type {t}; Scan needs its rank")
        rank = t.get_num_dims()
        if not -rank <= in_axes[j] < rank:
            ctx.fail(f"scan_input_axes[{j}] = {in_axes[j]} is out of range for rank {rank}")
        in_axes[j] %= rank
    label = f"node '{ctx.name}' (Scan)"
    captured = host.free_names([body_proto])
    cap_values = [host.lookup(name, label) for name in captured]
    shape = ctx.emit(ShapeOp(xs[0]), "length_shape").results[0]
    at = ctx.const(np.array(in_axes[0], np.int64), "length_axis")
    length = ctx.emit(GatherV2DOp(shape, at), "length").results[0]
    head = [ctx.const(np.array(0, np.int64), "i_init"), length]
    h = 2

    def prologue(sub: NodeContext, args: list[SSAValue]) -> dict[str, SSAValue]:
        """Element i of each scan input (T-1-i when reversed), bound to the body's inputs."""
        bound: dict[str, SSAValue] = {}
        index = reverse = args[0]
        if any(in_dirs):
            one = sub.const(np.array(1, np.int64), "i_one_rev")
            last = sub.emit(SubOp(args[1], one), "last").results[0]
            reverse = sub.emit(SubOp(last, args[0]), "i_reversed").results[0]
        for j in range(m):
            at = reverse if in_dirs[j] else index
            x = args[h + n + k + j]
            gather = GatherV2DOp(x, at, axis=in_axes[j])
            bound[body_proto.input[n + j].name] = sub.emit(gather, f"element{j}").results[0]
        return bound

    def body_of(types: list[Attribute]) -> GraphOp:
        names: list[str | None] = [None, None]
        names += [v.name for v in body_proto.input[:n]]
        names += [None] * k + [None] * m + list(captured)
        inputs = list(zip(names, types, strict=True))
        name = host.graph_name(ctx.name, 0, "body")
        return host.subgraph(
            body_proto, name, inputs, range(len(types)), finish, ctx.node, prologue
        )

    def finish(sub: NodeContext, args: list[SSAValue], outs: list[SSAValue]) -> list[SSAValue]:
        one = sub.const(np.array(1, np.int64), "i_one")
        following: list[SSAValue] = [sub.emit(AddOp(args[0], one), "i_next").results[0], args[1]]
        following += outs[:n]
        scans = outs[n:]
        if probing is not None:
            probing[:] = [v.type for v in scans]
            following += args[h + n : h + n + k]
        else:
            for j, stacker in enumerate(stackers):
                following.append(stacker.append(sub, args[h + n + j], scans[j], args[0]))
        return following + args[h + n + k :]

    v_types = [v.type for v in states]
    probe_types = [
        *(v.type for v in head),
        *v_types,
        *[UnrankedTensorType(i1)] * k,  # the probe passes its accumulators through
        *(x.type for x in xs),
        *(v.type for v in cap_values),
    ]
    probing: list[Attribute] | None = []
    with host.trial():
        body_of(probe_types)
    assert probing is not None
    stackers = [
        Stacker(ctx, t, out_axes[j], bool(out_dirs[j]), f"scan_output_{j}")
        for j, t in enumerate(probing)
    ]
    probing = None
    accs = [stacker.init(ctx) for stacker in stackers]
    start = [
        *(v.type for v in head),
        *v_types,
        *(a.type for a in accs),
        *(x.type for x in xs),
        *(v.type for v in cap_values),
    ]
    types, body = _fixed_point(ctx, start, body_of)

    def cond_of(block: Block, args: list[SSAValue]) -> SSAValue:
        less = LessOp(args[0], args[1])
        _named(less, f"{ctx.name}/i_less_length")
        block.add_op(less)
        return less.results[0]

    cond_graph = _cond_graph(host.graph_name(ctx.name, 1, "cond"), types, cond_of)
    operands = [*head, *states, *accs, *xs, *cap_values]
    op = WhileOp(operands, cond_graph.sym_name.data, body.sym_name.data, types)
    ctx.emit(op)
    _verify(ctx, op, [cond_graph, body])
    host.keep([cond_graph, body])
    return list(op.results[h : h + n + k])


# --------------------------------------------------------------------------------------------
# Scan-8: a batch Loop around a Scan-9
# --------------------------------------------------------------------------------------------


@converter("Scan", SCAN8_DOMAIN)
def scan8(ctx: NodeContext) -> Outputs:
    """Scan-8 (batch axis 0, sequence axis 1, optional `sequence_lens`) as an ONNX Loop over
    the batch whose body runs a Scan-9 on batch element b: states `s[b]`, scan inputs
    `x[b][:len[b]]` (its `directions` become `scan_input_directions`), scan outputs padded
    with zeros to the longest sequence as onnxruntime's Scan-8 does; the Loop stacks the final
    states and the scan outputs on the batch axis. The Loop and the Scan are then converted
    as every other (a While around a While)."""
    body = _graph_attr(ctx, "body")
    m = int(ctx.attr("num_scan_inputs"))
    names = list(ctx.node.input)
    n = len(names) - 1 - m
    if m < 1 or n < 0:
        ctx.fail(f"num_scan_inputs {m} does not fit its {len(names)} inputs")
    dirs = list(ctx.attr("directions", [0] * m))
    if len(dirs) != m:
        ctx.fail(f"directions has {len(dirs)} entries for {m} scan inputs")
    seq_name = names[0]
    states, xs = names[1 : 1 + n], names[1 + n :]
    k = len(body.output) - n
    if k < 0 or len(body.input) != n + m:
        ctx.fail(
            f"body takes {len(body.input)} inputs and gives {len(body.output)}; "
            f"with {n} states and {m} scan inputs it takes {n + m} and gives at least {n}"
        )
    for j in range(m):
        t = ctx.input(1 + n + j).type
        if isinstance(t, TensorType) and t.get_num_dims() < 2:
            ctx.fail(f"scan input {j} has type {t}; Scan-8 takes [batch, sequence, ...]")
    if seq_name:
        _check_elem(ctx, ctx.input(0), i64, "sequence_lens")
    p = f"{ctx.name}/scan8"
    nodes: list[onnx.NodeProto] = []

    def node(op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(onnx.helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def const(value: np.ndarray, name: str) -> str:
        tensor = onnx.numpy_helper.from_array(np.asarray(value), f"{p}/{name}")
        return node("Constant", [], f"{p}/{name}", value=tensor)

    b, cond = f"{p}/b", f"{p}/cond"
    scan_ins = [node("Gather", [s, b], f"{p}/state{j}", axis=0) for j, s in enumerate(states)]
    length = ends = zero = ""
    if seq_name:
        length = node("Gather", [seq_name, b], f"{p}/length", axis=0)
        ends = node("Unsqueeze", [length], f"{p}/ends", axes=[0])
        zero = const(np.array([0], np.int64), "zero")
    for j, x in enumerate(xs):
        element = node("Gather", [x, b], f"{p}/x{j}", axis=0)
        if seq_name:
            element = node("Slice", [element, zero, ends, zero], f"{p}/x{j}_head")
        scan_ins.append(element)
    finals = [f"{p}/final{j}" for j in range(n)]
    outs = [f"{p}/y{j}" for j in range(k)]
    nodes.append(
        onnx.helper.make_node(
            "Scan",
            scan_ins,
            finals + outs,
            name=f"{p}/scan",
            body=body,
            num_scan_inputs=m,
            scan_input_directions=dirs,
        )
    )
    if seq_name and k:
        shape = node("Shape", [xs[0]], f"{p}/x_shape")
        longest = node("Gather", [shape, const(np.array(1, np.int64), "one")], f"{p}/longest")
        missing = node("Sub", [longest, length], f"{p}/missing")
        tail = node("Unsqueeze", [missing], f"{p}/tail", axes=[0])
        head = const(np.array([0], np.int64), "head")
        for j, y in enumerate(outs):
            rank = node("Shape", [node("Shape", [y], f"{p}/y{j}_shape")], f"{p}/y{j}_rank")
            rest = node("Sub", [rank, const(np.array([1], np.int64), f"y{j}_one")], f"{p}/y{j}_r")
            zeros = node(
                "ConstantOfShape",
                [rest],
                f"{p}/y{j}_zeros",
                value=onnx.numpy_helper.from_array(np.array([0], np.int64)),
            )
            pads = node("Concat", [head, zeros, tail, zeros], f"{p}/y{j}_pads", axis=0)
            outs[j] = node("Pad", [y, pads], f"{p}/y{j}_padded")
    nodes.append(onnx.helper.make_node("Identity", [cond], [f"{p}/cond_out"]))
    loop_body = onnx.helper.make_graph(
        nodes,
        f"{p}/batch_body",
        [
            onnx.helper.make_tensor_value_info(b, onnx.TensorProto.INT64, []),
            onnx.helper.make_tensor_value_info(cond, onnx.TensorProto.BOOL, []),
        ],
        [onnx.helper.make_empty_tensor_value_info(v) for v in [f"{p}/cond_out", *finals, *outs]],
    )
    first = ctx.input(1) if n else ctx.input(1 + n)
    shape = ctx.emit(ShapeOp(first), "batch_shape").results[0]
    batch = ctx.emit(GatherV2DOp(shape, ctx.const(np.array(0, np.int64), "batch_axis")), "batch")
    loop_node = onnx.helper.make_node(
        "Loop", ["", ""], list(ctx.node.output), name=ctx.name, body=loop_body
    )
    return loop(NodeContext(loop_node, [batch.results[0], None], ctx.opset, ctx.state))
