"""Pooling ops (GE nn_pooling_ops.h)."""

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
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import (
    Pure,
)

from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    element_type,
    int_array,
    tensor_shape,
    types_compatible,
)
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    bool_attr,
    build_result_types,
    fail,
    format_shape,
    infer_or_fail,
    init_node,
    operand_count,
    prop_bool,
    prop_ints,
    prop_str,
    spatial_axes,
    tensor_of,
    verify_element_types,
    verify_inferred,
    verify_result_shape,
    window_output_size,
)

# --------------------------------------------------------------------------------------------
# Windowed pooling
# --------------------------------------------------------------------------------------------

POOL_FORMATS = ("NCHW", "NHWC")


def pool_output_shape(
    x: Sequence[int],
    ksize: Sequence[int],
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    ceil_mode: bool,
    data_format: str,
) -> tuple[int, ...]:
    """Pooled shape (ONNX rule, see `window_output_size`); -1 where the input dim is unknown."""
    out = [d if d >= 0 else -1 for d in x]
    for i, axis in enumerate(spatial_axes(data_format, len(x))):
        if x[axis] >= 0:
            out[axis] = window_output_size(
                x[axis],
                ksize[axis],
                strides[axis],
                dilations[axis],
                pads[2 * i],
                pads[2 * i + 1],
                ceil_mode,
            )
    return tuple(out)


class PoolOpBase(GEOp, NodeSyntax):
    """Properties, builder and verifier shared by the windowed pooling ops.

    `x` is N, C, spatial... ("NCHW", any rank >= 3) or 4-D "NHWC". `ksize`, `strides` and
    `dilations` have one entry per dim of `x` in data_format order, 1 for N and C (GE's 4-D
    convention, extended to 1-D and 3-D pooling); `pads` has [begin, end] per spatial dim
    ([top, bottom, left, right] in 2-D). Empty `pads`/`dilations` (the defaults; GE's are
    [0, 0, 0, 0] and [1, 1, 1, 1]) mean none at any rank. `ceil_mode` rounds the output size
    up, dropping a last window that would start in the end padding (ONNX's rule).
    """

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    ksize = prop_def(DenseArrayBase.constr(i64))
    strides = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64), default_value=int_array(()))
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=int_array(()))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    ceil_mode = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        ksize: Sequence[int],
        strides: Sequence[int],
        pads: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        data_format: str = "NCHW",
        ceil_mode: bool = False,
        result_types: Sequence[Attribute] | None = None,
        extra_properties: dict[str, Attribute] | None = None,
    ) -> None:
        pads = () if pads is None or not any(pads) else tuple(pads)
        dilations = () if dilations is None or all(d == 1 for d in dilations) else tuple(dilations)
        props: dict[str, Attribute] = {
            "ksize": int_array(ksize),
            "strides": int_array(strides),
            "pads": int_array(pads),
            "dilations": int_array(dilations),
            "data_format": StringAttr(data_format),
            "ceil_mode": bool_attr(ceil_mode),
            **(extra_properties or {}),
        }
        if result_types is None:
            result_types = build_result_types(type(self), [x], props)
        super().__init__(operands=[x], result_types=list(result_types), properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The pooled shape; `ksize` gives the rank of an unranked x."""
        operand_count(cls, operand_types, 1)
        (tx,) = operand_types
        data_format = prop_str(cls, properties, "data_format")
        if data_format not in POOL_FORMATS:
            raise ValueError(f'data_format must be "NCHW" or "NHWC", got "{data_format}"')
        ksize = prop_ints(cls, properties, "ksize")
        strides = prop_ints(cls, properties, "strides")
        rank = len(ksize)
        if rank < 3 or (data_format == "NHWC" and rank != 4):
            raise ValueError(
                f"ksize must have one entry per dim of a 3-D or higher x, got {list(ksize)}"
            )
        pads = prop_ints(cls, properties, "pads") or (0,) * (2 * rank - 4)
        dilations = prop_ints(cls, properties, "dilations") or (1,) * rank
        for what, dims, count in (
            ("strides", strides, rank),
            ("pads", pads, 2 * (rank - 2)),
            ("dilations", dilations, rank),
        ):
            if len(dims) != count:
                raise ValueError(f"{what} must have {count} values, got {list(dims)}")
        channel = rank - 1 if data_format == "NHWC" else 1
        for what, dims in (("ksize", ksize), ("strides", strides), ("dilations", dilations)):
            if any(v < 1 for v in dims):
                raise ValueError(f"{what} must be positive, got {list(dims)}")
            if dims[0] != 1 or dims[channel] != 1:
                raise ValueError(f"{what} must be 1 in the N and C dims, got {list(dims)}")
        if any(p < 0 for p in pads):
            raise ValueError(f"pads must be non-negative, got {list(pads)}")
        for i, axis in enumerate(spatial_axes(data_format, rank)):
            window = dilations[axis] * (ksize[axis] - 1) + 1
            if pads[2 * i] >= window or pads[2 * i + 1] >= window:
                raise ValueError(f"pads {list(pads)} must be smaller than the window {list(ksize)}")
        x = tensor_shape(tx)
        if x is not None and len(x) != rank:
            raise ValueError(f"x has rank {len(x)}, but ksize has {rank} entries")
        x = (-1,) * rank if x is None else x
        ceil_mode = prop_bool(cls, properties, "ceil_mode")
        shape = pool_output_shape(x, ksize, strides, pads, dilations, ceil_mode, data_format)
        if any(d == 0 for d in shape) and 0 not in x:
            raise ValueError(f"the window does not fit the padded input {format_shape(x)}")
        return (tensor_of(element_type(tx), shape),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        (y, *_) = infer_or_fail(self)
        verify_result_shape(self, tensor_shape(y), "the pooled shape")


@irdl_op_definition
class MaxPoolV3Op(PoolOpBase):
    """GE MaxPoolV3: the maximum over each (dilated) window; padding never wins.

    See `PoolOpBase` for the window properties. Deviations from GE: `dilations` (ONNX MaxPool)
    is added, ranks other than 4 are accepted (GE uses MaxPool3D for 5-D), and `padding_mode`
    is always "CALCULATED" (the importer resolves ONNX auto_pad to explicit pads).

        %y = graph.max_pool_v3 %x ksize [1, 1, 3, 3] strides [1, 1, 2, 2] pads [1, 1, 1, 1]
            : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
    """

    name = "graph.max_pool_v3"
    GE_TYPE: ClassVar[str] = "MaxPoolV3"
    HEAVY_PORTS: ClassVar[Mapping[str, str]] = {"x": "NC1HWC0", "y": "NC1HWC0"}


@irdl_op_definition
class MaxPoolWithArgmaxOp(PoolOpBase):
    """GE MaxPoolWithArgmax: max pooling that also returns where each maximum came from.

    `argmax` (int64) is the flat index of the maximum in `x` including the batch (TensorFlow's
    `include_batch_in_index`, ONNX MaxPool's `Indices`); `storage_order` 1 numbers the spatial
    dims column-major, as ONNX does. The window properties are those of `graph.max_pool_v3`
    (GE's op takes `padding` "SAME"/"VALID" instead of pads; ONNX's form is modelled).

        %y, %i = graph.max_pool_with_argmax %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2]
            : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
    """

    name = "graph.max_pool_with_argmax"
    GE_TYPE: ClassVar[str] = "MaxPoolWithArgmax"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)
    argmax = result_def(AnyTensor)

    storage_order = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        ksize: Sequence[int],
        strides: Sequence[int],
        pads: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        ceil_mode: bool = False,
        storage_order: int = 0,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        super().__init__(
            x,
            ksize=ksize,
            strides=strides,
            pads=pads,
            dilations=dilations,
            ceil_mode=ceil_mode,
            result_types=result_types,
            extra_properties={"storage_order": IntegerAttr(storage_order, i64)},
        )

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """y as for the other pools, and int64 argmax of its shape."""
        (y, *_) = super().infer_result_types(operand_types, properties, values)
        return (y, tensor_of(i64, tensor_shape(y)))

    def verify_(self) -> None:
        super().verify_()
        if self.data_format.data != "NCHW":
            fail(self, 'supports data_format "NCHW" only')
        if self.storage_order.value.data not in (0, 1):
            fail(self, f"storage_order must be 0 or 1, got {self.storage_order.value.data}")
        if element_type(self.argmax.type) != i64:
            fail(self, f"argmax must be an i64 tensor, got {self.argmax.type}")
        if not types_compatible(tensor_of(i64, tensor_shape(self.y.type)), self.argmax.type):
            fail(self, f"argmax type {self.argmax.type} differs from the shape of y {self.y.type}")


@irdl_op_definition
class AvgPoolV2Op(PoolOpBase):
    """GE AvgPoolV2: the mean over each window.

    `exclusive` (GE's name; ONNX count_include_pad = 0) divides by the number of input elements
    in the window, otherwise by the window size clipped to the explicitly padded input (ONNX's
    rule for ceil_mode windows); `divisor_override` > 0 replaces the divisor. See `PoolOpBase`
    for the window properties; deviations from GE as for `graph.max_pool_v3`.

        %y = graph.avg_pool_v2 %x ksize [1, 1, 3, 3] strides [1, 1, 1, 1] pads [1, 1, 1, 1]
            exclusive false : (tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
    """

    name = "graph.avg_pool_v2"
    GE_TYPE: ClassVar[str] = "AvgPoolV2"
    HEAVY_PORTS: ClassVar[Mapping[str, str]] = {"x": "NC1HWC0", "y": "NC1HWC0"}

    exclusive = prop_def(BoolAttr, default_value=bool_attr(True))
    divisor_override = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        ksize: Sequence[int],
        strides: Sequence[int],
        pads: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        data_format: str = "NCHW",
        ceil_mode: bool = False,
        exclusive: bool = True,
        divisor_override: int = 0,
        result_type: Attribute | None = None,
    ) -> None:
        super().__init__(
            x,
            ksize=ksize,
            strides=strides,
            pads=pads,
            dilations=dilations,
            data_format=data_format,
            ceil_mode=ceil_mode,
            result_types=None if result_type is None else [result_type],
            extra_properties={
                "exclusive": bool_attr(exclusive),
                "divisor_override": IntegerAttr(divisor_override, i64),
            },
        )

    def verify_(self) -> None:
        super().verify_()
        if self.divisor_override.value.data < 0:
            fail(self, f"divisor_override must be >= 0, got {self.divisor_override.value.data}")


@irdl_op_definition
class LpPoolOp(PoolOpBase):
    """GE LpPool: `(sum |x|^p)^(1/p)` over each window (ONNX op; GE has only GlobalLpPool).

    Padding contributes zeros. See `PoolOpBase` for the window properties.

        %y = graph.lp_pool %x ksize [1, 1, 2, 2] strides [1, 1, 1, 1] p 3.0
            : (tensor<1x3x8x8xf32>) -> tensor<1x3x7x7xf32>
    """

    name = "graph.lp_pool"
    GE_TYPE: ClassVar[str] = "LpPool"

    p = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(2.0, f32))

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        ksize: Sequence[int],
        strides: Sequence[int],
        pads: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        ceil_mode: bool = False,
        p: float = 2.0,
        result_type: Attribute | None = None,
    ) -> None:
        super().__init__(
            x,
            ksize=ksize,
            strides=strides,
            pads=pads,
            dilations=dilations,
            ceil_mode=ceil_mode,
            result_types=None if result_type is None else [result_type],
            extra_properties={"p": FloatAttr(p, f32)},
        )

    def verify_(self) -> None:
        super().verify_()
        if not self.p.value.data > 0:
            fail(self, f"p must be positive, got {self.p.value.data}")


# --------------------------------------------------------------------------------------------
# Global pooling
# --------------------------------------------------------------------------------------------


class GlobalPoolOpBase(GEOp, NodeSyntax):
    """Pools over all spatial dims of N, C, spatial... `x`; the result keeps them as 1s."""

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
        properties: dict[str, Attribute] | None = None,
    ) -> None:
        init_node(self, [x], result_type, properties or {})

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """N, C, then 1 per spatial dim."""
        operand_count(cls, operand_types, 1)
        (tx,) = operand_types
        x = tensor_shape(tx)
        if x is not None and len(x) < 3:
            raise ValueError(f"x must be N, C and at least one spatial dim, got {tx}")
        shape = None if x is None else (*x[:2], *(1 for _ in x[2:]))
        return (tensor_of(element_type(tx), shape),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_inferred(self, "the pooled shape")


@irdl_op_definition
class GlobalAveragePoolOp(GlobalPoolOpBase):
    """GE GlobalAveragePool: the mean over all spatial dims of N, C, spatial... `x`.

    %y = graph.global_average_pool %x : (tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32>
    """

    name = "graph.global_average_pool"
    GE_TYPE: ClassVar[str] = "GlobalAveragePool"


@irdl_op_definition
class GlobalMaxPoolOp(GlobalPoolOpBase):
    """GE GlobalMaxPool: the maximum over all spatial dims (ONNX op; GE has none).

    %y = graph.global_max_pool %x : (tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32>
    """

    name = "graph.global_max_pool"
    GE_TYPE: ClassVar[str] = "GlobalMaxPool"


@irdl_op_definition
class GlobalLpPoolOp(GlobalPoolOpBase):
    """GE GlobalLpPool: `(sum |x|^p)^(1/p)` over all spatial dims.

    %y = graph.global_lp_pool %x p 3.0 : (tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32>
    """

    name = "graph.global_lp_pool"
    GE_TYPE: ClassVar[str] = "GlobalLpPool"

    p = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(2.0, f32))

    def __init__(
        self, x: SSAValue | Operation, *, p: float = 2.0, result_type: Attribute | None = None
    ) -> None:
        super().__init__(x, result_type=result_type, properties={"p": FloatAttr(p, f32)})

    def verify_(self) -> None:
        if not self.p.value.data > 0:
            fail(self, f"p must be positive, got {self.p.value.data}")
        super().verify_()


# --------------------------------------------------------------------------------------------

__all__ = [
    "AvgPoolV2Op",
    "GlobalAveragePoolOp",
    "GlobalLpPoolOp",
    "GlobalMaxPoolOp",
    "LpPoolOp",
    "MaxPoolV3Op",
    "MaxPoolWithArgmaxOp",
    "pool_output_shape",
]

OPS = (
    MaxPoolV3Op,
    MaxPoolWithArgmaxOp,
    AvgPoolV2Op,
    LpPoolOp,
    GlobalAveragePoolOp,
    GlobalMaxPoolOp,
    GlobalLpPoolOp,
)
"""The ops of this module, in the order the dialect lists them."""
