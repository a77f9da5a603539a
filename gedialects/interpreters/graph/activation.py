"""Kernels of the activation ops (float math in at least float32, cast back by `run_kernel`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import (
    CeluV2Op,
    EluOp,
    GeluOp,
    HardSigmoidOp,
    LeakyReluOp,
    SeluOp,
    ShrinkOp,
    SwishOp,
    ThresholdedReluOp,
)
from gedialects.interpreters.graph.common import Arrays, compute, float_, str_
from gedialects.interpreters.graph.elementwise import erf_ufunc
from gedialects.interpreters.kernels import (
    KernelAttrs,
    KernelError,
    get_kernel,
    kernel,
    kernel_into,
    scratch,
)


def _float_input(name: str, x: np.ndarray) -> np.ndarray:
    x = compute(x)
    if x.dtype.kind != "f":
        raise KernelError(f"{name}: x must be floating-point, got {x.dtype}")
    return x


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(x.dtype.type(0), x)


@kernel("Relu")
def relu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    return (np.maximum(x, x.dtype.type(0)),)


def _same_shape(ge_type: str, x: np.ndarray, out: np.ndarray) -> None:
    if x.shape != out.shape:
        raise KernelError(
            f"{ge_type}: input {list(x.shape)} does not match output {list(out.shape)}"
        )


@kernel_into("Relu")
def relu_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    x, out = inputs[0], outputs[0]
    _same_shape("Relu", x, out)
    np.maximum(x, x.dtype.type(0), out=out, casting="unsafe")


@kernel("LeakyRelu")
def leaky_relu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("LeakyRelu", inputs[0])
    slope = x.dtype.type(float_(attrs, "negative_slope", LeakyReluOp))
    return (np.where(x >= 0, x, x * slope),)


@kernel("Elu")
def elu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("Elu", inputs[0])
    t = x.dtype.type
    alpha, scale = t(float_(attrs, "alpha", EluOp)), t(float_(attrs, "scale", EluOp))
    input_scale = t(float_(attrs, "input_scale", EluOp))
    with np.errstate(over="ignore"):
        negative = alpha * np.expm1(np.minimum(x, t(0)) * input_scale)
    return (scale * np.where(x > 0, x, negative),)


@kernel("Swish")
def swish(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("Swish", inputs[0])
    scale = x.dtype.type(float_(attrs, "scale", SwishOp))
    # sigmoid(z) = (tanh(z / 2) + 1) / 2: no overflow for large |z|
    return (x * (np.tanh(scale * x / 2) + 1) / 2,)


@kernel("Selu")
def selu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("Selu", inputs[0])
    t = x.dtype.type
    alpha, gamma = t(float_(attrs, "alpha", SeluOp)), t(float_(attrs, "gamma", SeluOp))
    return (gamma * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, t(0)))),)


@kernel("CeluV2")
def celu_v2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("CeluV2", inputs[0])
    t = x.dtype.type
    alpha = t(float_(attrs, "alpha", CeluV2Op))
    negative = alpha * np.expm1(np.minimum(x, t(0)) / alpha)
    return (np.maximum(x, t(0)) + np.minimum(t(0), negative),)


@kernel("HardSigmoid")
def hard_sigmoid(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("HardSigmoid", inputs[0])
    t = x.dtype.type
    alpha, beta = t(float_(attrs, "alpha", HardSigmoidOp)), t(float_(attrs, "beta", HardSigmoidOp))
    return (np.clip(alpha * x + beta, t(0), t(1)),)


@kernel("HardSwish")
def hard_swish(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("HardSwish", inputs[0])
    t = x.dtype.type
    return (x * np.clip(x * t(1 / 6) + t(0.5), t(0), t(1)),)


def _gelu_as_exported(x: np.ndarray, approximate: str) -> np.ndarray:
    """GELU as the ops of PyTorch's export, one kernel at a time, each result rounded to x's
    dtype: `(x * (erf(x / sqrt(2)) + 1)) * 0.5`, or for "tanh"
    `(x * (tanh((x + (x * (x * x)) * 0.044715) * sqrt(2 / pi)) + 1)) * 0.5`.

    `ge-fuse-gelu` (GE's GeluFusionPass) fuses only this order with these constants, so the
    fused op gives the very numbers of the ops it replaced, overflow, inf and NaN included
    (`x * 0.5` first would stay finite where `x * (1 + erf)` overflows)."""
    t = x.dtype.type

    def op(ge_type: str, *args: np.ndarray | np.generic) -> np.ndarray:
        (out,) = get_kernel(ge_type)([np.asarray(a) for a in args], {}, ())
        return np.asarray(out).astype(x.dtype, copy=False)

    if approximate == "tanh":
        cube = op("Mul", x, op("Mul", x, x))
        poly = op("Add", x, op("Mul", cube, t(0.044715)))
        inner = op("Tanh", op("Mul", poly, t(math.sqrt(2 / math.pi))))
    else:
        inner = op("Erf", op("Div", x, t(math.sqrt(2))))
    return op("Mul", op("Mul", x, op("Add", inner, t(1))), t(0.5))


def _gelu_in_place(x: np.ndarray, approximate: str, t: np.ndarray, out: np.ndarray) -> None:
    """`_gelu_as_exported` for x of float32 or float64, each step a ufunc over `t` (of x's
    shape and dtype, not overlapping x) and the last one into `out` (x's dtype; it may be x):
    the same operations on the same dtypes, so the same numbers, without six temporaries."""
    c = x.dtype.type
    if approximate == "tanh":
        np.multiply(x, x, out=t)
        np.multiply(x, t, out=t)
        np.multiply(t, c(0.044715), out=t)
        np.add(x, t, out=t)
        np.multiply(t, c(math.sqrt(2 / math.pi)), out=t)
        np.tanh(t, out=t)
    else:
        np.divide(x, c(math.sqrt(2)), out=t)
        erf_ufunc()(t, out=t)
    np.add(t, c(1), out=t)
    np.multiply(x, t, out=t)
    np.multiply(t, c(0.5), out=out)  # x is read for the last time above


def _gelu_approximate(x: np.ndarray, attrs: KernelAttrs) -> str:
    if x.dtype.kind != "f":
        raise KernelError(f"Gelu: x must be floating-point, got {x.dtype}")
    approximate = str_(attrs, "approximate", GeluOp)
    if approximate not in ("none", "tanh"):
        raise KernelError(f'Gelu: approximate must be "none" or "tanh", got "{approximate}"')
    return approximate


def gelu_into(x: np.ndarray, approximate: str, out: np.ndarray) -> None:
    """Gelu of `x` written into `out` (which may be x itself)."""
    if x.shape != out.shape:
        raise KernelError(f"Gelu: input {list(x.shape)} does not match output {list(out.shape)}")
    if x.dtype not in (np.float32, np.float64):  # float16: each step rounds to float16
        np.copyto(out, _gelu_as_exported(x, approximate), casting="unsafe")
        return
    same = out.dtype == x.dtype
    t = out if same and not np.may_share_memory(x, out) else scratch("gelu", x.shape, x.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        _gelu_in_place(x, approximate, t, out if same else t)
    if not same:
        np.copyto(out, t, casting="unsafe")


@kernel("Gelu")
def gelu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    approximate = _gelu_approximate(x, attrs)
    if x.dtype not in (np.float32, np.float64):
        return (_gelu_as_exported(x, approximate),)
    y = np.empty_like(x)
    gelu_into(x, approximate, y)
    return (y,)


@kernel_into("Gelu")
def gelu_into_kernel(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    x = inputs[0]
    gelu_into(x, _gelu_approximate(x, attrs), outputs[0])


@kernel("Softplus")
def softplus(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (_softplus(_float_input("Softplus", inputs[0])),)


@kernel("Softsign")
def softsign(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("Softsign", inputs[0])
    return (x / (1 + np.abs(x)),)


@kernel("Sigmoid")
def sigmoid(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("Sigmoid", inputs[0])
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-x)),)


@kernel_into("Sigmoid")
def sigmoid_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    """The kernel's steps, each written over the output when it has the compute dtype (an
    output aliasing x is fine: every step reads only the previous one)."""
    x, out = _float_input("Sigmoid", inputs[0]), outputs[0]
    _same_shape("Sigmoid", x, out)
    t = out if out.dtype == x.dtype else np.empty_like(x)
    with np.errstate(over="ignore"):
        np.negative(x, out=t)
        np.exp(t, out=t)
        np.add(t, 1, out=t)
        np.divide(1, t, out=t)
    if t is not out:
        np.copyto(out, t, casting="unsafe")


@kernel("Tanh")
def tanh(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.tanh(_float_input("Tanh", inputs[0])),)


@kernel_into("Tanh")
def tanh_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    x, out = _float_input("Tanh", inputs[0]), outputs[0]
    _same_shape("Tanh", x, out)
    np.tanh(x, out=out, casting="unsafe")


@kernel("ThresholdedRelu")
def thresholded_relu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("ThresholdedRelu", inputs[0])
    alpha = x.dtype.type(float_(attrs, "alpha", ThresholdedReluOp))
    return (np.where(x > alpha, x, x.dtype.type(0)),)


@kernel("Mish")
def mish(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = _float_input("Mish", inputs[0])
    return (x * np.tanh(_softplus(x)),)


@kernel("Shrink")
def shrink(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Integers are computed in float64 and truncated back by `run_kernel`."""
    x = compute(inputs[0])
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    lambd, bias = float_(attrs, "lambd", ShrinkOp), float_(attrs, "bias", ShrinkOp)
    t = x.dtype.type
    return (np.where(x < -t(lambd), x + t(bias), np.where(x > t(lambd), x - t(bias), t(0))),)


@kernel("PRelu")
def prelu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, w = compute(inputs[0]), compute(inputs[1])
    try:
        return (np.where(x > 0, x, x * w),)
    except ValueError:
        raise KernelError(
            f"PRelu: weight of shape {list(w.shape)} does not broadcast to x {list(x.shape)}"
        ) from None
