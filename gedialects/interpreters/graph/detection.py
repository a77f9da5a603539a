"""Kernels of the detection ops: NMS vectorised over the candidates of each (batch, class),
ROIAlign over all bins and samples of one ROI at a time."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import NonMaxSuppressionV6Op, ROIAlignOp
from gedialects.interpreters.graph.common import Arrays, compute, float_, int_, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, check_output, kernel


def _one(x: np.ndarray, default: float) -> float:
    return float(x.reshape(-1)[0]) if x.size else default


def _corners(boxes: np.ndarray, center: bool) -> tuple[np.ndarray, ...]:
    """(ymin, xmin, ymax, xmax, area) of `[..., 4]` boxes."""
    if center:
        xc, yc, w, h = (boxes[..., i] for i in range(4))
        ymin, ymax, xmin, xmax = yc - h / 2, yc + h / 2, xc - w / 2, xc + w / 2
    else:
        y1, x1, y2, x2 = (boxes[..., i] for i in range(4))
        ymin, ymax = np.minimum(y1, y2), np.maximum(y1, y2)
        xmin, xmax = np.minimum(x1, x2), np.maximum(x1, x2)
    return ymin, xmin, ymax, xmax, (ymax - ymin) * (xmax - xmin)


@kernel("NonMaxSuppressionV6")
def non_max_suppression_v6(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    boxes, scores = compute(inputs[0]), compute(inputs[1])
    if boxes.ndim != 3 or boxes.shape[2] != 4 or scores.ndim != 3:
        raise KernelError(
            f"NonMaxSuppressionV6: boxes {list(boxes.shape)} must be [B, N, 4] and "
            f"scores {list(scores.shape)} [B, C, N]"
        )
    if (boxes.shape[0], boxes.shape[1]) != (scores.shape[0], scores.shape[2]):
        raise KernelError(
            f"NonMaxSuppressionV6: boxes {list(boxes.shape)} and scores {list(scores.shape)} "
            "disagree in batch or box count"
        )
    limit = max(int(_one(inputs[2], 0)), 0)
    iou_limit = _one(inputs[3], 0.0)
    threshold = _one(inputs[4], -np.inf) if len(inputs) > 4 and inputs[4].size else None
    center = int_(attrs, "center_point_box", NonMaxSuppressionV6Op) == 1
    ymin, xmin, ymax, xmax, area = _corners(boxes, center)
    picked: list[np.ndarray] = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c]
            order = np.arange(s.shape[0]) if threshold is None else np.flatnonzero(s > threshold)
            order = order[np.argsort(-s[order], kind="stable")]
            kept: list[int] = []
            while order.size and len(kept) < limit:
                i, rest = int(order[0]), order[1:]
                kept.append(i)
                top, bottom = (
                    np.maximum(ymin[b, i], ymin[b, rest]),
                    np.minimum(ymax[b, i], ymax[b, rest]),
                )
                left, right = (
                    np.maximum(xmin[b, i], xmin[b, rest]),
                    np.minimum(xmax[b, i], xmax[b, rest]),
                )
                height, width = bottom - top, right - left
                inter = np.where((height > 0) & (width > 0), height * width, 0)
                union = area[b, i] + area[b, rest] - inter
                valid = (inter > 0) & (area[b, i] > 0) & (area[b, rest] > 0) & (union > 0)
                with np.errstate(invalid="ignore", divide="ignore"):
                    iou = np.where(valid, inter / np.where(valid, union, 1), 0)
                order = rest[~(iou > iou_limit)]
            if kept:
                rows = np.empty((len(kept), 3), dtype=np.int64)
                rows[:, 0], rows[:, 1], rows[:, 2] = b, c, kept
                picked.append(rows)
    count = sum(len(p) for p in picked)
    check_output("NonMaxSuppressionV6", (count, 3), np.dtype(np.int64))
    return (np.concatenate(picked) if picked else np.zeros((0, 3), dtype=np.int64),)


def _axis_samples(
    start: float, size: float, bins: int, grid: int, extent: int
) -> tuple[np.ndarray, ...]:
    """Low and high neighbour indices, the two weights and the in-range mask of the
    `bins * grid` sample positions along one axis of extent `extent`."""
    step = size / bins
    pos = start + (np.arange(bins)[:, None] * step + (np.arange(grid)[None, :] + 0.5) * step / grid)
    pos = pos.reshape(-1)
    inside = (pos >= -1.0) & (pos <= extent)
    pos = np.maximum(pos, 0.0)
    low = np.floor(pos).astype(np.int64)
    edge = low >= extent - 1
    low = np.where(edge, extent - 1, low)
    high = np.where(edge, extent - 1, low + 1)
    pos = np.where(edge, low.astype(pos.dtype), pos)
    frac = pos - low
    return low, high, 1 - frac, frac, inside


@kernel("ROIAlign")
def roi_align(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, rois = compute(inputs[0]), compute(inputs[1]).astype(np.float64)
    if x.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 5:
        raise KernelError(
            f"ROIAlign: features {list(x.shape)} must be [N, C, H, W] and "
            f"rois {list(rois.shape)} [R, 5]"
        )
    op = ROIAlignOp
    ph, pw = int_(attrs, "pooled_height", op), int_(attrs, "pooled_width", op)
    scale = float_(attrs, "spatial_scale", op)
    samples = int_(attrs, "sample_num", op)
    aligned = int_(attrs, "roi_end_mode", op) == 2
    use_max = str_(attrs, "pool_mode", op) == "max"
    n, channels, height, width = x.shape
    y = np.zeros((rois.shape[0], channels, ph, pw), dtype=x.dtype)
    shift = 0.5 if aligned else 0.0
    for r, (index, x1, y1, x2, y2) in enumerate(rois):
        batch = int(index)
        if not 0 <= batch < n:
            raise KernelError(f"ROIAlign: ROI {r} has batch index {batch}, not in [0, {n})")
        left, top = x1 * scale - shift, y1 * scale - shift
        roi_w, roi_h = x2 * scale - shift - left, y2 * scale - shift - top
        if not np.isfinite([left, top, roi_w, roi_h]).all():
            continue  # a NaN or infinite coordinate (run-time data) samples nothing: 0
        if not aligned:
            roi_w, roi_h = max(roi_w, 1.0), max(roi_h, 1.0)
        gh = samples if samples > 0 else int(np.ceil(roi_h / ph))
        gw = samples if samples > 0 else int(np.ceil(roi_w / pw))
        if gh <= 0 or gw <= 0:
            continue
        # the adaptive grid grows with the ROI: its 4 sample terms are sized first
        check_output("ROIAlign", (channels, ph * gh, pw * gw), x.dtype, 4 * x.dtype.itemsize)
        yl, yh, wy0, wy1, iy = _axis_samples(top, roi_h, ph, gh, height)
        xl, xh, wx0, wx1, ix = _axis_samples(left, roi_w, pw, gw, width)
        f = x[batch]
        mask = (iy[:, None] & ix[None, :]).astype(x.dtype)
        terms = [
            f[:, rows][:, :, cols] * (wr[:, None] * wc[None, :] * mask).astype(x.dtype)
            for rows, wr in ((yl, wy0), (yh, wy1))
            for cols, wc in ((xl, wx0), (xh, wx1))
        ]
        if use_max:
            value = np.maximum(np.maximum(terms[0], terms[1]), np.maximum(terms[2], terms[3]))
            pooled = value.reshape(channels, ph, gh, pw, gw).max(axis=(2, 4))
        else:
            value = terms[0] + terms[1] + terms[2] + terms[3]
            pooled = value.reshape(channels, ph, gh, pw, gw).sum(axis=(2, 4)) / (gh * gw)
        y[r] = pooled
    return (y,)
