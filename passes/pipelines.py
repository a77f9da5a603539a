"""Named pipelines: `ge-compile` takes a `graph` module down to the `ascend` task level."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from passes.assign_streams import AssignStreamsPass
from passes.convert_graph_to_ascend import ConvertGraphToAscendPass
from passes.plan_memory import PlanMemoryPass


@dataclass(frozen=True)
class CompilePipelinePass(ModulePass):
    """The whole compilation, graph to tasks: `ge-compile` = `ge-convert-graph-to-ascend`,
    `ge-assign-streams`, `ge-plan-memory`.

    Streams before memory, as GE's build does (logical streams, then memory assignment that
    respects them): reuse then never adds a dependency between streams. Later stages (shape
    inference, fusion, partitioning) join this pipeline in GE's order. Options:
    `default-engine`, `multi-stream` (false: `ge-assign-streams{single-stream}`),
    `max-streams`, `memory-reuse` (false: GE's `ge.exec.disableReuseMemory`).
    """

    name = "ge-compile"

    default_engine: str = "AIcoreEngine"
    multi_stream: bool = True
    max_streams: int = 8
    memory_reuse: bool = True

    def passes(self) -> tuple[ModulePass, ...]:
        return (
            ConvertGraphToAscendPass(default_engine=self.default_engine),
            AssignStreamsPass(max_streams=self.max_streams, single_stream=not self.multi_stream),
            PlanMemoryPass(reuse=self.memory_reuse),
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PassPipeline(self.passes()).apply(ctx, op)
