"""`ge-optimize-stream-graph`: the engine optimisers' `OptimizeStreamGraph` hook."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gedialects.passes import engine_optimizers as registry
from gedialects.passes.partition.optimize import HookSettings, run_hooks


@dataclass(frozen=True)
class OptimizeStreamGraphPass(ModulePass):
    """Runs the engine optimisers' `OptimizeStreamGraph` hook on the task-level model after
    `ge-assign-streams` (GE `StreamGraphOptimizer`), every optimiser by priority. Option
    `skip`: hook passes left out by registered name."""

    name = "ge-optimize-stream-graph"

    skip: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        run_hooks(ctx, op, registry.STREAM_GRAPH_HOOKS, HookSettings(skip=self.skip), self.name)
