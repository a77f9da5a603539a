"""Kernels of the shape manipulation ops."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import (
    TransposeOp,
    reshape_shape,
)
from gedialects.interpreters.graph.common import Arrays, ints
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel

# --------------------------------------------------------------------------------------------
# Shape manipulation
# --------------------------------------------------------------------------------------------


@kernel("Reshape")
def reshape(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, shape = inputs[0], inputs[1]
    if shape.ndim != 1 or shape.dtype.kind not in "iu":
        raise KernelError(
            f"Reshape: shape must be a 1-D integer tensor, got {shape.dtype}{shape.shape}"
        )
    try:
        dims = reshape_shape(x.shape, [int(d) for d in shape])
    except ValueError as e:
        raise KernelError(f"Reshape: {e} (x has shape {list(x.shape)})") from None
    return (x.reshape(dims),)


@kernel("Transpose")
def transpose(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    perm = ints(attrs, "perm", TransposeOp)
    if sorted(perm) != list(range(x.ndim)):
        raise KernelError(f"Transpose: perm {list(perm)} does not permute {x.ndim} dims")
    return (x.transpose(perm),)


# --------------------------------------------------------------------------------------------
