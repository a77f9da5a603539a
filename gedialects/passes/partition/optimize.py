"""The passes that run the engine optimisers' hooks (`gedialects.passes.engine_optimizers`).

- `ge-optimize-original-graph`: GE's `PreRunOptimizeOriginalGraph` hooks
  (`OptimizeGraphPrepare` -> `OptimizeOriginalGraph` -> `OptimizeOriginalGraphJudgeInsert` ->
  `OptimizeOriginalGraphJudgeFormatInsert`), each over every optimiser by priority, on the
  whole graph (GE runs them before placement, each optimiser picking its own nodes);
- `ge-optimize-subgraphs`: GE's `OptimizeSubGraph` between an engine partition and its merge:
  `OptimizeFusedGraph` of each engine's optimiser on that engine's subgraphs only (the
  subgraphs are moved into a module of their own for the hook's passes and back after);
- `ge-optimize-whole-graph`: `OptimizeWholeGraph` after the merge;
- `ge-optimize-stream-graph`: `OptimizeStreamGraph` on the task-level model after stream
  assignment (GE's `StreamGraphOptimizer`).

A subgraph whose engine has no optimiser is an error (the data subgraph `inputNodeGraph` and,
in composite mode, the nodes of no composite engine are not any engine's). Nodes a hook
creates without an engine get their subgraph's engine (GE re-places the merged graph).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import ENGINE_NAME, GEOp, block_ops, of_class
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.partition import EndOp, PlaceHolderOp
from gedialects.passes import engine_optimizers as registry
from gedialects.passes.analysis.graph_view import str_attr, string_value
from gedialects.target.engines import ENGINE_BY_NAME, INPUT_NODES_SUBGRAPH

FUSE_PASS = "ge-fuse"
SELECT_FORMATS_PASS = "ge-select-formats"
FORMAT_PASSES = (
    SELECT_FORMATS_PASS,
    "ge-merge-trans-op-breadth",
    "ge-eliminate-trans-op-symmetry",
    "ge-merge-trans-op-depth",
    "ge-fold-trans-data",
)
"""AI Core's format passes: the selection, GE's trans-op clean-up and the weight fold, which
`ge-compile{formats=false}` leaves out (origin formats throughout, to compare with)."""


def resolve(owner: str, item: str | ModulePass, where: str) -> tuple[ModulePass, ...]:
    """The passes of one hook entry: a `ModulePass`, or registered pass text parsed as
    `ge-opt -p` parses it; a bad name or option is a one-line error naming the optimiser."""
    if isinstance(item, ModulePass):
        return (item,)
    from gedialects.passes import get_all_passes

    try:
        return PassPipeline.parse_spec(get_all_passes(), item).passes
    except Exception as e:  # xDSL reports bad specs as several exception types
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise PassFailedException(
            f"{where}: engine optimiser '{owner}' names pass '{item}', which does not build: "
            f"{first}"
        ) from None


@dataclass(frozen=True)
class HookSettings:
    """What the compile options change in the hooks: passes left out by name, the fusion
    kinds AI Core's `ge-fuse` leaves out, whether the format passes run (`FORMAT_PASSES`)
    and whether `ge-select-formats` treats every MatMul as `allow_nz` and which precision mode
    it applies."""

    skip: tuple[str, ...] = ()
    disable_fusion: tuple[str, ...] = ()
    formats: bool = True
    allow_nz: bool = False
    precision_mode: str = ""
    """GE's `precision_mode` for `ge-select-formats` ("": the pass's default)."""

    def passes(
        self, optimizer: registry.EngineOptimizer, hook: str, where: str
    ) -> list[ModulePass]:
        out: list[ModulePass] = []
        for item in optimizer.passes(hook):
            for p in resolve(optimizer.name, item, where):
                if p.name in self.skip or (not self.formats and p.name in FORMAT_PASSES):
                    continue
                if p.name == SELECT_FORMATS_PASS and self.allow_nz and hasattr(p, "allow_nz"):
                    p = dataclasses.replace(p, allow_nz=True)  # (select_formats imports us)
                if (
                    p.name == SELECT_FORMATS_PASS
                    and self.precision_mode
                    and hasattr(p, "precision_mode")
                ):
                    p = dataclasses.replace(p, precision_mode=self.precision_mode)
                if p.name == FUSE_PASS and self.disable_fusion:
                    from gedialects.passes.fusion.fuse import FusePass

                    if isinstance(p, FusePass):
                        p = FusePass(disable=tuple({*p.disable, *self.disable_fusion}))
                out.append(p)
        return out


def runs_anything(hooks: Sequence[str], settings: HookSettings, where: str) -> bool:
    """Whether some optimiser has a pass left in `hooks` (else `ge-compile` leaves the step
    out); builds every hook pass, so a bad pass name is reported here."""
    return any(settings.passes(o, hook, where) for hook in hooks for o in registry.optimizers())


def run_hooks(
    ctx: Context, module: ModuleOp, hooks: Sequence[str], settings: HookSettings, where: str
) -> None:
    """Each hook in order, each optimiser by priority, on the whole module."""
    for hook in hooks:
        for optimizer in registry.optimizers():
            for p in settings.passes(optimizer, hook, where):
                p.apply(ctx, module)


def _engine_of_subgraph(graph: GraphOp) -> str | None:
    return str_attr(graph, ENGINE_NAME)


def optimize_subgraphs(
    ctx: Context, module: ModuleOp, hooks: Sequence[str], settings: HookSettings, where: str
) -> None:
    """GE `OptimizeSubGraph`: each engine's hooks on that engine's subgraphs only."""
    by_engine: dict[str, list[GraphOp]] = {}
    for op in module.ops:
        if not isinstance(op, GraphOp):
            continue
        engine = _engine_of_subgraph(op)
        if engine is None or engine == INPUT_NODES_SUBGRAPH or engine == "":
            continue
        if registry.optimizer_for(engine) is None:
            raise PassFailedException(
                f"{where}: @{op.sym_name.data}: engine '{engine}' has no engine optimiser "
                "(register one with register_engine_optimizer or the "
                f"{registry.ENTRY_POINT_GROUP} entry point)"
            )
        by_engine.setdefault(engine, []).append(op)
    for optimizer in registry.optimizers():
        graphs = by_engine.get(optimizer.engine)
        if not graphs:
            continue
        passes = [p for hook in hooks for p in settings.passes(optimizer, hook, where)]
        if passes:
            before = [node for g in graphs for node in block_ops(g.body.block)]
            _run_on(ctx, module, graphs, passes)
            _place_new_nodes(optimizer.engine, graphs, before)


def _run_on(
    ctx: Context, module: ModuleOp, graphs: list[GraphOp], passes: Sequence[ModulePass]
) -> None:
    """Runs `passes` on a module holding only `graphs`, then puts them back where they were
    (graphs a pass adds go after the last one; erased ones stay erased)."""
    block = module.body.block
    anchors: list[Operation | None] = []
    moved = set(graphs)
    for g in graphs:
        nxt = g.next_op
        while nxt is not None and nxt in moved:
            nxt = nxt.next_op
        anchors.append(nxt)
    scratch = ModuleOp([])
    for g in graphs:
        g.detach()
        scratch.body.block.add_op(g)
    try:
        for p in passes:
            p.apply(ctx, scratch)
    finally:
        kept = [op for op in scratch.body.block.ops]
        origin = {g: a for g, a in zip(graphs, anchors, strict=True)}
        last_anchor: Operation | None = anchors[-1] if anchors else None
        for op in kept:
            op.detach()
            anchor = origin.get(op, last_anchor) if isinstance(op, GraphOp) else last_anchor
            if anchor is None or anchor.parent is not block:
                block.add_op(op)
            else:
                block.insert_op_before(op, anchor)


def _place_new_nodes(engine: str, graphs: Sequence[GraphOp], before: list[Operation]) -> None:
    """Nodes a hook made without `_engine_name` (not among the nodes `before` the hooks)
    run on their subgraph's engine (atomic), or are placed as `ge-place-engines` places them
    (composite)."""
    # By `id` (an op hashes by a Python-level `__hash__`: 100k nodes at 100k bench nodes);
    # `before` keeps the old nodes alive, so no new node can take one's id.
    old = {id(node) for node in before}
    for g in graphs:
        if g.parent is None:
            continue
        for node in block_ops(g.body.block):
            if (
                ENGINE_NAME not in node.attributes
                and of_class(node, GEOp)
                and not of_class(node, _NOT_PLACED)
                and id(node) not in old
            ):
                if engine in ENGINE_BY_NAME:
                    node.attributes[ENGINE_NAME] = string_value(engine)
                else:
                    from gedialects.passes.partition.place_engines import select_engine

                    node.attributes[ENGINE_NAME] = string_value(select_engine(node, frozenset()))


_NOT_PLACED = (EndOp, PlaceHolderOp, NetOutputOp)


__all__ = [
    "FORMAT_PASSES",
    "FUSE_PASS",
    "SELECT_FORMATS_PASS",
    "HookSettings",
    "optimize_subgraphs",
    "resolve",
    "run_hooks",
    "runs_anything",
]
