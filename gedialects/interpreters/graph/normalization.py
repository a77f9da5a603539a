"""Kernels of the normalisation and softmax ops."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation

from gedialects.graph import (
    BatchNormOp,
    GroupNormOp,
    HardmaxOp,
    InstanceNormOp,
    LayerNormV3Op,
    LogSoftmaxV2Op,
    LRNOp,
    RmsNormOp,
    SoftmaxV2Op,
    channel_axis,
)
from gedialects.interpreters.graph.common import Arrays, bool_, compute, float_, int_, ints, str_
from gedialects.interpreters.kernels import (
    KernelAttrs,
    KernelError,
    finish_into,
    in_place_target,
    kernel,
    kernel_into,
    scratch,
)

# --------------------------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------------------------


def _batch_norm(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, out: np.ndarray | None
) -> np.ndarray:
    """Inference: `scale * (x - mean) / sqrt(variance + epsilon) + offset` along C, folded per
    channel into `x * a + b` (a = scale / sqrt(variance + epsilon), b = offset - mean * a) as
    GE folds an inference BatchNorm: two passes over x instead of four, into `out` when it has
    the result's shape and dtype. Rounds differently from the formula by an ulp or two."""
    if bool_(attrs, "is_training", BatchNormOp):
        raise KernelError("BatchNorm: only inference (is_training = false) is supported")
    x = compute(inputs[0])
    axis = channel_axis(str_(attrs, "data_format", BatchNormOp), x.ndim)
    shape = [1] * x.ndim
    shape[axis] = -1
    scale, offset, mean, variance = (compute(p).reshape(shape) for p in inputs[1:5])
    epsilon = np.asarray(float_(attrs, "epsilon", BatchNormOp), dtype=variance.dtype)
    a = scale / np.sqrt(variance + epsilon)
    b = offset - mean * a
    dtype = np.result_type(x, a, b)
    y = in_place_target(out, np.broadcast_shapes(x.shape, a.shape, b.shape), dtype)
    np.multiply(x, a, out=y)
    np.add(y, b, out=y)
    return y


@kernel("BatchNorm")
def batch_norm(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (_batch_norm(inputs, attrs, None),)


@kernel_into("BatchNorm")
def batch_norm_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    finish_into("BatchNorm", outputs[0], _batch_norm(inputs, attrs, outputs[0]))


def _normalise(x: np.ndarray, axes: tuple[int, ...], epsilon: float) -> np.ndarray:
    mean = x.mean(axis=axes, keepdims=True)
    var = np.square(x - mean).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + x.dtype.type(epsilon))


def _per_channel(p: np.ndarray, rank: int) -> np.ndarray:
    return compute(p).reshape(1, -1, *(1,) * (rank - 2))


@kernel("InstanceNorm")
def instance_norm(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = compute(inputs[0])
    if x.ndim < 3:
        raise KernelError(f"InstanceNorm: x must be [N, C, spatial...], got shape {x.shape}")
    y = _normalise(x, tuple(range(2, x.ndim)), float_(attrs, "epsilon", InstanceNormOp))
    return (y * _per_channel(inputs[1], x.ndim) + _per_channel(inputs[2], x.ndim),)


@kernel("GroupNorm")
def group_norm(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = compute(inputs[0])
    groups = int_(attrs, "num_groups", GroupNormOp)
    if x.ndim < 3 or groups < 1 or x.shape[1] % groups:
        raise KernelError(f"GroupNorm: cannot split x of shape {x.shape} into {groups} groups")
    grouped = x.reshape(x.shape[0], groups, -1)
    y = _normalise(grouped, (2,), float_(attrs, "eps", GroupNormOp)).reshape(x.shape)
    return (y * _per_channel(inputs[1], x.ndim) + _per_channel(inputs[2], x.ndim),)


def _layer_norm_v3(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, out: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`(x - mean) * rstd * gamma + beta` over the axes from `begin_norm_axis`, statistics in
    float32 at least (ONNX stash_type), step by step over one array (`out` when it fits)."""
    x = inputs[0]
    stats = x.astype(np.float64 if x.dtype == np.float64 else np.float32)  # ONNX stash_type
    axis = int_(attrs, "begin_norm_axis", LayerNormV3Op)
    if not -x.ndim <= axis < x.ndim:
        raise KernelError(f"LayerNormV3: begin_norm_axis {axis} is out of range for {x.shape}")
    axes = tuple(range(axis % x.ndim, x.ndim))
    gamma, beta = compute(inputs[1]), compute(inputs[2])
    mean = stats.mean(axis=axes, keepdims=True)
    centred = scratch("layer_norm", stats.shape, stats.dtype)
    np.subtract(stats, mean, out=centred)
    var = np.square(centred).mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(var + stats.dtype.type(float_(attrs, "epsilon", LayerNormV3Op)))
    dtype = np.result_type(stats, rstd, gamma, beta)
    full = np.broadcast_shapes(stats.shape, gamma.shape, beta.shape)
    y = in_place_target(out, full, dtype)
    np.multiply(centred, rstd, out=y)
    np.multiply(y, gamma, out=y)
    np.add(y, beta, out=y)
    return y, mean, rstd


@kernel("RmsNorm")
def rms_norm(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    axis = int_(attrs, "begin_norm_axis", RmsNormOp)
    if not -x.ndim <= axis < x.ndim:
        raise KernelError(f"RmsNorm: begin_norm_axis {axis} is out of range for {x.shape}")
    stats = x.astype(np.float32) if x.dtype.itemsize < 4 else x
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean_square = np.mean(np.square(stats), axis=axes, keepdims=True)
    eps = stats.dtype.type(float_(attrs, "epsilon", RmsNormOp))
    rstd = 1 / np.sqrt(mean_square + eps)
    y = stats * rstd * compute(inputs[1])
    if y.shape != x.shape:
        raise KernelError(f"RmsNorm: gamma {list(inputs[1].shape)} would enlarge x {list(x.shape)}")
    return y, rstd


@kernel("LayerNormV3")
def layer_norm_v3(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return _layer_norm_v3(inputs, attrs, None)


@kernel_into("LayerNormV3")
def layer_norm_v3_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    results = _layer_norm_v3(inputs, attrs, outputs[0])
    for out, result in zip(outputs, results, strict=True):
        finish_into("LayerNormV3", out, result)


# --------------------------------------------------------------------------------------------
# Softmax family and LRN
# --------------------------------------------------------------------------------------------


def _axes(name: str, op: type[IRDLOperation], x: np.ndarray, attrs: KernelAttrs) -> tuple[int, ...]:
    rank = max(x.ndim, 1)
    axes = ints(attrs, "axes", op)
    if any(not -rank <= a < rank for a in axes):
        raise KernelError(f"{name}: axes {list(axes)} are out of range for shape {x.shape}")
    return tuple(a % rank for a in axes)


def _softmax_v2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, out: np.ndarray | None
) -> np.ndarray:
    """`exp(x - max) / sum`, over one array (`out` when it fits)."""
    x = compute(inputs[0])
    axes = _axes("SoftmaxV2", SoftmaxV2Op, x, attrs)
    e = in_place_target(out, x.shape, x.dtype)
    np.subtract(x, x.max(axis=axes, keepdims=True), out=e)
    np.exp(e, out=e)
    np.divide(e, e.sum(axis=axes, keepdims=True), out=e)
    return e


@kernel("SoftmaxV2")
def softmax_v2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (_softmax_v2(inputs, attrs, None),)


@kernel_into("SoftmaxV2")
def softmax_v2_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    finish_into("SoftmaxV2", outputs[0], _softmax_v2(inputs, attrs, outputs[0]))


@kernel("LogSoftmaxV2")
def log_softmax_v2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = compute(inputs[0])
    axes = _axes("LogSoftmaxV2", LogSoftmaxV2Op, x, attrs)
    shifted = x - x.max(axis=axes, keepdims=True)
    return (shifted - np.log(np.exp(shifted).sum(axis=axes, keepdims=True)),)


@kernel("Hardmax")
def hardmax(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """1 at the first maximum of the joint axes (moved last and flattened), 0 elsewhere."""
    x = inputs[0]
    axes = _axes("Hardmax", HardmaxOp, x, attrs)
    rest = [a for a in range(x.ndim) if a not in axes]
    moved = x.transpose(*rest, *axes)
    flat = moved.reshape(*moved.shape[: len(rest)], -1)
    one_hot = np.zeros(flat.shape, dtype=x.dtype)
    if flat.shape[-1]:
        np.put_along_axis(one_hot, flat.argmax(axis=-1)[..., None], 1, axis=-1)
    inverse = np.argsort((*rest, *axes))
    return (one_hot.reshape(moved.shape).transpose(*inverse),)


@kernel("LRN")
def lrn(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """`x / (bias + alpha * window sum of x^2 over channels c - r .. c + r)^beta`."""
    x = compute(inputs[0])
    if x.ndim < 3:
        raise KernelError(f"LRN: x must be [N, C, spatial...], got shape {x.shape}")
    # a radius past the channel count only adds zeros to every window (make fuzz: a radius
    # of 1e11 padded the channels by it and asked for 11.6 TiB)
    r = min(int_(attrs, "depth_radius", LRNOp), x.shape[1])
    squares = np.pad(np.square(x), ((0, 0), (r, r)) + ((0, 0),) * (x.ndim - 2))
    window_sum = sliding_window_view(squares, 2 * r + 1, axis=1).sum(axis=-1)
    bias = x.dtype.type(float_(attrs, "bias", LRNOp))
    alpha = x.dtype.type(float_(attrs, "alpha", LRNOp))
    beta = x.dtype.type(float_(attrs, "beta", LRNOp))
    return (x / (bias + alpha * window_sum) ** beta,)
