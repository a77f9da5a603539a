"""Storage formats in numpy: GE's format transfers (pack into a layout, unpack from it).

`pack` lays a tensor in its origin format out in a storage format, `unpack` reverses it, with
GE's index formulas (research notes section 2.1):

- NC1HWC0 `[N, C1, H, W, C0]`: `(n, c, h, w)` at `(((n*C1 + c/C0)*H + h)*W + w)*C0 + c%C0`
  (`format_transfer_nchw_nc1hwc0.cc`; an NHWC origin is read as its NCHW view);
- FRACTAL_Z `[C1*H*W, N1, 16, C0]`: `(n, c, h, w)` at `(vfi*N1 + n/16)*16*C0 + (n%16)*C0 +
  c%C0` with `vfi = (c/C0)*H*W + h*W + w` (`TransFormatFromNchwToFz`); a 2-D ND origin
  `[d0, d1]` as `[d0/C0, d1/16, 16, C0]`;
- FRACTAL_NZ `[..., W1, H1, 16, W0]`: `(t, h, w)` at `t*W1*H1*16*W0 + (w/W0)*H1*16*W0 + h*W0 +
  w%W0` (`TransShapeToFracNz`), a 1-D `[n]` as the row `[1, n]`;

and every position past the origin tensor (channels >= C, filters >= N, rows >= H) is zero.

Kernels of heavy ops (Conv2D, pooling, BatchNorm, MatMul: `GEOp.HEAVY_PORTS`) take their
heavy formats through `kernels.heavy_kernel`: the operands are unpacked with their types' origin
shapes (`formats.INPUT_DESC`), the op's own kernel computes, and the result is packed, so a
heavy-format graph gives the numbers of the NCHW one by construction; format-agnostic kernels
(elementwise) run on the storage arrays as they are, as the AI Core runs them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from gedialects.formats import CUBE, c0_of, format_of, nchw_axes, storage_shape


class LayoutError(ValueError):
    """An array is not the storage its type says (the kernels report it as a KernelError)."""


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _pad_to(x: np.ndarray, shape: Sequence[int]) -> np.ndarray:
    """`x` in a zero array of `shape` (each dim at least `x`'s), at the origin."""
    if tuple(x.shape) == tuple(shape):
        return x
    out = np.zeros(shape, x.dtype)
    out[tuple(slice(0, d) for d in x.shape)] = x
    return out


def _to_nchw(x: np.ndarray, origin: str) -> np.ndarray:
    return np.transpose(x, nchw_axes(origin)) if origin == "NHWC" else x


def _from_nchw(x: np.ndarray, origin: str) -> np.ndarray:
    return np.transpose(x, (0, 2, 3, 1)) if origin == "NHWC" else x


def pack(x: np.ndarray, origin: str, fmt: str, c0: int) -> np.ndarray:
    """`x` (a tensor in its origin format `origin`) laid out in storage format `fmt`."""
    shape = storage_shape(x.shape, origin, fmt, c0)  # ValueError when fmt cannot hold x
    if fmt == origin or fmt == "ND":
        return np.ascontiguousarray(x)
    if fmt == "FRACTAL_NZ":
        rows = x.reshape(1, x.shape[0]) if x.ndim == 1 else x
        *batch, h, w = rows.shape
        h1, w1 = _ceil(h, CUBE), _ceil(w, c0)
        padded = _pad_to(rows, (*batch, h1 * CUBE, w1 * c0))
        b = len(batch)
        blocks = padded.reshape(*batch, h1, CUBE, w1, c0)
        order = (*range(b), b + 2, b, b + 1, b + 3)
        return np.ascontiguousarray(np.transpose(blocks, order)).reshape(shape)
    if fmt == "FRACTAL_Z" and x.ndim == 2 and origin == "ND":
        d0, d1 = x.shape
        c1, n1 = _ceil(d0, c0), _ceil(d1, CUBE)
        blocks = _pad_to(x, (c1 * c0, n1 * CUBE)).reshape(c1, c0, n1, CUBE)
        return np.ascontiguousarray(np.transpose(blocks, (0, 2, 3, 1)))
    nchw = _to_nchw(x, origin)
    n, c, h, w = nchw.shape
    if fmt == "NCHW":
        return np.ascontiguousarray(nchw)
    if fmt == "NHWC":
        return np.ascontiguousarray(np.transpose(nchw, (0, 2, 3, 1)))
    c1 = _ceil(c, c0)
    if fmt == "NC1HWC0":
        blocks = _pad_to(nchw, (n, c1 * c0, h, w)).reshape(n, c1, c0, h, w)
        return np.ascontiguousarray(np.transpose(blocks, (0, 1, 3, 4, 2)))
    if fmt == "FRACTAL_Z":
        n1 = _ceil(n, CUBE)
        blocks = _pad_to(nchw, (n1 * CUBE, c1 * c0, h, w)).reshape(n1, CUBE, c1, c0, h, w)
        return np.ascontiguousarray(np.transpose(blocks, (2, 4, 5, 0, 1, 3))).reshape(shape)
    raise ValueError(f"unknown data format '{fmt}'")


def unpack(
    x: np.ndarray, origin: str, origin_shape: Sequence[int], fmt: str, c0: int
) -> np.ndarray:
    """The origin tensor (`origin_shape` in `origin`) stored in `x` in format `fmt`."""
    dims = tuple(origin_shape)
    expected = storage_shape(dims, origin, fmt, c0)
    if tuple(x.shape) != expected:
        raise LayoutError(
            f"{fmt} storage of {origin} {list(dims)} is {list(expected)}, got {list(x.shape)}"
        )
    if fmt == origin or fmt == "ND":
        return x
    if fmt == "FRACTAL_NZ":
        rows = (1, dims[0]) if len(dims) == 1 else dims
        *batch, h, w = rows
        h1, w1 = _ceil(h, CUBE), _ceil(w, c0)
        b = len(batch)
        blocks = x.reshape(*batch, w1, h1, CUBE, c0)
        order = (*range(b), b + 1, b + 2, b, b + 3)
        full = np.transpose(blocks, order).reshape(*batch, h1 * CUBE, w1 * c0)
        return np.ascontiguousarray(full[..., :h, :w]).reshape(dims)
    if fmt == "FRACTAL_Z" and len(dims) == 2 and origin == "ND":
        d0, d1 = dims
        full = np.transpose(x, (0, 3, 1, 2)).reshape(x.shape[0] * c0, x.shape[1] * CUBE)
        return np.ascontiguousarray(full[:d0, :d1])
    n, c, h, w = (dims[a] for a in nchw_axes(origin))
    if fmt == "NCHW":
        return np.ascontiguousarray(_from_nchw(x, origin))
    if fmt == "NHWC":
        return np.ascontiguousarray(_from_nchw(np.transpose(x, (0, 3, 1, 2)), origin))
    c1 = _ceil(c, c0)
    if fmt == "NC1HWC0":
        full = np.transpose(x, (0, 1, 4, 2, 3)).reshape(n, c1 * c0, h, w)
        return np.ascontiguousarray(_from_nchw(full[:, :c], origin))
    if fmt == "FRACTAL_Z":
        n1 = _ceil(n, CUBE)
        blocks = x.reshape(c1, h, w, n1, CUBE, c0)
        full = np.transpose(blocks, (3, 4, 0, 5, 1, 2)).reshape(n1 * CUBE, c1 * c0, h, w)
        return np.ascontiguousarray(_from_nchw(full[:n, :c], origin))
    raise ValueError(f"unknown data format '{fmt}'")


def to_origin(x: np.ndarray, t: Attribute) -> np.ndarray:
    """The array `x` of type `t` in its origin format (unchanged for a plain `t`)."""
    enc = format_of(t)
    if enc is None:
        return x
    assert isinstance(t, TensorType)
    return unpack(x, enc.origin, enc.shape, enc.fmt, c0_of(t.element_type))


def from_origin(x: np.ndarray, t: Attribute) -> np.ndarray:
    """The origin tensor `x` laid out as type `t` says (unchanged for a plain `t`)."""
    enc = format_of(t)
    if enc is None:
        return x
    assert isinstance(t, TensorType)
    return pack(x, enc.origin, enc.fmt, c0_of(t.element_type))


def pack_into(x: np.ndarray, t: Attribute, out: np.ndarray) -> None:
    """`from_origin(x, t)` written into `out` (an array of `t`'s storage shape): NC1HWC0 of an
    NCHW origin as one strided copy per channel block and zeros in the padded channels, any
    other format through `from_origin` and a copy."""
    enc = format_of(t)
    assert isinstance(t, TensorType)
    if enc is None or enc.fmt != "NC1HWC0" or enc.origin != "NCHW" or x.ndim != 4:
        np.copyto(out, from_origin(x, t), casting="unsafe")
        return
    n, c, h, w = x.shape
    c0 = c0_of(t.element_type)
    c1 = _ceil(c, c0)
    if out.shape != (n, c1, h, w, c0):
        raise LayoutError(
            f"NC1HWC0 storage of NCHW {list(x.shape)} is {[n, c1, h, w, c0]}, got {list(out.shape)}"
        )
    blocks = out.transpose(0, 1, 4, 2, 3)  # [N, C1, C0, H, W], a view of out
    full = c // c0
    if full:
        np.copyto(blocks[:, :full], x[:, : full * c0].reshape(n, full, c0, h, w), "unsafe")
    rest = c - full * c0
    if rest and not np.may_share_memory(x, out):
        # the last block zeroed whole (a contiguous fill), then its lanes copied in: 2-4x
        # faster than zeroing the padded lanes at stride C0 (a 3-channel image: 13 of 16)
        out[:, full].fill(0)
        np.copyto(blocks[:, full, :rest], x[:, full * c0 :], "unsafe")
    elif rest:
        np.copyto(blocks[:, full, :rest], x[:, full * c0 :], "unsafe")
        blocks[:, full, rest:] = 0


def unpack_into(x: np.ndarray, out: np.ndarray) -> None:
    """`out` (an NCHW [N, C, H, W] array) set to the origin tensor of `x`, its NC1HWC0
    storage [N, C1, H, W, C0]: one strided copy per channel block (`unpack` makes a packed
    temporary and a copy)."""
    n, c, h, w = out.shape
    c0 = x.shape[-1]
    if x.shape != (n, _ceil(c, c0), h, w, c0):
        raise LayoutError(
            f"NC1HWC0 storage of NCHW {list(out.shape)} is {[n, _ceil(c, c0), h, w, c0]}, got "
            f"{list(x.shape)}"
        )
    blocks = x.transpose(0, 1, 4, 2, 3)  # [N, C1, C0, H, W], a view of x
    full = c // c0
    if full:
        np.copyto(out[:, : full * c0].reshape(n, full, c0, h, w), blocks[:, :full], "unsafe")
    if c > full * c0:
        np.copyto(out[:, full * c0 :], blocks[:, full, : c - full * c0], "unsafe")
