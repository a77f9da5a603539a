"""`ge-infer-shapes`: GE's InferShapePass, a fixed point of shape and dtype inference.

Each op's result types are refined with its `infer_result_types` rule (`op.infer_types()` fed
with the values of small constants and of results computed during inference), only ever to
more precise types: a `?` dim (GE -1) may become a number, an unranked tensor (GE -2) a ranked
one; a static dim never changes. When the declared and the inferred type disagree on a static
dim, a rank or a dtype, the pass fails naming the op. Ops are revisited through a worklist of
the users of changed values, never by sweeping the whole graph again, so the cost is linear in
the number of ops times the (small) number of times a value can become more precise.

Subgraphs are followed as GE's `infer_base_pass.cc` does. A callee's inputs take the types of
its callers' operands (the join of all callers when there are several: dims that differ become
`?`, ranks that differ unranked), meet its declared input types; a `partition.partitioned_call`
takes its callee's output types and a `multibatch.case` the join of its branches' output types
(differing dtypes are an error). Graph function types follow their block arguments and
`graph.net_output`. A `graph.if` is a call of both branches (the inputs after the cond, result
= join). A `graph.while` / `graph.for` passes its carried values to cond and body (For's body
gets the int32 loop variable first) and reaches GE's fixed point (`loop_fixed_point`): the
carried types start from the operands' and widen where an iteration changes them.

Shape arithmetic works through chains where values are constant: Shape/Size of a static tensor
and any op with a small integer result (at most `SMALL_CONSTANT_LIMIT` elements) whose operands
are all known are evaluated with the interpreter's kernels during inference, so a
Shape -> Gather -> Concat -> Reshape chain gives the Reshape a static result without folding.

Option `input-shape="x:1,3,224,224;y:2,-1"` (atc's `--input_shape` grammar: items split on `;`,
each at its last `:`) pins the `?` dims of root-graph inputs first; `-1` keeps a dim unknown.
A name that is no input, a rank that differs, a pinned dim that contradicts a static dim, and
anything that is not an integer are errors.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    FunctionType,
    IndexType,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnrankedTensorType,
    i32,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import Pure
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import (
    INT64_MAX,
    NODE_NAME,
    SMALL_CONSTANT_LIMIT,
    GEOp,
    IdentityMemo,
    ascii_int,
    block_ops,
    const_values,
    of_class,
    static_element_count,
    walk_ops,
)
from gedialects.formats import format_of, origin_type
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.graph.common import tensor_of
from gedialects.graph.control import ControlFlowOp, ForOp
from gedialects.multibatch import CaseOp
from gedialects.partition import PartitionedCallOp
from gedialects.passes.analysis.graph_view import GRAPH_CALLERS

_NAME = "ge-infer-shapes"

SHAPE_ONLY_TYPES = frozenset({"Shape", "Size", "Rank", "ShapeN"})
"""GE types whose output depends only on the input shapes: known once the input is static."""


class TypeConflict(ValueError):
    """Two types that cannot describe the same tensor (static dims, ranks or dtypes differ)."""


# --------------------------------------------------------------------------------------------
# The type lattice: `meet` refines, `join` generalises
# --------------------------------------------------------------------------------------------


def _dims(t: Attribute) -> tuple[int, ...] | None:
    return tuple(t.get_shape()) if isinstance(t, TensorType) else None


def _tensor(elem: Attribute, dims: Sequence[int] | None) -> Attribute:
    """Built once per type, in the cache the inference rules use (`tensor_of`): a refined
    type and the type a rule infers for it later are then the same object, and comparing
    them is an identity check."""
    return tensor_of(elem, dims)


def _is_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType | UnrankedTensorType)


def meet_types(a: Attribute, b: Attribute) -> Attribute:
    """The most precise type that both `a` and `b` describe; TypeConflict when none does.
    A tensor in a storage format (`#graph.format`) is its origin tensor there: inference
    gives origin types, and the declared storage format is kept."""
    if a is b or a == b:
        return a
    if format_of(a) is not None or format_of(b) is not None:
        if format_of(a) is not None and format_of(b) is not None:
            raise TypeConflict(f"storage formats of {a} and {b} differ")
        stored, plain = (a, b) if format_of(a) is not None else (b, a)
        meet_types(origin_type(stored), plain)
        return stored
    if not (_is_tensor(a) and _is_tensor(b)):
        raise TypeConflict(f"{a} and {b} differ")
    assert isinstance(a, TensorType | UnrankedTensorType)
    assert isinstance(b, TensorType | UnrankedTensorType)
    if a.element_type != b.element_type:
        raise TypeConflict(f"element types {a.element_type} and {b.element_type} differ")
    da, db = _dims(a), _dims(b)
    if da is None:
        return b
    if db is None:
        return a
    if len(da) != len(db):
        raise TypeConflict(f"ranks {len(da)} and {len(db)} differ")
    dims: list[int] = []
    for i, (x, y) in enumerate(zip(da, db, strict=True)):
        if x >= 0 and y >= 0 and x != y:
            raise TypeConflict(f"dim {i} is {x} in one and {y} in the other")
        dims.append(x if x >= 0 else y)
    return _tensor(a.element_type, dims)


def join_types(a: Attribute, b: Attribute) -> Attribute:
    """The most precise type describing both: differing dims become `?`, differing ranks
    unranked; TypeConflict when the element types differ."""
    if a is b or a == b:
        return a
    if format_of(a) is not None or format_of(b) is not None:
        return join_types(origin_type(a), origin_type(b))
    if not (_is_tensor(a) and _is_tensor(b)):
        raise TypeConflict(f"{a} and {b} differ")
    assert isinstance(a, TensorType | UnrankedTensorType)
    assert isinstance(b, TensorType | UnrankedTensorType)
    if a.element_type != b.element_type:
        raise TypeConflict(f"element types {a.element_type} and {b.element_type} differ")
    da, db = _dims(a), _dims(b)
    if da is None or db is None or len(da) != len(db):
        return UnrankedTensorType(a.element_type)
    return _tensor(
        a.element_type, [x if x == y and x >= 0 else -1 for x, y in zip(da, db, strict=True)]
    )


# --------------------------------------------------------------------------------------------
# input-shape
# --------------------------------------------------------------------------------------------


def parse_input_shape(text: str) -> dict[str, tuple[int, ...]]:
    """`"x:1,3,224,224;y:2,-1"` -> {"x": (1, 3, 224, 224), "y": (2, -1)} (atc's grammar).

    Items are split on `;` and each at its last `:`, so names may hold `:`; an empty dim list
    is a scalar. Raises ValueError with a message for the user.
    """
    shapes: dict[str, tuple[int, ...]] = {}
    for item in text.split(";"):
        item = item.strip()
        if not item:
            continue
        name, sep, dims_text = item.rpartition(":")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"input-shape item '{item}' is not NAME:DIMS")
        if name in shapes:
            raise ValueError(f"input-shape names '{name}' twice")
        dims: list[int] = []
        for d in dims_text.split(",") if dims_text.strip() else ():
            value = ascii_int(d.strip())
            if value is None:
                raise ValueError(
                    f"input-shape dim '{d.strip()}' of '{name}' is not an integer "
                    "(ASCII digits only)"
                )
            if value > INT64_MAX:
                raise ValueError(
                    f"input-shape dim {value} of '{name}': value out of range for i64 in "
                    "option input-shape"
                )
            if value < -1:
                raise ValueError(f"input-shape dim {value} of '{name}' must be >= -1")
            dims.append(value)
        shapes[name] = tuple(dims)
    return shapes


def _format_dims(dims: Sequence[int]) -> str:
    return ",".join(str(d) for d in dims)


def pin_input_shapes(roots: Sequence[GraphOp], shapes: dict[str, tuple[int, ...]]) -> None:
    """Gives the named root-graph inputs the pinned dims (ValueError on a contradiction)."""
    found: set[str] = set()
    for graph in roots:
        names = graph.input_names
        for index, name in enumerate(names):
            if name not in shapes:
                continue
            found.add(name)
            dims = shapes[name]
            arg = graph.body.block.args[index]
            old = arg.type
            if not _is_tensor(old):
                raise ValueError(
                    f"input '{name}' of @{graph.sym_name.data} is not a tensor ({old})"
                )
            assert isinstance(old, TensorType | UnrankedTensorType)
            declared = _dims(old)
            if declared is not None and len(declared) != len(dims):
                raise ValueError(
                    f"input-shape gives '{name}' {len(dims)} dims ({_format_dims(dims)}) but "
                    f"@{graph.sym_name.data} declares rank {len(declared)} ({old})"
                )
            for i, (want, have) in enumerate(zip(dims, declared or dims, strict=True)):
                if want >= 0 and have >= 0 and want != have:
                    raise ValueError(
                        f"input-shape dim {i} of '{name}' is {want} but @{graph.sym_name.data} "
                        f"declares {have} ({old})"
                    )
            new = meet_types(old, _tensor(old.element_type, dims))
            if new != old:
                Rewriter.replace_value_with_new_type(arg, new)
        _sync_inputs(graph)
    missing = [name for name in shapes if name not in found]
    if missing:
        inputs = ", ".join(n for g in roots for n in g.input_names) or "none"
        raise ValueError(f"input-shape names '{missing[0]}', which is not a graph input ({inputs})")


def _sync_inputs(graph: GraphOp) -> None:
    ftype = graph.function_type
    inputs = tuple(graph.body.block.arg_types)
    if inputs != ftype.inputs.data:
        graph.function_type = FunctionType.from_lists(inputs, ftype.outputs.data)


# --------------------------------------------------------------------------------------------
# The fixed point
# --------------------------------------------------------------------------------------------


def describe(op: Operation) -> str:
    """`'graph.relu' "relu1"`: the op's IR name and its GE node name (or SSA name)."""
    name = op.attributes.get(NODE_NAME)
    if isinstance(name, StringAttr):
        return f"'{op.name}' \"{name.data}\""
    hints = [r.name_hint for r in op.results if r.name_hint]
    return f"'{op.name}' %{hints[0]}" if hints else f"'{op.name}'"


def _callees(op: Operation) -> list[str]:
    if not of_class(op, GRAPH_CALLERS):  # most ops: one cached test, not three ABC ones
        return []
    if isinstance(op, PartitionedCallOp):
        return [op.callee.root_reference.data]
    if isinstance(op, CaseOp):
        return [b.root_reference.data for b in op.branches.data if isinstance(b, SymbolRefAttr)]
    if isinstance(op, ControlFlowOp):
        return op.called_graphs()
    return []


def _call_args(op: Operation) -> Sequence[SSAValue]:
    """The operands a call passes to its callee (a Case's branch index, an If's cond and a
    For's start/limit/delta are not passed)."""
    if isinstance(op, CaseOp):
        return op.inputs
    if isinstance(op, ControlFlowOp):
        return op.subgraph_args(0)
    return op.operands


LOOP_VARIABLE = TensorType(i32, [])
"""The type of a For body's first input (GE's For loop variable)."""

Widening = dict[tuple[int, int], Attribute]
"""Carried types of loops widened by earlier attempts: (loop number in module walk order,
carried index) -> the type its cond/body inputs start from."""


def find_loops(root: Operation) -> list[ControlFlowOp]:
    """The loop ops (While, For) `root.walk()` yields, in its order (`walk_ops`: inference
    asked the walk for them twice)."""
    return [o for o in walk_ops(root) if of_class(o, ControlFlowOp) and o.IS_LOOP]


_NONE, _NET_OUTPUT, _LOOP, _CALL, _NODE = range(5)
_VISITOR: dict[type[Operation], int] = {}
"""Op class -> the visitor `ShapeInference.visit` gives its ops (`_visitor`)."""


def _visitor(op: Operation) -> int:
    if isinstance(op, NetOutputOp):
        return _NET_OUTPUT
    if isinstance(op, ControlFlowOp) and op.IS_LOOP:
        return _LOOP
    if isinstance(op, GRAPH_CALLERS):
        return _CALL
    return _NODE if isinstance(op, GEOp) else _NONE


class ShapeInference:
    """One run of the fixed point over a module; `run()` raises ValueError naming the op."""

    def __init__(
        self,
        module: ModuleOp,
        widening: Widening | None = None,
        loops: Sequence[Operation] | None = None,
    ) -> None:
        """`loops`: `find_loops(module)` when the caller has it already."""
        self.widening: Widening = {} if widening is None else widening
        self.loops: dict[Operation, int] = {
            op: k for k, op in enumerate(find_loops(module) if loops is None else loops)
        }
        self.graphs: dict[str, GraphOp] = {
            g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)
        }
        self.callers: dict[str, list[Operation]] = {name: [] for name in self.graphs}
        self.callees: dict[str, list[str]] = {}  # in op order, for `order` (one scan)
        for name, graph in self.graphs.items():
            callees = self.callees[name] = []
            for op in block_ops(graph.body.block):
                for callee in _callees(op):
                    if callee in self.callers:
                        self.callers[callee].append(op)
                        callees.append(callee)
        self.known: dict[SSAValue, tuple[int | float, ...]] = {}
        self.worklist: deque[Operation] = deque()
        self.queued: set[int] = set()
        """Ids of the ops in `worklist` (which holds them alive): `Operation.__hash__` is a
        Python call, twice per visit."""
        self.dirty_inputs: set[GraphOp] = set()

    @property
    def roots(self) -> list[GraphOp]:
        return [g for name, g in self.graphs.items() if not self.callers[name]]

    def order(self) -> list[GraphOp]:
        """Callers before callees (reverse post-order of the call graph from the roots)."""
        seen: set[str] = set()
        post: list[GraphOp] = []
        for root in [*self.roots, *self.graphs.values()]:
            stack: list[tuple[str, Iterable[str]]] = []
            name = root.sym_name.data
            if name in seen:
                continue
            seen.add(name)
            stack.append((name, iter(self.callees[name])))
            while stack:
                current, children = stack[-1]
                child = next((c for c in children if c not in seen), None)
                if child is None:
                    stack.pop()
                    post.append(self.graphs[current])
                else:
                    seen.add(child)
                    stack.append((child, iter(self.callees[child])))
        return post[::-1]

    def run(self) -> None:
        for graph in self.order():
            for op in block_ops(graph.body.block):
                self.push(op)
        while self.worklist:
            op = self.worklist.popleft()
            self.queued.discard(id(op))
            self.visit(op)
        for graph in self.dirty_inputs:
            _sync_inputs(graph)

    def push(self, op: Operation) -> None:
        key = id(op)
        if key not in self.queued:
            self.queued.add(key)
            self.worklist.append(op)

    def push_users(self, value: SSAValue) -> None:
        for use in value.uses:
            self.push(use.operation)

    # ---- refinement of one value

    def refine(self, value: SSAValue, inferred: Attribute, op: Operation, what: str) -> SSAValue:
        """Sets `value` to meet(its type, inferred); queues its users when that changed it."""
        try:
            new = meet_types(value.type, inferred)
        except TypeConflict as e:
            raise ValueError(
                f"{self.where(op)}: {what} is declared {value.type} but inference gives "
                f"{inferred} ({e})"
            ) from None
        if new is value.type or new == value.type:
            return value
        known = self.known.pop(value, None)
        new_value = Rewriter.replace_value_with_new_type(value, new)
        if known is not None:
            self.known[new_value] = known
        if isinstance(new_value, BlockArgument):
            parent = new_value.block.parent_op()
            if isinstance(parent, GraphOp):
                self.dirty_inputs.add(parent)
        self.push_users(new_value)
        return new_value

    def where(self, op: Operation) -> str:
        graph = op.parent_op()
        prefix = f"@{graph.sym_name.data}: " if isinstance(graph, GraphOp) else ""
        return prefix + describe(op)

    # ---- visiting ops

    def visit(self, op: Operation) -> None:
        # which visitor, decided once per class (each ABC isinstance test costs microseconds,
        # and the chain of tests ran for every node)
        kind = op.__class__
        how = _VISITOR.get(kind)
        if how is None:
            how = _VISITOR[kind] = _visitor(op)
        if how == _NODE:  # casts, not asserts: an ABC isinstance test per node again
            self.visit_node(cast(GEOp, op))
        elif how == _NET_OUTPUT:
            self.visit_net_output(cast(NetOutputOp, op))
        elif how == _LOOP:
            self.visit_loop(cast(ControlFlowOp, op))
        elif how == _CALL:
            assert isinstance(op, PartitionedCallOp | CaseOp | ControlFlowOp)
            self.visit_call(op)

    def visit_net_output(self, op: NetOutputOp) -> None:
        graph = op.parent_op()
        if not isinstance(graph, GraphOp):
            return
        outputs = tuple(op.outputs.types)
        ftype = graph.function_type
        if outputs == ftype.outputs.data:
            return
        graph.function_type = FunctionType.from_lists(ftype.inputs.data, outputs)
        for caller in self.callers.get(graph.sym_name.data, ()):
            self.push(caller)

    def passed_types(self, caller: Operation) -> list[Attribute]:
        """The types `caller` gives its callee's inputs: a loop's carried values start from
        their operand's type (GE pushes the parent's descs into the subgraph Data), widened
        by what earlier attempts found (`Widening`); a For body gets its loop variable first."""
        types = [v.type for v in _call_args(caller)]
        k = self.loops.get(caller)
        if k is not None:
            for i, t in enumerate(types):
                wide = self.widening.get((k, i))
                if wide is not None:
                    types[i] = join_types(t, wide)
            if isinstance(caller, ForOp):
                types.insert(0, LOOP_VARIABLE)
        return types

    def visit_loop(self, op: ControlFlowOp) -> None:
        """While/For: inputs flow into cond and body; result i = join(body input i, body
        output i), which is body input i once the carried types are a fixed point."""
        callees = [self.graphs.get(c) for c in _callees(op)]
        if any(c is None for c in callees):
            return  # a subgraph outside this module: the verifier reports it
        for callee in callees:
            assert callee is not None
            self.propagate_into(callee)
        body = callees[-1]
        assert body is not None
        offset = 1 if isinstance(op, ForOp) else 0
        args = body.body.block.args
        outs = body.function_type.outputs.data
        for i, result in enumerate(op.results):
            if i + offset >= len(args) or i >= len(outs):
                return  # arity mismatch: the verifier reports it
            try:
                joined = join_types(args[i + offset].type, outs[i])
            except TypeConflict:
                raise ValueError(
                    f"{self.where(op)}: body @{body.sym_name.data} output {i} is "
                    f"{outs[i]}, its loop-carried input {args[i + offset].type}: the element "
                    "type changes between iterations"
                ) from None
            self.refine(result, joined, op, f"result {i}")

    def widenings(self) -> Widening:
        """After a run: carried values whose body output is not described by the body input
        (a dim changed between iterations), with the join to start the next attempt from;
        empty when every loop is at its fixed point."""
        found: Widening = {}
        for op, k in self.loops.items():
            names = _callees(op)
            body = self.graphs.get(names[-1]) if names else None
            if body is None:
                continue
            offset = 1 if isinstance(op, ForOp) else 0
            args = body.body.block.args
            for i, out in enumerate(body.function_type.outputs.data):
                if i + offset >= len(args):
                    break
                arg = args[i + offset].type
                joined = join_types(arg, out)
                if joined != arg:
                    previous = self.widening.get((k, i))
                    found[(k, i)] = joined if previous is None else join_types(previous, joined)
        return found

    def visit_call(self, op: PartitionedCallOp | CaseOp | ControlFlowOp) -> None:
        callees = [self.graphs[c] for c in _callees(op) if c in self.graphs]
        if len(callees) != len(_callees(op)):
            return  # a callee outside this module: the verifier reports it
        for callee in callees:
            self.propagate_into(callee)
        outputs = [callee.function_type.outputs.data for callee in callees]
        for index, result in enumerate(op.results):
            types = [outs[index] for outs in outputs if index < len(outs)]
            if len(types) != len(outputs) or not types:
                return  # arity mismatch: the verifier reports it
            joined = types[0]
            for branch, t in zip(callees[1:], types[1:], strict=True):
                try:
                    joined = join_types(joined, t)
                except TypeConflict:
                    raise ValueError(
                        f"{self.where(op)}: branches @{callees[0].sym_name.data} and "
                        f"@{branch.sym_name.data} give result {index} different element types "
                        f"({types[0]} and {t})"
                    ) from None
            self.refine(result, joined, op, f"result {index}")

    def propagate_into(self, callee: GraphOp) -> None:
        """Callee inputs = meet(declared, join of every caller's operand types)."""
        callers = self.callers[callee.sym_name.data]
        passed = [self.passed_types(c) for c in callers]  # once per caller, not per input
        args = callee.body.block.args
        for index in range(len(args)):
            types = [operands[index] for operands in passed if index < len(operands)]
            if not types:
                continue
            joined = types[0]
            for t in types[1:]:
                try:
                    joined = join_types(joined, t)
                except TypeConflict:
                    raise ValueError(
                        f"callers of @{callee.sym_name.data} pass input {index} with different "
                        f"element types ({types[0]} and {t})"
                    ) from None
            try:
                new = meet_types(args[index].type, joined)
            except TypeConflict as e:
                raise ValueError(
                    f"@{callee.sym_name.data} input {index} is declared {args[index].type} but "
                    f"its callers pass {joined} ({e})"
                ) from None
            if new is not args[index].type and new != args[index].type:
                self.refine(args[index], new, callers[0], f"input {index}")

    def visit_node(self, op: GEOp) -> None:
        try:
            inferred = type(op).infer_result_types(
                tuple([v.type for v in op._operands]),  # pyright: ignore[reportPrivateUsage]
                op.properties,
                lambda i: self.values(op.operands[i]),
            )
        except ValueError as e:
            raise ValueError(f"{self.where(op)}: cannot infer its result types: {e}") from None
        if inferred is not None:
            if len(inferred) != len(op.results):
                raise ValueError(
                    f"{self.where(op)}: its inference rule gives {len(inferred)} result types "
                    f"for {len(op.results)} results"
                )
            for index, (result, t) in enumerate(zip(op.results, inferred, strict=True)):
                self.refine(result, t, op, f"result {index}")
        self.evaluate(op)

    def values(self, value: SSAValue) -> tuple[int | float, ...] | None:
        known = self.known.get(value)
        return known if known is not None else const_values(value)

    def evaluate(self, op: GEOp) -> None:
        """Records the values of small results computable now (shape arithmetic)."""
        if not op.results:
            return
        for r in op.results:
            if not _is_index_like(r.type):  # first: cheaper than the element count
                return  # only small integer results take part in shape arithmetic
            count = static_element_count(r.type)
            if count is None or count > SMALL_CONSTANT_LIMIT:
                return
        if all(r in self.known for r in op.results) or not op.has_trait(Pure) or _const_like(op):
            return
        shape_only = op.GE_TYPE in SHAPE_ONLY_TYPES
        if not shape_only and not op.operands:
            return
        from gedialects.passes.fold_constants import evaluate_op

        outputs = evaluate_op(op, self.values if not shape_only else None)
        if outputs is None:
            return
        for result, array in zip(op.results, outputs, strict=True):
            self.known[result] = tuple(array.ravel().tolist())
            self.push_users(result)


def _const_like(op: Operation) -> bool:
    from xdsl.traits import ConstantLike

    return op.has_trait(ConstantLike)


def _index_like(t: Attribute) -> bool:
    return isinstance(t, TensorType) and isinstance(t.element_type, IntegerType | IndexType)


_is_index_like = IdentityMemo(_index_like)
"""A tensor of integers or indices, by type object (asked of every result; two ABC
isinstance tests each)."""
"""Entries before the cache starts over (a long session's types would stay alive)."""


def loop_fixed_point(
    module: ModuleOp,
    shapes: dict[str, tuple[int, ...]],
    loops: Sequence[ControlFlowOp] | None = None,
) -> Widening:
    """GE's While fixed point (WhileInferImpl, re-queued by GRAPH_NODE_NEED_REPASS): runs the
    inference on copies of `module`, each loop's cond and body starting from its operand
    types, and widens each carried value whose body output differs (a dim that changes
    becomes `?`, a rank unranked) until every loop's body gives back what it takes. Inference
    only refines, so a widened start needs a fresh copy; each attempt widens at least one dim
    or rank, which bounds the attempts. Modules without loops take no attempt."""
    widening: Widening = {}
    if loops is None:
        loops = find_loops(module)
    if not loops:
        return widening
    carried = sum(len(o.carried()) for o in loops)
    declared: Widening | None = None
    for _ in range(3 * carried + 3):  # each carried value widens dims, then rank, at most
        trial = module.clone()
        inference = ShapeInference(trial, widening)
        if shapes:
            pin_input_shapes(inference.roots, shapes)
        try:
            inference.run()
        except ValueError:
            # A body that does not infer from its operands' types alone (an accumulator that
            # starts empty, [0, 0, 3], and is concatenated only from the second iteration
            # on): start once more from the types the body declares, if they are wider.
            if declared is not None:
                raise
            declared = {
                key: t
                for key, t in declared_widening(module).items()
                if key not in widening or join_types(widening[key], t) != widening[key]
            }
            if not declared:
                raise
            for key, t in declared.items():
                previous = widening.get(key)
                widening[key] = t if previous is None else join_types(previous, t)
            continue
        found = inference.widenings()
        if not found:
            return widening
        widening.update(found)
    raise ValueError("loop-carried types reach no fixed point (a loop keeps widening)")


def declared_widening(module: ModuleOp) -> Widening:
    """Each loop's carried values at the join of their operand's type and the type their body
    declares for them, where that is wider than the operand's (the front end's own fixed
    point: ONNX import widens a scan accumulator to `?` on its growing dims)."""
    graphs = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    found: Widening = {}
    for k, op in enumerate(find_loops(module)):
        names = _callees(op)
        body = graphs.get(names[-1]) if names else None
        if body is None:
            continue
        offset = 1 if isinstance(op, ForOp) else 0
        args = body.body.block.args
        for i, value in enumerate(_call_args(op)):
            if i + offset >= len(args):
                break
            try:
                joined = join_types(value.type, args[i + offset].type)
            except TypeConflict:
                continue
            if joined != value.type:
                found[(k, i)] = joined
    return found


@dataclass(frozen=True)
class InferShapesPass(ModulePass):
    """Refines every result type to what GE's InferShape gives (see the module docstring).

    Options: `input-shape="x:1,3,224,224;y:..."` pins `?` dims of root-graph inputs first.
    """

    name = "ge-infer-shapes"

    input_shape: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gedialects.base import paused_gc

        with paused_gc():
            try:
                shapes = parse_input_shape(self.input_shape) if self.input_shape.strip() else {}
                loops = find_loops(op)  # the trials run on copies: `op` keeps these
                widening = loop_fixed_point(op, shapes, loops)
                inference = ShapeInference(op, widening, loops)
                if shapes:
                    pin_input_shapes(inference.roots, shapes)
                inference.run()
            except ValueError as e:
                raise PassFailedException(f"{_NAME}: {e}") from None
