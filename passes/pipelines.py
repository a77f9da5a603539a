"""Named pipelines: `ge-compile` takes a `graph` module down to the `ascend` task level."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from passes.convert_graph_to_ascend import ConvertGraphToAscendPass


@dataclass(frozen=True)
class CompilePipelinePass(ModulePass):
    """The whole compilation, graph to tasks: `ge-compile` = `ge-convert-graph-to-ascend`.

    The walking skeleton lowers directly; later stages (shape inference, fusion, partitioning,
    memory and stream planning) join this pipeline in GE's order. Options: `default-engine`.
    """

    name = "ge-compile"

    default_engine: str = "AIcoreEngine"

    def passes(self) -> tuple[ModulePass, ...]:
        return (ConvertGraphToAscendPass(default_engine=self.default_engine),)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PassPipeline(self.passes()).apply(ctx, op)
