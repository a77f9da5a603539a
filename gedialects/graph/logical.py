"""Comparison, logical, bitwise, predicate and selection ops, and Cast.

GE elewise_calculation_ops.h, math_ops.h (IsNan, IsInf), bitwise_ops.h (shifts) and
selection_ops.h (SelectV2). Results of comparisons and predicates are i1 (GE's bool).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import i1
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    element_nbytes,
    element_type,
    tensor_shape,
)
from gedialects.graph.common import (
    AnyTensor,
    broadcast_shape,
    fail,
    format_shape,
    init_node,
    operand_broadcast,
    same_element_type,
    tensor_of,
    verify_element_types,
    verify_inferred,
)
from gedialects.graph.elementwise import BinaryMathOp, UnaryMathOp, verify_kind

# --------------------------------------------------------------------------------------------
# Bases
# --------------------------------------------------------------------------------------------


class ComparisonOp(GEOp, NodeSyntax):
    """Base of the broadcasting comparisons `y = x1 <cmp> x2` with an i1 result.

    `x1` and `x2` share one element type of kind `ELEMENTS`; the result shape is their numpy
    broadcast.
    """

    ELEMENTS: ClassVar[str] = "numeric"

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
        same_element_type(operand_types, "x1 and x2")
        return (tensor_of(i1, operand_broadcast(t1, t2)),)

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [x1, x2], result_type)

    def verify_(self) -> None:
        verify_element_types(self, (self.x1.type, self.x2.type), "x1 and x2")
        verify_kind(self, "x1", self.x1.type, self.ELEMENTS)
        verify_kind(self, "the result", self.y.type, "bool")
        verify_inferred(self, "the broadcast shape")


class PredicateOp(GEOp, NodeSyntax):
    """Base of the unary tests `y = p(x)` of floats with an i1 result of the shape of `x`."""

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        return (tensor_of(i1, tensor_shape(operand_types[0])),)

    def __init__(self, x: SSAValue | Operation, *, result_type: Attribute | None = None) -> None:
        init_node(self, [x], result_type)

    def verify_(self) -> None:
        verify_kind(self, "x", self.x.type, "float")
        verify_kind(self, "the result", self.y.type, "bool")
        verify_inferred(self, "the shape of x")


class LogicalBinaryOp(BinaryMathOp):
    """Base of the broadcasting logical ops on i1 tensors."""

    ELEMENTS: ClassVar[str] = "bool"


class BitwiseBinaryOp(BinaryMathOp):
    """Base of the broadcasting bitwise ops on integer tensors."""

    ELEMENTS: ClassVar[str] = "integer"


# --------------------------------------------------------------------------------------------
# Comparisons
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class EqualOp(ComparisonOp):
    """GE Equal: `x1 == x2` elementwise (i1 result, numpy broadcasting).

    i1 operands are accepted (ONNX Equal on bool).

        %y = graph.equal %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    """

    name = "graph.equal"
    GE_TYPE: ClassVar[str] = "Equal"
    ELEMENTS: ClassVar[str] = "any"


@irdl_op_definition
class LessOp(ComparisonOp):
    """GE Less: `x1 < x2` elementwise (i1 result, numpy broadcasting).

    %y = graph.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    """

    name = "graph.less"
    GE_TYPE: ClassVar[str] = "Less"


@irdl_op_definition
class LessEqualOp(ComparisonOp):
    """GE LessEqual: `x1 <= x2` elementwise (i1 result); ONNX LessOrEqual.

    %y = graph.less_equal %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    """

    name = "graph.less_equal"
    GE_TYPE: ClassVar[str] = "LessEqual"


@irdl_op_definition
class GreaterOp(ComparisonOp):
    """GE Greater: `x1 > x2` elementwise (i1 result, numpy broadcasting).

    %y = graph.greater %a, %b : (tensor<3xi64>, tensor<1xi64>) -> tensor<3xi1>
    """

    name = "graph.greater"
    GE_TYPE: ClassVar[str] = "Greater"


@irdl_op_definition
class GreaterEqualOp(ComparisonOp):
    """GE GreaterEqual: `x1 >= x2` elementwise (i1 result); ONNX GreaterOrEqual.

    %y = graph.greater_equal %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    """

    name = "graph.greater_equal"
    GE_TYPE: ClassVar[str] = "GreaterEqual"


# --------------------------------------------------------------------------------------------
# Logical
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class LogicalNotOp(UnaryMathOp):
    """GE LogicalNot: `not x` on i1 tensors; ONNX Not.

    %y = graph.logical_not %x : (tensor<4xi1>) -> tensor<4xi1>
    """

    name = "graph.logical_not"
    GE_TYPE: ClassVar[str] = "LogicalNot"
    ELEMENTS: ClassVar[str] = "bool"


@irdl_op_definition
class LogicalAndOp(LogicalBinaryOp):
    """GE LogicalAnd: `x1 and x2` on i1 tensors (numpy broadcasting); ONNX And.

    %y = graph.logical_and %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
    """

    name = "graph.logical_and"
    GE_TYPE: ClassVar[str] = "LogicalAnd"


@irdl_op_definition
class LogicalOrOp(LogicalBinaryOp):
    """GE LogicalOr: `x1 or x2` on i1 tensors (numpy broadcasting); ONNX Or.

    %y = graph.logical_or %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
    """

    name = "graph.logical_or"
    GE_TYPE: ClassVar[str] = "LogicalOr"


@irdl_op_definition
class XorOp(LogicalBinaryOp):
    """GE Xor: `x1 xor x2` on i1 tensors (numpy broadcasting).

    GE has no logical xor op; the type is ONNX's `Xor`.

        %y = graph.xor %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
    """

    name = "graph.xor"
    GE_TYPE: ClassVar[str] = "Xor"


# --------------------------------------------------------------------------------------------
# Bitwise
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class BitwiseAndOp(BitwiseBinaryOp):
    """GE BitwiseAnd: `x1 & x2` on integers (numpy broadcasting).

    %y = graph.bitwise_and %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    """

    name = "graph.bitwise_and"
    GE_TYPE: ClassVar[str] = "BitwiseAnd"


@irdl_op_definition
class BitwiseOrOp(BitwiseBinaryOp):
    """GE BitwiseOr: `x1 | x2` on integers (numpy broadcasting).

    %y = graph.bitwise_or %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    """

    name = "graph.bitwise_or"
    GE_TYPE: ClassVar[str] = "BitwiseOr"


@irdl_op_definition
class BitwiseXorOp(BitwiseBinaryOp):
    """GE BitwiseXor: `x1 ^ x2` on integers (numpy broadcasting).

    %y = graph.bitwise_xor %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    """

    name = "graph.bitwise_xor"
    GE_TYPE: ClassVar[str] = "BitwiseXor"


@irdl_op_definition
class InvertOp(UnaryMathOp):
    """GE Invert: bitwise not of integers; ONNX BitwiseNot.

    %y = graph.invert %x : (tensor<4xui8>) -> tensor<4xui8>
    """

    name = "graph.invert"
    GE_TYPE: ClassVar[str] = "Invert"
    ELEMENTS: ClassVar[str] = "integer"


@irdl_op_definition
class LeftShiftOp(BitwiseBinaryOp):
    """GE LeftShift: `x1 << x2` on integers (numpy broadcasting); ONNX BitShift "LEFT".

    GE names the operands `x`, `y` and the result `z`. Shifting by a negative amount or by
    the bit width or more gives 0 (ONNX reference semantics).

        %y = graph.left_shift %a, %b : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    """

    name = "graph.left_shift"
    GE_TYPE: ClassVar[str] = "LeftShift"


@irdl_op_definition
class RightShiftOp(BitwiseBinaryOp):
    """GE RightShift: `x1 >> x2` on integers (numpy broadcasting); ONNX BitShift "RIGHT".

    Arithmetic for signed integers. Shifting by a negative amount or by the bit width or
    more gives 0 (-1 for negative signed `x1`).

        %y = graph.right_shift %a, %b : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    """

    name = "graph.right_shift"
    GE_TYPE: ClassVar[str] = "RightShift"


# --------------------------------------------------------------------------------------------
# Predicates
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class IsNanOp(PredicateOp):
    """GE IsNan: whether each element of `x` is NaN; ONNX IsNaN.

    %y = graph.is_nan %x : (tensor<4xf32>) -> tensor<4xi1>
    """

    name = "graph.is_nan"
    GE_TYPE: ClassVar[str] = "IsNan"


@irdl_op_definition
class IsInfOp(PredicateOp):
    """GE IsInf: whether each element of `x` is +inf or -inf.

    ONNX IsInf with both `detect_positive` and `detect_negative` (the defaults) imports as
    this op; with one of them as `graph.is_pos_inf` or `graph.is_neg_inf`.

        %y = graph.is_inf %x : (tensor<4xf32>) -> tensor<4xi1>
    """

    name = "graph.is_inf"
    GE_TYPE: ClassVar[str] = "IsInf"


@irdl_op_definition
class IsPosInfOp(PredicateOp):
    """GE IsPosInf: whether each element of `x` is +inf.

    %y = graph.is_pos_inf %x : (tensor<4xf32>) -> tensor<4xi1>
    """

    name = "graph.is_pos_inf"
    GE_TYPE: ClassVar[str] = "IsPosInf"


@irdl_op_definition
class IsNegInfOp(PredicateOp):
    """GE IsNegInf: whether each element of `x` is -inf.

    %y = graph.is_neg_inf %x : (tensor<4xf32>) -> tensor<4xi1>
    """

    name = "graph.is_neg_inf"
    GE_TYPE: ClassVar[str] = "IsNegInf"


# --------------------------------------------------------------------------------------------
# Selection and Cast
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class SelectV2Op(GEOp, NodeSyntax):
    """GE SelectV2: `x1` where `condition`, else `x2`, with numpy broadcasting of all three.

    ONNX Where imports as this op. GE names the value operands `then` and `else` (Python
    keywords here, hence `x1` and `x2` as in GE's Select).

        %y = graph.select_v2 %c, %a, %b : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>)
            -> tensor<2x3xf32>
    """

    name = "graph.select_v2"
    GE_TYPE: ClassVar[str] = "SelectV2"

    condition = operand_def(AnyTensor)
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
        elem = same_element_type(operand_types[1:], "x1 and x2")
        shapes = [tensor_shape(t) for t in operand_types]
        shape: tuple[int, ...] | None = ()
        try:
            for s in shapes:  # the ranked ones must broadcast even when one is unranked
                if s is not None:
                    shape = broadcast_shape(shape, s)
        except ValueError:
            known = ", ".join("*" if s is None else format_shape(s) for s in shapes)
            raise ValueError(f"condition, x1 and x2 shapes {known} do not broadcast") from None
        return (tensor_of(elem, None if None in shapes else shape),)

    def __init__(
        self,
        condition: SSAValue | Operation,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        operands = [condition, x1, x2]
        init_node(self, operands, result_type)

    def verify_(self) -> None:
        verify_kind(self, "condition", self.condition.type, "bool")
        verify_element_types(self, (self.x1.type, self.x2.type, self.y.type), "x1, x2 and result")
        verify_inferred(self, "the broadcast shape")


@irdl_op_definition
class CastOp(GEOp, NodeSyntax):
    """GE Cast: `x` converted to the element type `dst_type`, elementwise.

    Floats to integers truncate toward zero; anything to i1 is `x != 0`. GE's `dst_type` is
    a DataType enum value; here it is the element type itself (`f16`), which the result
    type must carry. ONNX Cast (`to`) and CastLike (the target's type) import as this op.

        %y = graph.cast %x dst_type f16 : (tensor<4xf32>) -> tensor<4xf16>
    """

    name = "graph.cast"
    GE_TYPE: ClassVar[str] = "Cast"
    FORMAT_AGNOSTIC: ClassVar[bool] = True

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    dst_type = prop_def(TypeAttribute)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        return (tensor_of(properties["dst_type"], tensor_shape(operand_types[0])),)

    def __init__(
        self,
        x: SSAValue | Operation,
        dst_type: Attribute,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        properties = {"dst_type": dst_type}
        init_node(self, [x], result_type, properties)

    def verify_(self) -> None:
        if element_type(self.y.type) != self.dst_type:
            fail(
                self,
                f"result element type {element_type(self.y.type)} differs from "
                f"dst_type {self.dst_type}",
            )
        verify_inferred(self, "the shape of x")


# --------------------------------------------------------------------------------------------


@irdl_op_definition
class BitcastOp(GEOp, NodeSyntax):
    """GE Bitcast: the bits of `x` read as the element type `type`, no value conversion.

    Both element types have the same width here (ONNX BitCast's rule; GE's prototype also
    splits or joins the last dim when they differ), so the shape is unchanged; bytes are
    little-endian. GE runs it on its local engine.

        %y = graph.bitcast %x type i32 : (tensor<4xf32>) -> tensor<4xi32>
    """

    name = "graph.bitcast"
    GE_TYPE: ClassVar[str] = "Bitcast"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    type = prop_def(TypeAttribute)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """x's shape in `type`, which must have x's element width."""
        target = properties["type"]
        a, b = element_nbytes(element_type(operand_types[0])), element_nbytes(target)
        if a is None or b is None or a != b:
            raise ValueError(
                f"type {target} must have the width of {element_type(operand_types[0])}"
            )
        return (tensor_of(target, tensor_shape(operand_types[0])),)

    def __init__(self, x: SSAValue | Operation, type: Attribute) -> None:
        init_node(self, [x], None, {"type": type})

    def verify_(self) -> None:
        verify_inferred(self, "the shape of x")


__all__ = [
    "BitcastOp",
    "BitwiseAndOp",
    "BitwiseOrOp",
    "BitwiseXorOp",
    "CastOp",
    "EqualOp",
    "GreaterEqualOp",
    "GreaterOp",
    "InvertOp",
    "IsInfOp",
    "IsNanOp",
    "IsNegInfOp",
    "IsPosInfOp",
    "LeftShiftOp",
    "LessEqualOp",
    "LessOp",
    "LogicalAndOp",
    "LogicalNotOp",
    "LogicalOrOp",
    "RightShiftOp",
    "SelectV2Op",
    "XorOp",
]

OPS = (
    EqualOp,
    LessOp,
    LessEqualOp,
    GreaterOp,
    GreaterEqualOp,
    LogicalNotOp,
    LogicalAndOp,
    LogicalOrOp,
    XorOp,
    BitwiseAndOp,
    BitwiseOrOp,
    BitwiseXorOp,
    InvertOp,
    LeftShiftOp,
    RightShiftOp,
    IsNanOp,
    IsInfOp,
    IsPosInfOp,
    IsNegInfOp,
    SelectV2Op,
    CastOp,
    BitcastOp,
)
"""The ops of this module, in the order the dialect lists them."""
