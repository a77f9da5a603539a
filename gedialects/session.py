"""`Session`: GE's graph API in Python (create a session, add a graph with options, run it).

    from gedialects import Session
    session = Session({"ge.exec.disableReuseMemory": "0"})
    session.add_graph(1, "model.onnx", {"ge.inputShape": "x:-1,3,16,16",
                                         "ge.dynamicBatchSize": "1,4"})
    outputs = session.run_graph(1, {"x": batch})  # {"y": array}

Option names are GE's (`ge_api_types.h`); values are strings, as in GE. Graph options override
session options. A graph is compiled on `compile_graph` or on its first run, by `ge-compile`
(the pipeline `ge-opt -p ge-compile` and `ge-atc` run) with the graph's options:

    import -> [ge-expand-multibatch] -> ge-infer-shapes -> ge-verify-graph -> ge-fold-constants
           -> ge-fuse -> ge-place-engines -> [ge-partition-dynamic-shape]
           -> ge-convert-graph-to-ascend -> ge-assign-streams -> ge-plan-memory

Every graph runs at the ascend level (tasks, streams, memory arena). One with data-dependent or
unknown shapes is split into known and unknown partitions first (`ge-partition-dynamic-shape`,
limit `ge.exec.static_model_ops_lower_limit`; a graph whose shapes are all known skips it,
`ge-compile{partition-static=false}`), whose nodes become static tasks and dynamic tasks
(shapes and memory decided at run time). A graph with gears gets one static branch per gear
behind a label switch, its buffers sized for the largest gear (`ge-expand-multibatch`,
docs/design/gears.md). Hybrid mode (GE's four conditions: `ge.inputShape`, `ge.dynamicDims`,
`ge.dynamicNodeType=1`, `ge.compileHybridMode=1`; `notes` says which fails when only the last
is given) compiles the gear graph and the graph without gears concurrently on two workers, as
GE's UserHybridGraphManager does; the compiled model keeps the fully dynamic model, which runs
input shapes that are no gear instead of raising E13025. `stages(graph_id)` gives the printed
IR after each step.

JIT mode (`ge.jit=1`, GE's JIT executor) compiles at `run_graph` instead, slice by slice with
the real input shapes; see `Session.run_graph` and `Session.jit_stats`.

Every user error is a `GEError` subclass with a one-line message and, where GE has one, GE's
error code in `code`. The machinery lives in the run-time layer, `gedialects.runtime`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gedialects.errors import (
    ExecutionError,
    GearMismatchError,
    GEError,
    GraphError,
    GraphIdError,
    InputError,
    OptionError,
)
from gedialects.runtime import execute, jit
from gedialects.runtime.compile import compile_graph
from gedialects.runtime.graphs import GraphState, load_graph, print_module
from gedialects.runtime.jit import JitSliceInfo, JitStats
from gedialects.runtime.node_args import NodeArg, describe
from gedialects.runtime.session_options import (
    JIT_OPTION,
    OPTION_HELP,
    OPTIONS,
    check_jit_options,
    check_options,
    gear_config,
    memory_limit,
    stream_count,
)

if TYPE_CHECKING:
    import numpy as np
    from xdsl.dialects.builtin import ModuleOp

    from gedialects.interpreters.gears import GearInfo
    from gedialects.interpreters.run import Signature
    from gedialects.interpreters.variables import VariableStore


logger = logging.getLogger(__name__)


class Session:
    """GE's `ge::Session`: graphs added under ids, compiled with options, run on numpy arrays."""

    def __init__(self, options: Mapping[str, str] | None = None) -> None:
        self.options = check_options(options, "session")
        self._graphs: dict[int, GraphState] = {}
        self._variables: VariableStore | None = None

    # graph management ------------------------------------------------------------------------

    def add_graph(
        self, graph_id: int, graph: Any, options: Mapping[str, str] | None = None
    ) -> None:
        """Adds `graph` (ONNX path/ModelProto, .mlir path, binary .gebc/.om path, IR text or
        ModuleOp) under `graph_id`;
        graph options override the session's."""
        self._check_id(graph_id)
        if graph_id in self._graphs:
            raise GraphIdError(f"graph id {graph_id} is already added; remove_graph it first")
        merged = self.options | check_options(options, "graph")
        if merged.get(JIT_OPTION) == "1":
            check_jit_options(merged)
        gears = gear_config(merged)
        begin = time.perf_counter()
        with memory_limit(merged):
            module = load_graph(graph)
        entry = GraphState(module, merged, gears)
        entry.stages["import"] = print_module(module)
        self._graphs[graph_id] = entry
        logger.info("graph %d: added in %.3f s", graph_id, time.perf_counter() - begin)

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
        begin = time.perf_counter()
        with memory_limit(graph.options):
            if graph.options.get(JIT_OPTION) == "1":
                jit.prepare(graph)
            else:
                compile_graph(graph)
        logger.info(
            "graph %d: compiled in %.3f s (%s level)",
            graph_id,
            time.perf_counter() - begin,
            graph.level,
        )

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

    def symbolic_output_shapes(self, graph_id: int) -> dict[str, tuple[str, ...]]:
        """Each output's dims over the gear symbols (`s0 = <input>[<dim>]`, ...) as the
        compiled model records them (`_symbolic_output_shape`): `{"y": ("s0", "3")}`; empty
        for a graph without gears."""
        info = self.gear_info(graph_id)
        return {} if info is None else info.symbolic_output_shapes()

    def notes(self, graph_id: int) -> tuple[str, ...]:
        """Notes of the graph's compile (also logged as warnings): `ge.compileHybridMode=1`
        given while GE's other conditions of hybrid mode do not hold, and which fail."""
        self.compile_graph(graph_id)
        return tuple(self._graph(graph_id).notes)

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
        begin = time.perf_counter()
        with memory_limit(graph.options):
            outputs = execute.run_graph(
                graph, self._signature(graph_id), inputs, variables=self._variable_store()
            )
        logger.debug("graph %d: ran in %.3f s", graph_id, time.perf_counter() - begin)
        return outputs

    def run_queue(
        self,
        graph_id: int,
        input_sets: Sequence[Mapping[str, np.ndarray] | Sequence[np.ndarray]],
    ) -> list[dict[str, np.ndarray]]:
        """GetNext sink (`ge.dynamicNodeType=0`): the graph's GetNext pulls `input_sets` in
        order, one per run of the graph, as GE's data channel feeds a sunk model; the sets
        may be of different gears (`GetDynamicDims` finds each one's on the device). Returns
        each run's outputs. Other graphs take one input set (`run_graph`)."""
        graph = self._graph(graph_id)
        self.compile_graph(graph_id)
        with memory_limit(graph.options):
            return execute.run_queue(
                graph, self._signature(graph_id), input_sets, self._variable_store()
            )

    # variables -------------------------------------------------------------------------------

    def variable_names(self) -> tuple[str, ...]:
        """The variables the session's graphs declare (`graph.variable`, `graph.ref_data`)."""
        return tuple(sorted(self._declared_variables()))

    def read_variable(self, name: str) -> np.ndarray:
        """A copy of the session's current value of variable `name` (GE's VarManager keeps
        one per session: every graph and run of the session sees the same). InputError when
        no graph declares it or it has no value yet (no run has met it and none was written)."""
        from gedialects.interpreters.entry import RunError

        declared = self._declared_variables()
        if name not in declared:
            raise InputError(self._unknown_variable(name, declared))
        store = self._variable_store()
        if name not in store:
            raise InputError(
                f"variable '{name}' has no value yet: no run has initialised it and none was "
                "written (write_variable)"
            )
        try:
            return store.get(name)
        except RunError as e:  # pragma: no cover - checked above
            raise InputError(str(e)) from None

    def write_variable(self, name: str, value: np.ndarray) -> None:
        """Sets the session's value of variable `name`, which later runs read (instead of its
        initial value); it must have the shape and dtype the graphs declare (InputError)."""
        import numpy as np

        from gedialects.interpreters.entry import RunError

        if not isinstance(value, np.ndarray | np.generic):
            raise InputError(
                f"variable '{name}': pass a numpy array, not {type(value).__name__} "
                "(no implicit conversion, as in GE)"
            )
        declared = self._declared_variables()
        if name not in declared:
            raise InputError(self._unknown_variable(name, declared))
        try:
            self._variable_store().set(name, np.asarray(value), declared[name])
        except RunError as e:
            raise InputError(str(e)) from None

    def _variable_store(self) -> VariableStore:
        if self._variables is None:
            from gedialects.interpreters.variables import VariableStore

            self._variables = VariableStore()
        return self._variables

    def _declared_variables(self) -> dict[str, Any]:
        from gedialects.graph import variable_types

        found: dict[str, Any] = {}
        for graph in self._graphs.values():
            found.update(variable_types(graph.module))
        return found

    @staticmethod
    def _unknown_variable(name: str, declared: Mapping[str, Any]) -> str:
        known = ", ".join(sorted(declared)) or "none"
        return f"unknown variable '{name}' (the session's variables: {known})"

    def jit_stats(self, graph_id: int) -> JitStats:
        """Counters of a graph added with `ge.jit=1`: slices compiled, cache hits, runs."""
        graph = self._jit_graph(graph_id)
        assert graph.jit is not None
        return graph.jit.stats

    def jit_slices(self, graph_id: int) -> tuple[JitSliceInfo, ...]:
        """Every slice compiled so far for a graph added with `ge.jit=1`, by step."""
        graph = self._jit_graph(graph_id)
        assert graph.jit is not None
        return jit.slices(graph.jit)

    def _jit_graph(self, graph_id: int) -> GraphState:
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
        graph_id = self._only_graph(graph_id, "run")
        outputs = self.run_graph(graph_id, input_feed)
        names = list(outputs) if output_names is None else list(output_names)
        for name in names:
            if name not in outputs:
                raise InputError(
                    f"unknown output '{name}' (outputs of graph {graph_id}: {', '.join(outputs)})"
                )
        return [outputs[name] for name in names]

    def get_inputs(self, graph_id: int | None = None) -> tuple[NodeArg, ...]:
        """onnxruntime's `get_inputs()`: the inputs `run_graph` takes, in order, each with
        `name`, `shape` (None for a dim that is not fixed: `?`, a gear dim), `type`
        (`tensor(float)`) and `dtype`; of `graph_id` or the session's only graph (compiled
        first: `ge.inputShape` and the gears decide the shapes)."""
        return self._node_args(self._only_graph(graph_id, "get_inputs"))[0]

    def get_outputs(self, graph_id: int | None = None) -> tuple[NodeArg, ...]:
        """onnxruntime's `get_outputs()`: the outputs `run_graph` returns, described as
        `get_inputs` describes the inputs (an output dim that differs between gears is None)."""
        return self._node_args(self._only_graph(graph_id, "get_outputs"))[1]

    # helpers ---------------------------------------------------------------------------------

    def _only_graph(self, graph_id: int | None, what: str) -> int:
        """`graph_id`, or the id of the session's only graph (onnxruntime's calls take none)."""
        if graph_id is not None:
            return graph_id
        if len(self._graphs) != 1:
            raise GraphIdError(
                f"{what} needs graph_id: the session holds {len(self._graphs)} graphs "
                f"({', '.join(map(str, self._graphs)) or 'none'})"
            )
        return next(iter(self._graphs))

    def _node_args(self, graph_id: int) -> tuple[tuple[NodeArg, ...], tuple[NodeArg, ...]]:
        self.compile_graph(graph_id)
        return describe(self._graph(graph_id))

    @staticmethod
    def _check_id(graph_id: object) -> None:
        if not isinstance(graph_id, int) or isinstance(graph_id, bool) or graph_id < 0:
            raise GraphIdError(f"graph id must be an integer >= 0, got {graph_id!r}")

    def _graph(self, graph_id: int) -> GraphState:
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
    "NodeArg",
    "OptionError",
    "Session",
    "check_options",
    "load_graph",
    "stream_count",
]
