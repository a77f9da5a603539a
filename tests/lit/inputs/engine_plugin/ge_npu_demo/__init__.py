"""A user engine from its own package: an op table and cost for placement, and an engine
optimiser whose hooks tag what they saw, so a test can tell where each hook ran.

Found by gedialects through the `gedialects.passes.engine_optimizers` entry point of this
distribution (`ge_npu_demo-1.0.dist-info/entry_points.txt`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr
from xdsl.passes import ModulePass

from gedialects.ascend import ModelOp
from gedialects.base import GEOp
from gedialects.graph import GraphOp
from gedialects.passes.engine_optimizers import EngineOptimizer
from gedialects.target.engines import EngineSpec

ENGINE = "NPU_DEMO"


@dataclass(frozen=True)
class TagSubgraphNodes(ModulePass):
    """OptimizeFusedGraph: marks every node of the graphs it is given."""

    name = "npu-demo-tag-subgraph-nodes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        graphs = [g.sym_name.data for g in op.ops if isinstance(g, GraphOp)]
        for g in op.ops:
            if isinstance(g, GraphOp):
                for node in g.body.block.ops:
                    if isinstance(node, GEOp):
                        node.attributes["_npu_demo_seen"] = StringAttr(",".join(graphs))


@dataclass(frozen=True)
class CountWholeGraph(ModulePass):
    """OptimizeWholeGraph: records how many graphs the merged module has."""

    name = "npu-demo-count-whole-graph"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for g in op.ops:
            if isinstance(g, GraphOp):
                g.attributes["_npu_demo_graphs"] = IntegerAttr(
                    sum(isinstance(o, GraphOp) for o in op.ops), 64
                )


@dataclass(frozen=True)
class CountStreams(ModulePass):
    """OptimizeStreamGraph: records the stream count of each task-level model."""

    name = "npu-demo-count-streams"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for model in op.ops:
            if isinstance(model, ModelOp):
                streams = sum(o.name == "ascend.stream" for o in model.body.block.ops)
                model.attributes["_npu_demo_streams"] = IntegerAttr(streams, 64)


def optimizer() -> tuple[EngineOptimizer, EngineSpec]:
    return (
        EngineOptimizer(
            "npu_demo_optimizer",
            ENGINE,
            {
                "OptimizeFusedGraph": (TagSubgraphNodes(),),
                "OptimizeWholeGraph": (CountWholeGraph(),),
                "OptimizeStreamGraph": (CountStreams(),),
            },
        ),
        EngineSpec(ENGINE, 0, frozenset({"Relu"}), dtypes=frozenset({"float32"})),
    )
