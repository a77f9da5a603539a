"""Kernels of the pooling ops: one strided window view per op, reduced over the window axes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation

from gedialects.graph import (
    AvgPoolV2Op,
    GlobalLpPoolOp,
    LpPoolOp,
    MaxPoolV3Op,
    MaxPoolWithArgmaxOp,
    window_output_size,
)
from gedialects.interpreters.graph.common import Arrays, bool_, compute, float_, int_, ints, str_
from gedialects.interpreters.graph.nn import (
    TapRegion,
    nc1hwc0_origin,
    tap_regions,
    to_channels_first,
    to_channels_last,
)
from gedialects.interpreters.kernels import (
    KernelAttrs,
    KernelError,
    into,
    kernel,
    kernel_into,
    kernel_into_formatted,
    scratch,
)


class Windows:
    """The pooling geometry of one op on one input (channels-first)."""

    def __init__(
        self, name: str, op: type[IRDLOperation], x: np.ndarray, attrs: KernelAttrs
    ) -> None:
        rank = x.ndim
        self.nhwc = str_(attrs, "data_format", op) == "NHWC"
        ksize = ints(attrs, "ksize", op)
        strides = ints(attrs, "strides", op)
        dilations = ints(attrs, "dilations", op) or (1,) * rank
        self.pads = ints(attrs, "pads", op) or (0,) * (2 * rank - 4)
        if len(ksize) != rank or len(self.pads) != 2 * (rank - 2) or len(dilations) != rank:
            raise KernelError(f"{name}: ksize {list(ksize)} does not fit x of shape {x.shape}")
        axes = range(1, rank - 1) if self.nhwc else range(2, rank)
        self.ksize = [ksize[a] for a in axes]
        self.strides = [strides[a] for a in axes]
        self.dilations = [dilations[a] for a in axes]
        self.x = to_channels_first(x) if self.nhwc else x
        ceil = bool_(attrs, "ceil_mode", op)
        self.sizes = self.x.shape[2:]
        self.out = [
            window_output_size(s, k, st, d, self.pads[2 * i], self.pads[2 * i + 1], ceil)
            for i, (s, k, st, d) in enumerate(
                zip(self.sizes, self.ksize, self.strides, self.dilations, strict=True)
            )
        ]
        if any(o <= 0 for o in self.out):
            raise KernelError(f"{name}: the window does not fit the padded input {x.shape}")
        self.extents = [d * (k - 1) + 1 for d, k in zip(self.dilations, self.ksize, strict=True)]
        # total padded length: explicit pads, plus what the last ceil_mode window needs
        self.widths = [
            (
                self.pads[2 * i],
                max((o - 1) * st + e - s - self.pads[2 * i], self.pads[2 * i + 1]),
            )
            for i, (o, st, e, s) in enumerate(
                zip(self.out, self.strides, self.extents, self.sizes, strict=True)
            )
        ]

    def view(self, x: np.ndarray, fill: float | int) -> np.ndarray:
        """[N, C, *out, *K] windows of `x` padded with `fill` (a view of one padded copy)."""
        sp = len(self.sizes)
        padded = np.pad(x, ((0, 0),) * (x.ndim - sp) + tuple(self.widths), constant_values=fill)
        windows = sliding_window_view(padded, self.extents, axis=tuple(range(x.ndim - sp, x.ndim)))
        lead = (slice(None),) * (x.ndim - sp)
        positions = tuple(
            slice(0, (o - 1) * s + 1, s) for o, s in zip(self.out, self.strides, strict=True)
        )
        taps = tuple(slice(None, None, d) for d in self.dilations)
        return windows[(*lead, *positions, *taps)]

    def regions(self) -> Iterator[TapRegion]:
        """Each window tap's output positions and the slices of x they read (no padding)."""
        return tap_regions(
            self.sizes,
            self.ksize,
            strides=self.strides,
            dilations=self.dilations,
            pads_begin=self.pads[0::2],
            out_sizes=self.out,
        )

    def counts(self, exclusive: bool, dtype: np.dtype) -> np.ndarray:
        """Per output position, how many window taps fall inside x (`exclusive`) or inside the
        explicitly padded x; never the extra end padding of ceil_mode. [*out], an outer
        product of one count per spatial dim."""
        total = np.ones((), dtype=dtype)
        for i, (size, k, st, d, o) in enumerate(
            zip(self.sizes, self.ksize, self.strides, self.dilations, self.out, strict=True)
        ):
            lo, hi = (0, size) if exclusive else (-self.pads[2 * i], size + self.pads[2 * i + 1])
            start = np.arange(o)[:, None] * st - self.pads[2 * i] + np.arange(k)[None, :] * d
            per_dim = ((start >= lo) & (start < hi)).sum(axis=1).astype(dtype)
            total = np.multiply.outer(total, per_dim)
        return total

    def reduce_axes(self) -> tuple[int, ...]:
        sp = len(self.sizes)
        return tuple(range(2 + sp, 2 + 2 * sp))

    def finish(self, y: np.ndarray) -> np.ndarray:
        return to_channels_last(y) if self.nhwc else y


def _lowest(dtype: np.dtype) -> float | int:
    if np.issubdtype(dtype, np.integer):
        return int(np.iinfo(dtype).min)
    return -np.inf


def _max_into(w: Windows, x: np.ndarray, y: np.ndarray) -> None:
    """The running maximum over the window taps of [N, C, *sizes, *rest] `x` into
    [N, C, *out, *rest] `y` (`rest`: NC1HWC0's C0), one spatial dim at a time (a window is
    a product of one range per dim and max is exact, so the maximum of the per-dim maxima is
    the window's): one strided np.maximum per tap of that dim, through a scratch between
    dims. A 3x3 window costs 3 + 3 passes instead of 9, the first over x and the rest over a
    third of it at stride 2. Positions that see only padding keep the lowest value, as a
    window of padding does."""
    lowest = _lowest(x.dtype)
    sp = len(w.sizes)
    rest = x.shape[2 + sp :]
    source = x
    for d in range(sp):
        dims = (*x.shape[:2], *w.out[: d + 1], *w.sizes[d + 1 :], *rest)
        target = y if d == sp - 1 else scratch(f"max_pool{d % 2}", dims, x.dtype)
        target.fill(lowest)
        lead = (slice(None),) * (2 + d)
        for _, src, dst, ranges in tap_regions(
            [w.sizes[d]],
            [w.ksize[d]],
            strides=[w.strides[d]],
            dilations=[w.dilations[d]],
            pads_begin=[w.pads[2 * d]],
            out_sizes=[w.out[d]],
        ):
            if ranges[0][1] > ranges[0][0]:
                view = target[(*lead, *dst)]
                np.maximum(view, source[(*lead, *src)], out=view)
        source = target


def _max_pool(w: Windows, out: np.ndarray | None) -> np.ndarray:
    """`_max_into` `out` (an NCHW output of x's dtype) or a new array."""
    x = w.x
    shape = (*x.shape[:2], *w.out)
    nchw_out = out is not None and not w.nhwc and out.shape == shape and out.dtype == x.dtype
    y = out if nchw_out and out is not None else np.empty(shape, x.dtype)
    _max_into(w, x, y)
    return w.finish(y)


@kernel("MaxPoolV3")
def max_pool_v3(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (_max_pool(Windows("MaxPoolV3", MaxPoolV3Op, inputs[0], attrs), None),)


@kernel_into("MaxPoolV3")
def max_pool_v3_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    y = _max_pool(Windows("MaxPoolV3", MaxPoolV3Op, inputs[0], attrs), outputs[0])
    if y is not outputs[0]:
        into("MaxPoolV3", outputs[0], y)


@kernel_into_formatted("MaxPoolV3")
def max_pool_v3_into_formatted(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    types: Sequence[Attribute],
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> bool:
    """MaxPoolV3 from NC1HWC0 storage into NC1HWC0 storage, C0 riding along as a trailing
    dim (no unpacked copy of the feature map and none packed again); the padded channels of
    the output are zeroed, as packing does. False for other formats."""
    if len(inputs) != 1 or len(types) != 1 or len(outputs) != 1:
        return False
    x, out = inputs[0], outputs[0]
    origin = nc1hwc0_origin(types[0])
    y_origin = nc1hwc0_origin(result_types[0])
    if origin is None or y_origin is None or x.ndim != 5 or x.dtype != out.dtype:
        return False
    if str_(attrs, "data_format", MaxPoolV3Op) != "NCHW":
        return False
    n, c = origin[:2]
    c0 = x.shape[4]
    if x.shape != (n, -(-c // c0), *origin[2:], c0) or y_origin[:2] != (n, c):
        return False
    w = Windows("MaxPoolV3", MaxPoolV3Op, np.broadcast_to(np.zeros((), x.dtype), origin), attrs)
    if out.shape != (*x.shape[:2], *w.out, c0):
        return False
    _max_into(w, x, out)
    if c % c0:
        out[:, -1, ..., c % c0 :] = 0
    return True


@kernel("MaxPoolWithArgmax")
def max_pool_with_argmax(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """The first maximum of each window and its flat index in x (column-major spatial dims
    when storage_order = 1)."""
    w = Windows("MaxPoolWithArgmax", MaxPoolWithArgmaxOp, inputs[0], attrs)
    n, c, *sizes = w.x.shape
    spatial = int(np.prod(sizes))
    if int_(attrs, "storage_order", MaxPoolWithArgmaxOp) == 1:
        local = np.arange(spatial, dtype=np.int64).reshape(sizes[::-1]).T
    else:
        local = np.arange(spatial, dtype=np.int64).reshape(sizes)
    values = w.view(w.x, _lowest(w.x.dtype))
    sp = len(sizes)
    flat = values.reshape(*values.shape[: 2 + sp], -1)
    where = flat.argmax(axis=-1)
    y = np.take_along_axis(flat, where[..., None], axis=-1)[..., 0]
    local_windows = w.view(local, -1)
    local_flat = local_windows.reshape(*local_windows.shape[:sp], -1)
    idx = local_flat[(*np.indices(where.shape[2:]), where)]
    base = (np.arange(n * c, dtype=np.int64) * spatial).reshape(n, c, *(1,) * sp)
    return (y, idx + base)


def _average(name: str, x: np.ndarray, attrs: KernelAttrs) -> np.ndarray:
    """The window sums, one strided add per tap in tap order (padding adds nothing), divided
    by `divisor_override` or by the count of taps inside x (`exclusive`) or inside the
    explicitly padded x."""
    w = Windows(name, AvgPoolV2Op, x, attrs)
    xc = compute(w.x)
    total = np.zeros((*xc.shape[:2], *w.out), xc.dtype)
    lead = (slice(None), slice(None))
    for _, src, dst, ranges in w.regions():
        if all(hi > lo for lo, hi in ranges):
            view = total[(*lead, *dst)]
            np.add(view, xc[(*lead, *src)], out=view)
    divisor_override = int_(attrs, "divisor_override", AvgPoolV2Op)
    if divisor_override > 0:
        return w.finish(total / xc.dtype.type(divisor_override))
    count = w.counts(bool_(attrs, "exclusive", AvgPoolV2Op), xc.dtype)
    return w.finish(total / count)


@kernel("AvgPoolV2")
def avg_pool_v2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (_average("AvgPoolV2", inputs[0], attrs),)


@kernel("LpPool")
def lp_pool(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    w = Windows("LpPool", LpPoolOp, inputs[0], attrs)
    p = float_(attrs, "p", LpPoolOp)
    powered = np.abs(compute(w.x)) ** p
    total = w.view(powered, 0).sum(axis=w.reduce_axes())
    return (w.finish(total ** (1.0 / p)),)


def _spatial(x: np.ndarray, name: str) -> tuple[int, ...]:
    if x.ndim < 3:
        raise KernelError(f"{name}: x must be N, C, spatial..., got shape {x.shape}")
    return tuple(range(2, x.ndim))


@kernel("GlobalAveragePool")
def global_average_pool(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = compute(inputs[0])
    return (x.mean(axis=_spatial(x, "GlobalAveragePool"), keepdims=True),)


@kernel("GlobalMaxPool")
def global_max_pool(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    return (x.max(axis=_spatial(x, "GlobalMaxPool"), keepdims=True),)


@kernel("GlobalLpPool")
def global_lp_pool(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = compute(inputs[0])
    p = float_(attrs, "p", GlobalLpPoolOp)
    total = (np.abs(x) ** p).sum(axis=_spatial(x, "GlobalLpPool"), keepdims=True)
    return (total ** (1.0 / p),)
