"""Kernels of the broadcasting, tiling, padding and tensor-generating ops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import PadV3Op, TriluOp
from gedialects.interpreters.graph.array import axis_in, index_vector
from gedialects.interpreters.graph.common import Arrays, bool_, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, check_output, kernel


@kernel("Expand")
def expand(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    target = index_vector("Expand", "shape", inputs[1])
    try:
        shape = np.broadcast_shapes(x.shape, tuple(target))
    except ValueError:
        raise KernelError(f"Expand: cannot expand {list(x.shape)} to {target}") from None
    check_output("Expand", shape, x.dtype)
    return (np.broadcast_to(x, shape),)


@kernel("Tile")
def tile(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    reps = index_vector("Tile", "multiples", inputs[1])
    if len(reps) != x.ndim or any(r < 0 for r in reps):
        raise KernelError(f"Tile: multiples {reps} do not fit rank {x.ndim}")
    check_output("Tile", [d * r for d, r in zip(x.shape, reps, strict=True)], x.dtype)
    return (np.tile(x, reps),)


_NUMPY_PAD_MODES: dict[str, Literal["constant", "reflect", "edge", "wrap"]] = {
    "constant": "constant",
    "reflect": "reflect",
    "edge": "edge",
    "wrap": "wrap",
}


@kernel("PadV3")
def pad_v3(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Negative pads crop first; the remaining (non-negative) pads go to `np.pad`."""
    x = inputs[0]
    pads = index_vector("PadV3", "paddings", inputs[1])
    mode = str_(attrs, "mode", PadV3Op)
    if mode not in _NUMPY_PAD_MODES:
        raise KernelError(f"PadV3: unknown mode '{mode}'")
    if len(inputs) > 3:
        axes = [axis_in("PadV3", a, x.ndim) for a in index_vector("PadV3", "axes", inputs[3])]
    else:
        axes = list(range(x.ndim))
    n = len(axes)
    if len(pads) != 2 * n:
        raise KernelError(f"PadV3: {len(pads)} paddings for {n} axes")
    contiguous = bool_(attrs, "paddings_contiguous", PadV3Op)
    widths = [[0, 0] for _ in range(x.ndim)]
    for i, a in enumerate(axes):
        widths[a] = [pads[2 * i], pads[2 * i + 1]] if contiguous else [pads[i], pads[n + i]]
    crop = tuple(slice(max(-b, 0), x.shape[a] - max(-e, 0)) for a, (b, e) in enumerate(widths))
    x = x[crop]
    positive = [(max(b, 0), max(e, 0)) for b, e in widths]
    check_output("PadV3", [d + b + e for d, (b, e) in zip(x.shape, positive, strict=True)], x.dtype)
    if mode == "constant":
        value = inputs[2].reshape(-1)[0] if inputs[2].size else 0
        return (np.pad(x, positive, mode="constant", constant_values=value),)
    if x.size == 0 and any(b or e for b, e in positive):
        raise KernelError(f"PadV3: cannot pad an empty tensor in mode '{mode}'")
    return (np.pad(x, positive, mode=_NUMPY_PAD_MODES[mode]),)


@kernel("Fill")
def fill(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    dims = index_vector("Fill", "dims", inputs[0])
    if any(d < 0 for d in dims):
        raise KernelError(f"Fill: dims {dims} has a negative dim")
    value = inputs[1]
    if value.size != 1:
        raise KernelError(f"Fill: value must hold one element, got shape {list(value.shape)}")
    check_output("Fill", dims, value.dtype)
    return (np.full(dims, value.reshape(()), dtype=value.dtype),)


@kernel("Range")
def range_(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    start, limit, delta = (np.asarray(v).reshape(()) for v in inputs)
    if delta == 0:
        raise KernelError("Range: delta must not be 0")
    count = max(int(np.ceil((float(limit) - float(start)) / float(delta))), 0)
    check_output("Range", [count], start.dtype)
    return ((start + np.arange(count, dtype=start.dtype) * delta).astype(start.dtype),)


@kernel("Trilu")
def trilu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    if x.ndim < 2:
        raise KernelError(f"Trilu: x must have rank 2 or more, got shape {list(x.shape)}")
    k = index_vector("Trilu", "k", inputs[1])[0] if len(inputs) > 1 else 0
    return (np.triu(x, k) if bool_(attrs, "upper", TriluOp) else np.tril(x, k),)
