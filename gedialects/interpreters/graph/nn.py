"""Kernels of the neural-network ops: convolution and normalisation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.ir import Attribute

from gedialects.graph import (
    BatchNormOp,
    Conv2DOp,
    channel_axis,
)
from gedialects.interpreters.graph.common import Arrays, bool_, compute, float_, int_, ints, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel


@kernel("BatchNorm")
def batch_norm(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Inference: `scale * (x - mean) / sqrt(variance + epsilon) + offset` along C."""
    if bool_(attrs, "is_training", BatchNormOp):
        raise KernelError("BatchNorm: only inference (is_training = false) is supported")
    x = compute(inputs[0])
    axis = channel_axis(str_(attrs, "data_format", BatchNormOp), x.ndim)
    shape = [1] * x.ndim
    shape[axis] = -1
    scale, offset, mean, variance = (compute(p).reshape(shape) for p in inputs[1:5])
    epsilon = np.asarray(float_(attrs, "epsilon", BatchNormOp), dtype=variance.dtype)
    return (scale * (x - mean) / np.sqrt(variance + epsilon) + offset,)


@kernel("Conv2D")
def conv2d(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """NHWC/HWIO is transposed (as views) to NCHW/OIHW and back around one NCHW routine."""
    x, w = compute(inputs[0]), compute(inputs[1])
    if x.ndim != 4 or w.ndim != 4:
        raise KernelError(f"Conv2D: x and filter must be 4-D, got {x.shape} and {w.shape}")
    nhwc = str_(attrs, "data_format", Conv2DOp) == "NHWC"
    strides = ints(attrs, "strides", Conv2DOp)
    dilations = ints(attrs, "dilations", Conv2DOp)
    hw = (1, 2) if nhwc else (2, 3)
    if nhwc:
        x, w = x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1)
    y = conv2d_nchw(
        x,
        w,
        strides=tuple(strides[i] for i in hw),
        pads=ints(attrs, "pads", Conv2DOp),
        dilations=tuple(dilations[i] for i in hw),
        groups=int_(attrs, "groups", Conv2DOp),
    )
    if len(inputs) > 2:
        y = y + compute(inputs[2]).reshape(1, -1, 1, 1)
    return (y.transpose(0, 2, 3, 1) if nhwc else y,)


def conv2d_nchw(
    x: np.ndarray,
    w: np.ndarray,
    *,
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    groups: int,
) -> np.ndarray:
    """Grouped, dilated, strided, padded 2-D convolution of NCHW `x` with OIHW `w`.

    im2col through a strided window view, then one batched matmul over the groups:
    [G, N*Ho*Wo, C/G*kh*kw] @ [G, C/G*kh*kw, O/G].
    """
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    if groups < 1 or c != cg * groups or o % groups:
        raise KernelError(
            f"Conv2D: x has {c} channels, filter {tuple(w.shape)} (OIHW), groups = {groups}"
        )
    top, bottom, left, right = pads
    if any(pads):
        x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    (sh, sw), (dh, dw) = strides, dilations
    eh, ew = dh * (kh - 1) + 1, dw * (kw - 1) + 1
    if x.shape[2] < eh or x.shape[3] < ew:
        raise KernelError(f"Conv2D: dilated kernel {eh}x{ew} exceeds padded input {x.shape[2:]}")
    windows = sliding_window_view(x, (eh, ew), axis=(2, 3))[:, :, ::sh, ::sw, ::dh, ::dw]
    ho, wo = windows.shape[2:4]
    og, k = o // groups, cg * kh * kw
    cols = (
        windows.reshape(n, groups, cg, ho, wo, kh, kw)
        .transpose(1, 0, 3, 4, 2, 5, 6)
        .reshape(groups, n * ho * wo, k)
    )
    weights = w.reshape(groups, og, k).transpose(0, 2, 1)
    y = cols @ weights
    return y.reshape(groups, n, ho, wo, og).transpose(1, 0, 4, 2, 3).reshape(n, o, ho, wo)


# --------------------------------------------------------------------------------------------
