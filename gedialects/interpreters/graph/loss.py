"""Kernels of the loss ops."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute

from gedialects.graph import NLLLossOp
from gedialects.interpreters.graph.common import Arrays, compute, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel


@kernel("NLLLoss")
def nll_loss(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, target = compute(inputs[0]), inputs[1]
    if x.ndim < 2 or target.shape != (x.shape[0], *x.shape[2:]):
        raise KernelError(
            f"NLLLoss: target shape {list(target.shape)} does not match x {list(x.shape)}"
        )
    classes = x.shape[1]
    flat_x = x.reshape(x.shape[0], classes, -1)
    flat_t = target.reshape(x.shape[0], -1).astype(np.int64)
    ignore = attrs.get("ignore_index")
    used = (
        flat_t != int(ignore.value.data)
        if isinstance(ignore, IntegerAttr)
        else np.ones(flat_t.shape, dtype=bool)
    )
    bad = used & ((flat_t < 0) | (flat_t >= classes))
    if bad.any():
        raise KernelError(
            f"NLLLoss: target {int(flat_t[bad][0])} is out of range for {classes} classes"
        )
    safe = np.where(used, flat_t, 0)
    picked = np.take_along_axis(flat_x, safe[:, None, :], axis=1)[:, 0, :]
    if len(inputs) > 2:
        weight = compute(inputs[2])
        if weight.shape != (classes,):
            raise KernelError(f"NLLLoss: weight must be [{classes}], got {list(weight.shape)}")
        w = np.where(used, weight[safe], 0).astype(x.dtype)
    else:
        w = used.astype(x.dtype)
    loss = -picked * w
    total = w.sum(dtype=x.dtype)
    reduction = str_(attrs, "reduction", NLLLossOp)
    if reduction == "none":
        y = loss.reshape(target.shape)
    elif reduction == "sum":
        y = loss.sum(dtype=x.dtype)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            y = np.asarray(loss.sum(dtype=x.dtype) / total)
    return (np.asarray(y), np.asarray(total))
