"""Named pipelines: `ge-compile` takes a `graph` module down to the `ascend` task level."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from gedialects import budget
from gedialects.passes.assign_streams import AssignStreamsPass
from gedialects.passes.convert_graph_to_ascend import ConvertGraphToAscendPass
from gedialects.passes.fold_constants import DEFAULT_MAX_SIZE, FoldConstantsPass
from gedialects.passes.fusion.fuse import FusePass
from gedialects.passes.infer_shapes import InferShapesPass
from gedialects.passes.partition.dynamic_shape import (
    DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT,
    PartitionDynamicShapePass,
)
from gedialects.passes.partition.place_engines import PlaceEnginesPass
from gedialects.passes.plan_memory import PlanMemoryPass
from gedialects.passes.sink_loop import SinkLoopPass, check_iterations
from gedialects.passes.verify_graph import VerifyGraphPass


@dataclass(frozen=True)
class CompilePipelinePass(ModulePass):
    """The whole compilation, graph to tasks, in GE's order.

    Graph preparation and optimisation (`ge-infer-shapes`, `ge-verify-graph`,
    `ge-fold-constants`, `ge-fuse`), engine placement (`ge-place-engines`), dynamic-shape
    partitioning (`ge-partition-dynamic-shape`: nodes whose shapes are only known at run time go
    to unknown-shape partitions), task generation (`ge-convert-graph-to-ascend`: static tasks
    for known partitions, dynamic tasks for unknown ones), then the build stage: logical
    streams before memory, as GE's ModelBuilder does (`ge-assign-streams`,
    `ge-plan-memory`), so that memory reuse never adds a dependency between streams.

    Options: `input-shape` (atc-style pins of `?` input dims), `device-memory` (bytes the graph
    and the planned arena may use; default 0: the memory budget, `--max-memory` /
    `GE_MAX_MEMORY`, since the interpreter is the device and an arena beyond it can never be
    allocated), `fold` and `fold-max-size`, `fusion` and `disable-fusion` (fusion kinds of
    `ge-fuse`), `exclude-engines`, `default-engine`, `multi-stream` (false: one stream),
    `max-streams`, `memory-reuse` (false: GE's `ge.exec.disableReuseMemory`),
    `static-model-ops-lower-limit` (GE's `ge.exec.static_model_ops_lower_limit`: smaller known
    clusters run dynamically; -1: the whole graph),
    `iterations-per-loop` (N > 1: `ge-sink-loop`, N iterations per launch; 1: no sink; at most
    `MAX_ITERATIONS_PER_LOOP`, a million).
    """

    name = "ge-compile"

    input_shape: str = ""
    device_memory: int = 0
    fold: bool = True
    fold_max_size: int = DEFAULT_MAX_SIZE
    fusion: bool = True
    disable_fusion: tuple[str, ...] = ()
    exclude_engines: tuple[str, ...] = ()
    default_engine: str = "AIcoreEngine"
    multi_stream: bool = True
    max_streams: int = 8
    memory_reuse: bool = True
    static_model_ops_lower_limit: int = DEFAULT_STATIC_MODEL_OPS_LOWER_LIMIT
    iterations_per_loop: int = 1

    def passes(self) -> tuple[ModulePass, ...]:
        memory = self.device_memory or budget.max_memory()
        graph: list[ModulePass] = [
            InferShapesPass(input_shape=self.input_shape),
            VerifyGraphPass(device_memory=memory),
        ]
        if self.fold:
            graph.append(FoldConstantsPass(max_size=self.fold_max_size))
        if self.fusion:
            graph.append(FusePass(disable=self.disable_fusion))
        sink: list[ModulePass] = []
        if self.iterations_per_loop != 1:
            sink.append(SinkLoopPass(iterations=self.iterations_per_loop))
        return (
            *graph,
            PlaceEnginesPass(exclude_engines=self.exclude_engines),
            PartitionDynamicShapePass(
                static_model_ops_lower_limit=self.static_model_ops_lower_limit
            ),
            ConvertGraphToAscendPass(default_engine=self.default_engine),
            AssignStreamsPass(max_streams=self.max_streams, single_stream=not self.multi_stream),
            PlanMemoryPass(reuse=self.memory_reuse, device_memory=max(memory, 0)),
            *sink,
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Before any pass runs, so that a bad count is not reported after the whole build.
        check_iterations(self.iterations_per_loop, f"{self.name}: iterations-per-loop")
        PassPipeline(self.passes()).apply(ctx, op)
