"""ONNX converters: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

Both become GE's NLLLoss; SoftmaxCrossEntropyLoss is LogSoftmaxV2 over the class axis first
(its optional second output is that log-probability), as its ONNX function body defines it.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import LogSoftmaxV2Op, NLLLossOp


def _nll(ctx: NodeContext, log_prob: SSAValue, suffix: str = "") -> NLLLossOp:
    reduction = ctx.attr("reduction", "mean")
    if reduction not in ("none", "sum", "mean"):
        ctx.fail(f'reduction must be "none", "sum" or "mean", got "{reduction}"')
    ignore = ctx.attr("ignore_index", None)
    op = NLLLossOp(
        log_prob,
        ctx.input(1),
        ctx.optional_input(2),
        reduction=reduction,
        ignore_index=None if ignore is None else int(ignore),
    )
    ctx.emit(op, suffix)
    return op


@converter("NegativeLogLikelihoodLoss")
def negative_log_likelihood_loss(ctx: NodeContext) -> Outputs:
    return [_nll(ctx, ctx.input(0)).y]


@converter("SoftmaxCrossEntropyLoss")
def softmax_cross_entropy_loss(ctx: NodeContext) -> Outputs:
    log_prob = ctx.emit(LogSoftmaxV2Op(ctx.input(0), axes=(1,)), "log_softmax").results[0]
    loss = _nll(ctx, log_prob).y
    if len(ctx.node.output) > 1 and ctx.node.output[1]:
        return [loss, log_prob]
    return [loss]
