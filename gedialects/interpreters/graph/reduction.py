"""Kernels of the reductions, arg-reductions, TopK and CumSum."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import ArgMaxDOp, CumsumOp, ReduceSumOp, TopKV2Op
from gedialects.interpreters.graph.array import axis_in, index_vector
from gedialects.interpreters.graph.common import Arrays, bool_, compute, int_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel

# --------------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------------

Reduce = Callable[[np.ndarray, tuple[int, ...], bool], np.ndarray]


def _lowest(x: np.ndarray) -> float | int:
    if x.dtype.kind == "f":
        return -np.inf
    return False if x.dtype.kind == "b" else np.iinfo(x.dtype).min


def _highest(x: np.ndarray) -> float | int:
    if x.dtype.kind == "f":
        return np.inf
    return True if x.dtype.kind == "b" else np.iinfo(x.dtype).max


def _log_sum_exp(x: np.ndarray, axes: tuple[int, ...], keep: bool) -> np.ndarray:
    top = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    top = np.where(np.isfinite(top), top, 0)
    y = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True)) + top
    return y if keep else np.squeeze(y, axis=axes)


_REDUCTIONS: dict[str, Reduce] = {
    "ReduceSum": lambda x, a, k: np.sum(x, axis=a, keepdims=k),
    "ReduceMean": lambda x, a, k: np.mean(x, axis=a, keepdims=k),
    "ReduceMax": lambda x, a, k: np.max(x, axis=a, keepdims=k, initial=_lowest(x)),
    "ReduceMin": lambda x, a, k: np.min(x, axis=a, keepdims=k, initial=_highest(x)),
    "ReduceProd": lambda x, a, k: np.prod(x, axis=a, keepdims=k),
    "ReduceL1": lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k),
    "EuclideanNorm": lambda x, a, k: np.sqrt(np.sum(x * x, axis=a, keepdims=k)),
    "ReduceLogSum": lambda x, a, k: np.log(np.sum(x, axis=a, keepdims=k)),
    "ReduceLogSumExp": _log_sum_exp,
    "ReduceSumSquare": lambda x, a, k: np.sum(x * x, axis=a, keepdims=k),
}


def _register_reduction(ge_type: str, fn: Reduce) -> None:
    @kernel(ge_type)
    def run(
        inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
    ) -> Arrays:
        x = compute(inputs[0])
        axes = index_vector(ge_type, "axes", inputs[1]) if len(inputs) > 1 else []
        keep = bool_(attrs, "keep_dims", ReduceSumOp)
        if not axes and not bool_(attrs, "noop_with_empty_axes", ReduceSumOp):
            axes = list(range(x.ndim))
        # no axes at all (noop): the elementwise part only, as onnx's reference computes it
        norm = tuple(sorted({axis_in(ge_type, a, x.ndim) for a in axes}))
        with np.errstate(divide="ignore", invalid="ignore"):
            return (np.asarray(fn(x, norm, keep)),)


for _ge_type, _fn in _REDUCTIONS.items():
    _register_reduction(_ge_type, _fn)


# --------------------------------------------------------------------------------------------
# Arg-reductions
# --------------------------------------------------------------------------------------------


def _arg_reduce(
    op: str, pick: Callable[..., np.ndarray], inputs: Sequence[np.ndarray], attrs: KernelAttrs
) -> Arrays:
    x = inputs[0]
    axis = axis_in(op, int_(attrs, "dimension", ArgMaxDOp), x.ndim, "dimension")
    if x.shape[axis] == 0:
        raise KernelError(f"{op}: cannot reduce the empty dim {axis}")
    if bool_(attrs, "select_last_index", ArgMaxDOp):
        y = x.shape[axis] - 1 - pick(np.flip(x, axis=axis), axis=axis)
    else:
        y = pick(x, axis=axis)
    if bool_(attrs, "keep_dims", ArgMaxDOp):
        y = np.expand_dims(y, axis)
    return (y.astype(np.int64),)


@kernel("ArgMaxD")
def arg_max_d(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return _arg_reduce("ArgMaxD", np.argmax, inputs, attrs)


@kernel("ArgMinD")
def arg_min_d(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return _arg_reduce("ArgMinD", np.argmin, inputs, attrs)


# --------------------------------------------------------------------------------------------
# TopK and cumulative sums
# --------------------------------------------------------------------------------------------


@kernel("TopKV2")
def top_kv2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """A stable sort keeps equal values in index order, as ONNX specifies."""
    x = inputs[0]
    k_values = index_vector("TopKV2", "k", inputs[1])
    if len(k_values) != 1:
        raise KernelError(f"TopKV2: k must hold one value, got {k_values}")
    k = k_values[0]
    axis = axis_in("TopKV2", int_(attrs, "dim", TopKV2Op), x.ndim, "dim")
    if not 0 <= k <= x.shape[axis]:
        raise KernelError(f"TopKV2: k {k} is out of range for dim {axis} of {x.shape}")
    if bool_(attrs, "largest", TopKV2Op):
        key = -x.astype(np.float64) if x.dtype.kind in "uif" else ~x
    else:
        key = x
    order = np.argsort(key, axis=axis, kind="stable")
    indices = np.take(order, np.arange(k), axis=axis)
    return (np.take_along_axis(x, indices, axis=axis), indices.astype(np.int64))


def _cumulative(
    ge_type: str, inputs: Sequence[np.ndarray], attrs: KernelAttrs, product: bool
) -> Arrays:
    x = inputs[0]
    axis_values = index_vector(ge_type, "axis", inputs[1])
    if len(axis_values) != 1:
        raise KernelError(f"{ge_type}: axis must hold one value, got {axis_values}")
    axis = axis_in(ge_type, axis_values[0], x.ndim)
    reverse = bool_(attrs, "reverse", CumsumOp)
    data = np.flip(x, axis=axis) if reverse else x
    y = (np.cumprod if product else np.cumsum)(compute(data), axis=axis)
    if bool_(attrs, "exclusive", CumsumOp):
        first = (np.ones_like if product else np.zeros_like)(np.take(y, [0], axis=axis))
        y = np.concatenate([first, np.take(y, np.arange(y.shape[axis] - 1), axis=axis)], axis=axis)
    return (np.flip(y, axis=axis) if reverse else y,)


@kernel("Cumsum")
def cumsum(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return _cumulative("Cumsum", inputs, attrs, product=False)


@kernel("Cumprod")
def cumprod(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return _cumulative("Cumprod", inputs, attrs, product=True)
