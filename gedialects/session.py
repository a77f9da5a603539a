"""`Session`: GE's graph API in Python (create a session, add a graph with options, run it).

    from gedialects import Session
    session = Session({"ge.exec.disableReuseMemory": "0"})
    session.add_graph(1, "model.onnx", {"ge.inputShape": "x:-1,3,16,16",
                                         "ge.dynamicBatchSize": "1,4"})
    outputs = session.run_graph(1, {"x": batch})  # {"y": array}

Option names are GE's (`ge_api_types.h`); values are strings, as in GE. Graph options override
session options. A graph is compiled on `compile_graph` or on its first run:

    import -> [ge-expand-multibatch] -> ge-infer-shapes -> ge-verify-graph -> ge-fold-constants
           -> ge-fuse -> ge-place-engines -> [ge-partition-dynamic-shape]
           -> ge-convert-graph-to-ascend -> ge-assign-streams -> ge-plan-memory

The level rule: a graph without gears runs at the ascend level (tasks, streams, memory arena);
one with data-dependent or unknown shapes is split into known and unknown partitions first
(`ge-partition-dynamic-shape`, limit `ge.exec.static_model_ops_lower_limit`), whose nodes
become static tasks and dynamic tasks (shapes and memory decided at run time). A graph with
gears runs at the ascend level too: one static branch per gear behind a label switch, its
buffers sized for the largest gear (`ge-expand-multibatch`, docs/design/gears.md). With
`ge.compileHybridMode=1`, input shapes that are no gear run the graph compiled without gears
(at the ascend level, with dynamic tasks) instead of raising E13025. `stages(graph_id)` gives
the printed IR after each step.

JIT mode (`ge.jit=1`, GE's JIT executor) compiles at `run_graph` instead, slice by slice with
the real input shapes; see `Session.run_graph` and `Session.jit_stats`.

Every user error is a `GEError` subclass with a one-line message and, where GE has one, GE's
error code in `code`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gedialects import budget
from gedialects.errors import (
    ExecutionError,
    GearMismatchError,
    GEError,
    GraphError,
    GraphIdError,
    InputError,
    OptionError,
)

if TYPE_CHECKING:
    import numpy as np
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Operation
    from xdsl.passes import ModulePass

    from gedialects.gear_options import GearConfig
    from gedialects.graph import GraphOp
    from gedialects.interpreters.gears import GearInfo
    from gedialects.interpreters.run import Signature
    from gedialects.passes.partition.jit import JitWiring


# --------------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------------

INVALID_PARAM = "E10001"
"""GE's "Value %s for parameter %s is invalid. Reason: %s"."""


def _text(name: str, value: str) -> str:
    """text, checked with the other gear options when the graph is added"""
    return value


def _input_shape(name: str, value: str) -> str:
    """`name:d0,d1,...;...` in ASCII digits, checked with the gear options when the graph is
    added"""
    from gedialects.passes.infer_shapes import parse_input_shape

    try:
        parse_input_shape(value)
    except ValueError as e:
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: {e}.", INVALID_PARAM
        ) from None
    return value


def _flag(name: str, value: str) -> str:
    """`0` or `1`"""
    if value not in ("0", "1"):
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be 0 or 1.",
            INVALID_PARAM,
        )
    return value


def _bool_word(name: str, value: str) -> str:
    """`true` or `false`"""
    if value not in ("true", "false"):
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be true or false.",
            INVALID_PARAM,
        )
    return value


def _lower_limit(name: str, value: str) -> str:
    """an integer >= -1"""
    from gedialects.base import INT64_MAX, ascii_int

    number = ascii_int(value)
    if number is None or not -1 <= number <= INT64_MAX:
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be an integer "
            "in [-1, INT64_MAX].",
            INVALID_PARAM,
        )
    return value


def _memory_size(name: str, value: str) -> str:
    """a byte count with an optional K/M/G/T suffix (`512M`, `8G`)"""
    try:
        budget.parse_size(value, name)
    except budget.MemorySizeError:
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be a positive byte "
            "count with an optional K/M/G/T suffix (e.g. 512M, 8G).",
            INVALID_PARAM,
        ) from None
    return value


def _positive_int(name: str, value: str) -> str:
    """a positive integer"""
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise OptionError(
            f"Value {value} for parameter {name} is invalid. Reason: it must be a positive "
            "integer.",
            INVALID_PARAM,
        )
    return value


def _stream_limit(name: str, value: str) -> str:
    """`ENGINE:N[,ENGINE:N...]`, N >= 1"""
    stream_count(value)
    return value


def stream_count(value: str) -> int:
    """`ge.streamMaxParallelNum` ("ENGINE:N,ENGINE:N", or a bare N) -> the stream cap: the
    sum of the per-engine counts (gedialects has one cap for all engines)."""
    from gedialects.base import INT32_MAX, ascii_int

    total = 0
    for item in value.split(","):
        _, _, text = item.rpartition(":")
        count = ascii_int(text.strip())
        if count is None or not 1 <= count <= INT32_MAX:
            raise OptionError(
                f"Value {value} for parameter ge.streamMaxParallelNum is invalid. Reason: "
                "expected ENGINE:N[,ENGINE:N...] with N >= 1 (e.g. AIcoreEngine:4).",
                INVALID_PARAM,
            )
        total += count
    return total


MEMORY_OPTION = "ge.maxMemory"
"""The memory budget of the graph's import, compilation and runs (`gedialects.budget`); GE's
nearest is the device memory a model may take at load."""

OPTIONS: dict[str, Callable[[str, str], str]] = {
    "ge.inputShape": _input_shape,
    "ge.dynamicBatchSize": _text,
    "ge.dynamicImageSize": _text,
    "ge.dynamicDims": _text,
    "ge.compileHybridMode": _flag,
    "ge.exec.static_model_ops_lower_limit": _lower_limit,
    "ge.exec.disableReuseMemory": _flag,
    "ge.streamMaxParallelNum": _stream_limit,
    "ge.enableSingleStream": _bool_word,
    "ge.jit": _flag,
    MEMORY_OPTION: _memory_size,
    "ge.maxSteps": _positive_int,
}
"""GE option name -> its value check. Gear options are checked together by
`gear_options.parse_options` when the graph is added."""

JIT_OPTION = "ge.jit"
"""JIT mode. GE has no session or graph option for it: its JIT executor is switched on for the
whole process by the environment, `AUTOFUSE_FLAGS="--enable_autofuse=true
--experimental_enable_jit_executor_v2=true"` (`EnableSliceSchedule`); here it is a session or
graph option so that one graph can use it."""

OPTION_HELP: dict[str, str] = {
    "ge.inputShape": "atc's `--input_shape`: pins `?` input dims (`x:1,3,16,16;y:2,-1`); with a "
    "gear option, marks the dims the gears fill (-1)",
    "ge.dynamicBatchSize": "gears over the batch dim (`1,4,8`): one static graph per batch size",
    "ge.dynamicImageSize": "gears over H and W (`224,224;448,448`)",
    "ge.dynamicDims": "gears over any `-1` dims of `ge.inputShape` (`1,16;4,32`)",
    "ge.compileHybridMode": "`1`: input shapes of no gear run the graph compiled without gears "
    "instead of raising E13025",
    "ge.exec.static_model_ops_lower_limit": "known-shape partitions smaller than this many ops "
    "merge into unknown ones (`ge-partition-dynamic-shape`; -1: never merge)",
    "ge.exec.disableReuseMemory": "`1`: every value gets its own arena block (`ge-plan-memory` "
    "without reuse)",
    "ge.streamMaxParallelNum": "stream cap, `ENGINE:N[,ENGINE:N]` (the counts are summed)",
    "ge.enableSingleStream": "`true`: every task on stream 0 (no events)",
    JIT_OPTION: "`1`: JIT mode: compile at `run_graph`, slice by slice with the real shapes, "
    "cached per input signature (GE's JIT executor; not with gears or hybrid mode)",
    MEMORY_OPTION: "memory budget (`512M`, `8G`; default `GE_MAX_MEMORY`, else half of physical "
    "memory): files read, declared shapes, folded constants, the arena (as `device-memory`) and "
    "run-time tensors larger than this are refused with a one-line error before allocation",
    "ge.maxSteps": "most tasks one model run executes (not a GE option; default: 16 x the "
    "model's tasks x its `iterations_per_loop`, which stops a label loop that never exits)",
}
"""What each option does (the generated reference page shows it)."""


def _max_steps(options: Mapping[str, str]) -> int | None:
    """`ge.maxSteps` (checked by `_positive_int`), None for the model's step budget."""
    value = options.get("ge.maxSteps")
    return int(value) if value else None


def check_options(options: Mapping[str, str] | None, where: str) -> dict[str, str]:
    """Validated copy of `options`; OptionError for an unknown name or a bad value."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise OptionError(
            f"{where} options must be a mapping of option names to strings (a dict), not "
            f"{type(options).__name__}",
            INVALID_PARAM,
        )
    checked: dict[str, str] = {}
    for name, value in options.items():
        if not isinstance(name, str):
            raise OptionError(
                f"{where} option names are strings, got {name!r} ({type(name).__name__})",
                INVALID_PARAM,
            )
        if name not in OPTIONS:
            known = ", ".join(OPTIONS)
            raise OptionError(f"unknown {where} option '{name}' (known: {known})")
        if not isinstance(value, str):
            raise OptionError(
                f"Value {value!r} for parameter {name} is invalid. Reason: option values are "
                "strings, as in GE.",
                INVALID_PARAM,
            )
        checked[name] = OPTIONS[name](name, value)
    return checked


def _memory_limit(options: Mapping[str, str]) -> AbstractContextManager[None]:
    """The budget of `ge.maxMemory` (checked already) around one Session call."""
    value = options.get(MEMORY_OPTION)
    if not value:
        return nullcontext()  # the process's limit (set_max_memory, GE_MAX_MEMORY, default)
    return budget.max_memory_set(budget.parse_size(value, MEMORY_OPTION))


def gear_config(options: Mapping[str, str]) -> GearConfig | None:
    """The gears the options configure, or None without a gear option."""
    from gedialects.gear_options import GearError, parse_options

    keys = ("ge.dynamicBatchSize", "ge.dynamicImageSize", "ge.dynamicDims")
    if not any(options.get(k) for k in keys):
        return None
    try:
        return parse_options(
            input_shape=options.get("ge.inputShape", ""),
            dynamic_batch_size=options.get("ge.dynamicBatchSize", ""),
            dynamic_image_size=options.get("ge.dynamicImageSize", ""),
            dynamic_dims=options.get("ge.dynamicDims", ""),
        )
    except GearError as e:
        raise OptionError(e.one_line, e.code) from None


def _check_jit_options(options: Mapping[str, str]) -> None:
    """GE refuses its JIT executor with hybrid mode (E10003); gears need static branches, which
    JIT mode does not build, so they are refused the same way."""
    for name in ("ge.dynamicBatchSize", "ge.dynamicImageSize", "ge.dynamicDims"):
        if options.get(name):
            raise OptionError(
                f"Value 1 for parameter {JIT_OPTION} is invalid. Reason: JIT mode and gears "
                f"({name}) cannot be enabled at the same time.",
                "E10003",
            )
    if options.get("ge.compileHybridMode") == "1":
        raise OptionError(
            f"Value 1 for parameter {JIT_OPTION} is invalid. Reason: JIT mode and "
            "ge.compileHybridMode cannot be enabled at the same time.",
            "E10003",
        )


# --------------------------------------------------------------------------------------------
# Graphs
# --------------------------------------------------------------------------------------------


@dataclass
class _Graph:
    module: ModuleOp
    options: dict[str, str]
    gears: GearConfig | None
    stages: dict[str, str] = field(default_factory=dict)
    compiled: ModuleOp | None = None
    level: str = ""
    signature: Signature | None = None
    info: GearInfo | None = None
    fallback: ModuleOp | None = None
    """Hybrid mode: the graph without gears (at the ascend level), run for off-gear shapes."""
    jit: _Jit | None = None
    """JIT mode: the slice chain and its caches."""


def _print(module: ModuleOp) -> str:
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out).print_op(module)
    out.write("\n")
    return out.getvalue()


def _parse_ir(text: str, label: str) -> ModuleOp:
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from gedialects import make_context
    from gedialects.nesting import check_nesting

    try:
        check_nesting(text, label)
        module = Parser(make_context(), text, label).parse_module()
        module.verify()
        from gedialects.passes.verify_model import verify_models

        verify_models(module)
    except ParseError as e:
        raise GraphError(f"{e.span.get_location()}: cannot parse the IR: {e.msg}") from None
    except DiagnosticException as e:
        raise GraphError(f"{label}: {_first_line(e)}") from None
    return module


def _first_line(error: BaseException) -> str:
    lines = [line for line in str(error).strip().splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


def load_graph(graph: Any) -> ModuleOp:
    """An ONNX path or ModelProto, an IR file path, IR text, or a ModuleOp (copied) -> module."""
    from xdsl.dialects.builtin import ModuleOp

    if isinstance(graph, ModuleOp):
        return graph.clone()
    if isinstance(graph, os.PathLike) or (
        isinstance(graph, str) and "\n" not in graph and graph.endswith((".onnx", ".mlir"))
    ):
        path = os.fspath(graph)
        if path.endswith(".onnx"):
            return _import_onnx(path)
        try:
            text = budget.read_file(path).decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise GraphError(f"cannot read {path}: {e}") from None
        except budget.MemoryBudgetError as e:
            raise GraphError(str(e)) from None
        return _parse_ir(text, path)
    if isinstance(graph, str):
        return _parse_ir(graph, "<graph text>")
    if type(graph).__name__ == "ModelProto":
        return _import_onnx(graph)
    raise GraphError(
        f"add_graph takes an ONNX path or ModelProto, an .mlir path, IR text or a ModuleOp, "
        f"not {type(graph).__name__}"
    )


def _import_onnx(model: Any) -> ModuleOp:
    from gedialects.frontend.onnx import OnnxImportError, import_model

    try:
        return import_model(model)
    except OnnxImportError as e:
        raise GraphError(str(e)) from None


def _is_static(module: ModuleOp) -> bool:
    from xdsl.dialects.builtin import TensorType

    from gedialects.graph import GraphOp
    from gedialects.multibatch import CaseOp

    for op in module.walk():
        if isinstance(op, CaseOp):
            return False
        types = [r.type for r in op.results]
        if isinstance(op, GraphOp):
            types += list(op.function_type.inputs.data) + list(op.function_type.outputs.data)
        for t in types:
            if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
                return False
    return True


def _root_inputs(module: ModuleOp) -> tuple[str, list[str], list[tuple[int, ...] | None]]:
    from xdsl.dialects.builtin import TensorType

    from gedialects.graph import GraphOp
    from gedialects.interpreters.run import RunError, find_entry

    try:
        root = find_entry(module)
    except RunError as e:
        raise GraphError(str(e)) from None
    if not isinstance(root, GraphOp):
        raise GraphError(f"@{root.sym_name.data} is a '{root.name}', not a graph.graph")  # type: ignore[attr-defined]
    dims = [
        tuple(t.get_shape()) if isinstance(t, TensorType) else None
        for t in root.function_type.inputs.data
    ]
    return root.sym_name.data, list(root.input_names), dims


# --------------------------------------------------------------------------------------------
# JIT mode
# --------------------------------------------------------------------------------------------

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
class _JitSlice:
    info: JitSliceInfo
    module: ModuleOp
    wiring: JitWiring | None
    """How the next step's inputs are fed; None for the last slice."""
    next: _JitStep | None


@dataclass
class _JitStep:
    """A graph still to run (the root, or a remaining graph) and its slices per signature."""

    graph: GraphOp
    step: int
    cache: dict[InputKey, _JitSlice] = field(default_factory=dict)


@dataclass
class _Jit:
    root: _JitStep
    callees: dict[str, Operation]
    """Non-root graphs of the module (graphs the root calls), copied into every slice."""
    stats: JitStats = JitStats()


def _input_key(names: Sequence[str], arrays: Sequence[np.ndarray]) -> InputKey:
    return tuple((name, tuple(a.shape), a.dtype.str) for name, a in zip(names, arrays, strict=True))


def _unique_node_names(graph: GraphOp) -> None:
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


def _jit_choice(graph: GraphOp) -> tuple[list[str], bool]:
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


class Session:
    """GE's `ge::Session`: graphs added under ids, compiled with options, run on numpy arrays."""

    def __init__(self, options: Mapping[str, str] | None = None) -> None:
        self.options = check_options(options, "session")
        self._graphs: dict[int, _Graph] = {}

    # graph management ------------------------------------------------------------------------

    def add_graph(
        self, graph_id: int, graph: Any, options: Mapping[str, str] | None = None
    ) -> None:
        """Adds `graph` (ONNX path/ModelProto, .mlir path, IR text or ModuleOp) under `graph_id`;
        graph options override the session's."""
        self._check_id(graph_id)
        if graph_id in self._graphs:
            raise GraphIdError(f"graph id {graph_id} is already added; remove_graph it first")
        merged = self.options | check_options(options, "graph")
        if merged.get(JIT_OPTION) == "1":
            _check_jit_options(merged)
        gears = gear_config(merged)
        with _memory_limit(merged):
            module = load_graph(graph)
        entry = _Graph(module, merged, gears)
        entry.stages["import"] = _print(module)
        self._graphs[graph_id] = entry

    def remove_graph(self, graph_id: int) -> None:
        """Drops the graph, its compiled forms and its JIT slices; the id is free again."""
        self._graph(graph_id)
        del self._graphs[graph_id]

    @property
    def graph_ids(self) -> tuple[int, ...]:
        """The ids added and not removed, in the order they were added."""
        return tuple(self._graphs)

    def compile_graph(self, graph_id: int) -> None:
        """Compiles the graph (once); see the module docstring for the stages and the level."""
        graph = self._graph(graph_id)
        if graph.compiled is not None:
            return
        with _memory_limit(graph.options):
            self._compile(graph)

    def _compile(self, graph: _Graph) -> None:
        if graph.options.get(JIT_OPTION) == "1":
            self._compile_jit(graph)
            return
        module = graph.module.clone()
        stages: dict[str, str] = {"import": graph.stages["import"]}
        fallback = None
        if graph.gears is not None:
            name, names, dims = _root_inputs(module)
            from gedialects.gear_options import GearError, check_graph_inputs

            try:
                check_graph_inputs(graph.gears, name, names, dims)
            except GearError as e:
                raise OptionError(e.one_line, e.code) from None
            if graph.options.get("ge.compileHybridMode") == "1":
                fallback = module.clone()
                self._run_passes(fallback, self._graph_passes(graph, gears=False), {})
                self._run_passes(fallback, self._dynamic_passes(graph), {})
                self._run_passes(fallback, self._ascend_passes(graph), {})
        self._run_passes(module, self._graph_passes(graph, gears=True), stages)
        if graph.gears is not None:
            # Static branches under a Case: GE's label scheme over largest-gear buffers.
            level, rest = "ascend", self._ascend_passes(graph)
        elif _is_static(module):
            level, rest = "ascend", self._ascend_passes(graph)
        else:
            level, rest = "ascend", [*self._dynamic_passes(graph), *self._ascend_passes(graph)]
        self._run_passes(module, rest, stages)
        from gedialects.graph import GraphOp
        from gedialects.interpreters.gears import GearInfo
        from gedialects.interpreters.run import find_entry, signature

        entry = find_entry(module)
        graph.stages = stages
        graph.compiled, graph.level, graph.fallback = module, level, fallback
        graph.signature = signature(entry)
        graph.info = (
            GearInfo.find(entry) if isinstance(entry, GraphOp) else GearInfo.find_model(entry)
        )

    def _compile_jit(self, graph: _Graph) -> None:
        """JIT mode compiles nothing ahead: shape inference (with `ge.inputShape`) and checks on
        the whole graph, then slices at each `run_graph`."""
        from gedialects.passes.infer_shapes import InferShapesPass
        from gedialects.passes.verify_graph import VerifyGraphPass

        module = graph.module.clone()
        stages: dict[str, str] = {"import": graph.stages["import"]}
        shape = graph.options.get("ge.inputShape", "")
        self._run_passes(module, [InferShapesPass(input_shape=shape), VerifyGraphPass()], stages)
        name = _root_inputs(module)[0]
        from gedialects.graph import GraphOp
        from gedialects.interpreters.run import signature

        root = next(op for op in module.ops if isinstance(op, GraphOp) and op.sym_name.data == name)
        callees = {op.sym_name.data: op for op in module.ops if op is not root}  # type: ignore[attr-defined]
        step_graph = root.clone()
        _unique_node_names(step_graph)
        graph.stages = stages
        graph.compiled, graph.level = module, "jit"
        graph.signature = signature(root)
        graph.jit = _Jit(_JitStep(step_graph, 0), callees)

    def _graph_passes(self, graph: _Graph, *, gears: bool) -> list[ModulePass]:
        from gedialects.passes.fold_constants import FoldConstantsPass
        from gedialects.passes.fusion.fuse import FusePass
        from gedialects.passes.infer_shapes import InferShapesPass
        from gedialects.passes.multibatch.expand import MultibatchExpandPass
        from gedialects.passes.partition.place_engines import PlaceEnginesPass
        from gedialects.passes.verify_graph import VerifyGraphPass

        opts = graph.options
        shape = opts.get("ge.inputShape", "")
        first: list[ModulePass] = []
        if graph.gears is not None:
            if gears:
                first.append(
                    MultibatchExpandPass(
                        input_shape=shape,
                        dynamic_batch_size=opts.get("ge.dynamicBatchSize", ""),
                        dynamic_image_size=opts.get("ge.dynamicImageSize", ""),
                        dynamic_dims=opts.get("ge.dynamicDims", ""),
                    )
                )
            shape = ""
        return [
            *first,
            InferShapesPass(input_shape=shape),
            VerifyGraphPass(device_memory=budget.max_memory()),
            FoldConstantsPass(),
            FusePass(),
            PlaceEnginesPass(),
        ]

    def _ascend_passes(self, graph: _Graph) -> list[ModulePass]:
        from gedialects.passes.assign_streams import AssignStreamsPass
        from gedialects.passes.convert_graph_to_ascend import ConvertGraphToAscendPass
        from gedialects.passes.plan_memory import PlanMemoryPass

        opts = graph.options
        streams = opts.get("ge.streamMaxParallelNum")
        return [
            ConvertGraphToAscendPass(),
            AssignStreamsPass(
                max_streams=stream_count(streams) if streams else 8,
                single_stream=opts.get("ge.enableSingleStream") == "true",
            ),
            PlanMemoryPass(
                reuse=opts.get("ge.exec.disableReuseMemory", "0") != "1",
                device_memory=budget.max_memory(),
            ),
        ]

    def _dynamic_passes(self, graph: _Graph) -> list[ModulePass]:
        from gedialects.passes.partition.dynamic_shape import (
            DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT,
            PartitionDynamicShapePass,
        )

        limit = graph.options.get("ge.exec.static_model_ops_lower_limit")
        value = int(limit) if limit else DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT
        return [PartitionDynamicShapePass(static_model_ops_lower_limit=value)]

    @staticmethod
    def _run_passes(
        module: ModuleOp, passes: Sequence[ModulePass], stages: dict[str, str] | None
    ) -> None:
        from xdsl.utils.exceptions import DiagnosticException

        from gedialects import make_context

        ctx = make_context()
        for p in passes:
            try:
                p.apply(ctx, module)
                module.verify()
            except DiagnosticException as e:
                message = _first_line(e)
                code = message.split(":", 2)[1].strip() if message.count(":") >= 2 else ""
                raise GraphError(
                    message, code if code[:1] == "E" and code[1:].isdigit() else None
                ) from None
            if stages is not None:
                stages[p.name] = _print(module)

    # inspection ------------------------------------------------------------------------------

    def stages(self, graph_id: int) -> dict[str, str]:
        """Printed IR after import and after every compile pass, in order (compiles first)."""
        self.compile_graph(graph_id)
        return dict(self._graph(graph_id).stages)

    def level(self, graph_id: int) -> str:
        """'ascend' or 'graph': where `run_graph` executes (the rule in the module docstring);
        'jit' in JIT mode, where each slice has its own level (`jit_slices`)."""
        self.compile_graph(graph_id)
        return self._graph(graph_id).level

    def module(self, graph_id: int) -> ModuleOp:
        """The compiled module (do not modify it)."""
        self.compile_graph(graph_id)
        module = self._graph(graph_id).compiled
        assert module is not None
        return module

    def input_names(self, graph_id: int) -> tuple[str, ...]:
        """The names `run_graph` takes, in positional order."""
        return self._signature(graph_id).input_names

    def output_names(self, graph_id: int) -> tuple[str, ...]:
        """The names of the outputs `run_graph` returns, in order."""
        return self._signature(graph_id).output_names

    def gear_info(self, graph_id: int) -> GearInfo | None:
        """The gear table of a graph compiled with gear options (None without)."""
        self.compile_graph(graph_id)
        return self._graph(graph_id).info

    def gear_count(self, graph_id: int) -> int:
        """aclmdlGetInputDynamicGearCount: 0 for a graph without gears."""
        info = self.gear_info(graph_id)
        return 0 if info is None else info.gear_count

    def gear_dims(self, graph_id: int) -> tuple[dict[str, tuple[int, ...]], ...]:
        """aclmdlGetInputDynamicDims: the full input dims of every gear, in gear order."""
        info = self.gear_info(graph_id)
        if info is None:
            return ()
        return tuple(info.input_dims(g) for g in range(info.gear_count))

    # running ---------------------------------------------------------------------------------

    def run_graph(
        self, graph_id: int, inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray]
    ) -> dict[str, np.ndarray]:
        """Runs the graph (compiling it first if needed) on inputs keyed by name, or a list in
        input order; returns the outputs keyed by name.

        In JIT mode (`ge.jit=1`) each run walks a chain of slices, as GE's JitExecutor does:
        the graph's shapes are inferred with the real input shapes, the inferred part is sliced
        off (`partition.jit.slice_known`), compiled with `ge-compile` and run, and the
        remaining graph is sliced again with the shapes the slice produced, until nothing
        remains. A data-dependent node whose inputs are known (NonZero) is a breakpoint:
        it joins the slice as a dynamic kernel, and running it makes its output shapes known
        for the next slice. Slices are cached per
        input signature (names, shapes, dtypes), so a run with shapes seen before compiles
        nothing (`jit_stats`)."""
        graph = self._graph(graph_id)
        self.compile_graph(graph_id)
        with _memory_limit(graph.options):
            return self._run(graph_id, graph, inputs)

    def _run(
        self,
        graph_id: int,
        graph: _Graph,
        inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray],
    ) -> dict[str, np.ndarray]:
        from gedialects.interpreters.run import RunError, check_inputs, run

        sig = self._signature(graph_id)
        named = self._named(sig.input_names, inputs)
        if graph.jit is not None:
            return self._run_jit(graph.jit, sig, named, graph)
        module = graph.compiled
        if graph.info is not None:
            try:
                check_inputs(sig, named)
            except RunError as e:
                raise InputError(str(e)) from None
            try:
                graph.info.select({n: a.shape for n, a in named.items()})
            except GearMismatchError:
                if graph.fallback is None:
                    raise
                module = graph.fallback
        assert module is not None
        try:
            return run(module, named, max_steps=_max_steps(graph.options))
        except RunError as e:
            if any(key in str(e) for key in ("input '", "unknown input", "missing input")):
                raise InputError(str(e)) from None
            raise ExecutionError(str(e)) from None

    def _run_jit(
        self, jit: _Jit, sig: Signature, named: dict[str, np.ndarray], graph: _Graph
    ) -> dict[str, np.ndarray]:
        """GE's JitExecutor loop: run the slice cached for the inputs' signature (slicing and
        compiling it on a miss), feed its outputs to the remaining graph, until the last."""
        from gedialects.interpreters.run import RunError, check_inputs

        try:
            arrays = list(check_inputs(sig, named))
        except RunError as e:
            raise InputError(str(e)) from None
        step: _JitStep | None = jit.root
        compiled = hits = count = 0
        while step is not None:
            names = step.graph.input_names
            key = _input_key(names, arrays)
            entry = step.cache.get(key)
            if entry is None:
                entry = self._jit_slice(jit, step, key, graph)
                step.cache[key] = entry
                compiled += 1
            else:
                hits += 1
            outputs = self._run_slice(
                entry.module, dict(zip(names, arrays, strict=True)), _max_steps(graph.options)
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

    def _jit_slice(self, jit: _Jit, step: _JitStep, key: InputKey, graph: _Graph) -> _JitSlice:
        """Infers shapes of the step's graph with the input shapes of `key`, slices off the next
        slice (`_jit_choice`, `slice_known`) and compiles it."""
        from xdsl.dialects.builtin import ModuleOp

        from gedialects.passes.infer_shapes import InferShapesPass, pin_input_shapes
        from gedialects.passes.partition.jit import SliceError, slice_known

        pinned = step.graph.clone()
        try:
            pin_input_shapes([pinned], {name: shape for name, shape, _ in key})
        except ValueError as e:
            raise InputError(str(e)) from None
        module = ModuleOp([pinned, *self._callees(jit.callees, pinned)])
        self._run_passes(module, [InferShapesPass()], None)
        names, last = _jit_choice(pinned)
        at = step.step
        wiring: JitWiring | None = None
        rest: _JitStep | None = None
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
            rest = _JitStep(remaining, at + 1)
        inferred = {op.sym_name.data: op for op in module.ops if op is not pinned}  # type: ignore[attr-defined]
        target = ModuleOp([sliced, *self._callees(inferred, sliced)])
        static = _is_static(target)
        level = "ascend"
        self._run_passes(target, self._slice_passes(graph, static), None)
        info = JitSliceInfo(at, key, tuple(names), level, last)
        return _JitSlice(info, target, wiring, rest)

    @staticmethod
    def _callees(graphs: Mapping[str, Operation], graph: GraphOp) -> list[Operation]:
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

    def _slice_passes(self, graph: _Graph, static: bool) -> list[ModulePass]:
        """ge-compile with the graph's options for a slice (a slice with breakpoints is split
        into known and unknown-shape partitions first, whose tasks are dynamic kernels)."""
        dynamic = [] if static else self._dynamic_passes(graph)
        return [
            *self._graph_passes(graph, gears=False),
            *dynamic,
            *self._ascend_passes(graph),
        ]

    @staticmethod
    def _run_slice(
        module: ModuleOp, named: dict[str, np.ndarray], max_steps: int | None
    ) -> list[np.ndarray]:
        from gedialects.interpreters.run import RunError, run

        try:
            return list(run(module, named, max_steps=max_steps).values())
        except RunError as e:
            raise ExecutionError(str(e)) from None

    def jit_stats(self, graph_id: int) -> JitStats:
        """Counters of a graph added with `ge.jit=1`: slices compiled, cache hits, runs."""
        graph = self._jit_graph(graph_id)
        assert graph.jit is not None
        return graph.jit.stats

    def jit_slices(self, graph_id: int) -> tuple[JitSliceInfo, ...]:
        """Every slice compiled so far for a graph added with `ge.jit=1`, by step."""
        graph = self._jit_graph(graph_id)
        assert graph.jit is not None
        out: list[JitSliceInfo] = []
        work = [graph.jit.root]
        while work:
            step = work.pop()
            for entry in step.cache.values():
                out.append(entry.info)
                if entry.next is not None:
                    work.append(entry.next)
        return tuple(sorted(out, key=lambda info: (info.step, info.inputs)))

    def _jit_graph(self, graph_id: int) -> _Graph:
        graph = self._graph(graph_id)
        if graph.options.get(JIT_OPTION) != "1":
            raise GraphError(f"graph {graph_id} does not run in JIT mode (add it with ge.jit=1)")
        self.compile_graph(graph_id)
        return graph

    def run(
        self,
        output_names: Sequence[str] | None,
        input_feed: Mapping[str, np.ndarray],
        graph_id: int | None = None,
    ) -> list[np.ndarray]:
        """onnxruntime's `InferenceSession.run`: the outputs named (all if None), as a list; the
        graph is `graph_id`, or the session's only graph."""
        if graph_id is None:
            if len(self._graphs) != 1:
                raise GraphIdError(
                    f"run needs graph_id: the session holds {len(self._graphs)} graphs "
                    f"({', '.join(map(str, self._graphs)) or 'none'})"
                )
            graph_id = next(iter(self._graphs))
        outputs = self.run_graph(graph_id, input_feed)
        names = list(outputs) if output_names is None else list(output_names)
        for name in names:
            if name not in outputs:
                raise InputError(
                    f"unknown output '{name}' (outputs of graph {graph_id}: {', '.join(outputs)})"
                )
        return [outputs[name] for name in names]

    # helpers ---------------------------------------------------------------------------------

    @staticmethod
    def _check_id(graph_id: object) -> None:
        if not isinstance(graph_id, int) or isinstance(graph_id, bool) or graph_id < 0:
            raise GraphIdError(f"graph id must be an integer >= 0, got {graph_id!r}")

    def _graph(self, graph_id: int) -> _Graph:
        self._check_id(graph_id)
        if graph_id not in self._graphs:
            known = ", ".join(map(str, self._graphs)) or "none"
            raise GraphIdError(f"graph id {graph_id} was not added (added: {known})")
        return self._graphs[graph_id]

    def _signature(self, graph_id: int) -> Signature:
        self.compile_graph(graph_id)
        sig = self._graph(graph_id).signature
        assert sig is not None
        return sig

    @staticmethod
    def _named(
        names: Sequence[str], inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray]
    ) -> dict[str, np.ndarray]:
        import numpy as np

        if isinstance(inputs, Mapping):
            values = dict(inputs)
        elif isinstance(inputs, Sequence) and not isinstance(inputs, str):
            if len(inputs) != len(names):
                raise InputError(
                    f"{len(inputs)} positional inputs given, the graph takes {len(names)} "
                    f"({', '.join(names)})"
                )
            values = dict(zip(names, inputs, strict=True))
        else:
            raise InputError(
                f"inputs must be a dict of arrays keyed by name or a list, "
                f"not {type(inputs).__name__}"
            )
        for name, value in values.items():
            if not isinstance(value, np.ndarray | np.generic):
                raise InputError(
                    f"input '{name}' is a {type(value).__name__}; pass a numpy array "
                    "(no implicit conversion, as in GE)"
                )
        return {name: np.asarray(value) for name, value in values.items()}


__all__ = [
    "JIT_OPTION",
    "OPTIONS",
    "OPTION_HELP",
    "ExecutionError",
    "GEError",
    "GearMismatchError",
    "GraphError",
    "GraphIdError",
    "InputError",
    "JitSliceInfo",
    "JitStats",
    "OptionError",
    "Session",
    "check_options",
]
