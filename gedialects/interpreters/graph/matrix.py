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
from gedialects.interpreters.graph.common import Arrays, bool_, compute, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel

# --------------------------------------------------------------------------------------------
# Matrix and NN
# --------------------------------------------------------------------------------------------


@kernel("MatMul")
def matmul(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    a, b = compute(inputs[0]), compute(inputs[1])
    if a.ndim != 2 or b.ndim != 2:
        raise KernelError(f"MatMul: operands must be 2-D, got shapes {a.shape} and {b.shape}")
    if bool_(attrs, "transpose_x1", MatMulOp):
        a = a.T
    if bool_(attrs, "transpose_x2", MatMulOp):
        b = b.T
    if a.shape[1] != b.shape[0]:
        raise KernelError(f"MatMul: cannot multiply {a.shape} by {b.shape}")
    y = a @ b
    if len(inputs) > 2:
        y = y + compute(inputs[2])
    return (y,)


@kernel("BatchMatMulV2")
def batch_matmul_v2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """numpy.matmul after the adjoints (swaps of the last two dims), plus the optional bias."""
    a, b = compute(inputs[0]), compute(inputs[1])
    if a.ndim == 0 or b.ndim == 0:
        raise KernelError(f"BatchMatMulV2: operands must have a dim, got {a.shape} and {b.shape}")
    if a.ndim >= 2 and bool_(attrs, "adj_x1", BatchMatMulV2Op):
        a = np.swapaxes(a, -1, -2)
    if b.ndim >= 2 and bool_(attrs, "adj_x2", BatchMatMulV2Op):
        b = np.swapaxes(b, -1, -2)
    try:
        y = np.matmul(a, b)
    except ValueError:
        raise KernelError(f"BatchMatMulV2: cannot multiply {a.shape} by {b.shape}") from None
    if len(inputs) > 2:
        y = y + compute(inputs[2])
    return (y,)


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
