"""`ge-optimize-subgraphs`: each engine's `OptimizeFusedGraph` hook on its own subgraphs
(GE `OptimizeSubGraph`)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gedialects.passes import engine_optimizers as registry
from gedialects.passes.partition.optimize import HookSettings, optimize_subgraphs


@dataclass(frozen=True)
class OptimizeSubgraphsPass(ModulePass):
    """Runs each engine's `OptimizeFusedGraph` hook on that engine's subgraphs only (GE
    `OptimizeSubGraph`, between `ge-partition-engine` and `ge-merge-engine-partitions`).

    Graphs with `_engine_name` are grouped by engine; each engine's optimiser (GE priority
    order) runs its passes on a module holding just its subgraphs, which then go back where
    they were. Built in: AI CPU's `ge-verify-aicpu-formats` (GE `VerifyPldAndEndNode`). A
    subgraph of an engine without optimiser is an error. Option `skip`: hook passes left out by
    registered name.
    """

    name = "ge-optimize-subgraphs"

    skip: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        optimize_subgraphs(
            ctx, op, registry.SUBGRAPH_HOOKS, HookSettings(skip=self.skip), self.name
        )
