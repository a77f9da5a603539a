"""Fused ops: one node for a chain that the fusion passes (`gedialects/passes/fusion/`) collapse.

GE's FE engine fuses a convolution or matrix product with the elementwise ops after it
(`ConvBatchnormFusionPass`, `MatMulBiasAddFusionPass`, the UB fusion `TbeConvRelu...` passes)
so that they run as one kernel. `graph.fused_mul_add` is GE's FusedMulAdd prototype
(elewise_calculation_ops.h). GE has no single prototype for "convolution or matrix product
plus bias plus activation" (UB fusion keeps the nodes and gives them one fusion scope; CANN's
ExtendConv2D fuses relu into a quantised convolution); `graph.fused_conv2d` and
`graph.fused_mat_mul` follow TensorFlow's `_FusedConv2D` / `_FusedMatMul` instead, with the
activation as an attribute. Each of these ops lowers to one kernel task.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    element_type,
    int_array,
    tensor_shape,
)
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    bool_attr,
    broadcast_shape,
    fail,
    prop_ints,
    prop_str,
    tensor_of,
    verify_element_types,
    verify_result_shape,
)
from gedialects.graph.elementwise import is_float, verify_kind
from gedialects.graph.matrix import batch_matmul_shape
from gedialects.graph.nn import ConvOpBase, conv_output_shape

# --------------------------------------------------------------------------------------------
# Activations fused into a producer
# --------------------------------------------------------------------------------------------

ACTIVATIONS = ("relu", "relu6", "clip", "sigmoid", "hard_swish", "gelu", "gelu_tanh")
"""The `activation` values: Relu, Relu6 (= ClipByValue to [0, 6]), ClipByValue with constant
bounds `clip_min`/`clip_max`, Sigmoid, HardSwish, Gelu (`approximate` "none" or "tanh")."""

FLOAT_ACTIVATIONS = ("sigmoid", "hard_swish", "gelu", "gelu_tanh")


def verify_activation(op: GEOp) -> None:
    """Checks `activation` and that `clip_min`/`clip_max` are given exactly for "clip"."""
    activation = prop_str(type(op), op.properties, "activation")
    if activation not in ACTIVATIONS:
        choices = ", ".join(f'"{a}"' for a in ACTIVATIONS)
        fail(op, f'activation must be one of {choices}, got "{activation}"')
    lo, hi = op.properties.get("clip_min"), op.properties.get("clip_max")
    if activation == "clip":
        if not isinstance(lo, FloatAttr) or not isinstance(hi, FloatAttr):
            fail(op, 'activation "clip" needs clip_min and clip_max')
        if lo.value.data > hi.value.data:
            fail(op, f"clip_min {lo.value.data} exceeds clip_max {hi.value.data}")
    elif lo is not None or hi is not None:
        fail(op, f'clip_min and clip_max are only for activation "clip", not "{activation}"')
    elem = element_type(op.results[0].type)
    if activation in FLOAT_ACTIVATIONS and not is_float(elem):
        fail(op, f'activation "{activation}" needs a floating-point result, got {elem}')


def activation_properties(
    activation: str, clip_min: float | None, clip_max: float | None
) -> dict[str, Attribute]:
    props: dict[str, Attribute] = {"activation": StringAttr(activation)}
    if clip_min is not None:
        props["clip_min"] = FloatAttr(clip_min, f32)
    if clip_max is not None:
        props["clip_max"] = FloatAttr(clip_max, f32)
    return props


# --------------------------------------------------------------------------------------------
# Convolution and matrix product with bias and activation
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class FusedConv2DOp(ConvOpBase):
    """GE FusedConv2D: `activation(conv2d(x, filter) + bias)` as one node.

    Operands and properties are those of `graph.conv2d` (same checks); `activation` names the
    function applied to the biased convolution (see `ACTIVATIONS`), `clip_min`/`clip_max`
    the bounds of "clip". Produced by `ge-fuse-conv-activation`. Not a GE prototype: GE's
    UB fusion runs Conv2D and Relu as one kernel under one fusion scope; the op follows
    TensorFlow's `_FusedConv2D` (`fused_ops = ["BiasAdd", "Relu"]`).

        %y = graph.fused_conv2d %x, %w, %b strides [1, 1, 1, 1] pads [1, 1, 1, 1]
            activation "relu6"
            : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
    """

    name = "graph.fused_conv2d"
    GE_TYPE: ClassVar[str] = "FusedConv2D"
    HEAVY_PORTS: ClassVar[Mapping[str, str]] = {
        "x": "NC1HWC0",
        "filter": "FRACTAL_Z",
        "y": "NC1HWC0",
    }
    SPATIAL: ClassVar[int] = 2

    strides = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64), default_value=int_array((0, 0, 0, 0)))
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=int_array((1, 1, 1, 1)))
    groups = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    activation = prop_def(StringAttr)
    clip_min = opt_prop_def(FloatAttr.constr(f32))
    clip_max = opt_prop_def(FloatAttr.constr(f32))

    def __init__(
        self,
        x: SSAValue | Operation,
        filter: SSAValue | Operation,
        bias: SSAValue | Operation | None = None,
        *,
        strides: Sequence[int],
        activation: str,
        clip_min: float | None = None,
        clip_max: float | None = None,
        pads: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        groups: int = 1,
        data_format: str | None = None,
        result_type: Attribute | None = None,
    ) -> None:
        super().__init__(
            x,
            filter,
            bias,
            strides=strides,
            pads=pads,
            dilations=dilations,
            groups=groups,
            data_format=data_format,
            result_type=result_type,
        )
        self.properties |= activation_properties(activation, clip_min, clip_max)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        sx, sf = tensor_shape(operand_types[0]), tensor_shape(operand_types[1])
        shape = None
        if sx is not None and sf is not None and len(sx) == len(sf) == 4:
            shape = conv_output_shape(
                sx,
                sf,
                prop_ints(cls, properties, "strides"),
                prop_ints(cls, properties, "pads"),
                prop_ints(cls, properties, "dilations"),
                prop_str(cls, properties, "data_format"),
            )
        return (tensor_of(element_type(operand_types[0]), shape),)

    def verify_(self) -> None:
        super().verify_()
        verify_activation(self)


@irdl_op_definition
class FusedMatMulOp(GEOp, NodeSyntax):
    """GE FusedMatMul: `activation(matmul(x1, x2) + bias)` as one node.

    The product is `graph.batch_mat_mul_v2`'s (numpy.matmul after the `adj_x1`/`adj_x2`
    swaps of the last two dims, batch dims broadcast; a 2-D `graph.matmul` is the case
    without batch dims, its `transpose_x*` being `adj_x*`); the optional `bias` broadcasts
    against the product without enlarging it. `activation`, `clip_min` and `clip_max` are as
    in `graph.fused_conv2d`. Produced by `ge-fuse-matmul-activation`; follows TensorFlow's
    `_FusedMatMul` (not a GE prototype).

        %y = graph.fused_mat_mul %a, %w, %b activation "relu"
            : (tensor<2x4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
    """

    name = "graph.fused_mat_mul"
    GE_TYPE: ClassVar[str] = "FusedMatMul"
    HEAVY_PORTS: ClassVar[Mapping[str, str]] = {
        "x1": "FRACTAL_NZ",
        "x2": "FRACTAL_NZ",
        "y": "FRACTAL_NZ",
    }

    x1 = operand_def(AnyTensor)
    x2 = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    adj_x1 = prop_def(BoolAttr, default_value=FALSE)
    adj_x2 = prop_def(BoolAttr, default_value=FALSE)
    activation = prop_def(StringAttr)
    clip_min = opt_prop_def(FloatAttr.constr(f32))
    clip_max = opt_prop_def(FloatAttr.constr(f32))

    traits = traits_def(Pure())

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        bias: SSAValue | Operation | None = None,
        *,
        activation: str,
        clip_min: float | None = None,
        clip_max: float | None = None,
        adj_x1: bool = False,
        adj_x2: bool = False,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"adj_x1": bool_attr(adj_x1), "adj_x2": bool_attr(adj_x2)}
        props |= activation_properties(activation, clip_min, clip_max)
        operands = [x1, x2, [] if bias is None else [bias]]
        if result_type is None:
            types = [SSAValue.get(v).type for v in (x1, x2)]
            if bias is not None:
                types.append(SSAValue.get(bias).type)
            (result_type,) = self.infer_result_types(types, props, lambda i: None)
        super().__init__(operands=operands, result_types=[result_type], properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        s1, s2 = tensor_shape(operand_types[0]), tensor_shape(operand_types[1])
        shape = None
        if s1 is not None and s2 is not None and s1 and s2:
            shape = batch_matmul_shape(
                s1,
                s2,
                properties["adj_x1"] == bool_attr(True),
                properties["adj_x2"] == bool_attr(True),
            )
        return (tensor_of(element_type(operand_types[0]), shape),)

    def verify_(self) -> None:
        types = [self.x1.type, self.x2.type, self.y.type]
        if self.bias is not None:
            types.append(self.bias.type)
        verify_element_types(self, types, "operands and result")
        for what, value in (("x1", self.x1), ("x2", self.x2)):
            shape = tensor_shape(value.type)
            if shape is not None and not shape:
                fail(self, f"{what} must have at least one dim")
        try:
            (expected,) = self.infer_result_types(
                [self.x1.type, self.x2.type], self.properties, lambda i: None
            ) or (None,)
        except ValueError as e:
            fail(self, str(e))
        product = tensor_shape(expected) if expected is not None else None
        verify_result_shape(self, product, "the product shape")
        if self.bias is not None and product is not None:
            bias = tensor_shape(self.bias.type)
            try:
                widened = broadcast_shape(product, bias)
            except ValueError:
                widened = None
            if bias is not None and (widened is None or len(widened) != len(product)):
                fail(self, f"bias of type {self.bias.type} does not broadcast to the product")
            if widened is not None and any(
                p >= 0 and w != p for p, w in zip(product, widened, strict=True)
            ):
                fail(self, f"bias of type {self.bias.type} would enlarge the product")
        verify_activation(self)


# --------------------------------------------------------------------------------------------
# Elementwise (elewise_calculation_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class FusedMulAddOp(GEOp, NodeSyntax):
    """GE FusedMulAdd: `y = x1 * x2 + x3`, elementwise with numpy broadcasting of all three.

    The scale-shift form of a Mul followed by an Add (`ge-fuse-mul-add`). GE allows float16,
    float32 and int32; here any one numeric element type shared by operands and result.

        %y = graph.fused_mul_add %x, %scale, %shift
            : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
    """

    name = "graph.fused_mul_add"
    GE_TYPE: ClassVar[str] = "FusedMulAdd"

    x1 = operand_def(AnyTensor)
    x2 = operand_def(AnyTensor)
    x3 = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        x3: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        if result_type is None:
            types = [SSAValue.get(v).type for v in (x1, x2, x3)]
            (result_type,) = self.infer_result_types(types, {}, lambda i: None)
        super().__init__(operands=[x1, x2, x3], result_types=[result_type])

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        s1, s2, s3 = (tensor_shape(t) for t in operand_types)
        shape = broadcast_shape(broadcast_shape(s1, s2), s3)
        return (tensor_of(element_type(operand_types[0]), shape),)

    def verify_(self) -> None:
        types = (self.x1.type, self.x2.type, self.x3.type, self.y.type)
        verify_element_types(self, types, "operands and result")
        verify_kind(self, "x1", self.x1.type, "numeric")
        try:
            (expected,) = self.infer_result_types(types[:3], {}, lambda i: None)
        except ValueError as e:
            fail(self, f"operand {e}")
        verify_result_shape(self, tensor_shape(expected), "the broadcast shape")


# --------------------------------------------------------------------------------------------

__all__ = ["FusedConv2DOp", "FusedMatMulOp", "FusedMulAddOp"]

OPS = (FusedConv2DOp, FusedMatMulOp, FusedMulAddOp)
"""The ops of this module, in the order the dialect lists them."""
