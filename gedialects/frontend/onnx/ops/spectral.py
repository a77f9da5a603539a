"""ONNX converters: DFT (GE DFT) and STFT (GE STFT). The lengths, steps and axis they take
as inputs must be known at import (they fix the result's shape): they become attributes."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from gedialects.base import tensor_shape
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import DFTOp, STFTOp


def _scalar(ctx: NodeContext, value: SSAValue | None, what: str) -> int | None:
    """The int of a one-element input known at import; None when the input is absent."""
    if value is None:
        return None
    known = ctx.known(value)
    if known is None or np.asarray(known).size != 1:
        ctx.fail(f"{what} must be a constant scalar (it fixes the result's shape)")
    return int(np.asarray(known).reshape(-1)[0])


@converter("DFT")
def dft(ctx: NodeContext) -> Outputs:
    length = _scalar(ctx, ctx.optional_input(1), "dft_length")
    if length is not None and length <= 0:
        ctx.fail(f"dft_length must be positive, got {length}")
    if ctx.opset >= 20:
        axis = _scalar(ctx, ctx.optional_input(2), "axis")
        axis = -2 if axis is None else axis
    else:
        axis = ctx.attr("axis", 1)
    op = DFTOp(
        ctx.input(0),
        axis=axis,
        dft_length=length or 0,
        inverse=bool(ctx.attr("inverse", 0)),
        onesided=bool(ctx.attr("onesided", 0)),
    )
    return [ctx.emit(op).results[0]]


@converter("STFT")
def stft(ctx: NodeContext) -> Outputs:
    step = _scalar(ctx, ctx.input(1), "frame_step")
    window = ctx.optional_input(2)
    length = _scalar(ctx, ctx.optional_input(3), "frame_length")
    if length is None:
        shape = None if window is None else tensor_shape(window.type)
        if shape is None or len(shape) != 1 or shape[0] < 0:
            ctx.fail("needs frame_length or a window of known length")
        length = shape[0]
    assert step is not None
    op = STFTOp(
        ctx.input(0),
        window,
        frame_step=step,
        frame_length=length,
        onesided=bool(ctx.attr("onesided", 1)),
    )
    return [ctx.emit(op).results[0]]
