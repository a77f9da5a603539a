"""ONNX converters: Reduce*, ArgMax/ArgMin, TopK, CumSum, CumProd.

Reduce* `axes` is an attribute up to opset 12 (ReduceSum) or 17 (the others) and an optional
input after; `keepdims` defaults to 1 in ONNX and becomes GE's `keep_dims`.
"""

from __future__ import annotations

from gedialects.frontend.onnx.ops.array import axes_operand, static
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    ArgMaxDOp,
    ArgMinDOp,
    CumprodOp,
    CumsumOp,
    EuclideanNormOp,
    ReduceL1Op,
    ReduceLogSumExpOp,
    ReduceLogSumOp,
    ReduceMaxOp,
    ReduceMeanOp,
    ReduceMinOp,
    ReduceOp,
    ReduceProdOp,
    ReduceSumOp,
    ReduceSumSquareOp,
    TopKV2Op,
)

_REDUCTIONS: tuple[tuple[str, type[ReduceOp], int], ...] = (
    ("ReduceSum", ReduceSumOp, 13),
    ("ReduceMean", ReduceMeanOp, 18),
    ("ReduceMax", ReduceMaxOp, 18),
    ("ReduceMin", ReduceMinOp, 18),
    ("ReduceProd", ReduceProdOp, 18),
    ("ReduceL1", ReduceL1Op, 18),
    ("ReduceL2", EuclideanNormOp, 18),
    ("ReduceLogSum", ReduceLogSumOp, 18),
    ("ReduceLogSumExp", ReduceLogSumExpOp, 18),
    ("ReduceSumSquare", ReduceSumSquareOp, 18),
)
"""ONNX type, graph op, first opset with `axes` as an input."""


def _register_reduction(onnx_type: str, op_type: type[ReduceOp], since: int) -> None:
    def convert(ctx: NodeContext) -> Outputs:
        op = op_type(
            ctx.input(0),
            axes_operand(ctx, 1, since),
            keep_dims=bool(ctx.attr("keepdims", 1)),
            noop_with_empty_axes=bool(ctx.attr("noop_with_empty_axes", 0)),
        )
        return [ctx.emit(op).results[0]]

    convert.__name__ = onnx_type.lower()
    converter(onnx_type)(convert)


for _onnx, _op, _since in _REDUCTIONS:
    _register_reduction(_onnx, _op, _since)


def _arg(ctx: NodeContext, op_type: type[ArgMaxDOp | ArgMinDOp]) -> Outputs:
    op = op_type(
        ctx.input(0),
        dimension=ctx.attr("axis", 0),
        keep_dims=bool(ctx.attr("keepdims", 1)),
        select_last_index=bool(ctx.attr("select_last_index", 0)),
    )
    return [ctx.emit(op).results[0]]


@converter("ArgMax")
def arg_max(ctx: NodeContext) -> Outputs:
    return _arg(ctx, ArgMaxDOp)


@converter("ArgMin")
def arg_min(ctx: NodeContext) -> Outputs:
    return _arg(ctx, ArgMinDOp)


@converter("TopK")
def top_k(ctx: NodeContext) -> Outputs:
    op = TopKV2Op(
        ctx.input(0),
        static(ctx, ctx.input(1), "k"),
        dim=ctx.attr("axis", -1),
        largest=bool(ctx.attr("largest", 1)),
        sorted=bool(ctx.attr("sorted", 1)),
    )
    return list(ctx.emit(op).results)


@converter("CumSum")
def cum_sum(ctx: NodeContext) -> Outputs:
    return _cumulative(ctx, CumsumOp)


@converter("CumProd")
def cum_prod(ctx: NodeContext) -> Outputs:
    return _cumulative(ctx, CumprodOp)


def _cumulative(ctx: NodeContext, op_type: type[CumsumOp | CumprodOp]) -> Outputs:
    op = op_type(
        ctx.input(0),
        ctx.input(1),
        exclusive=bool(ctx.attr("exclusive", 0)),
        reverse=bool(ctx.attr("reverse", 0)),
    )
    return [ctx.emit(op).results[0]]
