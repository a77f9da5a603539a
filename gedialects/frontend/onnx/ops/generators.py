"""ONNX converters of ops whose output is a function of shapes and attributes only: the window
functions (HannWindow, HammingWindow, BlackmanWindow) and EyeLike become `graph.const`s when
the size or the input shape is known at import, as GE's constant folding turns them into
Const nodes; otherwise the import says what it needs."""

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
