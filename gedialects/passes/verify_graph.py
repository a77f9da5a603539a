"""`ge-verify-graph`: GE's graph validation before optimisation (topology, ops, memory).

Three checks, in GE's order (graph preparation, "graph validation"), each linear in the graph:

1. Topology. Each graph body is sorted with Kahn's algorithm over its def-use edges: a cycle
   (possible in graphs built with the Python API, which nothing verified) is reported with the
   ops on it; an acyclic body in the wrong order names the first op used before its producer.
   Graphs that call themselves through `partitioned_call`/`case` are a cycle too.
2. Ops. Every op of a graph body must be a GE node type (`test.op` and other foreign ops are
   unsupported) with an implementation (a kernel, or a structural op: Const, NetOutput,
   PartitionedCall, Case, End, PlaceHolder, If, While, For), and pass its verifier (operand
   counts, dtypes, formats); the diagnostic names the graph and the node.
3. Memory (only with `device-memory=BYTES`). The graph's block order is a topological schedule;
   the estimate is every weight (`graph.const`) plus the peak of the bytes live across one op
   (operands still needed, the op's results, and the working set of a called subgraph). When it
   exceeds `device-memory` the pass fails naming the op at the peak and the largest tensors
   then live. Tensors of unknown size count 0 bytes (the message says how many there are).

`ge-opt` verifies the module before each stage: when the module is the one it last verified,
unchanged (`fingerprint.still_verified`), every verifier, the topological order and the call
graph are known to pass, and only the GE-specific checks run (node types, kernels, memory).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import ConstantLike
from xdsl.utils.exceptions import PassFailedException, VerifyException

from gedialects.base import (
    NODE_NAME,
    GEOp,
    IdentityMemo,
    block_ops,
    element_nbytes,
    static_element_count,
)
from gedialects.fingerprint import still_verified
from gedialects.graph import GraphOp, NetOutputOp, VariableRefOp, VarLikeOp
from gedialects.graph.control import ForOp, IfOp, WhileOp
from gedialects.graph.structure import find_call_cycle
from gedialects.multibatch import CaseOp
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp
from gedialects.passes.analysis.graph_view import graphs_called_by
from gedialects.passes.infer_shapes import describe

_NAME = "ge-verify-graph"

STRUCTURAL_OPS: tuple[type[GEOp], ...] = (
    NetOutputOp,
    PartitionedCallOp,
    CaseOp,
    EndOp,
    PlaceHolderOp,
    IfOp,
    WhileOp,
    ForOp,
    VarLikeOp,  # the session's variables: no kernel, the interpreter reads them
    VariableRefOp,
)
"""GE ops the interpreter runs without a kernel (besides constants)."""


class GraphError(ValueError):
    """A validation failure; the message names the graph and the op."""


# --------------------------------------------------------------------------------------------
# 1. Topology
# --------------------------------------------------------------------------------------------


def in_order(block: Block) -> bool:
    """Whether every operand an op of `block` takes from an op of `block` comes from an earlier
    one: then the body has no cycle and is sorted (one pass, no graph built). The values
    defined so far are kept by id (the IR holds them alive): an operand among them is in order
    with one set lookup, and only the others (none in a sorted body but values from outside)
    have their owner looked at."""
    defined: set[int] = set(map(id, block.args))
    add = defined.update
    for op in block_ops(block):
        for operand in op._operands:  # pyright: ignore[reportPrivateUsage]
            if id(operand) not in defined:
                owner = operand.owner
                if isinstance(owner, Operation) and owner.parent is block:
                    return False
        add(map(id, op.results))
    return True


def check_acyclic(graph: GraphOp) -> None:
    """Kahn's algorithm over the body: a cycle or an out-of-order op is a GraphError."""
    block = graph.body.block
    if in_order(block):
        return
    ops = list(block.ops)
    index = {op: i for i, op in enumerate(ops)}
    preds: list[list[int]] = [[] for _ in ops]
    succs: list[list[int]] = [[] for _ in ops]
    for i, op in enumerate(ops):
        for operand in op.operands:
            owner = operand.owner
            j = index.get(owner) if isinstance(owner, Operation) else None
            if j is not None:
                preds[i].append(j)
                succs[j].append(i)
    pending = [len(p) for p in preds]
    ready = deque(i for i, n in enumerate(pending) if n == 0)
    done = 0
    while ready:
        i = ready.popleft()
        done += 1
        for k in succs[i]:
            pending[k] -= 1
            if pending[k] == 0:
                ready.append(k)
    name = graph.sym_name.data
    if done < len(ops):
        start = next(i for i, n in enumerate(pending) if n > 0)
        path: list[int] = []
        position: dict[int, int] = {}
        node = start
        while node not in position:
            position[node] = len(path)
            path.append(node)
            node = next(j for j in preds[node] if pending[j] > 0)
        cycle = path[position[node] :][::-1]  # in data-flow order
        first = cycle.index(min(cycle))
        cycle = cycle[first:] + cycle[:first]  # starting at the earliest op of the block
        text = " -> ".join(describe(ops[i]) for i in [*cycle, cycle[0]])
        raise GraphError(f"@{name}: the graph has a cycle: {text}")
    for i, op in enumerate(ops):
        late = [j for j in preds[i] if j > i]
        if late:
            raise GraphError(
                f"@{name}: {describe(op)} uses the result of {describe(ops[late[0]])} before "
                "it is defined (no cycle, but the body is not in topological order)"
            )


def check_call_graph(graphs: dict[str, GraphOp]) -> None:
    """A graph that reaches itself through calls or Case branches is a cycle (the module
    verifier's search, `find_call_cycle`)."""
    found = find_call_cycle(graphs)
    if found is not None:
        raise GraphError("graphs call each other in a cycle: @" + " -> @".join(found[2]))


# --------------------------------------------------------------------------------------------
# 2. Ops
# --------------------------------------------------------------------------------------------


def check_ops(
    graph: GraphOp,
    kernels: frozenset[str],
    verify: bool = True,
    implemented: dict[type[Operation], bool] | None = None,
    called: set[str] | None = None,
) -> None:
    """Every op is a GE node type with an implementation and (`verify`) passes its verifier;
    the graphs the ops call go into `called` (the memory check's roots are the others).

    Whether an op is implemented depends only on its class: `implemented` keeps the answer
    per class (shared by the graphs of a module)."""
    name = graph.sym_name.data
    known = {} if implemented is None else implemented
    for op in block_ops(graph.body.block):
        kind = type(op)
        ok = known.get(kind)
        if ok is None:
            ok = known[kind] = issubclass(kind, GEOp) and (
                kind.has_trait(ConstantLike)
                or issubclass(kind, STRUCTURAL_OPS)
                or kind.GE_TYPE in kernels
            )
        if not ok:
            if not isinstance(op, GEOp):
                raise GraphError(f"@{name}: {describe(op)} is not a GE node type (unsupported op)")
            raise GraphError(f"@{name}: {describe(op)}: no kernel implements GE type {op.GE_TYPE}")
        if verify:
            try:
                op.verify()
            except VerifyException as e:
                raise GraphError(f"@{name}: {describe(op)}: {_one_line(e)}") from None
        if called is not None:  # a verified op's callees
            called.update(graphs_called_by(op))
    if not verify:
        return
    try:
        graph.verify_()
    except VerifyException as e:
        raise GraphError(_one_line(e)) from None


def _one_line(e: BaseException) -> str:
    return " ".join(line.strip() for line in str(e).splitlines() if line.strip())


# --------------------------------------------------------------------------------------------
# 3. Memory
# --------------------------------------------------------------------------------------------


def nbytes(t: Attribute) -> int | None:
    """Bytes of a static tensor type; None when the size is unknown."""
    if not isinstance(t, TensorType):
        return None
    size, count = element_nbytes(t.element_type), static_element_count(t)
    return None if size is None or count is None else size * count


@dataclass
class MemoryEstimate:
    """Peak of one graph: bytes live across its busiest op, and which tensors those are."""

    peak: int
    at: Operation | None
    live: list[tuple[SSAValue, int]]
    inputs: int
    outputs: int
    weights: dict[SSAValue, int] = field(default_factory=dict)
    unknown: int = 0


def _value_name(value: SSAValue) -> str:
    if isinstance(value, BlockArgument):
        graph = value.block.parent_op()
        if isinstance(graph, GraphOp):
            return f"input '{graph.input_names[value.index]}'"
        return f"%{value.name_hint or value.index}"
    assert isinstance(value, OpResult)
    owner = value.op
    name = owner.attributes.get(NODE_NAME)
    label = f'"{name.data}"' if isinstance(name, StringAttr) else f"%{value.name_hint or '?'}"
    if len(owner.results) > 1:
        label += f"#{value.index}"
    return f"'{owner.name}' {label}"


class MemoryModel:
    """Peak live bytes of each graph along its block order, callees included (memoised)."""

    def __init__(self, graphs: dict[str, GraphOp]) -> None:
        self.graphs = graphs
        self.memo: dict[str, MemoryEstimate] = {}
        self.nbytes = IdentityMemo(nbytes)
        """`nbytes` by type object: a graph has few distinct type objects, and `nbytes` walked
        the shape and the element type's ABC checks for every value."""
        self.constant_like: dict[type[Operation], bool] = {}
        """Op class -> whether it is ConstantLike (a trait lookup per op otherwise)."""

    def estimate(self, name: str) -> MemoryEstimate:
        if name not in self.memo:
            self.memo[name] = self._estimate(self.graphs[name])
        return self.memo[name]

    def _estimate(self, graph: GraphOp) -> MemoryEstimate:
        block: Block = graph.body.block
        ops = block_ops(block)
        # A value's last use: the last op of the block reading it (ops in block order, so
        # the last write is the latest position); uses outside the block do not extend it.
        # One write per operand, instead of a walk of every value's use list.
        last_use: dict[int, int] = {}
        for i, op in enumerate(ops):
            for operand in op._operands:  # pyright: ignore[reportPrivateUsage]
                last_use[id(operand)] = i
        values: list[tuple[SSAValue, int, int, int]] = []  # value, size, first, last
        weights: dict[SSAValue, int] = {}
        unknown = 0
        size_of, constant_like = self.nbytes, self.constant_like

        def add(value: SSAValue, first: int) -> None:
            nonlocal unknown
            size = size_of(value.type)
            if size is None:
                unknown += 1
                size = 0
            last = last_use.get(id(value), first)
            values.append((value, size, first, last if last > first else first))

        for arg in block.args:
            add(arg, 0)
        extra = [0] * len(ops)
        for i, op in enumerate(ops):
            kind = type(op)
            constant = constant_like.get(kind)
            if constant is None:
                constant = constant_like[kind] = kind.has_trait(ConstantLike)
            if constant:
                for r in op.results:
                    size = size_of(r.type)
                    weights[r] = size or 0
                continue
            for r in op.results:
                add(r, i)
            for callee in graphs_called_by(op):
                if callee in self.graphs:
                    sub = self.estimate(callee)
                    weights.update(sub.weights)
                    unknown += sub.unknown
                    extra[i] = max(extra[i], sub.peak - sub.inputs - sub.outputs)
        delta = [0] * (len(ops) + 1)
        for _, size, first, last in values:
            delta[first] += size
            delta[last + 1] -= size
        peak, at, running = 0, -1, 0
        for i in range(len(ops)):
            running += delta[i]
            if running + extra[i] > peak:
                peak, at = running + extra[i], i
        live = [(v, s) for v, s, first, last in values if at >= 0 and first <= at <= last]
        inputs = sum(size_of(a.type) or 0 for a in block.args)
        terminator = ops[-1] if ops else None
        outputs = 0
        if isinstance(terminator, NetOutputOp):
            outputs = sum(size_of(t) or 0 for t in terminator.outputs.types)
        return MemoryEstimate(
            peak, ops[at] if at >= 0 else None, live, inputs, outputs, weights, unknown
        )


def check_memory(graphs: dict[str, GraphOp], roots: Sequence[str], device_memory: int) -> None:
    model = MemoryModel(graphs)
    for root in roots:
        est = model.estimate(root)
        weights = sum(est.weights.values())
        total = weights + est.peak
        if total <= device_memory:
            continue
        largest = sorted(
            [*est.live, *est.weights.items()], key=lambda item: (-item[1], _value_name(item[0]))
        )[:3]
        names = "; ".join(f"{_value_name(v)} : {v.type} ({s} B)" for v, s in largest)
        where = f" at {describe(est.at)}" if est.at is not None else ""
        unknown = f"; {est.unknown} tensors of unknown size not counted" if est.unknown else ""
        raise GraphError(
            f"@{root}: needs about {total} bytes (weights {weights}, peak activations "
            f"{est.peak}{where}), more than device-memory={device_memory}; largest tensors: "
            f"{names}{unknown}"
        )


# --------------------------------------------------------------------------------------------


def verify_module(module: ModuleOp, device_memory: int = 0) -> None:
    """All checks on every graph of `module` (GraphError on the first failure)."""
    from gedialects.interpreters.kernels import kernel_types

    graphs = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    # a module `ge-opt` verified as it is now passes every verifier, and with them the
    # topological order and the call graph (`graph.graph`'s): only GE's own checks are left
    verify = not still_verified(module)
    if verify:
        for graph in graphs.values():
            check_acyclic(graph)
        check_call_graph(graphs)
    kernels = frozenset(kernel_types())
    implemented: dict[type[Operation], bool] = {}
    called: set[str] = set()  # the graphs some op calls (the ops are walked once, here)
    for graph in graphs.values():
        check_ops(graph, kernels, verify, implemented, called)
    for op in module.ops:
        if verify and not isinstance(op, GraphOp):
            try:
                op.verify()
            except VerifyException as e:
                raise GraphError(_one_line(e)) from None
    if device_memory > 0:
        check_memory(graphs, [n for n in graphs if n not in called], device_memory)


@dataclass(frozen=True)
class VerifyGraphPass(ModulePass):
    """GE's graph validation: topology, op checks, and memory feasibility (module docstring).

    Option `device-memory=BYTES` (default 0: no memory check).
    """

    name = "ge-verify-graph"

    device_memory: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gedialects.base import paused_gc

        if self.device_memory < 0:
            raise PassFailedException(
                f"{_NAME}: device-memory must be >= 0, got {self.device_memory}"
            )
        with paused_gc():
            try:
                verify_module(op, self.device_memory)
            except GraphError as e:
                raise PassFailedException(f"{_NAME}: {e}") from None
