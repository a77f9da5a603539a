"""Kernels of the fused ops: the kernels of the ops they replace, run back to back.

Reusing the unfused kernels (Conv2D, BatchMatMulV2, Relu, ClipByValue, ...) makes a fused op
compute what its chain computed, so a fusion pass can only change results by the rounding of
intermediates that it no longer stores in the narrower element type.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import FloatAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation

from gedialects.graph import FusedConv2DOp, FusedMatMulOp
from gedialects.interpreters.graph.common import Arrays, compute, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, get_kernel, kernel

_ACTIVATION_KERNELS = {"relu": "Relu", "sigmoid": "Sigmoid", "hard_swish": "HardSwish"}


def activate(y: np.ndarray, attrs: KernelAttrs, op: type[IRDLOperation]) -> np.ndarray:
    """`y` through the activation that `attrs` name (see `gedialects.graph.fused.ACTIVATIONS`)."""
    activation = str_(attrs, "activation", op)
    if activation in _ACTIVATION_KERNELS:
        (out,) = get_kernel(_ACTIVATION_KERNELS[activation])([y], {}, ())
        return out
    if activation in ("gelu", "gelu_tanh"):
        approximate = StringAttr("none" if activation == "gelu" else "tanh")
        (out,) = get_kernel("Gelu")([y], {"approximate": approximate}, ())
        return out
    if activation == "relu6":
        lo, hi = 0.0, 6.0
    elif activation == "clip":
        low, high = attrs.get("clip_min"), attrs.get("clip_max")
        if not (isinstance(low, FloatAttr) and isinstance(high, FloatAttr)):
            raise KernelError(f'{op.name}: activation "clip" needs clip_min and clip_max')
        lo, hi = float(low.value.data), float(high.value.data)
    else:
        raise KernelError(f'{op.name}: unknown activation "{activation}"')
    lo_arr, hi_arr = np.array(lo, dtype=y.dtype), np.array(hi, dtype=y.dtype)
    (out,) = get_kernel("ClipByValue")([y, lo_arr, hi_arr], {}, ())
    return out


@kernel("FusedConv2D")
def fused_conv2d(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    (y,) = get_kernel("Conv2D")(inputs, attrs, result_types)
    return (activate(y, attrs, FusedConv2DOp),)


@kernel("FusedMatMul")
def fused_matmul(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    (y,) = get_kernel("BatchMatMulV2")(inputs, attrs, result_types)
    return (activate(y, attrs, FusedMatMulOp),)


@kernel("FusedMulAdd")
def fused_mul_add(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x1, x2, x3 = (compute(x) for x in inputs)
    return (x1 * x2 + x3,)
