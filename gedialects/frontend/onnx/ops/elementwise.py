"""ONNX converters: elementwise arithmetic and math, activations, comparisons, logical and
bitwise ops, Where, Cast and CastLike.

Variadic Sum, Min, Max and Mean import as left-to-right chains of the binary `graph.add`,
`graph.minimum` and `graph.maximum` (each step broadcasts, so the chain broadcasts as ONNX
does); Mean divides the sum by the input count. With a single input they return it unchanged.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import helper
from xdsl.ir import Attribute, Operation, SSAValue

from gedialects.base import element_nbytes, element_type
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    AbsOp,
    AcoshOp,
    AcosOp,
    AddOp,
    AsinhOp,
    AsinOp,
    AtanhOp,
    AtanOp,
    BitcastOp,
    BitwiseAndOp,
    BitwiseOrOp,
    BitwiseXorOp,
    CastOp,
    CeilOp,
    CeluV2Op,
    ClipByValueOp,
    CoshOp,
    CosOp,
    DivOp,
    EluOp,
    EqualOp,
    ErfOp,
    ExpOp,
    FloorModOp,
    FloorOp,
    GeluOp,
    GreaterEqualOp,
    GreaterOp,
    HardSigmoidOp,
    HardSwishOp,
    InvertOp,
    IsInfOp,
    IsNanOp,
    IsNegInfOp,
    IsPosInfOp,
    LeakyReluOp,
    LeftShiftOp,
    LessEqualOp,
    LessOp,
    LogicalAndOp,
    LogicalNotOp,
    LogicalOrOp,
    LogOp,
    MaximumOp,
    MinimumOp,
    MishOp,
    ModOp,
    MulOp,
    NegOp,
    PowOp,
    PReluOp,
    ReciprocalOp,
    ReluOp,
    RightShiftOp,
    RoundOp,
    SelectV2Op,
    SeluOp,
    ShrinkOp,
    SigmoidOp,
    SignOp,
    SinhOp,
    SinOp,
    SoftplusOp,
    SoftsignOp,
    SqrtOp,
    SubOp,
    SwishOp,
    TanhOp,
    TanOp,
    ThresholdedReluOp,
    XorOp,
)
from gedialects.strings import STRING
from gedialects.tensors import UnsupportedDtypeError, element_type_of, numpy_dtype


def _one(ctx: NodeContext, op: Operation) -> Outputs:
    return [ctx.emit(op).results[0]]


def _register_unary(onnx_type: str, op_type: Callable[[SSAValue], Operation]) -> None:
    def convert(ctx: NodeContext) -> Outputs:
        return _one(ctx, op_type(ctx.input(0)))

    convert.__name__ = onnx_type.lower()
    converter(onnx_type)(convert)


def _register_binary(onnx_type: str, op_type: Callable[[SSAValue, SSAValue], Operation]) -> None:
    def convert(ctx: NodeContext) -> Outputs:
        return _one(ctx, op_type(ctx.input(0), ctx.input(1)))

    convert.__name__ = onnx_type.lower()
    converter(onnx_type)(convert)


for _onnx, _unary_op in (
    ("Abs", AbsOp),
    ("Neg", NegOp),
    ("Sign", SignOp),
    ("Reciprocal", ReciprocalOp),
    ("Sqrt", SqrtOp),
    ("Exp", ExpOp),
    ("Log", LogOp),
    ("Erf", ErfOp),
    ("Ceil", CeilOp),
    ("Floor", FloorOp),
    ("Round", RoundOp),
    ("Sin", SinOp),
    ("Cos", CosOp),
    ("Tan", TanOp),
    ("Asin", AsinOp),
    ("Acos", AcosOp),
    ("Atan", AtanOp),
    ("Sinh", SinhOp),
    ("Cosh", CoshOp),
    ("Asinh", AsinhOp),
    ("Acosh", AcoshOp),
    ("Atanh", AtanhOp),
    ("Relu", ReluOp),
    ("HardSwish", HardSwishOp),
    ("Softplus", SoftplusOp),
    ("Softsign", SoftsignOp),
    ("Sigmoid", SigmoidOp),
    ("Tanh", TanhOp),
    ("Mish", MishOp),
    ("Not", LogicalNotOp),
    ("BitwiseNot", InvertOp),
    ("IsNaN", IsNanOp),
):
    _register_unary(_onnx, _unary_op)

for _onnx, _binary_op in (
    ("Add", AddOp),
    ("Sub", SubOp),
    ("Mul", MulOp),
    ("Div", DivOp),
    ("Pow", PowOp),
    ("PRelu", PReluOp),
    ("Equal", EqualOp),
    ("Less", LessOp),
    ("LessOrEqual", LessEqualOp),
    ("Greater", GreaterOp),
    ("GreaterOrEqual", GreaterEqualOp),
    ("And", LogicalAndOp),
    ("Or", LogicalOrOp),
    ("Xor", XorOp),
    ("BitwiseAnd", BitwiseAndOp),
    ("BitwiseOr", BitwiseOrOp),
    ("BitwiseXor", BitwiseXorOp),
):
    _register_binary(_onnx, _binary_op)


# --------------------------------------------------------------------------------------------
# Activations with attributes
# --------------------------------------------------------------------------------------------


@converter("LeakyRelu")
def leaky_relu(ctx: NodeContext) -> Outputs:
    return _one(ctx, LeakyReluOp(ctx.input(0), negative_slope=ctx.attr("alpha", 0.01)))


@converter("Elu")
def elu(ctx: NodeContext) -> Outputs:
    return _one(ctx, EluOp(ctx.input(0), alpha=ctx.attr("alpha", 1.0)))


@converter("BitCast")
def bit_cast(ctx: NodeContext) -> Outputs:
    target = onnx_element_type(ctx, ctx.attr("to"), "BitCast")
    x = ctx.input(0)
    a, b = element_nbytes(element_type(x.type)), element_nbytes(target)
    if a != b:
        ctx.fail(f"BitCast to {target} needs the width of {element_type(x.type)}")
    return _one(ctx, BitcastOp(x, target))


@converter("Swish")
def swish(ctx: NodeContext) -> Outputs:
    return _one(ctx, SwishOp(ctx.input(0), scale=float(ctx.attr("alpha", 1.0))))


@converter("SwiGLU")
def swi_glu(ctx: NodeContext) -> Outputs:
    """`Swish_alpha(A) * B` (GE's SwiGlu splits one input; ONNX gives the halves)."""
    gate = ctx.emit(SwishOp(ctx.input(0), scale=float(ctx.attr("alpha", 1.0))), "swish")
    return _one(ctx, MulOp(gate.results[0], ctx.input(1)))


@converter("Selu")
def selu(ctx: NodeContext) -> Outputs:
    alpha = ctx.attr("alpha", 1.67326319217681884765625)
    gamma = ctx.attr("gamma", 1.05070102214813232421875)
    return _one(ctx, SeluOp(ctx.input(0), alpha=alpha, gamma=gamma))


@converter("Celu")
def celu(ctx: NodeContext) -> Outputs:
    alpha = ctx.attr("alpha", 1.0)
    if alpha == 0:
        ctx.fail("alpha must not be 0")
    return _one(ctx, CeluV2Op(ctx.input(0), alpha=alpha))


@converter("HardSigmoid")
def hard_sigmoid(ctx: NodeContext) -> Outputs:
    alpha, beta = ctx.attr("alpha", 0.2), ctx.attr("beta", 0.5)
    return _one(ctx, HardSigmoidOp(ctx.input(0), alpha=alpha, beta=beta))


@converter("Gelu")
def gelu(ctx: NodeContext) -> Outputs:
    approximate = ctx.attr("approximate", "none")
    if approximate not in ("none", "tanh"):
        ctx.fail(f'approximate must be "none" or "tanh", got "{approximate}"')
    return _one(ctx, GeluOp(ctx.input(0), approximate=approximate))


@converter("ThresholdedRelu")
def thresholded_relu(ctx: NodeContext) -> Outputs:
    return _one(ctx, ThresholdedReluOp(ctx.input(0), alpha=ctx.attr("alpha", 1.0)))


@converter("Shrink")
def shrink(ctx: NodeContext) -> Outputs:
    lambd, bias = ctx.attr("lambd", 0.5), ctx.attr("bias", 0.0)
    return _one(ctx, ShrinkOp(ctx.input(0), lambd=lambd, bias=bias))


# --------------------------------------------------------------------------------------------
# Ops whose GE form depends on attributes
# --------------------------------------------------------------------------------------------


def _dtype(ctx: NodeContext, value: SSAValue) -> np.dtype:
    try:
        return numpy_dtype(element_type(value.type))
    except UnsupportedDtypeError as e:
        ctx.fail(str(e))


@converter("Clip")
def clip(ctx: NodeContext) -> Outputs:
    """Bounds are optional inputs (models below opset 11, with attribute bounds, reach here
    upgraded by the importer); an absent bound is the dtype's lowest or highest value."""
    x = ctx.input(0)
    dtype = _dtype(ctx, x)
    if dtype.kind == "f":
        lowest, highest = -np.inf, np.inf
    elif dtype.kind in "iu":
        lowest, highest = np.iinfo(dtype).min, np.iinfo(dtype).max
    else:
        ctx.fail(f"Clip of {dtype} is not supported")
    lo, hi = ctx.optional_input(1), ctx.optional_input(2)
    if lo is None:
        lo = ctx.const(np.array(lowest, dtype), "min")
    if hi is None:
        hi = ctx.const(np.array(highest, dtype), "max")
    return _one(ctx, ClipByValueOp(x, lo, hi))


@converter("Mod")
def mod(ctx: NodeContext) -> Outputs:
    fmod = ctx.attr("fmod", 0)
    if fmod not in (0, 1):
        ctx.fail(f"fmod must be 0 or 1, got {fmod}")
    op_type = ModOp if fmod else FloorModOp
    return _one(ctx, op_type(ctx.input(0), ctx.input(1)))


@converter("BitShift")
def bit_shift(ctx: NodeContext) -> Outputs:
    direction = ctx.attr("direction")
    if direction not in ("LEFT", "RIGHT"):
        ctx.fail(f'direction must be "LEFT" or "RIGHT", got "{direction}"')
    op_type = LeftShiftOp if direction == "LEFT" else RightShiftOp
    return _one(ctx, op_type(ctx.input(0), ctx.input(1)))


@converter("IsInf")
def is_inf(ctx: NodeContext) -> Outputs:
    """Both directions: IsInf; one: IsPosInf or IsNegInf; none: `x < x`, always false."""
    x = ctx.input(0)
    negative, positive = ctx.attr("detect_negative", 1), ctx.attr("detect_positive", 1)
    if negative and positive:
        return _one(ctx, IsInfOp(x))
    if positive:
        return _one(ctx, IsPosInfOp(x))
    if negative:
        return _one(ctx, IsNegInfOp(x))
    return _one(ctx, LessOp(x, x))


@converter("Where")
def where(ctx: NodeContext) -> Outputs:
    return _one(ctx, SelectV2Op(ctx.input(0), ctx.input(1), ctx.input(2)))


# --------------------------------------------------------------------------------------------
# Variadic ops as chains
# --------------------------------------------------------------------------------------------


def _chain(ctx: NodeContext, op_type: Callable[[SSAValue, SSAValue], Operation]) -> SSAValue:
    values = [v for v in ctx.inputs if v is not None]
    if not values:
        ctx.fail("needs at least one input")
    acc = values[0]
    for i, value in enumerate(values[1:], start=1):
        suffix = "" if i == len(values) - 1 else f"step{i}"
        acc = ctx.emit(op_type(acc, value), suffix).results[0]
    return acc


@converter("Sum")
def sum_(ctx: NodeContext) -> Outputs:
    return [_chain(ctx, AddOp)]


@converter("Min")
def min_(ctx: NodeContext) -> Outputs:
    return [_chain(ctx, MinimumOp)]


@converter("Max")
def max_(ctx: NodeContext) -> Outputs:
    return [_chain(ctx, MaximumOp)]


@converter("Mean")
def mean(ctx: NodeContext) -> Outputs:
    count = sum(1 for v in ctx.inputs if v is not None)
    total = _chain(ctx, AddOp)
    if count == 1:
        return [total]
    divisor = ctx.const(np.array(count, _dtype(ctx, total)), "count")
    return [ctx.emit(DivOp(total, divisor), "mean").results[0]]


# --------------------------------------------------------------------------------------------
# Cast
# --------------------------------------------------------------------------------------------


def onnx_element_type(ctx: NodeContext, to: int, what: str = "Cast") -> Attribute:
    """The IR element type of an ONNX dtype code; one-line error for unsupported ones."""
    name = onnx.TensorProto.DataType.Name(to) if to in onnx.TensorProto.DataType.values() else to
    if to == onnx.TensorProto.STRING:
        return STRING
    try:
        return element_type_of(helper.tensor_dtype_to_np_dtype(to))
    except (KeyError, TypeError, ValueError):
        ctx.fail(f"{what} to {name} is not supported")


def _cast(ctx: NodeContext, x: SSAValue, to: int) -> Outputs:
    return _one(ctx, CastOp(x, onnx_element_type(ctx, to)))


@converter("Cast")
def cast(ctx: NodeContext) -> Outputs:
    """`saturate` (opset 19) only matters for float8 targets, which are not supported."""
    return _cast(ctx, ctx.input(0), ctx.attr("to"))


@converter("CastLike")
def cast_like(ctx: NodeContext) -> Outputs:
    """A Cast to the element type of `target` (GE's CastLike would keep a data edge)."""
    x, target = ctx.input(0), ctx.input(1)
    return _one(ctx, CastOp(x, element_type(target.type)))
