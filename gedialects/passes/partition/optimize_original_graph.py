"""`ge-optimize-original-graph`: the engine optimisers' original-graph hooks (GE
`PreRunOptimizeOriginalGraph`)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gedialects.passes import engine_optimizers as registry
from gedialects.passes.partition.optimize import FUSE_PASS, HookSettings, run_hooks


@dataclass(frozen=True)
class OptimizeOriginalGraphPass(ModulePass):
    """Runs the engine optimisers' original-graph hooks on the whole graph, in GE's order
    (`OptimizeGraphPrepare`, `OptimizeOriginalGraph`, `OptimizeOriginalGraphJudgeInsert`,
    `OptimizeOriginalGraphJudgeFormatInsert`), each over every optimiser by GE's priority
    (GE `GraphManager::PreRunOptimizeOriginalGraph`). Built in: AI Core's graph fusion
    (`ge-fuse`). Options: `fusion` (false: AI Core's `ge-fuse` is left out, as GE's fusion
    switch file with `GraphFusion ALL off`), `disable-fusion` (fusion kinds its `ge-fuse`
    leaves out), `skip` (hook passes left out by registered name).
    """

    name = "ge-optimize-original-graph"

    fusion: bool = True
    disable_fusion: tuple[str, ...] = ()
    skip: tuple[str, ...] = ()

    def settings(self) -> HookSettings:
        skip = self.skip if self.fusion else (*self.skip, FUSE_PASS)
        return HookSettings(skip=skip, disable_fusion=self.disable_fusion)

    def runs_anything(self) -> bool:
        """Whether some optimiser has a pass left in these hooks (else `ge-compile` leaves the
        step out); builds every hook pass, so a bad pass name is reported here."""
        settings = self.settings()
        return any(
            settings.passes(o, hook, self.name)
            for hook in registry.ORIGINAL_GRAPH_HOOKS
            for o in registry.optimizers()
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        run_hooks(ctx, op, registry.ORIGINAL_GRAPH_HOOKS, self.settings(), self.name)
