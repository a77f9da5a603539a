"""Kernels of the comparison, logical, bitwise, predicate and selection ops, and Cast."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.interpreters.graph.common import Arrays
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel
from gedialects.tensors import UnsupportedDtypeError, numpy_dtype


def _elementwise(ge_type: str, fn: Callable[..., np.ndarray], arity: int) -> None:
    """Registers the numpy function `fn` of `arity` inputs as the kernel of `ge_type`."""

    def run(
        inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
    ) -> Arrays:
        if len(inputs) != arity:
            raise KernelError(f"{ge_type}: expected {arity} inputs, got {len(inputs)}")
        return (fn(*inputs),)

    run.__name__ = ge_type.lower()
    kernel(ge_type)(run)


# Comparisons (i1 results), logical and bitwise ops, predicates.
_elementwise("Equal", np.equal, 2)
_elementwise("Less", np.less, 2)
_elementwise("LessEqual", np.less_equal, 2)
_elementwise("Greater", np.greater, 2)
_elementwise("GreaterEqual", np.greater_equal, 2)
_elementwise("LogicalNot", np.logical_not, 1)
_elementwise("LogicalAnd", np.logical_and, 2)
_elementwise("LogicalOr", np.logical_or, 2)
_elementwise("Xor", np.logical_xor, 2)
_elementwise("BitwiseAnd", np.bitwise_and, 2)
_elementwise("BitwiseOr", np.bitwise_or, 2)
_elementwise("BitwiseXor", np.bitwise_xor, 2)
_elementwise("Invert", np.invert, 1)
_elementwise("IsNan", np.isnan, 1)
_elementwise("IsInf", np.isinf, 1)
_elementwise("IsPosInf", np.isposinf, 1)
_elementwise("IsNegInf", np.isneginf, 1)
_elementwise("SelectV2", np.where, 3)


def _shift_amounts(x: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`x` and `n` broadcast, and where `n` is a valid amount (0 <= n < bit width)."""
    if x.dtype.kind not in "iu" or n.dtype.kind not in "iu":
        raise KernelError(f"shift: operands must be integers, got {x.dtype} and {n.dtype}")
    x, n = np.broadcast_arrays(x, n)
    bits = x.dtype.itemsize * 8
    valid = (n >= 0) & (n < bits)
    return x, np.where(valid, n, 0).astype(x.dtype), valid


@kernel("LeftShift")
def left_shift(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Shifts the bits as unsigned (no overflow checks); out-of-range amounts give 0."""
    x, n, valid = _shift_amounts(inputs[0], inputs[1])
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    shifted = np.left_shift(x.view(unsigned), n.view(unsigned)).view(x.dtype)
    return (np.where(valid, shifted, x.dtype.type(0)),)


@kernel("RightShift")
def right_shift(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Arithmetic for signed `x`; out-of-range amounts give 0, or -1 for negative `x`."""
    x, n, valid = _shift_amounts(inputs[0], inputs[1])
    filled = np.where(x < 0, x.dtype.type(-1), x.dtype.type(0)) if x.dtype.kind == "i" else 0
    return (np.where(valid, np.right_shift(x, n), filled).astype(x.dtype),)


@kernel("Cast")
def cast(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """numpy's `astype`: floats to integers truncate toward zero, anything to bool is `!= 0`.

    Strings (numpy unicode arrays) cast as onnx's reference does: numbers print as numpy's
    shortest repr (`0.1`, `inf`, `nan`, `True`), and strings parse as decimal or scientific
    numbers (`1e-5`, `-INF`, `NaN`, integers for integer types); text that is no number, or
    a number the integer type cannot hold (`"300"` to int8, `"-1"` to uint8), is a KernelError
    naming it."""
    dst = attrs.get("dst_type")
    if dst is None:
        raise KernelError("Cast: attribute 'dst_type' is missing")
    try:
        dtype = numpy_dtype(dst)
    except UnsupportedDtypeError as e:
        raise KernelError(f"Cast: {e}") from None
    x = inputs[0]
    if x.dtype.kind == "U" and dtype.kind == "b":
        raise KernelError("Cast: strings do not cast to bool (ONNX leaves it undefined)")
    with np.errstate(invalid="ignore", over="ignore"):
        try:
            return (x.astype(dtype),)
        except ValueError as e:
            if x.dtype.kind != "U":
                raise
            raise KernelError(f"Cast: {e}") from None
        except OverflowError:
            if x.dtype.kind != "U":
                raise
            bad = _first_out_of_range(x, dtype)
            raise KernelError(f"Cast: {bad!r} is out of {dtype}'s range") from None


def _first_out_of_range(x: np.ndarray, dtype: np.dtype) -> str:
    """The first element of string array `x` whose number `dtype` cannot hold (one Python
    call per element, only once a whole-array cast has overflowed)."""
    for s in x.reshape(-1).tolist():
        try:
            np.array([s]).astype(dtype)
        except OverflowError:
            return s
        except ValueError:
            continue
    return "?"


@kernel("Bitcast")
def bitcast(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """A view of the same little-endian bytes in the target dtype."""
    dst = attrs.get("type")
    if dst is None:
        raise KernelError("Bitcast: attribute 'type' is missing")
    try:
        dtype = numpy_dtype(dst)
    except UnsupportedDtypeError as e:
        raise KernelError(f"Bitcast: {e}") from None
    x = np.array(inputs[0], order="C")  # a contiguous copy (0-d stays 0-d)
    if x.dtype.itemsize != dtype.itemsize:
        raise KernelError(f"Bitcast: {x.dtype} and {dtype} differ in width")
    return (x.view(dtype).reshape(x.shape),)
