"""Kernels of the quantisation ops."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import AscendDequantOp, QuantizeOp
from gedialects.interpreters.graph.common import Arrays, bool_, int_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel


def expand(ge_type: str, param: np.ndarray, x: np.ndarray, axis: int, block: int) -> np.ndarray:
    """`param` (one value, `[C]` on `axis`, or blocks on `axis`) broadcastable against x."""
    if param.size == 1 and not block:
        return param.reshape(())
    if x.ndim == 0:
        raise KernelError(f"{ge_type}: a scalar x takes one scale, got {list(param.shape)}")
    a = axis % x.ndim
    if block:
        if param.ndim != x.ndim:
            raise KernelError(f"{ge_type}: blocked scale {list(param.shape)} must have x's rank")
        full = np.repeat(param, block, axis=a)
        if full.shape[a] < x.shape[a] or param.shape[a] != -(-x.shape[a] // block):
            raise KernelError(
                f"{ge_type}: scale {list(param.shape)} does not cover x {list(x.shape)} in "
                f"blocks of {block}"
            )
        return np.take(full, np.arange(x.shape[a]), axis=a)
    if param.ndim != 1 or param.shape[0] != x.shape[a]:
        raise KernelError(
            f"{ge_type}: scale {list(param.shape)} must hold one value or {x.shape[a]}"
        )
    shape = [1] * x.ndim
    shape[a] = -1
    return param.reshape(shape)


@kernel("Quantize")
def quantize(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, scales, zeros = inputs
    axis, block = int_(attrs, "axis", QuantizeOp), int_(attrs, "block_size", QuantizeOp)
    work = np.float64 if np.float64 in (x.dtype, scales.dtype) else np.float32
    s = expand("Quantize", scales.astype(work), x, axis, block)
    z = expand("Quantize", zeros, x, axis, block)
    info = np.iinfo(zeros.dtype)
    y = np.rint(x.astype(work) / s) + z.astype(work)
    return (np.clip(y, info.min, info.max).astype(zeros.dtype),)


@kernel("AscendAntiQuantV2")
def ascend_anti_quant_v2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, scale = inputs[0], inputs[1]
    axis, block = int_(attrs, "axis", QuantizeOp), int_(attrs, "block_size", QuantizeOp)
    work = np.float64 if scale.dtype == np.float64 or x.dtype.itemsize == 4 else np.float32
    values = x.astype(work)
    if len(inputs) > 2:
        values = values + expand("AscendAntiQuantV2", inputs[2].astype(work), x, axis, block)
    return (values * expand("AscendAntiQuantV2", scale.astype(work), x, axis, block),)


@kernel("AscendDequant")
def ascend_dequant(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """`x * deq_scale` in float64 (exact for the int32 x, one rounding of the product to the
    result type), then the ReLU of `relu_flag`."""
    x, scale = inputs
    if scale.ndim == 1 and scale.size > 1 and (x.ndim == 0 or x.shape[-1] != scale.size):
        raise KernelError(f"AscendDequant: deq_scale {list(scale.shape)} does not fit x's last dim")
    y = x.astype(np.float64) * scale.astype(np.float64)
    if bool_(attrs, "relu_flag", AscendDequantOp):
        np.maximum(y, 0.0, out=y)
    return (y.astype(scale.dtype),)
