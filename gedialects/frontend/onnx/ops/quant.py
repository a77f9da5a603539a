"""ONNX converters of quantised graphs: QuantizeLinear (GE Quantize), DequantizeLinear (GE
AscendAntiQuantV2), DynamicQuantizeLinear (its function body around a Quantize), and the
integer and QLinear products as dequantise -> float op -> quantise, which is what the
quantised kernels compute up to rounding of the float intermediate."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper
from xdsl.ir import Operation, SSAValue

from gedialects.base import element_type, tensor_shape
from gedialects.frontend.onnx.ops.nn import convolution
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    AddOp,
    AscendAntiQuantV2Op,
    BatchMatMulV2Op,
    CastOp,
    ClipByValueOp,
    DivOp,
    MaximumOp,
    MinimumOp,
    MulOp,
    NegOp,
    QuantizeOp,
    ReduceMaxOp,
    ReduceMinOp,
    ReshapeOp,
    RoundOp,
    SubOp,
)
from gedialects.tensors import element_type_of, numpy_dtype

_INTEGER_DTYPES = ("int8", "uint8", "int16", "uint16", "int32")


def _one(ctx: NodeContext, op: Operation, suffix: str = "") -> SSAValue:
    return ctx.emit(op, suffix).results[0]


def quantize(
    ctx: NodeContext,
    x: SSAValue,
    scale: SSAValue,
    zero: SSAValue | None,
    *,
    axis: int = 1,
    block: int = 0,
    dtype: np.dtype | None = None,
    suffix: str = "",
) -> SSAValue:
    """A Quantize of x; an absent zero point is zeros of `dtype` (uint8 by default)."""
    if zero is None:
        target = np.dtype(np.uint8) if dtype is None else dtype
        if target.name not in _INTEGER_DTYPES:
            ctx.fail(f"quantising to {target.name} is not supported")
        shape = tensor_shape(scale.type)
        dims = shape if shape is not None and all(d >= 0 for d in shape) else ()
        zero = ctx.const(np.zeros(dims, dtype=target), f"{suffix or 'y'}_zero_point")
    return _one(ctx, QuantizeOp(x, scale, zero, axis=axis, block_size=block), suffix)


def dequantize(
    ctx: NodeContext,
    x: SSAValue,
    scale: SSAValue,
    zero: SSAValue | None,
    *,
    axis: int = 1,
    block: int = 0,
    suffix: str = "",
) -> SSAValue:
    """An AscendAntiQuantV2 of x with offset = -zero point (folded when it is known)."""
    offset = None
    if zero is not None:
        elem = element_type(scale.type)
        known = ctx.known(zero)
        if known is not None:
            offset = ctx.const(-np.asarray(known).astype(numpy_dtype(elem)), f"{suffix}offset")
        else:
            cast = _one(ctx, CastOp(zero, elem), f"{suffix}zero_point_cast")
            offset = _one(ctx, NegOp(cast), f"{suffix}offset")
    op = AscendAntiQuantV2Op(x, scale, offset, axis=axis, block_size=block)
    return _one(ctx, op, suffix)


@converter("QuantizeLinear")
def quantize_linear(ctx: NodeContext) -> Outputs:
    code = ctx.attr("output_dtype", 0)
    dtype = None
    if code:
        name = onnx.TensorProto.DataType.Name(code)
        try:
            dtype = np.dtype(helper.tensor_dtype_to_np_dtype(code))
        except (KeyError, TypeError, ValueError):
            ctx.fail(f"output_dtype {name} is not supported")
        if dtype.name not in _INTEGER_DTYPES:
            ctx.fail(f"output_dtype {name} is not supported (int8/16/32, uint8/16 are)")
    y = quantize(
        ctx,
        ctx.input(0),
        ctx.input(1),
        ctx.optional_input(2),
        axis=ctx.attr("axis", 1),
        block=ctx.attr("block_size", 0),
        dtype=dtype,
    )
    return [y]


@converter("DequantizeLinear")
def dequantize_linear(ctx: NodeContext) -> Outputs:
    y = dequantize(
        ctx,
        ctx.input(0),
        ctx.input(1),
        ctx.optional_input(2),
        axis=ctx.attr("axis", 1),
        block=ctx.attr("block_size", 0),
    )
    code = ctx.attr("output_dtype", 0)
    if code:
        target = element_type_of(np.dtype(helper.tensor_dtype_to_np_dtype(code)))
        if target != element_type(y.type):
            y = _one(ctx, CastOp(y, target), "output_cast")
    return [y]


@converter("DynamicQuantizeLinear")
def dynamic_quantize_linear(ctx: NodeContext) -> Outputs:
    """uint8 with `scale = (max(x, 0) - min(x, 0)) / 255`, `zero = round(-min / scale)`."""
    x = ctx.input(0)
    dtype = numpy_dtype(element_type(x.type))
    zero = ctx.const(np.array(0, dtype=dtype), "zero")
    low = _one(ctx, MinimumOp(_one(ctx, ReduceMinOp(x), "min"), zero), "low")
    high = _one(ctx, MaximumOp(_one(ctx, ReduceMaxOp(x), "max"), zero), "high")
    span = _one(ctx, SubOp(high, low), "span")
    scale = _one(ctx, DivOp(span, ctx.const(np.array(255, dtype=dtype), "255")), "scale")
    start = _one(ctx, NegOp(_one(ctx, DivOp(low, scale), "low_scaled")), "start")
    clipped = ClipByValueOp(
        _one(ctx, RoundOp(start), "round"),
        ctx.const(np.array(0, dtype=dtype), "q_min"),
        ctx.const(np.array(255, dtype=dtype), "q_max"),
    )
    point = _one(
        ctx, CastOp(_one(ctx, clipped, "clip"), element_type_of(np.dtype(np.uint8))), "zero_point"
    )
    y = _one(ctx, QuantizeOp(x, scale, point))
    return [y, scale, point]


@converter("MatMulInteger")
def mat_mul_integer(ctx: NodeContext) -> Outputs:
    """int32 `(a - a_zero) @ (b - b_zero)` (exact in int32)."""
    a, b = ctx.input(0), ctx.input(1)
    i32 = element_type_of(np.dtype(np.int32))
    sides = []
    for name, value, zero in (("a", a, ctx.optional_input(2)), ("b", b, ctx.optional_input(3))):
        wide = _one(ctx, CastOp(value, i32), f"{name}_cast")
        if zero is not None:
            shape = tensor_shape(zero.type)
            zero = _one(ctx, CastOp(zero, i32), f"{name}_zero_cast")
            if name == "a" and shape is not None and len(shape) == 1 and shape[0] != 1:
                zero = _reshape_column(ctx, zero, "a_zero")
            wide = _one(ctx, SubOp(wide, zero), f"{name}_shifted")
        sides.append(wide)
    return [_one(ctx, BatchMatMulV2Op(sides[0], sides[1]))]


def _reshape_column(ctx: NodeContext, value: SSAValue, suffix: str) -> SSAValue:
    shape = ctx.const(np.array([-1, 1], dtype=np.int64), f"{suffix}_shape")
    return _one(ctx, ReshapeOp(value, shape), suffix)


@converter("QLinearMatMul")
def q_linear_mat_mul(ctx: NodeContext) -> Outputs:
    a = dequantize(ctx, ctx.input(0), ctx.input(1), ctx.input(2), suffix="a_")
    b = dequantize(ctx, ctx.input(3), ctx.input(4), ctx.input(5), suffix="b_")
    product = _one(ctx, BatchMatMulV2Op(a, b), "product")
    return [quantize(ctx, product, ctx.input(6), ctx.input(7), suffix="y")]


@converter("ConvInteger")
def conv_integer(ctx: NodeContext) -> Outputs:
    """int32 convolution of the zero-point-shifted operands, run as a float convolution
    (exact while the sums stay below 2^24) and cast back."""
    f32 = element_type_of(np.dtype(np.float32))
    x = _one(ctx, CastOp(ctx.input(0), f32), "x_cast")
    w = _one(ctx, CastOp(ctx.input(1), f32), "w_cast")
    for name, zero in (("x", ctx.optional_input(2)), ("w", ctx.optional_input(3))):
        if zero is None:
            continue
        z = _one(ctx, CastOp(zero, f32), f"{name}_zero_cast")
        if name == "w" and (shape := tensor_shape(zero.type)) and shape[0] != 1:
            rank = len(tensor_shape(ctx.input(1).type) or (0, 0, 0, 0))
            dims = np.array([-1] + [1] * (rank - 1), dtype=np.int64)
            z = _one(ctx, ReshapeOp(z, ctx.const(dims, "w_zero_shape")), "w_zero")
        if name == "x":
            x = _one(ctx, SubOp(x, z), "x_shifted")
        else:
            w = _one(ctx, SubOp(w, z), "w_shifted")
    y = convolution(ctx, x, w, None)
    return [_one(ctx, CastOp(y, element_type_of(np.dtype(np.int32))), "cast")]


@converter("QLinearConv")
def q_linear_conv(ctx: NodeContext) -> Outputs:
    x = dequantize(ctx, ctx.input(0), ctx.input(1), ctx.input(2), suffix="x_")
    w_scale = ctx.input(4)
    w = dequantize(ctx, ctx.input(3), w_scale, ctx.input(5), axis=0, suffix="w_")
    y = convolution(ctx, x, w, None)
    bias = ctx.optional_input(8)
    if bias is not None:
        # int32 bias in units of x_scale * w_scale, per output channel
        f32 = element_type_of(np.dtype(np.float32))
        b = _one(ctx, CastOp(bias, f32), "bias_cast")
        x_scale = ctx.input(1)
        unit = _one(ctx, MulOp(x_scale, w_scale), "bias_unit")
        b = _one(ctx, MulOp(b, unit), "bias")
        rank = len(tensor_shape(y.type) or (0, 0, 0, 0))
        dims = np.array([-1] + [1] * (rank - 2), dtype=np.int64)
        b = _one(ctx, ReshapeOp(b, ctx.const(dims, "bias_shape")), "bias_column")
        y = _one(ctx, AddOp(y, b), "add_bias")
    return [quantize(ctx, y, ctx.input(6), ctx.input(7), suffix="y")]
