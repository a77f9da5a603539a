"""`ge-optimize-whole-graph`: the engine optimisers' `OptimizeWholeGraph` hook."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gedialects.base import paused_gc
from gedialects.passes import engine_optimizers as registry
from gedialects.passes.partition.optimize import HookSettings, run_hooks, runs_anything


@dataclass(frozen=True)
class OptimizeWholeGraphPass(ModulePass):
    """Runs the engine optimisers' `OptimizeWholeGraph` hook on the merged graph (GE
    `PreRunAfterOptimizeSubGraph`), every optimiser by priority. Built in: AI Core's
    `ge-fold-trans-data` (the weights' TransData made by `ge-select-formats` folded into
    their Consts) and GE's trans-op clean-up (`ge-merge-trans-op-breadth`,
    `ge-eliminate-trans-op-symmetry`, `ge-merge-trans-op-depth`). Options: `skip` (hook
    passes left out by registered name), `formats` (false: the format passes are left
    out)."""

    name = "ge-optimize-whole-graph"

    skip: tuple[str, ...] = ()
    formats: bool = True

    def settings(self) -> HookSettings:
        return HookSettings(skip=self.skip, formats=self.formats)

    def runs_anything(self) -> bool:
        return runs_anything(registry.WHOLE_GRAPH_HOOKS, self.settings(), self.name)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with paused_gc():  # the IR's millions of objects: a collection walks them all
            run_hooks(ctx, op, registry.WHOLE_GRAPH_HOOKS, self.settings(), self.name)
