"""Kernels of the elementwise arithmetic and math ops (ONNX semantics, dtypes preserved).

Floats are computed in float32 at least (`compute`) and cast back to the result type by
`run_kernel`; integers stay integers, with C semantics for division and remainders.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import ExpOp, LogOp, RoundOp
from gedialects.interpreters.graph.common import Arrays, compute, float_, int_
from gedialects.interpreters.kernels import (
    KernelAttrs,
    KernelError,
    check_broadcast_into,
    into,
    kernel,
    kernel_into,
)

# --------------------------------------------------------------------------------------------
# erf: scipy.special's
# --------------------------------------------------------------------------------------------


def erf_ufunc() -> np.ufunc:
    """scipy.special.erf (Cephes; its float32 loop computes in double and rounds once),
    imported on first use so that `ge-opt` and importing the dialects never load scipy."""
    from scipy.special import erf as scipy_erf

    return scipy_erf


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise; integers are computed in float64."""
    x = np.asarray(x)
    return erf_ufunc()(x if x.dtype.kind == "f" else x.astype(np.float64))


# --------------------------------------------------------------------------------------------
# Binary arithmetic
# --------------------------------------------------------------------------------------------


def _is_int(x: np.ndarray) -> bool:
    return x.dtype.kind in "iu"


@kernel("Add")
def add(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.add(inputs[0], inputs[1]),)


@kernel("Mul")
def mul(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.multiply(inputs[0], inputs[1]),)


@kernel("Sub")
def sub(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.subtract(inputs[0], inputs[1]),)


def _binary_into(ge_type: str, ufunc: np.ufunc) -> None:
    """Registers `ufunc(x1, x2, out=y)` as the out-variant of `ge_type`: the loop of the inputs'
    dtypes, then one cast into y, as the kernel's result is cast by `run_kernel`."""

    def run_into(
        inputs: Sequence[np.ndarray],
        attrs: KernelAttrs,
        result_types: Sequence[Attribute],
        outputs: Sequence[np.ndarray],
    ) -> None:
        a, b = inputs[0], inputs[1]
        check_broadcast_into(ge_type, outputs[0], a, b)
        ufunc(a, b, out=outputs[0], casting="unsafe")

    run_into.__name__ = f"{ge_type.lower()}_into"
    kernel_into(ge_type)(run_into)


_binary_into("Add", np.add)
_binary_into("Mul", np.multiply)
_binary_into("Sub", np.subtract)
_binary_into("Maximum", np.maximum)
_binary_into("Minimum", np.minimum)


@kernel("Div")
def div(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Integers truncate toward zero (floor, then one step back where the signs differ)."""
    a, b = inputs[0], inputs[1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if _is_int(a) and _is_int(b):
            q = np.floor_divide(a, b)
            inexact = (np.remainder(a, b) != 0) & ((a < 0) ^ (b < 0))
            return (q + inexact.astype(q.dtype),)
        return (np.divide(compute(a), compute(b)),)


@kernel_into("Div")
def div_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    a, b = inputs[0], inputs[1]
    if _is_int(a) and _is_int(b):
        (q,) = div(inputs, attrs, result_types)
        into("Div", outputs[0], q)
        return
    check_broadcast_into("Div", outputs[0], a, b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        np.divide(compute(a), compute(b), out=outputs[0], casting="unsafe")


@kernel("Maximum")
def maximum(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.maximum(inputs[0], inputs[1]),)


@kernel("Minimum")
def minimum(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.minimum(inputs[0], inputs[1]),)


@kernel("Mod")
def mod(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """C `fmod`: the sign of the dividend."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.fmod(compute(inputs[0]), compute(inputs[1])),)


@kernel("FloorMod")
def floor_mod(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Python `%`: the sign of the divisor."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.mod(compute(inputs[0]), compute(inputs[1])),)


@kernel("Pow")
def pow_(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """numpy's power in the promoted type; `run_kernel` casts to the base's dtype."""
    a, b = compute(inputs[0]), compute(inputs[1])
    if _is_int(a) and _is_int(b) and np.any(b < 0):
        # numpy refuses negative integer powers; the float result truncated is C's answer.
        a = a.astype(np.float64)
    with np.errstate(all="ignore"):
        return (np.power(a, b),)


@kernel("ClipByValue")
def clip_by_value(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, lo, hi = inputs
    return (np.minimum(np.maximum(x, lo), hi),)


# --------------------------------------------------------------------------------------------
# Unary math
# --------------------------------------------------------------------------------------------


def _unary(ge_type: str, fn: Callable[[np.ndarray], np.ndarray], *, floats: bool = True) -> None:
    """Registers `fn` (a numpy ufunc-like function) as the kernel of `ge_type`."""

    def run(
        inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
    ) -> Arrays:
        x = compute(inputs[0]) if floats else inputs[0]
        with np.errstate(all="ignore"):
            return (fn(x),)

    def run_into(
        inputs: Sequence[np.ndarray],
        attrs: KernelAttrs,
        result_types: Sequence[Attribute],
        outputs: Sequence[np.ndarray],
    ) -> None:
        x = compute(inputs[0]) if floats else inputs[0]
        out = outputs[0]
        if x.shape != out.shape:
            raise KernelError(
                f"{ge_type}: input {list(x.shape)} does not match output {list(out.shape)}"
            )
        with np.errstate(all="ignore"):
            if isinstance(fn, np.ufunc):
                fn(x, out=out, casting="unsafe")
            else:
                np.copyto(out, fn(x), casting="unsafe")

    run.__name__ = ge_type.lower()
    run_into.__name__ = f"{ge_type.lower()}_into"
    kernel(ge_type)(run)
    kernel_into(ge_type)(run_into)


_unary("Abs", np.abs, floats=False)
_unary("Neg", np.negative, floats=False)
_unary("Sign", np.sign, floats=False)
_unary("Reciprocal", np.reciprocal)
_unary("Sqrt", np.sqrt)


@kernel("Erf")
def erf_kernel(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (erf(compute(inputs[0])),)


@kernel_into("Erf")
def erf_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    x, out = compute(inputs[0]), outputs[0]
    if x.shape != out.shape:
        raise KernelError(f"Erf: input {list(x.shape)} does not match output {list(out.shape)}")
    erf_ufunc()(x if x.dtype.kind == "f" else x.astype(np.float64), out=out, casting="unsafe")


_unary("Ceil", np.ceil)
_unary("Floor", np.floor)
_unary("Sin", np.sin)
_unary("Cos", np.cos)
_unary("Tan", np.tan)
_unary("Asin", np.arcsin)
_unary("Acos", np.arccos)
_unary("Atan", np.arctan)
_unary("Sinh", np.sinh)
_unary("Cosh", np.cosh)
_unary("Asinh", np.arcsinh)
_unary("Acosh", np.arccosh)
_unary("Atanh", np.arctanh)


def _affine(x: np.ndarray, attrs: KernelAttrs, op: type[ExpOp] | type[LogOp]) -> np.ndarray:
    scale, shift = float_(attrs, "scale", op), float_(attrs, "shift", op)
    if scale != 1.0:
        x = x * x.dtype.type(scale)
    if shift != 0.0:
        x = x + x.dtype.type(shift)
    return x


@kernel("Exp")
def exp(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = compute(inputs[0])
    if x.dtype.kind not in "f":
        raise KernelError(f"Exp: x must be floating-point, got {x.dtype}")
    z = _affine(x, attrs, ExpOp)
    base = float_(attrs, "base", ExpOp)
    with np.errstate(over="ignore"):
        return (np.exp(z) if base == -1.0 else np.power(x.dtype.type(base), z),)


@kernel("Log")
def log(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = compute(inputs[0])
    if x.dtype.kind not in "f":
        raise KernelError(f"Log: x must be floating-point, got {x.dtype}")
    z = _affine(x, attrs, LogOp)
    base = float_(attrs, "base", LogOp)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(z)
        return (y if base == -1.0 else y / x.dtype.type(np.log(base)),)


@kernel("Round")
def round_(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Half to even (numpy's `round`), to `decimals` places."""
    return (np.round(compute(inputs[0]), int_(attrs, "decimals", RoundOp)),)
