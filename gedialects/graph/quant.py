"""Quantisation (GE quantize_ops.h): Quantize (float -> integer) and AscendAntiQuantV2
(integer -> float), which ONNX QuantizeLinear / DequantizeLinear import to, per tensor, per
axis or in blocks; AscendDequant (int32 accumulator -> float), the end of an int8 Conv2D or
MatMul that `ge-fuse-quant` makes."""

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
    IntegerAttr,
    IntegerType,
    StringAttr,
    i32,
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

from gedialects.base import GEOp, NodeSyntax, OperandValues, dims_agree, element_type, tensor_shape
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    bool_attr,
    fail,
    format_shape,
    i64_attr,
    prop_int,
    tensor_of,
    verify_inferred,
)
from gedialects.graph.elementwise import is_float


def check_params(
    x: Sequence[int] | None, params: Sequence[Sequence[int] | None], axis: int, block: int
) -> None:
    """Scale / zero point shapes: one value, `[C]` along `axis`, or (`block` > 0) x's shape
    with `ceil(C / block)` along `axis`. ValueError naming the mismatch."""
    if block < 0:
        raise ValueError(f"block_size must be non-negative, got {block}")
    for p in params:
        if (
            p is None
            or x is None
            or (not block and (not p or (len(p) == 1 and (p[0] == 1 or p[0] < 0))))
        ):
            continue  # one value (or not known): no axis involved
        rank = len(x)
        if not -rank <= axis < rank:
            raise ValueError(f"axis {axis} is out of range for rank {rank}")
        a = axis % rank
        if block:
            expect = [*x[:a], -1 if x[a] < 0 else -(-x[a] // block), *x[a + 1 :]]
            if len(p) != rank or any(
                e >= 0 and d >= 0 and e != d for e, d in zip(expect, p, strict=True)
            ):
                raise ValueError(
                    f"blocked scale {format_shape(p)} does not fit x {format_shape(x)} in "
                    f"blocks of {block} on axis {a}"
                )
        elif len(p) > 1 or not dims_agree(x[a], p[0]):
            raise ValueError(f"scale {format_shape(p)} is neither one value nor [{x[a]}]")


class _QuantOpBase(GEOp, NodeSyntax):
    axis = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    block_size = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))

    traits = traits_def(Pure())


@irdl_op_definition
class QuantizeOp(_QuantOpBase):
    """GE Quantize: `y = saturate(round(x / scales) + zero_points)` in the zero points' type.

    Rounds half to even and saturates to the integer type's range (int8, uint8, int16, uint16,
    int32). `scales` and `zero_points` hold one value, one per index of `axis` (GE's per-axis
    form), or, with `block_size` > 0 (ONNX's blocked quantisation), one per block of that many
    elements along `axis`.

        %y = graph.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
    """

    name = "graph.quantize"
    GE_TYPE: ClassVar[str] = "Quantize"

    x = operand_def(AnyTensor)
    scales = operand_def(AnyTensor)
    zero_points = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    def __init__(
        self,
        x: SSAValue | Operation,
        scales: SSAValue | Operation,
        zero_points: SSAValue | Operation,
        *,
        axis: int = 1,
        block_size: int = 0,
    ) -> None:
        props: dict[str, Attribute] = {"axis": i64_attr(axis), "block_size": i64_attr(block_size)}
        operands = [x, scales, zero_points]
        (result,) = self.infer_result_types(
            [SSAValue.get(v).type for v in operands], props, lambda i: None
        )
        super().__init__(operands=operands, result_types=[result], properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """x's shape in the zero points' element type."""
        if len(operand_types) != 3:
            raise ValueError(f"'{cls.name}' takes 3 operands, got {len(operand_types)}")
        x = tensor_shape(operand_types[0])
        check_params(
            x,
            [tensor_shape(t) for t in operand_types[1:]],
            prop_int(cls, properties, "axis"),
            prop_int(cls, properties, "block_size"),
        )
        return (tensor_of(element_type(operand_types[2]), x),)

    def verify_(self) -> None:
        for what, value in (("x", self.x), ("scales", self.scales)):
            if not is_float(element_type(value.type)):
                fail(self, f"{what} must be a floating-point tensor, got {value.type}")
        elem = element_type(self.zero_points.type)
        if not isinstance(elem, IntegerType) or elem.width.data not in (8, 16, 32):
            fail(self, f"zero_points must be an 8, 16 or 32-bit integer tensor, got {elem}")
        verify_inferred(self, "the shape of x")


@irdl_op_definition
class AscendAntiQuantV2Op(_QuantOpBase):
    """GE AscendAntiQuantV2: `y = (x + offset) * scale`, integers back to floats.

    ONNX DequantizeLinear's `(x - zero_point) * scale` with `offset = -zero_point` (the import
    folds or computes it). `scale` and the optional `offset` broadcast as in `graph.quantize`
    (GE's kernel takes one value or the last dim; the axis and blocks are ONNX's); GE's
    `dst_type` is the result element type (`"f16"`, `"bf16"`, `"f32"`, `"f64"`), kept only when
    it is not the scale's, so that shape inference gives it back.

        %y = graph.ascend_anti_quant_v2 %x, %s, %o
            : (tensor<4xi8>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    """

    name = "graph.ascend_anti_quant_v2"
    GE_TYPE: ClassVar[str] = "AscendAntiQuantV2"

    x = operand_def(AnyTensor)
    scale = operand_def(AnyTensor)
    offset = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    dst_type = opt_prop_def(StringAttr)

    DST_TYPES: ClassVar[dict[str, type[Attribute]]] = {
        "f16": Float16Type,
        "bf16": BFloat16Type,
        "f32": Float32Type,
        "f64": Float64Type,
    }

    def __init__(
        self,
        x: SSAValue | Operation,
        scale: SSAValue | Operation,
        offset: SSAValue | Operation | None = None,
        *,
        axis: int = 1,
        block_size: int = 0,
        dst_type: Attribute | None = None,
    ) -> None:
        """`dst_type`: the result element type, by default the scale's."""
        props: dict[str, Attribute] = {"axis": i64_attr(axis), "block_size": i64_attr(block_size)}
        operands = [x, scale, [] if offset is None else [offset]]
        types = [SSAValue.get(v).type for v in (x, scale)]
        if offset is not None:
            types.append(SSAValue.get(offset).type)
        if dst_type is not None and dst_type != element_type(types[1]):
            name = next((k for k, v in self.DST_TYPES.items() if isinstance(dst_type, v)), None)
            if name is None:
                raise ValueError(f"'{self.name}' dst_type must be a float type, got {dst_type}")
            props["dst_type"] = StringAttr(name)
        (result,) = self.infer_result_types(types, props, lambda i: None)
        super().__init__(operands=operands, result_types=[result], properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """x's shape in `dst_type`, by default the scale's element type."""
        if len(operand_types) not in (2, 3):
            raise ValueError(f"'{cls.name}' takes 2 or 3 operands, got {len(operand_types)}")
        x = tensor_shape(operand_types[0])
        check_params(
            x,
            [tensor_shape(t) for t in operand_types[1:]],
            prop_int(cls, properties, "axis"),
            prop_int(cls, properties, "block_size"),
        )
        dst = properties.get("dst_type")
        if isinstance(dst, StringAttr):
            kind = cls.DST_TYPES.get(dst.data)
            if kind is None:
                raise ValueError(
                    f"'{cls.name}' dst_type must be one of {', '.join(cls.DST_TYPES)}, "
                    f"got {dst.data!r}"
                )
            return (tensor_of(kind(), x),)
        return (tensor_of(element_type(operand_types[1]), x),)

    def verify_(self) -> None:
        elem = element_type(self.x.type)
        if not isinstance(elem, IntegerType) or elem.width.data not in (8, 16, 32):
            fail(self, f"x must be an 8, 16 or 32-bit integer tensor, got {elem}")
        for what, value in (("scale", self.scale), ("result", self.y)):
            if not is_float(element_type(value.type)):
                fail(self, f"{what} must be a floating-point tensor, got {value.type}")
        if self.offset is not None and element_type(self.offset.type) != element_type(
            self.scale.type
        ):
            fail(self, "offset must have the element type of scale")
        verify_inferred(self, "the shape of x and dst_type")


@irdl_op_definition
class AscendDequantOp(GEOp, NodeSyntax):
    """GE AscendDequant: `y = x * deq_scale` (then max(y, 0) with `relu_flag`), the int32
    accumulator of an int8 Conv2D or MatMul back to floats.

    `deq_scale` is `x_scale * w_scale`, one value or one per output channel: 1-D of x's last
    dim (GE's form, a MatMul's N), or of x's rank with every dim 1 but one (an NCHW
    convolution's [1, C, 1, 1]). Deviations from GE: `deq_scale` is a float tensor (GE packs
    the float32 into a uint64) and the result element type is its element type (GE's `dtype`
    attribute); `sqrt_mode` is not modelled. Made by `ge-fuse-quant`.

        %y = graph.ascend_dequant %acc, %s relu_flag true
            : (tensor<1x8x4x4xi32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
    """

    name = "graph.ascend_dequant"
    GE_TYPE: ClassVar[str] = "AscendDequant"

    x = operand_def(AnyTensor)
    deq_scale = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    relu_flag = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    def __init__(
        self, x: SSAValue | Operation, deq_scale: SSAValue | Operation, *, relu_flag: bool = False
    ) -> None:
        props: dict[str, Attribute] = {"relu_flag": bool_attr(relu_flag)}
        operands = [x, deq_scale]
        (result,) = self.infer_result_types(
            [SSAValue.get(v).type for v in operands], props, lambda i: None
        )
        super().__init__(operands=operands, result_types=[result], properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """x's shape in deq_scale's element type."""
        if len(operand_types) != 2:
            raise ValueError(f"'{cls.name}' takes 2 operands, got {len(operand_types)}")
        x, scale = (tensor_shape(t) for t in operand_types)
        if x is not None and scale is not None and not _channel_scale(x, scale):
            raise ValueError(
                f"deq_scale {list(scale)} is neither one value, [{x[-1] if x else 1}] nor one "
                f"per index of one dim of x {list(x)}"
            )
        return (tensor_of(element_type(operand_types[1]), x),)

    def verify_(self) -> None:
        if element_type(self.x.type) != i32:
            fail(self, f"x must be an i32 tensor, got {self.x.type}")
        if not is_float(element_type(self.deq_scale.type)):
            fail(self, f"deq_scale must be a floating-point tensor, got {self.deq_scale.type}")
        verify_inferred(self, "the shape of x")


def _channel_scale(x: Sequence[int], scale: Sequence[int]) -> bool:
    """`scale` is one value, x's last dim, or x's rank with 1 in every dim but one."""
    if all(d == 1 for d in scale):
        return len(scale) <= max(len(x), 1)
    if len(scale) == 1:
        return bool(x) and x[-1] in (-1, scale[0])
    if len(scale) != len(x):
        return False
    wide = [i for i, d in enumerate(scale) if d != 1]
    return len(wide) == 1 and x[wide[0]] in (-1, scale[wide[0]])


__all__ = ["AscendAntiQuantV2Op", "AscendDequantOp", "QuantizeOp", "check_params"]

OPS = (QuantizeOp, AscendAntiQuantV2Op, AscendDequantOp)
"""The ops of this module, in the order the dialect lists them."""
