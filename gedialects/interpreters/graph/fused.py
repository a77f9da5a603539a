"""Kernels of the fused ops: the kernels of the ops they replace, run back to back.

Reusing the unfused kernels (Conv2D, BatchMatMulV2, Relu, ClipByValue, ...) makes a fused op
compute what its chain computed, so a fusion pass can only change results by the rounding of
intermediates that it no longer stores in the narrower element type. The out-variants run the
main kernel into the output and the activation epilogue in place over it (GE's fused kernels
apply the epilogue to the tile in the unified buffer, never to a second tensor).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import FloatAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation

from gedialects.graph import FusedConv2DOp, FusedMatMulOp
from gedialects.interpreters.graph.activation import gelu_into
from gedialects.interpreters.graph.common import Arrays, compute, str_
from gedialects.interpreters.graph.nn import conv2d_formatted
from gedialects.interpreters.kernels import (
    KernelAttrs,
    KernelError,
    KernelInto,
    check_broadcast_into,
    get_kernel,
    get_kernel_into,
    into,
    kernel,
    kernel_into,
    kernel_into_formatted,
)

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
    if activation not in ("relu6", "clip"):
        raise KernelError(f'{op.name}: unknown activation "{activation}"')
    lo, hi = _clip_bounds(activation, attrs, op)
    lo_arr, hi_arr = np.array(lo, dtype=y.dtype), np.array(hi, dtype=y.dtype)
    (out,) = get_kernel("ClipByValue")([y, lo_arr, hi_arr], {}, ())
    return out


def activate_in_place(y: np.ndarray, attrs: KernelAttrs, op: type[IRDLOperation]) -> None:
    """`activate` written over `y`, the very numbers (each activation's steps in y's dtype)."""
    activation = str_(attrs, "activation", op)
    if activation == "relu":
        np.maximum(y, y.dtype.type(0), out=y)
    elif activation in ("gelu", "gelu_tanh") and y.dtype in (np.float32, np.float64):
        gelu_into(y, "none" if activation == "gelu" else "tanh", y)
    elif activation == "sigmoid":
        get_kernel_into_or_fail("Sigmoid")([y], {}, (), [y])
    elif activation in ("relu6", "clip"):
        lo, hi = _clip_bounds(activation, attrs, op)
        np.minimum(np.maximum(y, y.dtype.type(lo), out=y), y.dtype.type(hi), out=y)
    else:
        np.copyto(y, activate(y, attrs, op), casting="unsafe")


def get_kernel_into_or_fail(ge_type: str) -> KernelInto:
    fn = get_kernel_into(ge_type)
    if fn is None:
        raise KernelError(f"no out-variant kernel for GE op type '{ge_type}'")
    return fn


def _clip_bounds(
    activation: str, attrs: KernelAttrs, op: type[IRDLOperation]
) -> tuple[float, float]:
    if activation == "relu6":
        return 0.0, 6.0
    low, high = attrs.get("clip_min"), attrs.get("clip_max")
    if not (isinstance(low, FloatAttr) and isinstance(high, FloatAttr)):
        raise KernelError(f'{op.name}: activation "clip" needs clip_min and clip_max')
    return float(low.value.data), float(high.value.data)


def _epilogue_into(
    ge_type: str,
    main: str,
    op: type[IRDLOperation],
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    out: np.ndarray,
) -> None:
    """The main kernel into `out`, then the activation over it, when `out` has the dtype the
    kernel computes in; else (float16) the kernel's result out of place, as the unfused ops."""
    computed = np.result_type(*(np.float32 if x.dtype == np.float16 else x.dtype for x in inputs))
    if out.dtype != computed:
        (y,) = get_kernel(ge_type)(inputs, attrs, result_types)
        into(ge_type, out, y)
        return
    get_kernel_into_or_fail(main)(inputs, attrs, result_types, [out])
    activate_in_place(out, attrs, op)


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


@kernel_into("FusedConv2D")
def fused_conv2d_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    _epilogue_into("FusedConv2D", "Conv2D", FusedConv2DOp, inputs, attrs, result_types, outputs[0])


@kernel_into_formatted("FusedConv2D")
def fused_conv2d_into_formatted(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    types: Sequence[Attribute],
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> bool:
    """Conv2D on NC1HWC0 storage with the activation applied per image, in cache."""

    def epilogue(y: np.ndarray) -> None:
        activate_in_place(y, attrs, FusedConv2DOp)

    return conv2d_formatted(FusedConv2DOp, inputs, attrs, types, result_types, outputs, epilogue)


@kernel_into("FusedMatMul")
def fused_matmul_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    _epilogue_into(
        "FusedMatMul", "BatchMatMulV2", FusedMatMulOp, inputs, attrs, result_types, outputs[0]
    )


@kernel("FusedMulAdd")
def fused_mul_add(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x1, x2, x3 = (compute(x) for x in inputs)
    return (x1 * x2 + x3,)


@kernel_into("FusedMulAdd")
def fused_mul_add_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    """`x1 * x2` into the output, then `+ x3` over it, when the output has the computed dtype
    and does not overlap x3 (which the first step would overwrite)."""
    x1, x2, x3 = (compute(x) for x in inputs)
    out = outputs[0]
    check_broadcast_into("FusedMulAdd", out, x1, x2, x3)
    product = np.result_type(x1, x2)
    direct = (
        out.dtype == product == np.result_type(product, x3)
        and np.broadcast_shapes(x1.shape, x2.shape) == out.shape
        and not np.may_share_memory(out, x3)
    )
    if not direct:
        into("FusedMulAdd", out, x1 * x2 + x3)
        return
    np.multiply(x1, x2, out=out)
    np.add(out, x3, out=out)
