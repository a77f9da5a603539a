"""Kernels of the elementwise arithmetic and math ops."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.interpreters.graph.common import Arrays
from gedialects.interpreters.kernels import KernelAttrs, kernel

# --------------------------------------------------------------------------------------------
# Elementwise arithmetic
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
