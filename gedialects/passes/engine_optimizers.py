"""Engine optimisers: GE's `GraphOptimizer` plug-ins, one per engine, with hooks in GE's order.

GE asks every engine's graph optimiser to transform the graph at fixed points of the compile
(`inc/graph_metadef/common/optimizer/graph_optimizer.h`; order in
`GraphManager::PreRunOptimizeOriginalGraph` / `SubgraphPartitionAndOptimization` /
`PreRunAfterOptimizeSubGraph` / `StreamGraphOptimizer`). Here an optimiser is a table of hooks,
each a sequence of xDSL passes (registered pass names with options, or `ModulePass` objects),
run by the passes of `gedialects.passes.partition.optimize`:

- `OptimizeGraphPrepare`, `OptimizeOriginalGraph`, `OptimizeOriginalGraphJudgeInsert`,
  `OptimizeOriginalGraphJudgeFormatInsert`: `ge-optimize-original-graph`, on the whole graph
  before placement (GE's order);
- `OptimizeFusedGraph`: `ge-optimize-subgraphs`, on that engine's subgraphs only, between
  `ge-partition-engine` and the merge;
- `OptimizeWholeGraph`: `ge-optimize-whole-graph`, on the merged graph;
- `OptimizeStreamGraph`: `ge-optimize-stream-graph`, on the task-level model after stream
  assignment.

Each hook loops over the optimisers in GE's priority order
(`optimizer_priority.pbtxt`: AI CPU, DVPP, AI Core, Vector Core, RTS, host CPU, GE local, then
user optimisers). Built in:

- `AIcoreEngine` (GE's FE `FEGraphOptimizer`): graph fusion (`ge-fuse`) in
  `OptimizeOriginalGraph`; format selection in `OptimizeFusedGraph` on AI Core subgraphs
  (`ge-select-formats`: Conv2D, pooling, BN in NC1HWC0 / FRACTAL_Z, MatMul with `allow_nz` in
  FRACTAL_NZ, TransData at the PlaceHolder/End boundary, which stays in origin formats, as
  `VerifyPldAndEndNode` needs on the AI CPU side); in `OptimizeWholeGraph`, after the merge,
  the weights' TransData folded into their Consts (`ge-fold-trans-data`) and GE's trans-op
  clean-up (`ge-merge-trans-op-breadth`, `ge-eliminate-trans-op-symmetry`,
  `ge-merge-trans-op-depth`), on the whole graph as GE's OptimizeStage1 runs them: the
  partition gives each edge its own PlaceHolder/End, so two TransData of one input only read
  one value, and a TransData pair only meets, once the partitions are merged back.
  `ge-compile{formats=false}` leaves the format passes out;
- `VectorEngine`: FE's second instance; none of FE's hooks is modelled for it;
- `DNN_VM_AICPU` (`AicpuGraphOptimizer`): `ge-verify-aicpu-formats` in `OptimizeFusedGraph`,
  GE's `VerifyPldAndEndNode` (its PlaceHolder/End keep the origin format or ND);
- `DNN_VM_DVPP`, `DNN_VM_HOST_CPU`, `DNN_VM_GE_LOCAL`, `DNN_VM_RTS`: GE's optimisers of these
  engines change nothing this model represents (GE-local's PhonyConcat attributes, RTS's
  `_format_agnostic` on memcpy ops, host CPU's none), so their hook tables are empty.

Users add an engine with `register_engine_optimizer(optimizer, spec=EngineSpec(...))` (op
table and cost for placement) or from their own package through the entry-point group
`gedialects.passes.engine_optimizers` (an `EngineOptimizer`, or a callable returning one, and
optionally the spec as `(optimizer, spec)`), loaded on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.utils.exceptions import PassFailedException

from gedialects.base import (
    AICORE_ENGINE,
    AICPU_ENGINE,
    DVPP_ENGINE,
    GE_LOCAL_ENGINE,
    HOST_CPU_ENGINE,
    RTS_ENGINE,
    VECTOR_ENGINE,
)
from gedialects.target.engines import (
    COMPOSITE_ENGINES,
    ENGINE_BY_NAME,
    EngineRegistrationError,
    EngineSpec,
    register_engine,
    unregister_engine,
)

if TYPE_CHECKING:
    from xdsl.passes import ModulePass

HOOKS: tuple[str, ...] = (
    "OptimizeGraphPrepare",
    "OptimizeOriginalGraph",
    "OptimizeOriginalGraphJudgeInsert",
    "OptimizeOriginalGraphJudgeFormatInsert",
    "OptimizeFusedGraph",
    "OptimizeWholeGraph",
    "OptimizeStreamGraph",
)
"""GE's hooks in the order a compile calls them."""
ORIGINAL_GRAPH_HOOKS = HOOKS[:4]
SUBGRAPH_HOOKS = ("OptimizeFusedGraph",)
WHOLE_GRAPH_HOOKS = ("OptimizeWholeGraph",)
STREAM_GRAPH_HOOKS = ("OptimizeStreamGraph",)

ENTRY_POINT_GROUP = "gedialects.passes.engine_optimizers"
USER_PRIORITY = 100
"""Priority of user optimisers by default: after every built-in (GE's `custom_graph_optimizer`
comes last too)."""


class EngineOptimizerError(PassFailedException):
    """A bad registration (duplicate engine, unknown hook, malformed entry point): one line,
    reported by `ge-opt` and the Session as any pass failure (plug-ins load when the pipeline
    is built)."""


@dataclass(frozen=True)
class EngineOptimizer:
    """One engine's graph optimiser: GE's name, its engine and its hooks.

    `hooks` maps a hook of `HOOKS` to the passes it runs, in order: registered pass names
    (`"ge-fuse{disable=mul-add}"`) or `ModulePass` objects. `priority`: lower runs first in
    each hook (GE's `optimizer_priority.pbtxt` position).
    """

    name: str
    engine: str
    hooks: Mapping[str, Sequence[str | ModulePass]] = field(default_factory=dict)
    priority: int = USER_PRIORITY

    def passes(self, hook: str) -> tuple[str | ModulePass, ...]:
        return tuple(self.hooks.get(hook, ()))

    def check(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise EngineOptimizerError(f"optimiser name must be a non-empty string: {self.name!r}")
        if not isinstance(self.engine, str) or not self.engine:
            raise EngineOptimizerError(
                f"optimiser '{self.name}': engine must be a non-empty string: {self.engine!r}"
            )
        from xdsl.passes import ModulePass

        for hook, passes in self.hooks.items():
            if hook not in HOOKS:
                raise EngineOptimizerError(
                    f"optimiser '{self.name}': unknown hook '{hook}' (hooks: {', '.join(HOOKS)})"
                )
            if isinstance(passes, str | ModulePass):
                raise EngineOptimizerError(
                    f"optimiser '{self.name}': hook {hook} takes a sequence of passes"
                )
            for p in passes:
                if not isinstance(p, str | ModulePass):
                    raise EngineOptimizerError(
                        f"optimiser '{self.name}': hook {hook}: {p!r} is neither a pass name "
                        "nor a ModulePass"
                    )


AICORE_OPTIMIZER = EngineOptimizer(
    "AIcoreEngine",
    AICORE_ENGINE,
    {
        "OptimizeOriginalGraph": ("ge-fuse",),
        "OptimizeFusedGraph": ("ge-select-formats",),
        "OptimizeWholeGraph": (
            "ge-fold-trans-data",
            "ge-merge-trans-op-breadth",
            "ge-eliminate-trans-op-symmetry",
            "ge-merge-trans-op-depth",
        ),
    },
    priority=6,
)
BUILTIN_OPTIMIZERS: tuple[EngineOptimizer, ...] = (
    EngineOptimizer(
        "aicpu_ascend_optimizer",
        AICPU_ENGINE,
        {"OptimizeFusedGraph": ("ge-verify-aicpu-formats",)},
        priority=2,
    ),
    EngineOptimizer("dvpp_graph_optimizer", DVPP_ENGINE, priority=4),
    AICORE_OPTIMIZER,
    EngineOptimizer("VectorEngine", VECTOR_ENGINE, priority=7),
    EngineOptimizer("DNN_VM_RTS_GRAPH_OPTIMIZER_STORE", RTS_ENGINE, priority=11),
    EngineOptimizer("DNN_VM_HOST_CPU_OPTIMIZER", HOST_CPU_ENGINE, priority=13),
    EngineOptimizer("ge_local_graph_optimizer", GE_LOCAL_ENGINE, priority=14),
)

_BY_ENGINE: dict[str, EngineOptimizer] = {o.engine: o for o in BUILTIN_OPTIMIZERS}
_BUILTIN = frozenset(_BY_ENGINE)
_loaded_entry_points = False


def register_engine_optimizer(
    optimizer: EngineOptimizer, *, spec: EngineSpec | None = None
) -> None:
    """Registers `optimizer` for its engine; with `spec`, also the engine's op table and cost
    (placement then considers it, `gedialects.target.engines.register_engine`). One optimiser
    per engine: a second one is an error."""
    if not isinstance(optimizer, EngineOptimizer):
        raise EngineOptimizerError(
            f"register_engine_optimizer takes an EngineOptimizer, got {type(optimizer).__name__}"
        )
    optimizer.check()
    _load_entry_points()
    _register(optimizer, spec)


def _register(optimizer: EngineOptimizer, spec: EngineSpec | None) -> None:
    engine = optimizer.engine
    old = _BY_ENGINE.get(engine)
    if old is not None:
        raise EngineOptimizerError(
            f"engine '{engine}' already has an engine optimiser ('{old.name}'); "
            f"cannot register '{optimizer.name}'"
        )
    if spec is not None:
        if spec.name != engine:
            raise EngineOptimizerError(
                f"optimiser '{optimizer.name}' is for engine '{engine}' but its spec names "
                f"'{spec.name}'"
            )
        try:
            register_engine(spec)
        except EngineRegistrationError as e:
            raise EngineOptimizerError(str(e)) from None
    elif engine not in ENGINE_BY_NAME and engine not in COMPOSITE_ENGINES:
        raise EngineOptimizerError(
            f"optimiser '{optimizer.name}': engine '{engine}' is not registered; pass its "
            "EngineSpec (op table and cost) as spec="
        )
    _BY_ENGINE[engine] = optimizer


def unregister_engine_optimizer(engine: str) -> None:
    """Removes a user optimiser and its engine spec (tests; built-ins stay)."""
    if engine in _BUILTIN:
        raise EngineOptimizerError(f"engine '{engine}' has a built-in optimiser")
    _BY_ENGINE.pop(engine, None)
    if engine in ENGINE_BY_NAME:
        unregister_engine(engine)


def _load_entry_points() -> None:
    """Registers the optimisers of installed packages (entry-point group
    `gedialects.passes.engine_optimizers`)."""
    global _loaded_entry_points
    if _loaded_entry_points:
        return
    _loaded_entry_points = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        where = f"entry point '{ep.name}' ({ep.value}) of group {ENTRY_POINT_GROUP}"
        try:
            obj = ep.load()
        except Exception as e:  # a broken plug-in is reported, not a traceback
            raise EngineOptimizerError(f"{where} does not load: {type(e).__name__}: {e}") from None
        value = obj() if callable(obj) and not isinstance(obj, EngineOptimizer) else obj
        spec = None
        if isinstance(value, tuple) and len(value) == 2:
            value, spec = value
        if not isinstance(value, EngineOptimizer) or not (
            spec is None or isinstance(spec, EngineSpec)
        ):
            raise EngineOptimizerError(
                f"{where} gives {type(value).__name__}, not an EngineOptimizer "
                "(or an (EngineOptimizer, EngineSpec) pair)"
            )
        try:
            value.check()
            _register(value, spec)
        except EngineOptimizerError as e:
            raise EngineOptimizerError(f"{where}: {e}") from None


def optimizer_for(engine: str) -> EngineOptimizer | None:
    _load_entry_points()
    return _BY_ENGINE.get(engine)


def optimizers() -> list[EngineOptimizer]:
    """Every registered optimiser in GE's priority order (registration order breaks ties)."""
    _load_entry_points()
    return sorted(_BY_ENGINE.values(), key=lambda o: o.priority)


def has_hooks(hooks: Iterable[str]) -> bool:
    """Whether any optimiser runs a pass in one of `hooks` (the pipeline leaves the step out
    otherwise)."""
    wanted = tuple(hooks)
    return any(o.passes(h) for o in optimizers() for h in wanted)


def composite_optimizers() -> list[EngineOptimizer]:
    """Optimisers of composite engines: without one GE skips the composite partition."""
    return [o for o in optimizers() if o.engine in COMPOSITE_ENGINES]


__all__ = [
    "BUILTIN_OPTIMIZERS",
    "ENTRY_POINT_GROUP",
    "HOOKS",
    "EngineOptimizer",
    "EngineOptimizerError",
    "composite_optimizers",
    "has_hooks",
    "optimizer_for",
    "optimizers",
    "register_engine_optimizer",
    "unregister_engine_optimizer",
]
