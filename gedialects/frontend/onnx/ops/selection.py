"""ONNX converters: Unique (GE UniqueWithCountsAndSorting) and TensorScatter (GE Scatter)."""

from __future__ import annotations

from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import SCATTER_MODES, ScatterOp, UniqueWithCountsAndSortingOp


@converter("Unique")
def unique(ctx: NodeContext) -> Outputs:
    op = UniqueWithCountsAndSortingOp(
        ctx.input(0), sorted=bool(ctx.attr("sorted", 1)), axis=ctx.attr("axis", None)
    )
    return list(ctx.emit(op).results)[: len(ctx.node.output)]


@converter("TensorScatter")
def tensor_scatter(ctx: NodeContext) -> Outputs:
    mode = ctx.attr("mode", "linear")
    if mode not in SCATTER_MODES:
        ctx.fail(f'mode must be "linear" or "circular", got "{mode}"')
    op = ScatterOp(
        ctx.input(0), ctx.input(1), ctx.optional_input(2), axis=ctx.attr("axis", -2), mode=mode
    )
    return [ctx.emit(op).results[0]]
