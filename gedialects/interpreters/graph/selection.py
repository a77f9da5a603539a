"""Kernels of the selection ops: numpy's unique (with the first-occurrence order for an
unsorted result) and the KV-cache Scatter as one fancy-indexed assignment."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute

from gedialects.graph import ScatterOp, TfIdfVectorizerOp, UniqueWithCountsAndSortingOp
from gedialects.interpreters.graph.common import Arrays, bool_, floats, int_, ints, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel


@kernel("UniqueWithCountsAndSorting")
def unique_with_counts_and_sorting(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    axis_attr = attrs.get("axis")
    axis = None
    if isinstance(axis_attr, IntegerAttr):
        axis = int(axis_attr.value.data)
        if not -x.ndim <= axis < x.ndim:
            raise KernelError(f"UniqueWithCountsAndSorting: axis {axis} is out of range")
        axis %= x.ndim
    y, first, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True, axis=axis
    )
    inverse = inverse.reshape(-1)
    if not bool_(attrs, "sorted", UniqueWithCountsAndSortingOp):
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        y = np.take(y, order, axis=0 if axis is None else axis)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    i64 = np.int64
    return (y.astype(x.dtype), first.astype(i64), inverse.astype(i64), counts.astype(i64))


@kernel("Scatter")
def scatter(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    var, updates = inputs[0], inputs[1]
    axis = int_(attrs, "axis", ScatterOp) % var.ndim
    batch, size, length = var.shape[0], var.shape[axis], updates.shape[axis]
    starts = inputs[2].astype(np.int64) if len(inputs) > 2 else np.zeros(batch, np.int64)
    if starts.shape != (batch,):
        raise KernelError(f"Scatter: indices must be [{batch}], got {list(starts.shape)}")
    positions = starts[:, None] + np.arange(length)[None, :]  # [B, L]
    if str_(attrs, "mode", ScatterOp) == "circular":
        positions %= max(size, 1)
    elif (starts < 0).any() or (positions >= size).any():
        raise KernelError(
            f"Scatter: writing {length} positions from {starts.tolist()} overruns {size}"
        )
    y = var.copy()
    moved_y = np.moveaxis(y, axis, 1)  # [B, S, ...], a view of y
    moved_u = np.moveaxis(updates, axis, 1)  # [B, L, ...]
    moved_y[np.arange(batch)[:, None], positions] = moved_u
    return (y,)


@kernel("TfIdfVectorizer")
def tf_idf_vectorizer(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Per gap and n-gram length, the windows of every row compared with each pooled n-gram
    at once (one vectorised match per pooled n-gram, not a loop over positions)."""
    x = inputs[0]
    try:
        table = TfIdfVectorizerOp.ngrams(attrs)
    except ValueError as e:
        raise KernelError(f"TfIdfVectorizer: {e}") from None
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    if rows.ndim != 2:
        raise KernelError(f"TfIdfVectorizer: x must be [C] or [B, C], got {list(x.shape)}")
    width = max(ints(attrs, "ngram_indexes", TfIdfVectorizerOp)) + 1
    counts = np.zeros((rows.shape[0], width), np.int64)
    length = rows.shape[1]
    max_gap = int_(attrs, "max_skip_count", TfIdfVectorizerOp) + 1
    for gram, column in table.items():
        size = len(gram)
        for gap in range(1, (max_gap if size > 1 else 1) + 1):
            span = gap * (size - 1)
            if span >= length:
                break
            starts = length - span
            hit = np.ones((rows.shape[0], starts), bool)
            for i, item in enumerate(gram):
                hit &= rows[:, i * gap : i * gap + starts] == item
            counts[:, column] += hit.sum(axis=1)
    mode = str_(attrs, "mode", TfIdfVectorizerOp)
    weights = np.asarray(floats(attrs, "weights", TfIdfVectorizerOp), np.float32)
    scale = weights if weights.size else np.ones(width, np.float32)  # by result column
    if mode == "TF":
        y = counts.astype(np.float32)
    elif mode == "IDF":
        y = np.where(counts > 0, scale, np.float32(0)).astype(np.float32)
    else:
        y = (counts * scale).astype(np.float32)
    return (y.reshape(width) if x.ndim == 1 else y,)
