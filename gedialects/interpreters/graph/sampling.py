"""Kernel of the grid samplers, vectorised over all output points: one gather per corner of
the interpolation stencil (2^rank linear, 4^rank cubic)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import AffineGridOp, GridSampler2DOp, GridSampler3DOp, GridSamplerOpBase
from gedialects.interpreters.graph.common import Arrays, bool_, compute, ints, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel

CUBIC_A = -0.75


def _reflect(v: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """`v` mirrored at `lo` and `hi` until it lies between them."""
    span = hi - lo
    if span <= 0:
        return np.full_like(v, lo)
    below, above = v < lo, v > hi
    dx = np.where(below, lo - v, np.where(above, v - hi, 0))
    turns = np.floor(dx / span)
    rest = dx - turns * span
    even = turns % 2 == 0
    from_below = np.where(even, lo + rest, hi - rest)
    from_above = np.where(even, hi - rest, lo + rest)
    return np.where(below, from_below, np.where(above, from_above, v))


def _cubic(t: np.ndarray) -> list[np.ndarray]:
    a = CUBIC_A
    u, w = t + 1, 2 - t
    return [
        ((a * u - 5 * a) * u + 8 * a) * u - 4 * a,
        ((a + 2) * t - (a + 3)) * t * t + 1,
        ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
        ((a * w - 5 * a) * w + 8 * a) * w - 4 * a,
    ]


def _sample(
    op: type[GridSamplerOpBase], x: np.ndarray, grid: np.ndarray, attrs: KernelAttrs
) -> np.ndarray:
    """`op` (the concrete class) gives the defaults of properties a parsed task leaves out."""
    ge_type = op.GE_TYPE
    mode = str_(attrs, "interpolation_mode", op)
    padding = str_(attrs, "padding_mode", op)
    aligned = bool_(attrs, "align_corners", op)
    rank = x.ndim - 2
    if grid.ndim != rank + 2 or grid.shape[-1] != rank or grid.shape[0] != x.shape[0]:
        raise KernelError(f"{ge_type}: grid {list(grid.shape)} does not fit x {list(x.shape)}")
    dims = x.shape[2:]
    coords = grid[..., ::-1].astype(np.float64)  # spatial dims in x's order
    lows = [0.0 if aligned else -0.5 for _ in dims]
    highs = [d - 1.0 if aligned else d - 0.5 for d in dims]
    pos = []
    for i, d in enumerate(dims):
        c = coords[..., i]
        p = (c + 1) / 2 * (d - 1) if aligned else ((c + 1) * d - 1) / 2
        if mode == "nearest":
            p = np.rint(p)
        outside = (p < lows[i]) | (p > highs[i])
        if padding == "border":
            p = np.where(outside, np.clip(p, 0, d - 1), p)
        elif padding == "reflection":
            p = np.where(outside, _reflect(p, lows[i], highs[i]), p)
        pos.append(p)
    channels_last = np.moveaxis(x, 1, -1)  # [N, *spatial, C]
    batch = np.arange(x.shape[0]).reshape((-1,) + (1,) * rank)

    def fetch(index: list[np.ndarray]) -> np.ndarray:
        valid = np.ones(index[0].shape, dtype=bool)
        fixed = []
        for i, (ix, d) in enumerate(zip(index, dims, strict=True)):
            if padding == "zeros":
                valid &= (ix >= 0) & (ix < d)
                ix = np.clip(ix, 0, d - 1)
            elif padding == "border":
                ix = np.clip(ix, 0, d - 1)
            else:
                ix = np.clip(
                    _reflect(ix.astype(np.float64), lows[i], highs[i]).astype(np.int64), 0, d - 1
                )
            fixed.append(ix)
        values = channels_last[(batch, *fixed)]
        return np.where(valid[..., None], values, 0) if padding == "zeros" else values

    if mode == "nearest":
        y = fetch([p.astype(np.int64) for p in pos])
    else:
        base = [np.floor(p) for p in pos]
        frac = [p - b for p, b in zip(pos, base, strict=True)]
        if mode == "bilinear":
            offsets, weights = (0, 1), [[1 - f, f] for f in frac]
        else:
            offsets, weights = (-1, 0, 1, 2), [_cubic(f) for f in frac]
        y = np.zeros((*pos[0].shape, x.shape[1]), dtype=np.float64)
        for corner in itertools.product(range(len(offsets)), repeat=rank):
            w = np.ones(pos[0].shape)
            for i, k in enumerate(corner):
                w = w * weights[i][k]
            index = [(b + offsets[k]).astype(np.int64) for b, k in zip(base, corner, strict=True)]
            y += w[..., None] * fetch(index)
    return np.moveaxis(y, -1, 1)


@kernel("GridSampler2D")
def grid_sampler_2d(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (_sample(GridSampler2DOp, compute(inputs[0]), compute(inputs[1]), attrs),)


@kernel("GridSampler3D")
def grid_sampler_3d(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (_sample(GridSampler3DOp, compute(inputs[0]), compute(inputs[1]), attrs),)


@kernel("AffineGrid")
def affine_grid(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """One batched product of theta with the `(x, y[, z], 1)` coordinates of every pixel."""
    theta = inputs[0]
    size = ints(attrs, "size", AffineGridOp)
    rank = len(size) - 2
    if theta.shape != (size[0], rank, rank + 1):
        raise KernelError(f"AffineGrid: theta {list(theta.shape)} does not fit size {list(size)}")
    align = bool_(attrs, "align_corners", AffineGridOp)
    axes = []
    for n in size[2:]:
        step = np.arange(n, dtype=np.float32)
        if align:
            # linspace(-1, 1, n): a single pixel sits at -1 (torch's and onnx's grid)
            axes.append(step * 2 / (n - 1) - 1 if n > 1 else np.full(1, -1, np.float32))
        else:
            axes.append((step * 2 + 1) / n - 1)
    mesh = np.meshgrid(*axes, indexing="ij")  # (D,) H, W: reversed for (x, y[, z])
    points = np.stack([*reversed(mesh), np.ones_like(mesh[0])], axis=-1)  # [*spatial, rank+1]
    flat = points.reshape(-1, rank + 1)
    grid = np.einsum("pk,nrk->npr", flat, compute(theta).astype(np.float32))
    return (grid.reshape(size[0], *size[2:], rank).astype(theta.dtype),)
