"""Kernels of the shape manipulation ops: reshaping, concatenation, splitting, shapes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import (
    ConcatDOp,
    FlattenOp,
    ReshapeOp,
    SplitDOp,
    SplitVOp,
    TransposeOp,
)
from gedialects.graph.array import equal_split_sizes, reshape_target, unsqueeze_shape
from gedialects.interpreters.graph.common import Arrays, bool_, int_, ints
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel


def index_vector(op: str, what: str, value: np.ndarray) -> list[int]:
    """An int tensor input (scalar or 1-D) as Python ints."""
    value = np.asarray(value)
    if value.dtype.kind not in "iu" or value.ndim > 1:
        raise KernelError(f"{op}: {what} must be a 0-D or 1-D integer tensor, got {value.dtype}")
    return [int(v) for v in value.reshape(-1)]


def axis_in(op: str, axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < rank:
        raise KernelError(f"{op}: {what} {axis} is out of range for rank {rank}")
    return axis % rank


# --------------------------------------------------------------------------------------------
# Reshaping
# --------------------------------------------------------------------------------------------


@kernel("Reshape")
def reshape(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, shape = inputs[0], inputs[1]
    if shape.ndim != 1 or shape.dtype.kind not in "iu":
        raise KernelError(
            f"Reshape: shape must be a 1-D integer tensor, got {shape.dtype}{shape.shape}"
        )
    try:
        allowzero = bool_(attrs, "allowzero", ReshapeOp)
        dims = reshape_target(x.shape, [int(d) for d in shape], allowzero)
    except ValueError as e:
        raise KernelError(f"Reshape: {e} (x has shape {list(x.shape)})") from None
    return (x.reshape(dims),)


@kernel("Transpose")
def transpose(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    perm = ints(attrs, "perm", TransposeOp)
    if sorted(perm) != list(range(x.ndim)):
        raise KernelError(f"Transpose: perm {list(perm)} does not permute {x.ndim} dims")
    return (x.transpose(perm),)


@kernel("Identity")
def identity(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (inputs[0],)


@kernel("Flatten")
def flatten(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    axis = int_(attrs, "axis", FlattenOp)
    if not -x.ndim <= axis <= x.ndim:
        raise KernelError(f"Flatten: axis {axis} is out of range for rank {x.ndim}")
    axis = axis + x.ndim if axis < 0 else axis
    return (x.reshape(int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:]))),)


@kernel("SqueezeV3")
def squeeze_v3(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    if len(inputs) < 2:
        return (x.reshape([d for d in x.shape if d != 1]),)
    axes = {axis_in("SqueezeV3", a, x.ndim) for a in index_vector("SqueezeV3", "axes", inputs[1])}
    if any(x.shape[a] != 1 for a in axes):
        raise KernelError(f"SqueezeV3: cannot squeeze axes {sorted(axes)} of shape {x.shape}")
    return (x.reshape([d for i, d in enumerate(x.shape) if i not in axes]),)


@kernel("UnsqueezeV3")
def unsqueeze_v3(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    try:
        shape = unsqueeze_shape(x.shape, index_vector("UnsqueezeV3", "axes", inputs[1]))
    except ValueError as e:
        raise KernelError(f"UnsqueezeV3: {e}") from None
    return (x.reshape(shape),)


# --------------------------------------------------------------------------------------------
# Concatenation and splitting
# --------------------------------------------------------------------------------------------


@kernel("ConcatD")
def concat_d(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    axis = axis_in("ConcatD", int_(attrs, "concat_dim", ConcatDOp), inputs[0].ndim, "concat_dim")
    try:
        return (np.concatenate(inputs, axis=axis),)
    except ValueError as e:
        raise KernelError(f"ConcatD: {e}") from None


def _split(op: str, x: np.ndarray, axis: int, sizes: Sequence[int]) -> Arrays:
    if sum(sizes) != x.shape[axis] or any(s < 0 for s in sizes):
        raise KernelError(f"{op}: sizes {list(sizes)} do not split dim {axis} of {x.shape}")
    bounds = np.cumsum(sizes)[:-1]
    return tuple(np.split(x, bounds, axis=axis))


@kernel("SplitV")
def split_v(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    axis = axis_in("SplitV", index_vector("SplitV", "split_dim", inputs[2])[0], x.ndim)
    sizes = index_vector("SplitV", "size_splits", inputs[1])
    if len(sizes) != int_(attrs, "num_split", SplitVOp):
        raise KernelError(f"SplitV: {len(sizes)} sizes for {len(result_types)} results")
    if sizes.count(-1) == 1:
        sizes[sizes.index(-1)] = x.shape[axis] - sum(s for s in sizes if s != -1)
    return _split("SplitV", x, axis, sizes)


@kernel("SplitD")
def split_d(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    axis = axis_in("SplitD", int_(attrs, "split_dim", SplitDOp), x.ndim, "split_dim")
    sizes = equal_split_sizes(x.shape[axis], int_(attrs, "num_split", SplitDOp))
    return _split("SplitD", x, axis, sizes)


# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------


@kernel("Shape")
def shape(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.array(inputs[0].shape, dtype=np.int64),)


@kernel("Size")
def size(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.array(inputs[0].size, dtype=np.int64),)
