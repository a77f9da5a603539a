"""Kernels of the matrix ops."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import (
    BatchMatMulV2Op,
    EinsumOp,
    MatMulOp,
)
from gedialects.interpreters.graph.common import (
    Arrays,
    bool_,
    compute,
    exact_int32,
    is_int8_array,
    str_,
)
from gedialects.interpreters.kernels import KernelAttrs, KernelError, into, kernel, kernel_into

# --------------------------------------------------------------------------------------------
# Matrix and NN
# --------------------------------------------------------------------------------------------


def _matmul_operands(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs
) -> tuple[np.ndarray, np.ndarray]:
    a, b = compute(inputs[0]), compute(inputs[1])
    if a.ndim != 2 or b.ndim != 2:
        raise KernelError(f"MatMul: operands must be 2-D, got shapes {a.shape} and {b.shape}")
    if bool_(attrs, "transpose_x1", MatMulOp):
        a = a.T
    if bool_(attrs, "transpose_x2", MatMulOp):
        b = b.T
    if a.shape[1] != b.shape[0]:
        raise KernelError(f"MatMul: cannot multiply {a.shape} by {b.shape}")
    return a, b


@kernel("MatMul")
def matmul(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    a, b = _matmul_operands(inputs, attrs)
    if is_int8_array(a):
        return (int8_matmul(a, b, inputs[2] if len(inputs) > 2 else None),)
    y = a @ b
    if len(inputs) > 2:
        y = y + compute(inputs[2])
    return (y,)


def int8_matmul(a: np.ndarray, b: np.ndarray, bias: np.ndarray | None) -> np.ndarray:
    """GE's int8 MatMul: the exact int32 `a @ b + bias`. Computed with float64 BLAS, which is
    exact here: each product is below 2^15 in magnitude, so sums of up to 2^38 of them are
    represented exactly."""
    y = a.astype(np.float64) @ b.astype(np.float64)
    if bias is not None:
        y += bias.astype(np.float64)
    return exact_int32(y)


def product(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """`np.matmul(a, b, out=out)`; a stack of C-contiguous matrices times one matrix is one
    GEMM of the stack's rows ([8, 128, 256] @ [256, 1024] as [1024, 256] @ [256, 1024]):
    numpy would call BLAS once per matrix of the stack, each call smaller and, with threaded
    BLAS, each paying the threads' start-up."""
    if b.ndim == 2 and a.ndim > 2 and a.flags.c_contiguous and a.shape[-1] == b.shape[0]:
        shape = (*a.shape[:-1], b.shape[1])
        if out is None:
            return np.matmul(a.reshape(-1, a.shape[-1]), b).reshape(shape)
        if out.shape == shape and out.flags.c_contiguous:
            np.matmul(a.reshape(-1, a.shape[-1]), b, out=out.reshape(-1, b.shape[1]))
            return out
    return np.matmul(a, b) if out is None else np.matmul(a, b, out=out)


def matmul_into(
    ge_type: str, a: np.ndarray, b: np.ndarray, bias: np.ndarray | None, out: np.ndarray
) -> None:
    """`a @ b (+ bias)` written into `out`: straight into it when it has the product's dtype
    and shape (numpy hands BLAS the output buffer), else computed and cast as `run_kernel`
    would. An `out` overlapping an operand is safe: numpy's ufunc machinery copies."""
    dtype = np.result_type(a, b)
    shape = (
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        + ((a.shape[-2],) if a.ndim >= 2 else ())
        + ((b.shape[-1],) if b.ndim >= 2 else ())
    )
    if out.dtype != dtype or out.shape != shape:
        y = product(a, b)
        if bias is not None:
            y = y + bias
        into(ge_type, out, y)
        return
    product(a, b, out)
    if bias is not None:
        y_bias = np.result_type(out, bias)
        if y_bias != out.dtype or np.broadcast_shapes(out.shape, bias.shape) != out.shape:
            into(ge_type, out, out + bias)  # the bias promotes or broadcasts the product
        else:
            np.add(out, bias, out=out)


@kernel_into("MatMul")
def matmul_into_kernel(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    a, b = _matmul_operands(inputs, attrs)
    if is_int8_array(a):
        into("MatMul", outputs[0], int8_matmul(a, b, inputs[2] if len(inputs) > 2 else None))
        return
    matmul_into("MatMul", a, b, compute(inputs[2]) if len(inputs) > 2 else None, outputs[0])


@kernel("BatchMatMulV2")
def batch_matmul_v2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """numpy.matmul after the adjoints (swaps of the last two dims), plus the optional bias."""
    a, b = _batch_matmul_operands(inputs, attrs)
    try:
        if is_int8_array(a):
            return (int8_matmul(a, b, inputs[2] if len(inputs) > 2 else None),)
        y = product(a, b)
    except ValueError:
        raise KernelError(f"BatchMatMulV2: cannot multiply {a.shape} by {b.shape}") from None
    if len(inputs) > 2:
        y = y + compute(inputs[2])
    return (y,)


def _batch_matmul_operands(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs
) -> tuple[np.ndarray, np.ndarray]:
    a, b = compute(inputs[0]), compute(inputs[1])
    if a.ndim == 0 or b.ndim == 0:
        raise KernelError(f"BatchMatMulV2: operands must have a dim, got {a.shape} and {b.shape}")
    if a.ndim >= 2 and bool_(attrs, "adj_x1", BatchMatMulV2Op):
        a = np.swapaxes(a, -1, -2)
    if b.ndim >= 2 and bool_(attrs, "adj_x2", BatchMatMulV2Op):
        b = np.swapaxes(b, -1, -2)
    return a, b


@kernel_into("BatchMatMulV2")
def batch_matmul_v2_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    a, b = _batch_matmul_operands(inputs, attrs)
    bias = compute(inputs[2]) if len(inputs) > 2 else None
    try:
        if is_int8_array(a):
            into("BatchMatMulV2", outputs[0], int8_matmul(a, b, bias))
            return
        matmul_into("BatchMatMulV2", a, b, bias, outputs[0])
    except ValueError as e:
        if isinstance(e, KernelError):
            raise
        raise KernelError(f"BatchMatMulV2: cannot multiply {a.shape} by {b.shape}") from None


@kernel("Einsum")
def einsum(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    equation = str_(attrs, "equation", EinsumOp).replace(" ", "")
    try:
        y = np.einsum(equation, *(compute(x) for x in inputs), optimize=len(inputs) > 2)
    except ValueError as e:
        raise KernelError(f"Einsum: {equation}: {e}") from None
    return (np.asarray(y),)


@kernel("MatrixDeterminant")
def matrix_determinant(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = compute(inputs[0])
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise KernelError(f"MatrixDeterminant: x {list(x.shape)} must end in square matrices")
    return (np.asarray(np.linalg.det(x)),)
