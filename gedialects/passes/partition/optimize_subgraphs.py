"""`ge-optimize-subgraphs`: each engine's `OptimizeFusedGraph` hook on its own subgraphs
(GE `OptimizeSubGraph`)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gedialects.base import paused_gc
from gedialects.passes import engine_optimizers as registry
from gedialects.passes.partition.optimize import HookSettings, optimize_subgraphs


@dataclass(frozen=True)
class OptimizeSubgraphsPass(ModulePass):
    """Runs each engine's `OptimizeFusedGraph` hook on that engine's subgraphs only (GE
    `OptimizeSubGraph`, between `ge-partition-engine` and `ge-merge-engine-partitions`).

    Graphs with `_engine_name` are grouped by engine; each engine's optimiser (GE priority
    order) runs its passes on a module holding just its subgraphs, which then go back where
    they were. Built in: AI CPU's `ge-verify-aicpu-formats` (GE `VerifyPldAndEndNode`), AI
    Core's format selection (`ge-select-formats`: Cube ops in NC1HWC0 / FRACTAL_Z, TransData
    at the subgraph's PlaceHolder/End, which stay in origin formats). A subgraph of an engine
    without optimiser is an error.
    Options: `skip` (hook passes left out by registered name), `formats` (false: the format
    passes are left out), `allow-nz` (`ge-select-formats{allow-nz}`: MatMuls in FRACTAL_NZ),
    `precision-mode` (`ge-select-formats{precision-mode}`, GE's `precision_mode`; empty: the
    pass's default).
    """

    name = "ge-optimize-subgraphs"

    skip: tuple[str, ...] = ()
    formats: bool = True
    allow_nz: bool = False
    precision_mode: str = ""

    def settings(self) -> HookSettings:
        return HookSettings(
            skip=self.skip,
            formats=self.formats,
            allow_nz=self.allow_nz,
            precision_mode=self.precision_mode,
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with paused_gc():  # the IR's millions of objects: a collection walks them all
            optimize_subgraphs(ctx, op, registry.SUBGRAPH_HOOKS, self.settings(), self.name)
