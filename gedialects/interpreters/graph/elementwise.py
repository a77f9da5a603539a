"""Kernels of the elementwise ops and activations."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.interpreters.graph.common import Arrays
from gedialects.interpreters.kernels import KernelAttrs, kernel

# --------------------------------------------------------------------------------------------
# Elementwise and activations
# --------------------------------------------------------------------------------------------


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


@kernel("Relu")
def relu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    return (np.maximum(x, x.dtype.type(0)),)


# --------------------------------------------------------------------------------------------
