"""Kernels of the activation ops."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.interpreters.graph.common import Arrays
from gedialects.interpreters.kernels import KernelAttrs, kernel


@kernel("Relu")
def relu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    return (np.maximum(x, x.dtype.type(0)),)
