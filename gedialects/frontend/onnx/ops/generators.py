"""ONNX converters of ops whose output is a function of shapes and attributes only: the window
functions (HannWindow, HammingWindow, BlackmanWindow), MelWeightMatrix and EyeLike become
`graph.const`s when the sizes or the input shape are known at import, as GE's constant
folding turns them into Const nodes; otherwise the import says what it needs."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

from gedialects.base import element_type, tensor_shape
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.tensors import numpy_dtype


def _dtype(ctx: NodeContext, code: int, what: str) -> np.dtype:
    try:
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(code))
    except (KeyError, TypeError, ValueError):
        ctx.fail(f"{what} {onnx.TensorProto.DataType.Name(code)} is not supported")
    if dtype.kind not in "fiub":
        ctx.fail(f"{what} {onnx.TensorProto.DataType.Name(code)} is not supported")
    return dtype


def _window(ctx: NodeContext, terms: tuple[float, ...]) -> Outputs:
    """`sum_k terms[k] * (-1)^k * cos(2 pi k n / N)` with N = size (periodic) or size - 1."""
    known = ctx.known(ctx.input(0))
    if known is None or np.asarray(known).size != 1:
        ctx.fail("size must be a constant (the window has that many elements)")
    size = int(np.asarray(known).reshape(-1)[0])
    if size < 0:
        ctx.fail(f"size must be non-negative, got {size}")
    dtype = _dtype(ctx, ctx.attr("output_datatype", onnx.TensorProto.FLOAT), "output_datatype")
    periodic = bool(ctx.attr("periodic", 1))
    span = size if periodic else size - 1
    n = np.arange(size, dtype=np.float64)
    window = np.zeros(size)
    for k, a in enumerate(terms):
        phase = 2 * np.pi * k * n / span if span > 0 else np.zeros(size)
        window += (-1) ** k * a * np.cos(phase)
    return [ctx.const(window.astype(dtype), "window")]


@converter("HannWindow")
def hann_window(ctx: NodeContext) -> Outputs:
    return _window(ctx, (0.5, 0.5))


@converter("HammingWindow")
def hamming_window(ctx: NodeContext) -> Outputs:
    return _window(ctx, (25 / 46, 21 / 46))


@converter("BlackmanWindow")
def blackman_window(ctx: NodeContext) -> Outputs:
    return _window(ctx, (0.42, 0.5, 0.08))


@converter("EyeLike")
def eye_like(ctx: NodeContext) -> Outputs:
    """Ones on diagonal `k` of a matrix of the input's (static) shape."""
    x = ctx.input(0)
    shape = tensor_shape(x.type)
    if shape is None or len(shape) != 2 or any(d < 0 for d in shape):
        ctx.fail(f"the input must be 2-D with a static shape, got {x.type}")
    code = ctx.attr("dtype", None)
    dtype = numpy_dtype(element_type(x.type)) if code is None else _dtype(ctx, code, "dtype")
    return [ctx.const(np.eye(shape[0], shape[1], ctx.attr("k", 0), dtype=dtype), "eye")]


@converter("MelWeightMatrix")
def mel_weight_matrix(ctx: NodeContext) -> Outputs:
    """The triangular mel filters `[dft_length / 2 + 1, num_mel_bins]` (onnx's reference
    formula: mel edges spaced by (high - low) / (num_mel_bins + 2), bin = (dft_length + 1) *
    frequency // sample_rate) as a constant; every input must be known."""
    values: list[float] = []
    for index, what in enumerate(("num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz",
                                  "upper_edge_hertz")):  # fmt: skip
        known = ctx.known(ctx.input(index))
        if known is None or np.asarray(known).size != 1:
            ctx.fail(f"{what} must be a constant scalar (the matrix is built at import)")
        values.append(float(np.asarray(known).reshape(-1)[0]))
    bins, length, rate, low, high = values
    mels, dft = int(bins), int(length)
    if mels <= 0 or dft <= 0 or rate <= 0 or not 0 <= low < high:
        ctx.fail(
            "needs positive num_mel_bins, dft_length, sample_rate and 0 <= low < high, "
            f"got {values}"
        )
    dtype = _dtype(ctx, ctx.attr("output_datatype", onnx.TensorProto.FLOAT), "output_datatype")
    edges = np.arange(mels + 2, dtype=np.float64)
    low_mel = 2595 * np.log1p(low / 700) / np.log(10)
    high_mel = 2595 * np.log1p(high / 700) / np.log(10)
    hertz = 700 * np.expm1(
        (edges * (high_mel - low_mel) / (mels + 2) + low_mel) / 2595 * np.log(10)
    )
    points = (((dft + 1) * hertz) // rate).astype(np.int64)
    out = np.zeros((dft // 2 + 1, mels))
    if points.max() > dft // 2:
        ctx.fail(f"upper_edge_hertz {high} is above the Nyquist frequency of sample_rate {rate}")
    for i in range(mels):
        left, centre, right = points[i], points[i + 1], points[i + 2]
        if centre == left:
            out[centre, i] = 1
        else:
            rows = np.arange(left, centre + 1)
            out[rows, i] = (rows - left) / (centre - left)
        if right > centre:
            rows = np.arange(centre, right)
            out[rows, i] = (right - rows) / (right - centre)
    return [ctx.const(out.astype(dtype), "matrix")]
