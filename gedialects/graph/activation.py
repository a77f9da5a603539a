"""Activation ops (GE nonlinear_fuc_ops.h).

Each is a unary op on floats (`UnaryMathOp`) with GE's attribute names and defaults, except
PRelu, which takes a slope operand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from gedialects.base import GEOp, NodeSyntax, OperandValues, tensor_shape
from gedialects.graph.common import (
    AnyTensor,
    fail,
    infer_or_fail,
    init_node,
    same_element_type,
    tensor_of,
    verify_element_types,
)
from gedialects.graph.elementwise import (
    UnaryMathOp,
    f32_prop,
    refine_x_shape,
    verify_kind,
    verify_result_like_x,
)

# --------------------------------------------------------------------------------------------
# Activations (nonlinear_fuc_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ReluOp(UnaryMathOp):
    """GE Relu: `max(x, 0)` elementwise.

    `Relu` is the IR prototype's type (`REG_OP(Relu)`); GE's types.h also has the Caffe-style
    alias constant `RELU = "ReLU"`, which graphs built through the IR API do not use.
    Integers are accepted (ONNX Relu since opset 14).

        %y = graph.relu %x : (tensor<1x8xf32>) -> tensor<1x8xf32>
    """

    name = "graph.relu"
    GE_TYPE: ClassVar[str] = "Relu"
    ELEMENTS: ClassVar[str] = "numeric"


@irdl_op_definition
class LeakyReluOp(UnaryMathOp):
    """GE LeakyRelu: `x` where `x >= 0`, else `negative_slope * x`.

    ONNX LeakyRelu's `alpha` (default 0.01) becomes `negative_slope` (GE default 0.0).

        %y = graph.leaky_relu %x negative_slope 0.01 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.leaky_relu"
    GE_TYPE: ClassVar[str] = "LeakyRelu"

    negative_slope = f32_prop(0.0)


@irdl_op_definition
class EluOp(UnaryMathOp):
    """GE Elu: `scale * x` where `x > 0`, else `scale * alpha * (exp(input_scale * x) - 1)`.

    ONNX Elu is this op with its `alpha` (default 1.0) and unit scales.

        %y = graph.elu %x alpha 0.5 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.elu"
    GE_TYPE: ClassVar[str] = "Elu"

    alpha = f32_prop(1.0)
    scale = f32_prop(1.0)
    input_scale = f32_prop(1.0)


@irdl_op_definition
class SwishOp(UnaryMathOp):
    """GE Swish: `x * sigmoid(scale * x)` (SiLU for scale 1).

    ONNX Swish (opset 24) imports with its `alpha` as `scale`; SwiGLU as `Swish(A) * B`.

        %y = graph.swish %x scale 1.5 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.swish"
    GE_TYPE: ClassVar[str] = "Swish"

    scale = f32_prop(1.0)


@irdl_op_definition
class SeluOp(UnaryMathOp):
    """GE Selu: `gamma * x` where `x > 0`, else `gamma * alpha * (exp(x) - 1)`.

    GE's Selu has fixed constants; `alpha` and `gamma` are ONNX's attributes (with ONNX's
    defaults, which are GE's constants) so that any ONNX Selu imports.

        %y = graph.selu %x alpha 2.0 gamma 3.0 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.selu"
    GE_TYPE: ClassVar[str] = "Selu"

    alpha = f32_prop(1.67326319217681884765625)
    gamma = f32_prop(1.05070102214813232421875)


@irdl_op_definition
class CeluV2Op(UnaryMathOp):
    """GE CeluV2: `max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`; `alpha` must not be 0.

    ONNX Celu imports as this op (GE's `Celu` has three alphas).

        %y = graph.celu_v2 %x alpha 2.0 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.celu_v2"
    GE_TYPE: ClassVar[str] = "CeluV2"

    alpha = f32_prop(1.0)

    def verify_(self) -> None:
        super().verify_()
        if self.alpha.value.data == 0:
            fail(self, "alpha must not be 0")


@irdl_op_definition
class HardSigmoidOp(UnaryMathOp):
    """GE HardSigmoid: `max(0, min(1, alpha * x + beta))`.

    GE's default `alpha` is 1/6 (ONNX: 0.2); the ONNX import always sets it.

        %y = graph.hard_sigmoid %x alpha 0.2 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.hard_sigmoid"
    GE_TYPE: ClassVar[str] = "HardSigmoid"

    alpha = f32_prop(0.16666666)
    beta = f32_prop(0.5)


@irdl_op_definition
class HardSwishOp(UnaryMathOp):
    """GE HardSwish: `x * max(0, min(1, x / 6 + 1 / 2))`.

    %y = graph.hard_swish %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.hard_swish"
    GE_TYPE: ClassVar[str] = "HardSwish"


GELU_APPROXIMATIONS = ("none", "tanh")


@irdl_op_definition
class GeluOp(UnaryMathOp):
    """GE Gelu: `x * Phi(x)`, Phi the standard normal CDF.

    `approximate` is "none" (exact, with erf) or "tanh"
    (`0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`). GE's Gelu has no such
    attribute; it follows ONNX Gelu (opset 20) and the `approximate` of later CANN GeluV2.

        %y = graph.gelu %x approximate "tanh" : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.gelu"
    GE_TYPE: ClassVar[str] = "Gelu"

    approximate = prop_def(StringAttr, default_value=StringAttr("none"))

    def verify_(self) -> None:
        super().verify_()
        if self.approximate.data not in GELU_APPROXIMATIONS:
            fail(self, f'approximate must be "none" or "tanh", got "{self.approximate.data}"')


@irdl_op_definition
class SoftplusOp(UnaryMathOp):
    """GE Softplus: `log(1 + exp(x))`, without overflow for large `x`.

    %y = graph.softplus %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.softplus"
    GE_TYPE: ClassVar[str] = "Softplus"


@irdl_op_definition
class SoftsignOp(UnaryMathOp):
    """GE Softsign: `x / (1 + |x|)`.

    %y = graph.softsign %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.softsign"
    GE_TYPE: ClassVar[str] = "Softsign"


@irdl_op_definition
class SigmoidOp(UnaryMathOp):
    """GE Sigmoid: `1 / (1 + exp(-x))`.

    %y = graph.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.sigmoid"
    GE_TYPE: ClassVar[str] = "Sigmoid"


@irdl_op_definition
class TanhOp(UnaryMathOp):
    """GE Tanh: hyperbolic tangent, elementwise.

    %y = graph.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.tanh"
    GE_TYPE: ClassVar[str] = "Tanh"


@irdl_op_definition
class ThresholdedReluOp(UnaryMathOp):
    """GE ThresholdedRelu: `x` where `x > alpha`, else 0.

    %y = graph.thresholded_relu %x alpha 2.0 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.thresholded_relu"
    GE_TYPE: ClassVar[str] = "ThresholdedRelu"

    alpha = f32_prop(1.0)


@irdl_op_definition
class MishOp(UnaryMathOp):
    """GE Mish: `x * tanh(softplus(x))`.

    %y = graph.mish %x : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.mish"
    GE_TYPE: ClassVar[str] = "Mish"


@irdl_op_definition
class ShrinkOp(UnaryMathOp):
    """GE Shrink: `x + bias` where `x < -lambd`, `x - bias` where `x > lambd`, else 0.

    Integer inputs are accepted (ONNX Shrink); their result is truncated toward zero.

        %y = graph.shrink %x lambd 1.5 bias 1.5 : (tensor<4xf32>) -> tensor<4xf32>
    """

    name = "graph.shrink"
    GE_TYPE: ClassVar[str] = "Shrink"
    ELEMENTS: ClassVar[str] = "numeric"

    lambd = f32_prop(0.5)
    bias = f32_prop(0.0)


@irdl_op_definition
class PReluOp(GEOp, NodeSyntax):
    """GE PRelu: `x` where `x > 0`, else `weight * x`.

    `weight` broadcasts to the shape of `x` numpy-style (ONNX PRelu: a per-channel slope of
    an NCHW `x` is [C, 1, 1]); GE's PRelu takes a 1-D per-channel weight instead. The result
    has the type of `x`, where a `?` dim facing n > 1 in `weight` can only be n.

        %y = graph.prelu %x, %w : (tensor<1x3x4x4xf32>, tensor<3x1x1xf32>)
            -> tensor<1x3x4x4xf32>
    """

    name = "graph.prelu"
    GE_TYPE: ClassVar[str] = "PRelu"

    x = operand_def(AnyTensor)
    weight = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        x, weight = operand_types
        elem = same_element_type(operand_types, "x and weight")
        return (tensor_of(elem, refine_x_shape(tensor_shape(x), weight, x, "weight")),)

    def __init__(
        self,
        x: SSAValue | Operation,
        weight: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [x, weight], result_type)

    def verify_(self) -> None:
        verify_kind(self, "x", self.x.type, "numeric")
        verify_element_types(
            self, (self.x.type, self.weight.type, self.y.type), "x, weight and result"
        )
        (inferred,) = infer_or_fail(self)
        verify_result_like_x(self, inferred, "weight implies for")


# --------------------------------------------------------------------------------------------


__all__ = [
    "CeluV2Op",
    "EluOp",
    "GeluOp",
    "HardSigmoidOp",
    "HardSwishOp",
    "LeakyReluOp",
    "MishOp",
    "PReluOp",
    "ReluOp",
    "SeluOp",
    "ShrinkOp",
    "SigmoidOp",
    "SoftplusOp",
    "SoftsignOp",
    "SwishOp",
    "TanhOp",
    "ThresholdedReluOp",
]

OPS = (
    ReluOp,
    LeakyReluOp,
    EluOp,
    SeluOp,
    CeluV2Op,
    HardSigmoidOp,
    HardSwishOp,
    GeluOp,
    SoftplusOp,
    SoftsignOp,
    SigmoidOp,
    TanhOp,
    ThresholdedReluOp,
    MishOp,
    SwishOp,
    ShrinkOp,
    PReluOp,
)
"""The ops of this module, in the order the dialect lists them."""
