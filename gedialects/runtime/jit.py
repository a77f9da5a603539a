"""JIT mode (`ge.jit=1`, GE's JitExecutor): a graph compiled at `run_graph`, slice by slice with
the real input shapes, each slice compiled by `ge-compile` (without gears) and cached per input
signature."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gedialects.errors import ExecutionError, GraphError, InputError
from gedialects.runtime.compile import compile_pipeline, run_stages
from gedialects.runtime.graphs import GraphState, root_inputs
from gedialects.runtime.session_options import max_steps

if TYPE_CHECKING:
    import numpy as np
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Operation

    from gedialects.graph import GraphOp
    from gedialects.interpreters.run import Signature
    from gedialects.passes.partition.jit import JitWiring

InputKey = tuple[tuple[str, tuple[int, ...], str], ...]
"""The input signature of a slice: (name, shape, dtype) of every input, in order."""


@dataclass(frozen=True)
class JitStats:
    """Counters of a JIT-mode graph: slices `compiled` (cache misses), cache `hits`, `runs`
    of `run_graph`, and the number of slices the last run executed (`last_slices`)."""

    runs: int = 0
    compiled: int = 0
    hits: int = 0
    last_slices: int = 0


@dataclass(frozen=True)
class JitSliceInfo:
    """One compiled slice: its position in the chain (`step` 0 runs first), the input
    signature it was compiled for ((name, shape, dtype) per input), its node names, where it
    runs (`ascend`: every slice is compiled to tasks) and whether it ends the graph."""

    step: int
    inputs: InputKey
    nodes: tuple[str, ...]
    level: str
    last: bool


@dataclass
class JitSlice:
    info: JitSliceInfo
    module: ModuleOp
    wiring: JitWiring | None
    """How the next step's inputs are fed; None for the last slice."""
    next: JitStep | None


@dataclass
class JitStep:
    """A graph still to run (the root, or a remaining graph) and its slices per signature."""

    graph: GraphOp
    step: int
    cache: dict[InputKey, JitSlice] = field(default_factory=dict)


@dataclass
class Jit:
    root: JitStep
    callees: dict[str, Operation]
    """Non-root graphs of the module (graphs the root calls), copied into every slice."""
    stats: JitStats = JitStats()


def input_key(names: Sequence[str], arrays: Sequence[np.ndarray]) -> InputKey:
    return tuple((name, tuple(a.shape), a.dtype.str) for name, a in zip(names, arrays, strict=True))


def unique_node_names(graph: GraphOp) -> None:
    """Slices are named by node: give unnamed and same-named ops names of their own."""
    from xdsl.dialects.builtin import StringAttr

    from gedialects.base import NODE_NAME
    from gedialects.passes.analysis.graph_view import GraphNodes

    nodes = GraphNodes.of(graph)
    seen = set(nodes.names[: len(nodes.args)])
    for op, name in zip(nodes.ops, nodes.names[len(nodes.args) :], strict=True):
        unique, k = name, 0
        while unique in seen:
            k += 1
            unique = f"{name}_{k}"
        seen.add(unique)
        op.attributes[NODE_NAME] = StringAttr(unique)


def jit_choice(graph: GraphOp) -> tuple[list[str], bool]:
    """The node names of the next slice of `graph` (shapes inferred with the real inputs) and
    whether it is the whole graph (the last slice; then every op but the NetOutput).

    GE's rule (`JitInferUtils::InferGraphAndGetInferredNodes`): a node is inferred when its
    inputs are all inferred and static; one whose outputs stay unknown although its inputs are
    known (NonZero, a Reshape by a computed shape) is a breakpoint and runs in this slice, after
    which its output shapes are known (it is compiled as a dynamic kernel). Each step takes at
    least one node that is not a Const out of the graph: the first such node in topological
    order reads only Data and Consts, which are static.
    """
    from gedialects.graph import NetOutputOp
    from gedialects.passes.analysis.graph_view import GraphNodes, ge_type, is_unknown_type
    from gedialects.passes.partition.jit import REPLACE_NODE_TYPES

    nodes = GraphNodes.of(graph)
    n_args = len(nodes.args)
    inferred = [True] * n_args
    static_nodes: list[int] = []
    breakpoints: list[int] = []
    consts: list[int] = []
    others = 0
    for k, op in enumerate(nodes.ops):
        node = n_args + k
        ok = (
            not isinstance(op, NetOutputOp)
            and all(inferred[p] for p in nodes.preds[node])
            and not any(is_unknown_type(t) for t in op.operand_types)
        )
        inferred.append(ok)
        if isinstance(op, NetOutputOp):
            continue
        if ge_type(op) in REPLACE_NODE_TYPES and not op.operands:
            consts.append(node)
            continue
        others += 1
        if ok:
            unknown = any(is_unknown_type(t) for t in op.result_types)
            (breakpoints if unknown else static_nodes).append(node)
    chosen = static_nodes + breakpoints
    if not chosen or len(chosen) == others:
        return nodes.names[n_args : len(nodes) - 1], True
    used = {p for node in chosen for p in nodes.preds[node]}
    names = [nodes.names[n] for n in sorted([*chosen, *(c for c in consts if c in used)])]
    return names, False


def prepare(graph: GraphState) -> None:
    """JIT mode compiles nothing ahead: shape inference (with `ge.inputShape`) and the graph
    checks of `ge-compile` on the whole graph, then slices at each `run_graph`."""
    from gedialects.graph import GraphOp
    from gedialects.interpreters.run import signature

    module = graph.module.clone()
    stages: dict[str, str] = {"import": graph.stages["import"]}
    run_stages(module, compile_pipeline(graph.options, gears=False).checks(), stages)
    name = root_inputs(module)[0]
    root = next(op for op in module.ops if isinstance(op, GraphOp) and op.sym_name.data == name)
    callees = _symbols(module.ops, root)
    step_graph = root.clone()
    unique_node_names(step_graph)
    graph.stages = stages
    graph.compiled, graph.level = module, "jit"
    graph.signature = signature(root)
    graph.jit = Jit(JitStep(step_graph, 0), callees)


def run(
    jit: Jit, sig: Signature, named: dict[str, np.ndarray], graph: GraphState
) -> dict[str, np.ndarray]:
    """GE's JitExecutor loop: run the slice cached for the inputs' signature (slicing and
    compiling it on a miss), feed its outputs to the remaining graph, until the last."""
    from gedialects.interpreters.run import RunError, check_inputs

    try:
        arrays = list(check_inputs(sig, named))
    except RunError as e:
        raise InputError(str(e)) from None
    step: JitStep | None = jit.root
    compiled = hits = count = 0
    while step is not None:
        names = step.graph.input_names
        key = input_key(names, arrays)
        entry = step.cache.get(key)
        if entry is None:
            entry = compile_slice(jit, step, key, graph)
            step.cache[key] = entry
            compiled += 1
        else:
            hits += 1
        outputs = run_slice(
            entry.module, dict(zip(names, arrays, strict=True)), max_steps(graph.options)
        )
        count += 1
        if entry.wiring is None:
            jit.stats = JitStats(
                jit.stats.runs + 1,
                jit.stats.compiled + compiled,
                jit.stats.hits + hits,
                count,
            )
            return dict(zip(sig.output_names, outputs, strict=True))
        arrays = entry.wiring.remaining_args(arrays, outputs)
        step = entry.next
    raise AssertionError("a JIT chain ends with its last slice")


def compile_slice(jit: Jit, step: JitStep, key: InputKey, graph: GraphState) -> JitSlice:
    """Infers shapes of the step's graph with the input shapes of `key`, slices off the next
    slice (`jit_choice`, `slice_known`) and compiles it with `ge-compile` (no gears; a slice
    with breakpoints is split into known and unknown-shape partitions first, whose tasks are
    dynamic kernels)."""
    from xdsl.dialects.builtin import ModuleOp

    from gedialects.passes.infer_shapes import InferShapesPass, pin_input_shapes
    from gedialects.passes.partition.jit import SliceError, slice_known

    pinned = step.graph.clone()
    try:
        pin_input_shapes([pinned], {name: shape for name, shape, _ in key})
    except ValueError as e:
        raise InputError(str(e)) from None
    module = ModuleOp([pinned, *callees(jit.callees, pinned)])
    run_stages(module, [InferShapesPass()], None)
    names, last = jit_choice(pinned)
    at = step.step
    wiring: JitWiring | None = None
    rest: JitStep | None = None
    if last:
        sliced = pinned
        sliced.detach()
    else:
        try:
            sliced, remaining, wiring = slice_known(
                pinned,
                names,
                sliced_name=f"Sliced_Graph_{at}",
                remaining_name=f"Remaining_Graph_{at}",
            )
        except SliceError as e:
            raise GraphError(f"JIT slice {at}: {e}") from None
        rest = JitStep(remaining, at + 1)
    inferred = _symbols(module.ops, pinned)
    target = ModuleOp([sliced, *callees(inferred, sliced)])
    run_stages(target, [compile_pipeline(graph.options, gears=False)], None)
    info = JitSliceInfo(at, key, tuple(names), "ascend", last)
    return JitSlice(info, target, wiring, rest)


def callees(graphs: Mapping[str, Operation], graph: GraphOp) -> list[Operation]:
    """Copies of the `graphs` that `graph` calls, directly or not."""
    from gedialects.passes.analysis.graph_view import called_symbols

    found: dict[str, Operation] = {}
    work: list[Operation] = [graph]
    while work:
        for op in work.pop().walk():
            for name in called_symbols(op):
                if name not in found and name in graphs:
                    found[name] = graphs[name]
                    work.append(found[name])
    return [op.clone() for op in found.values()]


def run_slice(
    module: ModuleOp, named: dict[str, np.ndarray], steps: int | None
) -> list[np.ndarray]:
    from gedialects.interpreters.run import RunError
    from gedialects.interpreters.run import run as run_module

    try:
        return list(run_module(module, named, max_steps=steps).values())
    except RunError as e:
        raise ExecutionError(str(e)) from None


def slices(jit: Jit) -> tuple[JitSliceInfo, ...]:
    """Every slice compiled so far, by step."""
    out: list[JitSliceInfo] = []
    work = [jit.root]
    while work:
        step = work.pop()
        for entry in step.cache.values():
            out.append(entry.info)
            if entry.next is not None:
                work.append(entry.next)
    return tuple(sorted(out, key=lambda info: (info.step, info.inputs)))


def _symbols(ops: Iterable[Operation], skip: Operation) -> dict[str, Operation]:
    """Symbol name -> op of the symbol ops among `ops` other than `skip` (a module's graphs)."""
    from gedialects.base import symbol_name

    found: dict[str, Operation] = {}
    for op in ops:
        name = symbol_name(op)
        if op is not skip and name is not None:
            found[name] = op
    return found
