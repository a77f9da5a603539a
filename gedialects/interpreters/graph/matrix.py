"""Kernels of the matrix ops."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import (
    MatMulOp,
)
from gedialects.interpreters.graph.common import Arrays, bool_, compute
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
