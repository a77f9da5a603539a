"""ONNX converters: LSTM (GE DynamicRNN), GRU (GE DynamicGRUV2) and RNN (GE RNN).

Absent optional inputs become zeros (biases, peepholes, initial states as `[dirs, 1, H]`,
which the ops broadcast over the batch); `layout` 1 is the ops' `time_major` false.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from gedialects.base import element_type, tensor_shape
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    ACTIVATIONS,
    DIRECTIONS,
    DynamicGRUV2Op,
    DynamicRNNOp,
    RecurrentOpBase,
    RNNOp,
)
from gedialects.tensors import numpy_dtype

_DEFAULT_ACTIVATIONS = {
    "LSTM": ("Sigmoid", "Tanh", "Tanh"),
    "GRU": ("Sigmoid", "Tanh"),
    "RNN": ("Tanh",),
}
_ALPHA = {"LeakyRelu": 0.01, "ThresholdedRelu": 1.0, "ScaledTanh": 1.0, "HardSigmoid": 0.2,
          "Elu": 1.0, "Affine": 1.0}  # fmt: skip
_BETA = {"ScaledTanh": 1.0, "HardSigmoid": 0.5, "Affine": 0.0}
"""onnxruntime's defaults of the functions that take alpha / beta."""


def _common(
    ctx: NodeContext, kind: str, gates: int
) -> tuple[list[SSAValue], SSAValue | None, dict, int, int, bool, np.dtype]:
    x, w, r = ctx.input(0), ctx.input(1), ctx.input(2)
    direction = ctx.attr("direction", "forward")
    if direction not in DIRECTIONS:
        ctx.fail(f'direction must be one of {", ".join(DIRECTIONS)}, got "{direction}"')
    dirs = 2 if direction == "bidirectional" else 1
    r_shape = tensor_shape(r.type)
    hidden = ctx.attr("hidden_size", None)
    if hidden is None:
        if r_shape is None or r_shape[-1] < 0:
            ctx.fail("hidden_size is needed when R's shape is not known")
        hidden = r_shape[-1]
    by_lower = {a.lower(): a for a in ACTIVATIONS}
    given: list[str] = [str(n) for n in ctx.attr("activations", [])]
    names = [by_lower.get(n.lower(), n) for n in given] or list(_DEFAULT_ACTIVATIONS[kind])
    count = len(_DEFAULT_ACTIVATIONS[kind])
    if len(names) == count and dirs == 2:
        names = names * 2
    bad = [n for n in names if n not in ACTIVATIONS]
    if bad:
        ctx.fail(f'activation "{bad[0]}" is not supported')
    given_alpha = [float(v) for v in ctx.attr("activation_alpha", [])]
    given_beta = [float(v) for v in ctx.attr("activation_beta", [])]
    alpha: list[float] = []
    beta: list[float] = []
    for n in names:
        alpha.append(given_alpha.pop(0) if n in _ALPHA and given_alpha else _ALPHA.get(n, 0.0))
        beta.append(given_beta.pop(0) if n in _BETA and given_beta else _BETA.get(n, 0.0))
    layout = ctx.attr("layout", 0)
    if layout not in (0, 1):
        ctx.fail(f"layout must be 0 or 1, got {layout}")
    major = layout == 0
    clip = ctx.attr("clip", None)
    props = RecurrentOpBase.base_properties(
        hidden, direction, names, alpha, beta, -1.0 if clip is None else float(clip), major
    )
    dtype = numpy_dtype(element_type(x.type))
    b = ctx.optional_input(3)
    if b is None:
        b = ctx.const(np.zeros((dirs, 2 * gates * hidden), dtype=dtype), "B")
    return [x, w, r, b], ctx.optional_input(4), props, dirs, hidden, major, dtype


def _initial(
    ctx: NodeContext, index: int, dirs: int, hidden: int, major: bool, dtype: np.dtype, name: str
) -> SSAValue:
    value = ctx.optional_input(index)
    if value is not None:
        return value
    shape = (dirs, 1, hidden) if major else (1, dirs, hidden)
    return ctx.const(np.zeros(shape, dtype=dtype), name)


def _results(ctx: NodeContext, op: RecurrentOpBase) -> Outputs:
    return list(ctx.emit(op).results)[: len(ctx.node.output)]


@converter("LSTM")
def lstm(ctx: NodeContext) -> Outputs:
    operands, lengths, props, dirs, hidden, major, dtype = _common(ctx, "LSTM", 4)
    operands.append(_initial(ctx, 5, dirs, hidden, major, dtype, "initial_h"))
    operands.append(_initial(ctx, 6, dirs, hidden, major, dtype, "initial_c"))
    p = ctx.optional_input(7)
    operands.append(p if p is not None else ctx.const(np.zeros((dirs, 3 * hidden), dtype), "P"))
    op = DynamicRNNOp(operands, lengths, props, input_forget=bool(ctx.attr("input_forget", 0)))
    return _results(ctx, op)


@converter("GRU")
def gru(ctx: NodeContext) -> Outputs:
    operands, lengths, props, dirs, hidden, major, dtype = _common(ctx, "GRU", 3)
    operands.append(_initial(ctx, 5, dirs, hidden, major, dtype, "initial_h"))
    after = bool(ctx.attr("linear_before_reset", 0))
    return _results(ctx, DynamicGRUV2Op(operands, lengths, props, reset_after=after))


@converter("RNN")
def rnn(ctx: NodeContext) -> Outputs:
    operands, lengths, props, dirs, hidden, major, dtype = _common(ctx, "RNN", 1)
    operands.append(_initial(ctx, 5, dirs, hidden, major, dtype, "initial_h"))
    return _results(ctx, RNNOp(operands, lengths, props))
