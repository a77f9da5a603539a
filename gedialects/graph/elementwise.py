"""Elementwise arithmetic and math ops (GE elewise_calculation_ops.h, math_ops.h).

Also the element-kind checked bases the activation and logical modules build on: a simple op
is a class with a docstring, `name`, `GE_TYPE`, its `ELEMENTS` kind and its properties.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    BFloat16Type,
    BoolAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    f32,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from gedialects import fast_verify
from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    element_type,
    tensor_shape,
    types_compatible,
)
from gedialects.graph.common import (
    AnyTensor,
    ElementwiseBinaryOp,
    ElementwiseUnaryOp,
    broadcast_into,
    fail,
    infer_or_fail,
    init_node,
    operand_broadcast,
    same_element_type,
    tensor_of,
    verify_element_types,
    verify_inferred,
)

# --------------------------------------------------------------------------------------------
# Element kinds and the checked bases
# --------------------------------------------------------------------------------------------

ELEMENT_KINDS: dict[str, str] = {
    "float": "a floating-point",
    "numeric": "a numeric (integer or floating-point, not i1)",
    "integer": "an integer (not i1)",
    "bool": "an i1",
    "any": "any",
}
"""The `ELEMENTS` kinds of the checked bases, with the phrase their diagnostics use."""


def is_float(elem: Attribute) -> bool:
    return isinstance(elem, Float16Type | BFloat16Type | Float32Type | Float64Type)


def is_integer(elem: Attribute) -> bool:
    """An integer type other than i1 (GE's bool)."""
    return isinstance(elem, IntegerType) and elem.width.data > 1


def element_has_kind(elem: Attribute, kind: str) -> bool:
    if kind == "float":
        return is_float(elem)
    if kind == "numeric":
        return is_float(elem) or is_integer(elem)
    if kind == "integer":
        return is_integer(elem)
    if kind == "bool":
        return elem == i1
    return True


def verify_kind(op: Operation, what: str, t: Attribute, kind: str) -> None:
    elem = element_type(t)
    if not element_has_kind(elem, kind):
        fail(op, f"requires {ELEMENT_KINDS[kind]} element type for {what}, got {elem}")


PropValue = Attribute | bool | int | float | str
"""What a builder keyword of `properties_of` may be."""


def properties_of(
    op_type: type[IRDLOperation], values: Mapping[str, PropValue]
) -> dict[str, Attribute]:
    """Builder keywords as properties, converted after the kind of each property's default
    (`alpha=1` gives `1.0 : f32` when the default is a float); attributes pass through."""
    defs = op_type.get_irdl_definition().properties
    props: dict[str, Attribute] = {}
    for key, value in values.items():
        if key not in defs:
            raise TypeError(f"'{op_type.name}' has no property '{key}'")
        default = defs[key].default_value
        if isinstance(value, Attribute):
            props[key] = value
        elif isinstance(value, bool) or (isinstance(default, IntegerAttr) and default.type == i1):
            props[key] = BoolAttr.from_bool(bool(value))
        elif isinstance(default, FloatAttr):
            props[key] = FloatAttr(float(value), f32)
        elif isinstance(value, int):
            props[key] = IntegerAttr(value, i64)
        elif isinstance(value, str):
            props[key] = StringAttr(value)
        else:
            raise TypeError(f"'{op_type.name}': cannot make property '{key}' from {value!r}")
    return props


def f32_prop(default: float) -> FloatAttr:
    """An f32 property with a default (`alpha 0.2` in node syntax)."""
    return prop_def(FloatAttr.constr(f32), default_value=FloatAttr(default, f32))


class UnaryMathOp(ElementwiseUnaryOp):
    """Base of unary elementwise ops whose operand has element kind `ELEMENTS`.

    The result has the operand's type. Properties are builder keywords:
    `EluOp(x, alpha=0.5)`.
    """

    ELEMENTS: ClassVar[str] = "float"

    def __init__(
        self, x: SSAValue | Operation, *, result_type: Attribute | None = None, **props: PropValue
    ) -> None:
        properties = properties_of(type(self), props)
        init_node(self, [x], result_type, properties)

    @fast_verify.local
    def verify_(self) -> None:
        super().verify_()
        verify_kind(self, "x", self.x.type, self.ELEMENTS)


class BinaryMathOp(ElementwiseBinaryOp):
    """Base of broadcasting binary ops whose operands have element kind `ELEMENTS`."""

    ELEMENTS: ClassVar[str] = "numeric"

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
        **props: PropValue,
    ) -> None:
        properties = properties_of(type(self), props)
        init_node(self, [x1, x2], result_type, properties)

    @fast_verify.local
    def verify_(self) -> None:
        super().verify_()
        verify_kind(self, "x1", self.x1.type, self.ELEMENTS)


def refine_x_shape(
    shape: Sequence[int] | None, operand: Attribute, x: Attribute, what: str
) -> tuple[int, ...] | None:
    """The shape of `x` refined by an operand that must broadcast into it (a bound, a slope).

    ValueError names `what` when the operand cannot broadcast to `x` unchanged.
    """
    try:
        return broadcast_into(tensor_shape(operand), shape)
    except ValueError:
        raise ValueError(f"{what} of type {operand} does not broadcast to x {x}") from None


def verify_result_like_x(op: GEOp, inferred: Attribute, implied_by: str) -> None:
    """The result of an op that keeps the type of operand `x` (refined by `implied_by`)."""
    x, y = op.operands[0].type, op.results[0].type
    if not types_compatible(y, x):
        fail(op, f"result type {y} differs from the type {x} of x")
    if not types_compatible(y, inferred):
        fail(op, f"result type {y} differs from {inferred}, the type {implied_by} x")


def verify_exp_log_base(op: Operation, base: FloatAttr) -> None:
    value = base.value.data
    if not (value > 0 or value == -1.0):
        fail(op, f"base must be positive or -1 (e), got {value}")


# --------------------------------------------------------------------------------------------
# Binary arithmetic
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class AddOp(BinaryMathOp):
    """GE Add: elementwise sum with numpy broadcasting.

    See `ElementwiseBinaryOp` for the typing rules. Integers wrap around.

        %y = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    """

    name = "graph.add"
    GE_TYPE: ClassVar[str] = "Add"


@irdl_op_definition
class MulOp(BinaryMathOp):
    """GE Mul: elementwise product with numpy broadcasting.

    See `ElementwiseBinaryOp` for the typing rules.

        %y = graph.mul %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    """

    name = "graph.mul"
    GE_TYPE: ClassVar[str] = "Mul"


@irdl_op_definition
class SubOp(BinaryMathOp):
    """GE Sub: elementwise difference `x1 - x2` with numpy broadcasting.

    See `ElementwiseBinaryOp` for the typing rules.

        %y = graph.sub %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    """

    name = "graph.sub"
    GE_TYPE: ClassVar[str] = "Sub"


@irdl_op_definition
class DivOp(BinaryMathOp):
    """GE Div: elementwise quotient `x1 / x2` with numpy broadcasting.

    GE's `Div` (not `RealDiv`) keeps one dtype for operands and result, as ONNX Div does.
    Integer quotients truncate toward zero (C and ONNX semantics, not Python's floor);
    an integer division by zero gives 0 here (undefined in GE and ONNX).

        %y = graph.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    """

    name = "graph.div"
    GE_TYPE: ClassVar[str] = "Div"


@irdl_op_definition
class MaximumOp(BinaryMathOp):
    """GE Maximum: elementwise larger of `x1` and `x2` (NaN wins), numpy broadcasting.

    ONNX's variadic Max imports as a chain of these.

        %y = graph.maximum %a, %b : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
    """

    name = "graph.maximum"
    GE_TYPE: ClassVar[str] = "Maximum"


@irdl_op_definition
class MinimumOp(BinaryMathOp):
    """GE Minimum: elementwise smaller of `x1` and `x2` (NaN wins), numpy broadcasting.

    ONNX's variadic Min imports as a chain of these.

        %y = graph.minimum %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    """

    name = "graph.minimum"
    GE_TYPE: ClassVar[str] = "Minimum"


@irdl_op_definition
class ModOp(BinaryMathOp):
    """GE Mod: remainder of the truncating division; its sign is the sign of `x1`.

    TensorFlow's Mod (C `fmod`): `truncate(x1 / x2) * x2 + mod(x1, x2) = x1`. ONNX Mod with
    `fmod = 1` imports as this op, `fmod = 0` as `graph.floor_mod`.

        %y = graph.mod %a, %b : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    """

    name = "graph.mod"
    GE_TYPE: ClassVar[str] = "Mod"


@irdl_op_definition
class FloorModOp(BinaryMathOp):
    """GE FloorMod: remainder of the flooring division; its sign is the sign of `x2`.

    `floor(x1 / x2) * x2 + mod(x1, x2) = x1` (Python's `%`). ONNX Mod with `fmod = 0` (the
    default, integers only) imports as this op. An integer remainder by zero gives 0 here.

        %y = graph.floor_mod %a, %b : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi32>
    """

    name = "graph.floor_mod"
    GE_TYPE: ClassVar[str] = "FloorMod"


@irdl_op_definition
class PowOp(GEOp, NodeSyntax):
    """GE Pow: `x1` to the power `x2`, elementwise with numpy broadcasting.

    The exponent may have another numeric element type than the base; the result has the
    base's element type (ONNX Pow; GE promotes the two types instead). Integer results of a
    fractional power truncate toward zero.

        %y = graph.pow %a, %b : (tensor<3xi64>, tensor<3xf32>) -> tensor<3xi64>
    """

    name = "graph.pow"
    GE_TYPE: ClassVar[str] = "Pow"

    x1 = operand_def(AnyTensor)
    x2 = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        t1, t2 = operand_types
        return (tensor_of(element_type(t1), operand_broadcast(t1, t2)),)

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [x1, x2], result_type)

    def verify_(self) -> None:
        verify_kind(self, "x1", self.x1.type, "numeric")
        verify_kind(self, "x2", self.x2.type, "numeric")
        verify_element_types(self, (self.x1.type, self.y.type), "x1 and the result")
        verify_inferred(self, "the broadcast shape")


@irdl_op_definition
class ClipByValueOp(GEOp, NodeSyntax):
    """GE ClipByValue: `min(max(x, clip_value_min), clip_value_max)` elementwise.

    The bounds have the element type of `x` and broadcast to its shape (ONNX passes scalars);
    the result has the type of `x` (a `?` dim facing n > 1 in a bound is n). When
    `clip_value_min > clip_value_max` every element becomes `clip_value_max`, as ONNX Clip
    specifies. ONNX Clip imports as this op, with the dtype's lowest/highest value for an
    absent bound.

        %y = graph.clip_by_value %x, %lo, %hi
            : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3xf32>
    """

    name = "graph.clip_by_value"
    GE_TYPE: ClassVar[str] = "ClipByValue"

    x = operand_def(AnyTensor)
    clip_value_min = operand_def(AnyTensor)
    clip_value_max = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        x, lo, hi = operand_types
        elem = same_element_type(operand_types, "x and the bounds")
        shape = refine_x_shape(tensor_shape(x), lo, x, "clip_value_min")
        shape = refine_x_shape(shape, hi, x, "clip_value_max")
        return (tensor_of(elem, shape),)

    def __init__(
        self,
        x: SSAValue | Operation,
        clip_value_min: SSAValue | Operation,
        clip_value_max: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        operands = [x, clip_value_min, clip_value_max]
        init_node(self, operands, result_type)

    def verify_(self) -> None:
        verify_kind(self, "x", self.x.type, "numeric")
        types = (self.x.type, self.clip_value_min.type, self.clip_value_max.type, self.y.type)
        verify_element_types(self, types, "x, the bounds and the result")
        (inferred,) = infer_or_fail(self)
        verify_result_like_x(self, inferred, "the bounds imply for")


# --------------------------------------------------------------------------------------------
# Unary math
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class AbsOp(UnaryMathOp):
    """GE Abs: `|x|` elementwise (integers wrap: |INT_MIN| = INT_MIN).

    %y = graph.abs %x : (tensor<4xi32>) -> tensor<4xi32>
    """

    name = "graph.abs"
    GE_TYPE: ClassVar[str] = "Abs"
    ELEMENTS: ClassVar[str] = "numeric"


@irdl_op_definition
class NegOp(UnaryMathOp):
    """GE Neg: `-x` elementwise.

    %y = graph.neg %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.neg"
    GE_TYPE: ClassVar[str] = "Neg"
    ELEMENTS: ClassVar[str] = "numeric"


@irdl_op_definition
class SignOp(UnaryMathOp):
    """GE Sign: -1, 0 or 1 after the sign of `x` (NaN stays NaN).

    %y = graph.sign %x : (tensor<4xi64>) -> tensor<4xi64>
    """

    name = "graph.sign"
    GE_TYPE: ClassVar[str] = "Sign"
    ELEMENTS: ClassVar[str] = "numeric"


@irdl_op_definition
class ReciprocalOp(UnaryMathOp):
    """GE Reciprocal: `1 / x` elementwise (0 gives inf).

    %y = graph.reciprocal %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.reciprocal"
    GE_TYPE: ClassVar[str] = "Reciprocal"


@irdl_op_definition
class SqrtOp(UnaryMathOp):
    """GE Sqrt: `sqrt(x)` elementwise (negative values give NaN).

    %y = graph.sqrt %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.sqrt"
    GE_TYPE: ClassVar[str] = "Sqrt"


@irdl_op_definition
class ExpOp(UnaryMathOp):
    """GE Exp: `base ^ (scale * x + shift)` elementwise; `base = -1` means e.

    With the defaults (base -1, scale 1, shift 0) this is ONNX Exp. `base` must be positive
    or -1.

        %y = graph.exp %x base 2.0 scale 0.5 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.exp"
    GE_TYPE: ClassVar[str] = "Exp"

    base = f32_prop(-1.0)
    scale = f32_prop(1.0)
    shift = f32_prop(0.0)

    def verify_(self) -> None:
        super().verify_()
        verify_exp_log_base(self, self.base)


@irdl_op_definition
class LogOp(UnaryMathOp):
    """GE Log: `log_base(scale * x + shift)` elementwise; `base = -1` means e.

    With the defaults (base -1, scale 1, shift 0) this is ONNX Log. `base` must be positive
    or -1.

        %y = graph.log %x base 10.0 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.log"
    GE_TYPE: ClassVar[str] = "Log"

    base = f32_prop(-1.0)
    scale = f32_prop(1.0)
    shift = f32_prop(0.0)

    def verify_(self) -> None:
        super().verify_()
        verify_exp_log_base(self, self.base)


@irdl_op_definition
class ErfOp(UnaryMathOp):
    """GE Erf: the Gauss error function elementwise (math_ops.h).

    %y = graph.erf %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.erf"
    GE_TYPE: ClassVar[str] = "Erf"


@irdl_op_definition
class CeilOp(UnaryMathOp):
    """GE Ceil: smallest integral value not below `x`.

    %y = graph.ceil %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.ceil"
    GE_TYPE: ClassVar[str] = "Ceil"


@irdl_op_definition
class FloorOp(UnaryMathOp):
    """GE Floor: largest integral value not above `x`.

    %y = graph.floor %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.floor"
    GE_TYPE: ClassVar[str] = "Floor"


@irdl_op_definition
class RoundOp(UnaryMathOp):
    """GE Round: `x` rounded half to even, to `decimals` decimal places (default 0).

    ONNX Round is this op with `decimals = 0`.

        %y = graph.round %x decimals 2 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.round"
    GE_TYPE: ClassVar[str] = "Round"

    decimals = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))


@irdl_op_definition
class SinOp(UnaryMathOp):
    """GE Sin: sine, elementwise.

    %y = graph.sin %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.sin"
    GE_TYPE: ClassVar[str] = "Sin"


@irdl_op_definition
class CosOp(UnaryMathOp):
    """GE Cos: cosine, elementwise.

    %y = graph.cos %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.cos"
    GE_TYPE: ClassVar[str] = "Cos"


@irdl_op_definition
class TanOp(UnaryMathOp):
    """GE Tan: tangent, elementwise.

    %y = graph.tan %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.tan"
    GE_TYPE: ClassVar[str] = "Tan"


@irdl_op_definition
class AsinOp(UnaryMathOp):
    """GE Asin: arcsine (NaN outside [-1, 1]), elementwise.

    %y = graph.asin %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.asin"
    GE_TYPE: ClassVar[str] = "Asin"


@irdl_op_definition
class AcosOp(UnaryMathOp):
    """GE Acos: arccosine (NaN outside [-1, 1]), elementwise.

    %y = graph.acos %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.acos"
    GE_TYPE: ClassVar[str] = "Acos"


@irdl_op_definition
class AtanOp(UnaryMathOp):
    """GE Atan: arctangent, elementwise.

    %y = graph.atan %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.atan"
    GE_TYPE: ClassVar[str] = "Atan"


@irdl_op_definition
class SinhOp(UnaryMathOp):
    """GE Sinh: hyperbolic sine, elementwise.

    %y = graph.sinh %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.sinh"
    GE_TYPE: ClassVar[str] = "Sinh"


@irdl_op_definition
class CoshOp(UnaryMathOp):
    """GE Cosh: hyperbolic cosine, elementwise.

    %y = graph.cosh %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.cosh"
    GE_TYPE: ClassVar[str] = "Cosh"


@irdl_op_definition
class AsinhOp(UnaryMathOp):
    """GE Asinh: inverse hyperbolic sine, elementwise.

    %y = graph.asinh %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.asinh"
    GE_TYPE: ClassVar[str] = "Asinh"


@irdl_op_definition
class AcoshOp(UnaryMathOp):
    """GE Acosh: inverse hyperbolic cosine (NaN below 1), elementwise.

    %y = graph.acosh %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.acosh"
    GE_TYPE: ClassVar[str] = "Acosh"


@irdl_op_definition
class AtanhOp(UnaryMathOp):
    """GE Atanh: inverse hyperbolic tangent (NaN outside [-1, 1]), elementwise.

    %y = graph.atanh %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.atanh"
    GE_TYPE: ClassVar[str] = "Atanh"


# --------------------------------------------------------------------------------------------


__all__ = [
    "AbsOp",
    "AcosOp",
    "AcoshOp",
    "AddOp",
    "AsinOp",
    "AsinhOp",
    "AtanOp",
    "AtanhOp",
    "BinaryMathOp",
    "CeilOp",
    "ClipByValueOp",
    "CosOp",
    "CoshOp",
    "DivOp",
    "ErfOp",
    "ExpOp",
    "FloorModOp",
    "FloorOp",
    "LogOp",
    "MaximumOp",
    "MinimumOp",
    "ModOp",
    "MulOp",
    "NegOp",
    "PowOp",
    "ReciprocalOp",
    "RoundOp",
    "SignOp",
    "SinOp",
    "SinhOp",
    "SqrtOp",
    "SubOp",
    "TanOp",
    "UnaryMathOp",
]

OPS = (
    AddOp,
    MulOp,
    SubOp,
    DivOp,
    MaximumOp,
    MinimumOp,
    ModOp,
    FloorModOp,
    PowOp,
    ClipByValueOp,
    AbsOp,
    NegOp,
    SignOp,
    ReciprocalOp,
    SqrtOp,
    ExpOp,
    LogOp,
    ErfOp,
    CeilOp,
    FloorOp,
    RoundOp,
    SinOp,
    CosOp,
    TanOp,
    AsinOp,
    AcosOp,
    AtanOp,
    SinhOp,
    CoshOp,
    AsinhOp,
    AcoshOp,
    AtanhOp,
)
"""The ops of this module, in the order the dialect lists them."""
