"""Named pipelines: `ge-compile` takes a `graph` module down to the `ascend` task level.

A named pipeline is a pass with `passes()`: the ordinary registered passes it stands for, in
order. `ge-opt` expands it into those stages before running (`expand_pipelines`), so that
`--print-between-passes` and `--time-passes` see each stage; `apply` runs the same stages as
one pass, for Python callers and stock `xdsl-opt`. The Session, `ge-atc` and the JIT slices
build their compilation from `CompilePipelinePass` too: `passes()` is the one definition of
GE's compile order.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import PassFailedException

from gedialects import budget, progress
from gedialects.gear_options import GearError
from gedialects.graph import VariableRefOp, VarLikeOp
from gedialects.passes import engine_optimizers
from gedialects.passes.assign_streams import AssignStreamsPass
from gedialects.passes.convert_graph_to_ascend import ConvertGraphToAscendPass
from gedialects.passes.delete_variable_refs import DeleteVariableRefsPass
from gedialects.passes.fold_constants import DEFAULT_MAX_SIZE, FoldConstantsPass
from gedialects.passes.for_to_while import ConvertForToWhilePass
from gedialects.passes.fusion.fuse import FUSIONS
from gedialects.passes.fusion.fuse_quant import FuseQuantPass
from gedialects.passes.infer_shapes import InferShapesPass
from gedialects.passes.multibatch.expand import MultibatchExpandPass
from gedialects.passes.normalize_conds import NormalizeCondsPass
from gedialects.passes.partition.dynamic_shape import (
    DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT,
    PartitionDynamicShapePass,
)
from gedialects.passes.partition.engine import PartitionEnginePass
from gedialects.passes.partition.hostcpu_engine_update import UpdateHostcpuEnginePass
from gedialects.passes.partition.merge_engine_partitions import MergeEnginePartitionsPass
from gedialects.passes.partition.optimize_original_graph import OptimizeOriginalGraphPass
from gedialects.passes.partition.optimize_stream_graph import OptimizeStreamGraphPass
from gedialects.passes.partition.optimize_subgraphs import OptimizeSubgraphsPass
from gedialects.passes.partition.optimize_whole_graph import OptimizeWholeGraphPass
from gedialects.passes.partition.place_engines import PlaceEnginesPass
from gedialects.passes.partition.stage import PartitionStagePass
from gedialects.passes.plan_memory import PlanMemoryPass
from gedialects.passes.prepare_variables import PrepareVariablesPass
from gedialects.passes.sink_loop import SinkLoopPass, check_iterations
from gedialects.passes.split_variables import SplitVariablesIntoSubgraphsPass
from gedialects.passes.verify_graph import VerifyGraphPass

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CompilePipelinePass(ModulePass):
    """The whole compilation, graph to tasks, in GE's order.

    Gears first when a gear option is given (`ge-expand-multibatch`: one static branch per
    gear), then graph preparation (`ge-infer-shapes`, `ge-verify-graph`, `ge-fuse-quant`: GE's
    `OptimizeOriginalGraphForQuantize` before the weights' dequantisation is folded,
    `ge-fold-constants`;
    after the For to While conversion, `ge-split-variables-into-subgraphs`, GE's
    `CopyVarIntoSubgraph` at the end of graph preparation) and the engine optimisers'
    original-graph hooks on the whole graph (`ge-optimize-original-graph`: AI Core's graph
    fusion `ge-fuse`; GE's `PreRunOptimizeOriginalGraph`), then `ge-prepare-variables` (GE's
    `PrepareRunningFormatRefiner`: a VariableRef behind each variable's last writer, which the
    dynamic-shape partition merges into its writer's cluster). Then GE's `OptimizeSubgraph`: the
    stage partition (`ge-partition-stage`, a no-op without `_stage_level`), engine placement
    (`ge-place-engines`), the host-CPU engine update (`ge-update-hostcpu-engine`), the
    dynamic-shape partition (`ge-partition-dynamic-shape`: nodes whose shapes are only known at
    run time go to unknown-shape partitions) and a second placement for the nodes it made; the
    composite engine partition with its optimisation and merge when a composite engine has an
    optimiser; the atomic engine partition (`ge-partition-engine`), each engine's subgraphs
    optimised by that engine's optimiser (`ge-optimize-subgraphs`) and the merge
    (`ge-merge-engine-partitions`); `ge-optimize-whole-graph` when an optimiser has that hook,
    and `ge-delete-variable-refs` (GE's `OptimizeStage2` after the merge: `ref_var_src_var_name`
    on each writer). Then task generation (`ge-convert-graph-to-ascend`: static tasks for known
    partitions, dynamic tasks for unknown ones) and the build stage: logical streams before
    memory, as GE's ModelBuilder does (`ge-assign-streams`, `ge-optimize-stream-graph` when an
    optimiser has that hook, `ge-plan-memory`), so that memory reuse never adds a dependency
    between streams; last `ge-sink-loop` when `iterations-per-loop` > 1. `ge-opt` runs these
    stages one by one (`--print-between-passes`, `--time-passes` show each).

    Options: `input-shape` (atc-style pins of `?` input dims; with a gear option, the `-1`
    dims the gears fill), the gear options of `ge-expand-multibatch` (`dynamic-batch-size`,
    `dynamic-image-size`, `dynamic-dims`, `input-format`) and `hybrid` (with gears: also keep
    the fully dynamic graph for input shapes of no gear) and `static-branches` (GE's refusal of a
    gear branch with data-dependent shapes), `device-memory` (bytes the graph
    and the planned arena may use; default 0: the memory budget, `--max-memory` /
    `GE_MAX_MEMORY`, since the interpreter is the device and an arena beyond it can never be
    allocated), `fold` and `fold-max-size`, `fusion` and `disable-fusion` (fusion kinds of
    AI Core's `ge-fuse` hook; fusion=false leaves `ge-optimize-original-graph` out when
    nothing else is in its hooks), `formats` (false: AI Core's format selection, GE's
    trans-op clean-up and the weight fold are left out, every tensor stays in its origin
    format, to compare with), `allow-nz` (every AI Core MatMul in FRACTAL_NZ, as with GE's
    `allow_nz` attribute), `precision-mode` (GE's `precision_mode` for AI Core's format
    selection: `force_fp16` runs the heavy ops in float16 with Casts around them; empty:
    `ge-select-formats`'s default), `exclude-engines` (both placements), `default-engine`,
    `multi-stream` (false: one stream), `max-streams`, `memory-reuse` (false: GE's
    `ge.exec.disableReuseMemory`),
    `static-model-ops-lower-limit` (GE's `ge.exec.static_model_ops_lower_limit`: smaller known
    clusters run dynamically; -1: the whole graph), `partition-static` (false: a module whose
    shapes are all known skips `ge-partition-dynamic-shape`, which would only mark its graphs
    `_dynamic_shape_partitioned = false`; the Session and JIT slices set it),
    `iterations-per-loop` (N > 1: `ge-sink-loop`, N iterations per launch; 1: no sink; at most
    `MAX_ITERATIONS_PER_LOOP`, a million), `skip-passes` (engine optimiser hook passes left
    out by registered name), `symbolic-gears` (default true: with six gears or more,
    `apply` compiles a few probe gears and instantiates the others from them, GE's
    SymbolizeMultiBatchSubGraph, `passes.multibatch.symbolic`, also with subgraphs, a GetNext
    sink, a loop sink or hybrid mode; false, or when the probes do not explain every gear,
    each gear branch goes through every stage; `ge-opt`, which runs the stages one by one,
    compiles each gear).
    """

    name = "ge-compile"
    OPTION_CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"disable_fusion": tuple(FUSIONS)}
    """Checked by `ge-opt` when it reads the pipeline (`tools.pass_catalog`)."""

    input_shape: str = ""
    dynamic_batch_size: str = ""
    dynamic_image_size: str = ""
    dynamic_dims: str = ""
    input_format: str = "NCHW"
    hybrid: bool = False
    static_branches: bool = False
    device_memory: int = 0
    fold: bool = True
    fold_max_size: int = DEFAULT_MAX_SIZE
    fusion: bool = True
    disable_fusion: tuple[str, ...] = ()
    formats: bool = True
    allow_nz: bool = False
    precision_mode: str = ""
    exclude_engines: tuple[str, ...] = ()
    default_engine: str = "AIcoreEngine"
    multi_stream: bool = True
    max_streams: int = 8
    memory_reuse: bool = True
    static_model_ops_lower_limit: int = DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT
    partition_static: bool = True
    iterations_per_loop: int = 1
    skip_passes: tuple[str, ...] = ()
    symbolic_gears: bool = True

    @property
    def gears(self) -> bool:
        """Whether a gear option is given (the stages then start with the gear expansion)."""
        return any((self.dynamic_batch_size, self.dynamic_image_size, self.dynamic_dims))

    def expansion(self) -> MultibatchExpandPass:
        """The gear expansion these options ask for (the first stage with a gear option)."""
        return MultibatchExpandPass(
            input_shape=self.input_shape,
            dynamic_batch_size=self.dynamic_batch_size,
            dynamic_image_size=self.dynamic_image_size,
            dynamic_dims=self.dynamic_dims,
            input_format=self.input_format,
            hybrid=self.hybrid,
            static_branches=self.static_branches,
        )

    def device_bytes(self) -> int:
        """`device-memory`, or the memory budget in force for 0."""
        return self.device_memory or budget.max_memory()

    def checks(self) -> tuple[ModulePass, ...]:
        """The stages after the gears: shape inference and the graph checks (JIT mode runs
        them ahead on the whole graph, before slicing)."""
        shape = "" if self.gears else self.input_shape  # gears pinned every branch's shapes
        return InferShapesPass(input_shape=shape), VerifyGraphPass(
            device_memory=self.device_bytes()
        )

    def passes(self) -> tuple[ModulePass, ...]:
        """The registered passes `ge-compile` stands for, in order; refuses bad options first,
        so that a bad count is not reported after the whole build."""
        check_iterations(self.iterations_per_loop, f"{self.name}: iterations-per-loop")
        if self.hybrid and not self.gears:
            raise PassFailedException(
                f"{self.name}: hybrid needs gears: give dynamic-batch-size, dynamic-image-size "
                "or dynamic-dims"
            )
        first: list[ModulePass] = []
        if self.gears:
            first.append(self.expansion())
        first += self.checks()
        first += [ConvertForToWhilePass(), SplitVariablesIntoSubgraphsPass(), NormalizeCondsPass()]
        if self.fusion and "quant" not in self.disable_fusion:
            first.append(FuseQuantPass())  # before folding turns the weights' QDQ into floats
        if self.fold:
            first.append(FoldConstantsPass(max_size=self.fold_max_size))
        original = OptimizeOriginalGraphPass(
            fusion=self.fusion, disable_fusion=self.disable_fusion, skip=self.skip_passes
        )
        if original.runs_anything():
            first.append(original)
        first.append(PrepareVariablesPass())
        # each stage its own object: ge-opt tells a pass that runs twice apart by identity
        subgraphs: list[ModulePass] = [
            PartitionStagePass(),
            PlaceEnginesPass(exclude_engines=self.exclude_engines),
            UpdateHostcpuEnginePass(),
            PartitionDynamicShapePass(
                static_model_ops_lower_limit=self.static_model_ops_lower_limit,
                skip_static=not self.partition_static,
            ),
            PlaceEnginesPass(exclude_engines=self.exclude_engines),
        ]
        modes = ("composite", "atomic") if engine_optimizers.composite_optimizers() else ("atomic",)
        for mode in modes:
            subgraphs += [
                PartitionEnginePass(mode=mode, skip_partitioned=True),
                OptimizeSubgraphsPass(
                    skip=self.skip_passes,
                    formats=self.formats,
                    allow_nz=self.allow_nz,
                    precision_mode=self.precision_mode,
                ),
                MergeEnginePartitionsPass(),
            ]
        whole = OptimizeWholeGraphPass(skip=self.skip_passes, formats=self.formats)
        if whole.runs_anything():
            subgraphs.append(whole)
        subgraphs.append(DeleteVariableRefsPass())
        streams: list[ModulePass] = [
            AssignStreamsPass(max_streams=self.max_streams, single_stream=not self.multi_stream)
        ]
        if engine_optimizers.has_hooks(engine_optimizers.STREAM_GRAPH_HOOKS):
            streams.append(OptimizeStreamGraphPass(skip=self.skip_passes))
        sink: list[ModulePass] = []
        if self.iterations_per_loop != 1:
            sink.append(SinkLoopPass(iterations=self.iterations_per_loop))
        return (
            *first,
            *subgraphs,
            ConvertGraphToAscendPass(default_engine=self.default_engine),
            *streams,
            PlanMemoryPass(reuse=self.memory_reuse, device_memory=max(self.device_bytes(), 0)),
            *sink,
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if (
            self.gears
            and self.symbolic_gears
            and compile_symbolically(op, self, lambda m, p: p.apply(ctx, m))
        ):
            return
        stages = self.passes()
        with progress.task("compiling", total=len(stages), unit="passes") as bar:
            PassPipeline(stages, StageProgress(bar)).apply(ctx, op)


class StageProgress:
    """A `PassPipeline` callback (or called by hand around each stage) that shows the pass
    running on a progress bar and logs each pass's wall time (`-v`): the one place the
    Session, `ge-atc` and `ge-opt` report compile progress."""

    def __init__(self, bar: progress.Task) -> None:
        self.bar = bar
        self.begin = time.perf_counter()

    def __call__(self, prev: ModulePass | None, module: ModuleOp, nxt: ModulePass | None) -> None:
        now = time.perf_counter()
        if prev is not None:
            logger.info("ran %s in %.3f s", prev.name, now - self.begin)
            self.bar.advance()
        if nxt is not None:
            self.bar.step(nxt.name)
        self.begin = now


def expand_pipelines(passes: Sequence[ModulePass]) -> tuple[ModulePass, ...]:
    """`passes` with every named pipeline (`ge-compile`, the one so far) replaced by its
    stages: what `ge-opt` runs, so that each stage is a pass of its own."""
    out: list[ModulePass] = []
    for p in passes:
        if isinstance(p, CompilePipelinePass):
            out += expand_pipelines(p.passes())
        else:
            out.append(p)
    return tuple(out)


def skips(stage: ModulePass, module: ModuleOp) -> bool:
    """Whether `stage` would leave `module` as it is (so the Session lists no IR for it):
    `ge-partition-dynamic-shape{skip-static}` on a module of known shapes, `ge-partition-stage`
    on a module without `_stage_level`, the variable passes on a module without variables."""
    if isinstance(stage, PartitionStagePass):
        return stage.skips(module)
    if isinstance(stage, SplitVariablesIntoSubgraphsPass | PrepareVariablesPass):
        return not any(isinstance(op, VarLikeOp) for op in module.walk())
    if isinstance(stage, DeleteVariableRefsPass):
        return not any(isinstance(op, VariableRefOp) for op in module.walk())
    return isinstance(stage, PartitionDynamicShapePass) and stage.skips(module)


def compile_symbolically(
    module: ModuleOp,
    pipeline: CompilePipelinePass,
    run: Callable[[ModuleOp, CompilePipelinePass], None],
) -> bool:
    """Compiles `module` as `pipeline` asks by running `run` on probe gears and instantiating
    the rest; False (and `module` untouched, with a debug log line naming why) when the
    gears must be compiled one by one: few gears, hybrid mode in one pass, several root
    graphs, or probes that do not explain a gear. With `iterations-per-loop` > 1 the probes
    are compiled without the loop sink and the instantiated model is sunk (`ge-sink-loop` is
    the last stage), which gives the model the full compile gives."""
    from gedialects.graph import GraphOp
    from gedialects.passes.multibatch import symbolic
    from gedialects.passes.multibatch.expand import direct_calls

    def refused(why: str) -> bool:
        logger.debug("gears compiled one by one: %s", why)
        return False

    try:
        config = pipeline.expansion().config()
    except (PassFailedException, GearError):
        return False  # the full compile reports the bad option
    if config.gear_count < symbolic.MIN_GEARS:
        return refused(f"{config.gear_count} gears, fewer than {symbolic.MIN_GEARS}")
    graphs = [op for op in module.ops if isinstance(op, GraphOp)]
    called = {callee for g in graphs for callee in direct_calls(g)}
    roots = [g for g in graphs if g.sym_name.data not in called]
    if len(roots) != 1:
        return refused(f"{len(roots)} root graphs in the module")
    name = roots[0].sym_name.data
    try:
        probe_index = symbolic.probe_gears(config)
    except symbolic.NotSymbolic as e:
        return refused(str(e))
    probes = [config.gears[i] for i in probe_index]
    virtual = symbolic.virtual_probe(config)
    if virtual is not None:
        probes.append(virtual)
    option = symbolic.gear_option(config, probes)
    field = symbolic.GEAR_FIELDS[config.dynamic_type]
    gear_fields = {"dynamic_batch_size": "", "dynamic_image_size": "", "dynamic_dims": ""}
    gear_fields[field] = option
    # a loop sink is the last stage and reads only the tasks: the probes are compiled
    # without it and the model of every gear is sunk, as the full compile sinks it
    probe = replace(pipeline, symbolic_gears=False, iterations_per_loop=1, **gear_fields)
    copy = module.clone()
    try:
        run(copy, probe)
        symbolic.instantiate(copy, name, config, probes)
        if pipeline.iterations_per_loop != 1:
            SinkLoopPass(iterations=pipeline.iterations_per_loop).apply(Context(), copy)
    except symbolic.NotSymbolic as e:
        return refused(str(e))
    except PassFailedException as e:
        # the full compile runs (and reports a failure with every gear's names)
        return refused(f"the probes' compile failed: {e}")
    block = module.body.block
    for op in list(block.ops):
        op.detach()
        op.erase(safe_erase=False)
    for op in list(copy.ops):
        op.detach()
        block.add_op(op)
    return True
