"""Kernels of the slicing, gathering, scattering and index-generating ops."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import (
    GatherElementsOp,
    GatherNdOp,
    GatherV2DOp,
    NonZeroOp,
    OneHotOp,
    ReverseSequenceOp,
    ScatterElementsOp,
    TensorScatterUpdateOp,
)
from gedialects.graph.indexing import slice_bounds
from gedialects.interpreters.graph.array import axis_in, index_vector
from gedialects.interpreters.graph.common import Arrays, bool_, int_, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, check_output, kernel


def _indices(op: str, indices: np.ndarray, dim: int | np.ndarray) -> np.ndarray:
    """Integer indices with negative ones wrapped, checked against `dim` (per-dim or scalar)."""
    if indices.dtype.kind not in "iu":
        raise KernelError(f"{op}: indices must be integers, got {indices.dtype}")
    indices = indices.astype(np.int64, copy=False)
    if np.any(indices < -dim) or np.any(indices >= dim):
        raise KernelError(f"{op}: an index is out of range")
    return np.where(indices < 0, indices + dim, indices)


# --------------------------------------------------------------------------------------------
# Slicing
# --------------------------------------------------------------------------------------------


@kernel("StridedSliceV2")
def strided_slice_v2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    begin, end, axes, strides = (
        index_vector("StridedSliceV2", what, v)
        for what, v in zip(("begin", "end", "axes", "strides"), inputs[1:5], strict=True)
    )
    if not len(begin) == len(end) == len(axes) == len(strides):
        raise KernelError("StridedSliceV2: begin, end, axes and strides differ in length")
    index: list[slice] = [slice(None)] * x.ndim
    for b, e, a, s in zip(begin, end, axes, strides, strict=True):
        axis = axis_in("StridedSliceV2", a, x.ndim)
        try:
            start, stop, _ = slice_bounds(x.shape[axis], b, e, s)
        except ValueError as err:
            raise KernelError(f"StridedSliceV2: {err}") from None
        index[axis] = slice(start, stop if stop >= 0 else None, s)
    return (x[tuple(index)],)


# --------------------------------------------------------------------------------------------
# Gathering
# --------------------------------------------------------------------------------------------


@kernel("GatherV2D")
def gather_v2d(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    axis = axis_in("GatherV2D", int_(attrs, "axis", GatherV2DOp), x.ndim)
    indices = _indices("GatherV2D", inputs[1], x.shape[axis])
    return (np.take(x, indices, axis=axis),)


@kernel("GatherElements")
def gather_elements(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, index = inputs[0], inputs[1]
    axis = axis_in("GatherElements", int_(attrs, "dim", GatherElementsOp), x.ndim, "dim")
    if index.ndim != x.ndim:
        raise KernelError(f"GatherElements: index rank {index.ndim} differs from x rank {x.ndim}")
    index = _indices("GatherElements", index, x.shape[axis])
    return (np.take_along_axis(x, index, axis=axis),)


@kernel("GatherNd")
def gather_nd(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, indices = inputs[0], inputs[1]
    b = int_(attrs, "batch_dims", GatherNdOp)
    depth = indices.shape[-1]
    if indices.shape[:b] != x.shape[:b] or b + depth > x.ndim:
        raise KernelError(f"GatherNd: indices {indices.shape} do not address x {x.shape}")
    batch = int(np.prod(x.shape[:b]))
    data = x.reshape((batch, *x.shape[b:]))
    idx = indices.reshape(batch, -1, depth)
    idx = _indices("GatherNd", idx, np.array(x.shape[b : b + depth], dtype=np.int64))
    rows = np.broadcast_to(np.arange(batch)[:, None], idx.shape[:2])
    out = data[(rows, *np.moveaxis(idx, -1, 0))]
    return (out.reshape(indices.shape[:-1] + x.shape[b + depth :]),)


# --------------------------------------------------------------------------------------------
# Scattering
# --------------------------------------------------------------------------------------------

_UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _scatter(
    op: str, out: np.ndarray, index: tuple[np.ndarray, ...], updates: np.ndarray, how: str
) -> np.ndarray:
    if how == "none":
        out[index] = updates
    elif how in _UFUNCS:
        _UFUNCS[how].at(out, index, updates)
    else:
        raise KernelError(f"{op}: unknown reduction '{how}'")
    return out


@kernel("ScatterElements")
def scatter_elements(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    data, indices, updates = inputs
    axis = axis_in("ScatterElements", int_(attrs, "axis", ScatterElementsOp), data.ndim)
    if indices.shape != updates.shape or indices.ndim != data.ndim:
        raise KernelError(
            f"ScatterElements: indices {indices.shape} and updates {updates.shape} "
            f"do not fit data {data.shape}"
        )
    position: list[np.ndarray] = list(np.indices(indices.shape, sparse=True))
    position[axis] = _indices("ScatterElements", indices, data.shape[axis])
    how = str_(attrs, "reduction", ScatterElementsOp)
    return (_scatter("ScatterElements", data.copy(), tuple(position), updates, how),)


@kernel("TensorScatterUpdate")
def tensor_scatter_update(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, indices, updates = inputs
    depth = indices.shape[-1]
    if depth > x.ndim or updates.shape != indices.shape[:-1] + x.shape[depth:]:
        raise KernelError(
            f"TensorScatterUpdate: indices {indices.shape} and updates {updates.shape} "
            f"do not fit x {x.shape}"
        )
    idx = indices.reshape(-1, depth)
    idx = _indices("TensorScatterUpdate", idx, np.array(x.shape[:depth], dtype=np.int64))
    flat = updates.reshape((idx.shape[0], *x.shape[depth:]))
    how = str_(attrs, "reduction", TensorScatterUpdateOp)
    return (_scatter("TensorScatterUpdate", x.copy(), tuple(idx.T), flat, how),)


# --------------------------------------------------------------------------------------------
# Data-dependent and index-generating ops
# --------------------------------------------------------------------------------------------


@kernel("NonZero")
def non_zero(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    if x.ndim == 0:
        y = np.zeros((0, int(bool(x))), dtype=np.int64)
    else:
        # np.nonzero makes one index array per dim, then they are stacked: twice the output
        check_output("NonZero", [x.ndim, int(np.count_nonzero(x))], np.dtype(np.int64), 8)
        y = np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)
    return (y.T if bool_(attrs, "transpose", NonZeroOp) else y,)


@kernel("OneHot")
def one_hot(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, depth_in, on, off = inputs
    if depth_in.size != 1:
        raise KernelError("OneHot: depth must hold one value")
    depth = int(depth_in.reshape(()))
    if depth < 1:
        raise KernelError(f"OneHot: depth must be positive, got {depth}")
    axis = axis_in("OneHot", int_(attrs, "axis", OneHotOp), x.ndim + 1)
    if depth >= 0:  # the output and its one-hot mask (bool, 1 byte per element)
        check_output("OneHot", [*x.shape, depth], np.result_type(on, off), 1)
    idx = x.astype(np.int64)
    idx = np.where(idx < 0, idx + depth, idx)
    hot = np.arange(depth) == idx[..., None]
    y = np.where(hot, on.reshape(()), off.reshape(()))
    return (np.moveaxis(y, -1, axis),)


@kernel("ReverseSequence")
def reverse_sequence(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, lengths = inputs[0], inputs[1].astype(np.int64)
    seq = axis_in("ReverseSequence", int_(attrs, "seq_dim", ReverseSequenceOp), x.ndim)
    batch = axis_in("ReverseSequence", int_(attrs, "batch_dim", ReverseSequenceOp), x.ndim)
    xt = np.moveaxis(x, (batch, seq), (0, 1))
    if lengths.shape != (xt.shape[0],) or np.any(lengths < 0) or np.any(lengths > xt.shape[1]):
        raise KernelError(f"ReverseSequence: seq_lengths {lengths} do not fit x {x.shape}")
    t = np.arange(xt.shape[1])
    idx = np.where(t < lengths[:, None], lengths[:, None] - 1 - t, t)
    idx = np.broadcast_to(idx.reshape(idx.shape + (1,) * (xt.ndim - 2)), xt.shape)
    return (np.moveaxis(np.take_along_axis(xt, idx, axis=1), (0, 1), (batch, seq)),)
