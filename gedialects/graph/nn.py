"""Convolutions, resizing and depth/space rearrangement (GE nn_calculation_ops.h, image_ops.h,
transformation_ops.h)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
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
from xdsl.traits import (
    Pure,
)

from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    const_values,
    element_type,
    int_array,
    int_array_values,
    shapes_compatible,
    tensor_shape,
)
from gedialects.graph.common import (
    CONV_FORMATS,
    AnyTensor,
    channels_last,
    const_ints,
    fail,
    format_shape,
    init_node,
    is_int8,
    operand_count,
    product_element_type,
    prop_floats,
    prop_int,
    prop_ints,
    prop_str,
    spatial_axes,
    tensor_of,
    vector_length,
    verify_element_types,
    verify_inferred,
    verify_product_types,
    verify_rank,
    window_output_size,
)


def _ints_or_dynamic(x: Sequence[int], axis: int) -> int:
    return x[axis] if x[axis] >= 0 else -1


def _format_error(data_format: str, formats: Sequence[str]) -> str | None:
    if data_format in formats:
        return None
    choices = " or ".join(f'"{f}"' for f in formats)
    return f'data_format must be {choices}, got "{data_format}"'


def _verify_format(op: Operation, data_format: StringAttr, formats: Sequence[str]) -> None:
    if (message := _format_error(data_format.data, formats)) is not None:
        fail(op, message)


def ranked_dims(t: Attribute, rank: int, what: str) -> tuple[int, ...]:
    """The dims of operand type `t`, which must have `rank` dims; all `?` when unranked."""
    shape = tensor_shape(t)
    if shape is None:
        return (-1,) * rank
    if len(shape) != rank:
        raise ValueError(f"{what} must be {rank}-D, got {t}")
    return shape


def window_props(
    cls: type[GEOp], properties: Mapping[str, Attribute], rank: int, formats: Sequence[str]
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], str]:
    """strides, pads, dilations and data_format of a convolution, checked enough to compute
    with (ValueError otherwise)."""
    data_format = prop_str(cls, properties, "data_format")
    if (message := _format_error(data_format, formats)) is not None:
        raise ValueError(message)
    strides = prop_ints(cls, properties, "strides")
    pads = prop_ints(cls, properties, "pads")
    dilations = prop_ints(cls, properties, "dilations")
    for what, values, count in (
        ("strides", strides, rank),
        ("pads", pads, 2 * (rank - 2)),
        ("dilations", dilations, rank),
    ):
        if len(values) != count:
            raise ValueError(f"{what} must have {count} values, got {list(values)}")
    for what, values in (("strides", strides), ("dilations", dilations)):
        if any(v < 1 for v in values):
            raise ValueError(f"{what} must be positive, got {list(values)}")
    return strides, pads, dilations, data_format


# --------------------------------------------------------------------------------------------
# Convolution (nn_calculation_ops.h)
# --------------------------------------------------------------------------------------------


def conv_output_shape(
    x: Sequence[int],
    filter: Sequence[int],
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    data_format: str,
) -> tuple[int, ...]:
    """Result shape of a convolution in `data_format` order, -1 where an input dim is unknown.

    Spatial dim i: `(in + pads[2i] + pads[2i+1] - dilation * (k - 1) - 1) // stride + 1`.
    Raises ValueError when the dilated kernel is larger than the padded input.
    """
    rank = len(x)
    last = channels_last(data_format)
    c, o = (rank - 1, rank - 1) if last else (1, 0)
    taps = range(0, rank - 2) if last else range(2, rank)
    out = [_ints_or_dynamic(x, 0)] + [0] * (rank - 1)
    out[c] = _ints_or_dynamic(filter, o)
    for i, (axis, k) in enumerate(zip(spatial_axes(data_format, rank), taps, strict=True)):
        if x[axis] < 0 or filter[k] < 0:
            out[axis] = -1
        else:
            out[axis] = window_output_size(
                x[axis],
                filter[k],
                strides[axis],
                dilations[axis],
                pads[2 * i],
                pads[2 * i + 1],
                False,
            )
    axes = spatial_axes(data_format, rank)
    if any(out[a] == 0 for a in axes):
        kernel = [
            "?" if filter[k] < 0 else str(dilations[a] * (filter[k] - 1) + 1)
            for a, k in zip(axes, taps, strict=True)
        ]
        padded = [
            "?" if x[a] < 0 else str(x[a] + pads[2 * i] + pads[2 * i + 1])
            for i, a in enumerate(axes)
        ]
        raise ValueError(
            f"dilated {'x'.join(kernel)} kernel exceeds the padded {'x'.join(padded)} input"
        )
    return tuple(out)


class ConvOpBase(GEOp, NodeSyntax):
    """Shared definition of GE's Conv2D and Conv3D (see `Conv2DOp`)."""

    SPATIAL: ClassVar[int]
    INT8_FORM: ClassVar[bool] = False
    """Whether GE's int8 form is accepted: i8/ui8 x, i8 filter, i32 bias and result."""

    x = operand_def(AnyTensor)
    filter = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    if TYPE_CHECKING:
        # each subclass defines these properties with its own rank's defaults
        strides: DenseArrayBase[I64]
        pads: DenseArrayBase[I64]
        dilations: DenseArrayBase[I64]
        groups: IntegerAttr[I64]
        data_format: StringAttr

    def __init__(
        self,
        x: SSAValue | Operation,
        filter: SSAValue | Operation,
        bias: SSAValue | Operation | None = None,
        *,
        strides: Sequence[int],
        pads: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        groups: int = 1,
        data_format: str | None = None,
        result_type: Attribute | None = None,
    ) -> None:
        rank = self.SPATIAL + 2
        pads = (0,) * (2 * self.SPATIAL) if pads is None else tuple(pads)
        dilations = (1,) * rank if dilations is None else tuple(dilations)
        data_format = CONV_FORMATS[self.SPATIAL][0] if data_format is None else data_format
        props: dict[str, Attribute] = {
            "strides": int_array(strides),
            "pads": int_array(pads),
            "dilations": int_array(dilations),
            "groups": IntegerAttr(groups, i64),
            "data_format": StringAttr(data_format),
        }
        init_node(self, [x, filter, [] if bias is None else [bias]], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """N from x, C_out from the filter, the spatial dims by the window rule; a `?` input
        dim gives a `?` result dim, and the rank is known even for unranked operands."""
        operand_count(cls, operand_types, 2, 3)
        rank = cls.SPATIAL + 2
        strides, pads, dilations, data_format = window_props(
            cls, properties, rank, CONV_FORMATS[cls.SPATIAL]
        )
        x = ranked_dims(operand_types[0], rank, "x")
        filt = ranked_dims(operand_types[1], rank, "filter")
        shape = conv_output_shape(x, filt, strides, pads, dilations, data_format)
        if cls.INT8_FORM:
            return (tensor_of(product_element_type(operand_types, "x, filter and bias"), shape),)
        return (tensor_of(element_type(operand_types[0]), shape),)

    def verify_(self) -> None:
        rank = self.SPATIAL + 2
        data_format = self.data_format
        _verify_format(self, data_format, CONV_FORMATS[self.SPATIAL])
        last = channels_last(data_format.data)
        strides = int_array_values(self.strides)
        pads = int_array_values(self.pads)
        dilations = int_array_values(self.dilations)
        for what, values, count in (
            ("strides", strides, rank),
            ("pads", pads, 2 * self.SPATIAL),
            ("dilations", dilations, rank),
        ):
            if len(values) != count:
                fail(self, f"{what} must have {count} values, got {list(values)}")
        for what, values in (("strides", strides), ("dilations", dilations)):
            if any(v < 1 for v in values):
                fail(self, f"{what} must be positive, got {list(values)}")
            if values[0] != 1 or values[rank - 1 if last else 1] != 1:
                fail(self, f"{what} must be 1 in the N and C dims, got {list(values)}")
        if any(p < 0 for p in pads):
            fail(self, f"pads must be non-negative, got {list(pads)}")
        groups = self.groups.value.data
        if groups < 1:
            fail(self, f"groups must be positive, got {groups}")
        if self.INT8_FORM:
            operands = [self.x.type, self.filter.type]
            if self.bias is not None:
                operands.append(self.bias.type)
            verify_product_types(self, operands, self.y.type)
        else:
            types = [self.x.type, self.filter.type, self.y.type]
            if self.bias is not None:
                types.append(self.bias.type)
            verify_element_types(self, types, "operands and result")
        x = verify_rank(self, "x", self.x.type, rank)
        filt = verify_rank(self, "filter", self.filter.type, rank)
        verify_rank(self, "the result", self.y.type, rank)
        c_in = -1 if x is None else x[rank - 1 if last else 1]
        c_out = -1 if filt is None else filt[rank - 1 if last else 0]
        f_in = -1 if filt is None else filt[rank - 2 if last else 1]
        if c_in >= 0 and c_in % groups:
            fail(self, f"groups = {groups} does not divide the {c_in} input channels")
        if c_out >= 0 and c_out % groups:
            fail(self, f"groups = {groups} does not divide the {c_out} output channels")
        if c_in >= 0 and f_in >= 0 and f_in * groups != c_in:
            expected = c_in // groups
            fail(self, f"filter has {f_in} input channels, expected C_in / groups = {expected}")
        if self.bias is not None:
            bias = verify_rank(self, "bias", self.bias.type, 1)
            if bias is not None and not shapes_compatible(bias, (c_out,)):
                fail(self, f"bias has length {bias[0]}, expected C_out = {c_out}")
        verify_inferred(self, "the computed shape")


@irdl_op_definition
class Conv2DOp(ConvOpBase):
    """GE Conv2D: 2-D convolution with groups, strides, dilations and explicit padding.

    `strides` and `dilations` have 4 entries in `data_format` order (the N and C entries must
    be 1, as in GE); `pads` is [top, bottom, left, right]. For NCHW the filter is OIHW, for
    NHWC it is HWIO (GE's and TensorFlow's HWCN); I = C_in / groups and O = C_out. The optional
    `bias` is 1-D of length C_out. GE's default `data_format` is NHWC and `pads` is required;
    here NCHW (ONNX's layout) and zero pads are the defaults. ONNX 1-D Conv imports as this op
    over an H = 1 axis between two reshapes.

    GE's int8 form (what `ge-fuse-quant` makes): an i8 or ui8 x, an i8 filter, an i32 bias
    and an i32 result, accumulated exactly; `offset_x` (GE's attribute, the activation's
    quantisation offset) is the value the padding takes, so that a padded position reads the
    quantised zero. GE's `offset_w` input is not modelled (weights are symmetric).

        %y = graph.conv2d %x, %w, %b strides [1, 1, 2, 2] pads [1, 1, 1, 1]
            : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
    """

    name = "graph.conv2d"
    GE_TYPE: ClassVar[str] = "Conv2D"
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
    offset_x = opt_prop_def(IntegerAttr[I64])
    """GE's `offset_x`; absent is 0."""

    INT8_FORM: ClassVar[bool] = True

    def verify_(self) -> None:
        super().verify_()
        offset = 0 if self.offset_x is None else self.offset_x.value.data
        if offset and not is_int8(element_type(self.x.type)):
            fail(self, f"offset_x {offset} needs an 8-bit integer x, got {self.x.type}")
        if offset and not -256 < offset < 256:
            fail(self, f"offset_x must lie in (-256, 256), got {offset}")


@irdl_op_definition
class Conv3DOp(ConvOpBase):
    """GE Conv3D: 3-D convolution, the 5-D form of `graph.conv2d`.

    `strides` and `dilations` have 5 entries in `data_format` order (N and C entries 1), `pads`
    is [front, back, top, bottom, left, right]. NCDHW takes an OIDHW filter, NDHWC a DHWIO one.
    GE's default `data_format` is NDHWC and `pads` is required; here NCDHW and zero pads.

        %y = graph.conv3d %x, %w strides [1, 1, 1, 2, 2] pads [1, 1, 1, 1, 1, 1]
            : (tensor<1x2x4x8x8xf32>, tensor<4x2x3x3x3xf32>) -> tensor<1x4x4x4x4xf32>
    """

    name = "graph.conv3d"
    GE_TYPE: ClassVar[str] = "Conv3D"
    SPATIAL: ClassVar[int] = 3

    strides = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64), default_value=int_array((0,) * 6))
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=int_array((1,) * 5))
    groups = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCDHW"))


def conv_transpose_output_shape(
    x: Sequence[int],
    filter: Sequence[int],
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    output_padding: Sequence[int],
    groups: int,
    data_format: str,
) -> tuple[int, ...]:
    """Result shape of a transposed convolution; spatial dim i is
    `(in - 1) * stride + dilation * (k - 1) + 1 - pads[2i] - pads[2i+1] + output_padding`.

    Raises ValueError when the pads leave no output.
    """
    rank = len(x)
    last = channels_last(data_format)
    c, o = (rank - 1, rank - 2) if last else (1, 1)
    taps = range(0, rank - 2) if last else range(2, rank)
    out = [_ints_or_dynamic(x, 0)] + [0] * (rank - 1)
    out[c] = filter[o] * groups if filter[o] >= 0 else -1
    cropped: list[bool] = []
    for i, (axis, k) in enumerate(zip(spatial_axes(data_format, rank), taps, strict=True)):
        if x[axis] < 0 or filter[k] < 0:
            out[axis] = -1
        else:
            full = (x[axis] - 1) * strides[axis] + dilations[axis] * (filter[k] - 1) + 1
            out[axis] = full - pads[2 * i] - pads[2 * i + 1] + output_padding[axis]
            cropped.append(out[axis] <= 0)
    if any(cropped):
        raise ValueError(f"pads leave no output: computed shape {list(out)}")
    return tuple(out)


class ConvTransposeOpBase(GEOp, NodeSyntax):
    """Shared definition of GE's Conv2DTranspose and Conv3DTranspose (see `Conv2DTransposeOp`)."""

    SPATIAL: ClassVar[int]

    input_size = operand_def(AnyTensor)
    x = operand_def(AnyTensor)
    filter = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    if TYPE_CHECKING:
        # each subclass defines these properties with its own rank's defaults
        strides: DenseArrayBase[I64]
        pads: DenseArrayBase[I64]
        dilations: DenseArrayBase[I64]
        groups: IntegerAttr[I64]
        data_format: StringAttr
        output_padding: DenseArrayBase[I64]

    def __init__(
        self,
        input_size: SSAValue | Operation,
        x: SSAValue | Operation,
        filter: SSAValue | Operation,
        bias: SSAValue | Operation | None = None,
        *,
        strides: Sequence[int],
        pads: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        groups: int = 1,
        data_format: str | None = None,
        output_padding: Sequence[int] | None = None,
        result_type: Attribute | None = None,
    ) -> None:
        rank = self.SPATIAL + 2
        pads = (0,) * (2 * self.SPATIAL) if pads is None else tuple(pads)
        dilations = (1,) * rank if dilations is None else tuple(dilations)
        output_padding = (0,) * rank if output_padding is None else tuple(output_padding)
        data_format = CONV_FORMATS[self.SPATIAL][0] if data_format is None else data_format
        props: dict[str, Attribute] = {
            "strides": int_array(strides),
            "pads": int_array(pads),
            "dilations": int_array(dilations),
            "groups": IntegerAttr(groups, i64),
            "data_format": StringAttr(data_format),
            "output_padding": int_array(output_padding),
        }
        init_node(self, [input_size, x, filter, [] if bias is None else [bias]], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The computed shape (N from x, C_out = filter's O * groups, the scattered spatial
        extent), which a constant `input_size` must match and then fixes completely."""
        operand_count(cls, operand_types, 3, 4)
        rank = cls.SPATIAL + 2
        strides, pads, dilations, data_format = window_props(
            cls, properties, rank, CONV_FORMATS[cls.SPATIAL]
        )
        output_padding = prop_ints(cls, properties, "output_padding")
        if len(output_padding) != rank:
            raise ValueError(f"output_padding must have {rank} values, got {list(output_padding)}")
        groups = prop_int(cls, properties, "groups")
        if groups < 1:
            raise ValueError(f"groups must be positive, got {groups}")
        x = ranked_dims(operand_types[1], rank, "x")
        filt = ranked_dims(operand_types[2], rank, "filter")
        shape = conv_transpose_output_shape(
            x, filt, strides, pads, dilations, output_padding, groups, data_format
        )
        size = const_ints(values, 0)
        if size is not None:
            if len(size) != rank or not shapes_compatible(size, shape):
                raise ValueError(
                    f"input_size {list(size)} differs from the computed shape {format_shape(shape)}"
                )
            shape = size
        return (tensor_of(element_type(operand_types[1]), shape),)

    def verify_(self) -> None:
        rank = self.SPATIAL + 2
        data_format = self.data_format
        _verify_format(self, data_format, CONV_FORMATS[self.SPATIAL])
        last = channels_last(data_format.data)
        strides = int_array_values(self.strides)
        pads = int_array_values(self.pads)
        dilations = int_array_values(self.dilations)
        output_padding = int_array_values(self.output_padding)
        for what, values, count in (
            ("strides", strides, rank),
            ("pads", pads, 2 * self.SPATIAL),
            ("dilations", dilations, rank),
            ("output_padding", output_padding, rank),
        ):
            if len(values) != count:
                fail(self, f"{what} must have {count} values, got {list(values)}")
        for what, values in (("strides", strides), ("dilations", dilations)):
            if any(v < 1 for v in values):
                fail(self, f"{what} must be positive, got {list(values)}")
        for what, values in (("pads", pads), ("output_padding", output_padding)):
            if any(p < 0 for p in values):
                fail(self, f"{what} must be non-negative, got {list(values)}")
        groups = self.groups.value.data
        if groups < 1:
            fail(self, f"groups must be positive, got {groups}")
        size_type = self.input_size.type
        size = verify_rank(self, "input_size", size_type, 1)
        if not isinstance(element_type(size_type), IntegerType) or (
            size is not None and size[0] >= 0 and size[0] != rank
        ):
            fail(self, f"input_size must be a {rank}-element integer tensor, got {size_type}")
        types = [self.x.type, self.filter.type, self.y.type]
        if self.bias is not None:
            types.append(self.bias.type)
        verify_element_types(self, types, "x, filter, bias and result")
        x = verify_rank(self, "x", self.x.type, rank)
        filt = verify_rank(self, "filter", self.filter.type, rank)
        verify_rank(self, "the result", self.y.type, rank)
        c_in = -1 if x is None else x[rank - 1 if last else 1]
        f_in = -1 if filt is None else filt[rank - 1 if last else 0]
        if c_in >= 0 and c_in % groups:
            fail(self, f"groups = {groups} does not divide the {c_in} input channels")
        if c_in >= 0 and f_in >= 0 and f_in != c_in:
            fail(self, f"filter has {f_in} input channels, expected C_in = {c_in}")
        c_out = (
            -1
            if filt is None or filt[rank - 2 if last else 1] < 0
            else filt[rank - 2 if last else 1] * groups
        )
        if self.bias is not None:
            bias = verify_rank(self, "bias", self.bias.type, 1)
            if bias is not None and not shapes_compatible(bias, (c_out,)):
                fail(self, f"bias has length {bias[0]}, expected C_out = {c_out}")
        known_size = const_values(self.input_size) is not None
        verify_inferred(self, "input_size" if known_size else "the computed shape")


@irdl_op_definition
class Conv2DTransposeOp(ConvTransposeOpBase):
    """GE Conv2DTranspose: the gradient of Conv2D with respect to its input (deconvolution).

    `input_size` is the 1-D integer shape of the result (GE passes the forward input shape).
    Each input pixel scatters `filter` (NCHW: [C_in, C_out / groups, kh, kw], ONNX's layout;
    NHWC: [kh, kw, C_out / groups, C_in], TensorFlow's) into the full output of extent
    `(in - 1) * stride + dilation * (k - 1) + 1`, from which `pads` [top, bottom, left, right]
    crop and `output_padding` (4 entries, data_format order) adds zero rows at the end.
    GE's default data_format is NHWC; here NCHW. ONNX ConvTranspose imports as this op
    (1-D through an H = 1 axis).

        %s = graph.const dense<[1, 2, 8, 8]> : tensor<4xi64>
        %y = graph.conv2d_transpose %s, %x, %w strides [1, 1, 2, 2] pads [0, 1, 0, 1]
            : (tensor<4xi64>, tensor<1x3x4x4xf32>, tensor<3x2x3x3xf32>) -> tensor<1x2x8x8xf32>
    """

    name = "graph.conv2d_transpose"
    GE_TYPE: ClassVar[str] = "Conv2DTranspose"
    SPATIAL: ClassVar[int] = 2

    strides = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64), default_value=int_array((0, 0, 0, 0)))
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=int_array((1, 1, 1, 1)))
    groups = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    output_padding = prop_def(DenseArrayBase.constr(i64), default_value=int_array((0,) * 4))


@irdl_op_definition
class Conv3DTransposeOp(ConvTransposeOpBase):
    """GE Conv3DTranspose: the 5-D form of `graph.conv2d_transpose` (NCDHW or NDHWC).

    %s = graph.const dense<[1, 2, 5, 5, 5]> : tensor<5xi64>
    %y = graph.conv3d_transpose %s, %x, %w strides [1, 1, 1, 1, 1]
        : (tensor<5xi64>, tensor<1x1x3x3x3xf32>, tensor<1x2x3x3x3xf32>) -> tensor<1x2x5x5x5xf32>
    """

    name = "graph.conv3d_transpose"
    GE_TYPE: ClassVar[str] = "Conv3DTranspose"
    SPATIAL: ClassVar[int] = 3

    strides = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64), default_value=int_array((0,) * 6))
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=int_array((1,) * 5))
    groups = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCDHW"))
    output_padding = prop_def(DenseArrayBase.constr(i64), default_value=int_array((0,) * 5))


# --------------------------------------------------------------------------------------------
# Resizing (image_ops.h)
# --------------------------------------------------------------------------------------------

RESIZE_MODES = ("nearest", "linear", "cubic")
COORDINATE_MODES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
NEAREST_MODES = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")
EMPTY_F32 = DenseArrayBase.from_list(f32, ())


def resize_output_shape(
    x: Sequence[int], sizes: Sequence[int], scales: Sequence[float]
) -> tuple[int, ...]:
    """`sizes` when given, else `floor(in * scale)` per dim (-1 where `in` is unknown)."""
    if sizes:
        return tuple(sizes)
    return tuple(-1 if d < 0 else scaled_dim(d, s) for d, s in zip(x, scales, strict=True))


def scaled_dim(d: int, s: float) -> int:
    """`floor(d * s)`; ValueError for a scale of inf or NaN (no dim is that size)."""
    if not math.isfinite(s):
        raise ValueError(f"scale {s} is not finite")
    return int(d * s)


def _verify_resize_modes(op: ResizeDOp | ResizeOp) -> None:
    for what, value, choices in (
        ("mode", op.mode.data, RESIZE_MODES),
        (
            "coordinate_transformation_mode",
            op.coordinate_transformation_mode.data,
            COORDINATE_MODES,
        ),
        ("nearest_mode", op.nearest_mode.data, NEAREST_MODES),
    ):
        if value not in choices:
            fail(op, f'{what} "{value}" is not one of {", ".join(choices)}')
    if op.antialias.value.data and op.mode.data == "nearest":
        fail(op, "antialias applies to linear and cubic modes only")


@irdl_op_definition
class ResizeDOp(GEOp, NodeSyntax):
    """GE ResizeD: resizes `x` by nearest, (multi)linear or cubic interpolation, ONNX semantics.

    `sizes` (the result shape) and `scales` (output/input per dim) have one entry per dim of `x`
    (GE's 4-D NCHW form generalised to any rank); when `scales` is given the coordinate mapping
    uses it, as ONNX does, and an empty `sizes` means `floor(in * scale)`. `roi`
    ([starts..., ends...], normalised) is read for `tf_crop_and_resize` only. Deviations from
    GE: `roi` is f32 (GE lists ints), `antialias` (ONNX opset 18) is added, and `data_format`
    is implied by `sizes`. ONNX Resize/Upsample import as this op once their scales/sizes are
    constants.

        %y = graph.resize_d %x sizes [1, 1, 4, 4] scales [1.0, 1.0, 2.0, 2.0] mode "linear"
            : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
    """

    name = "graph.resize_d"
    GE_TYPE: ClassVar[str] = "ResizeD"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    sizes = prop_def(DenseArrayBase.constr(i64), default_value=int_array(()))
    scales = prop_def(DenseArrayBase.constr(f32), default_value=EMPTY_F32)
    roi = prop_def(DenseArrayBase.constr(f32), default_value=EMPTY_F32)
    coordinate_transformation_mode = prop_def(StringAttr, default_value=StringAttr("half_pixel"))
    cubic_coeff_a = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(-0.75, f32))
    exclude_outside = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    extrapolation_value = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(0.0, f32))
    mode = prop_def(StringAttr, default_value=StringAttr("nearest"))
    nearest_mode = prop_def(StringAttr, default_value=StringAttr("round_prefer_floor"))
    antialias = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        sizes: Sequence[int] = (),
        scales: Sequence[float] = (),
        roi: Sequence[float] = (),
        mode: str = "nearest",
        coordinate_transformation_mode: str = "half_pixel",
        nearest_mode: str = "round_prefer_floor",
        cubic_coeff_a: float = -0.75,
        exclude_outside: int = 0,
        extrapolation_value: float = 0.0,
        antialias: int = 0,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "sizes": int_array(sizes),
            "scales": DenseArrayBase.from_list(f32, tuple(float(s) for s in scales)),
            "roi": DenseArrayBase.from_list(f32, tuple(float(r) for r in roi)),
            "coordinate_transformation_mode": StringAttr(coordinate_transformation_mode),
            "cubic_coeff_a": FloatAttr(cubic_coeff_a, f32),
            "exclude_outside": IntegerAttr(exclude_outside, i64),
            "extrapolation_value": FloatAttr(extrapolation_value, f32),
            "mode": StringAttr(mode),
            "nearest_mode": StringAttr(nearest_mode),
            "antialias": IntegerAttr(antialias, i64),
        }
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`sizes`, else `floor(in * scale)`; the rank comes from them when x is unranked."""
        operand_count(cls, operand_types, 1)
        (tx,) = operand_types
        sizes = prop_ints(cls, properties, "sizes")
        scales = prop_floats(cls, properties, "scales")
        if not sizes and not scales:
            raise ValueError("needs sizes or scales")
        if any(s < 0 for s in sizes):
            raise ValueError(f"sizes must be non-negative, got {list(sizes)}")
        if sizes and scales and len(sizes) != len(scales):
            raise ValueError(f"has {len(sizes)} sizes but {len(scales)} scales")
        rank = len(sizes or scales)
        x = tensor_shape(tx)
        if x is not None and len(x) != rank:
            raise ValueError(f"has {rank} sizes/scales for the {len(x)} dims of x")
        shape = resize_output_shape((-1,) * rank if x is None else x, sizes, scales)
        return (tensor_of(element_type(tx), shape),)

    def verify_(self) -> None:
        _verify_resize_modes(self)
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        sizes = int_array_values(self.sizes)
        scales = [float(s) for s in self.scales.get_values()]
        roi = [float(r) for r in self.roi.get_values()]
        if any(not math.isfinite(s) for s in scales):
            fail(self, f"scales must be finite, got {scales}")
        if any(not s > 0 for s in scales):
            fail(self, f"scales must be positive, got {scales}")
        if roi and len(roi) != 2 * len(sizes or scales):
            fail(self, f"roi must have {2 * len(sizes or scales)} values, got {len(roi)}")
        verify_inferred(self, "the resized shape")


def resize_plan(
    shape: Sequence[int],
    roi: Sequence[float],
    scales: Sequence[float],
    sizes: Sequence[int],
    axes: Sequence[int],
    policy: str,
) -> tuple[list[int], list[float], list[float]]:
    """ONNX Resize inputs over `axes` -> `sizes`, `scales` and `roi` over every dim (ResizeD's
    properties); `shape` must be static where sizes or the aspect policy need it.

    Output dims are `floor(in * scale)` for scales; for sizes, `keep_aspect_ratio_policy`
    "not_larger"/"not_smaller" scales every resized axis by the min/max ratio and rounds half
    up. Raises ValueError when the inputs do not fit.
    """
    rank = len(shape)
    axes = [a % rank for a in axes] if axes else list(range(rank))
    if (len(scales) > 0) == (len(sizes) > 0):
        raise ValueError("needs exactly one of scales and sizes")
    given = scales if scales else sizes
    if len(given) != len(axes):
        raise ValueError(f"has {len(given)} scales/sizes for {len(axes)} axes")
    full_roi: list[float] = []
    if roi:
        if len(roi) != 2 * len(axes):
            raise ValueError(f"roi has {len(roi)} values for {len(axes)} axes")
        full_roi = [0.0] * rank + [1.0] * rank
        for i, a in enumerate(axes):
            full_roi[a], full_roi[rank + a] = float(roi[i]), float(roi[len(axes) + i])
    if scales:
        full_scales = [1.0] * rank
        for a, s in zip(axes, scales, strict=True):
            full_scales[a] = float(s)
        full_sizes = [
            -1 if d < 0 else scaled_dim(d, s) for d, s in zip(shape, full_scales, strict=True)
        ]
        return full_sizes, full_scales, full_roi
    full_sizes = [d if d >= 0 else -1 for d in shape]
    for a, s in zip(axes, sizes, strict=True):
        full_sizes[a] = int(s)
    if policy == "stretch":
        return full_sizes, [], full_roi
    if policy not in ("not_larger", "not_smaller"):
        raise ValueError(f'keep_aspect_ratio_policy "{policy}" is unknown')
    if any(shape[a] <= 0 for a in axes):
        raise ValueError(f"keep_aspect_ratio_policy {policy} needs static resized dims")
    ratios = [full_sizes[a] / shape[a] for a in axes]
    scale = min(ratios) if policy == "not_larger" else max(ratios)
    full_scales = [scale if i in axes else 1.0 for i in range(rank)]
    full_sizes = [int(scale * shape[i] + 0.5) if i in axes else full_sizes[i] for i in range(rank)]
    return full_sizes, full_scales, full_roi


@irdl_op_definition
class ResizeOp(GEOp, NodeSyntax):
    """GE Resize: ONNX Resize with `roi`, `scales` and `sizes` as run-time inputs.

    The form for scales/sizes that are not constants (`graph.resize_d` is the static form);
    an absent input is an empty tensor. `scales`/`sizes` (and `roi`) cover the dims listed in
    `axes` (all when empty); the interpolation properties are those of `graph.resize_d`.
    Deviations from GE: ONNX opset 18's `antialias`, `axes` and `keep_aspect_ratio_policy`
    are added. The result dims are known only when scales/sizes are constants.

        %y = graph.resize %x, %roi, %scales, %sizes mode "linear"
            : (tensor<1x1x2x2xf32>, tensor<0xf32>, tensor<4xf32>, tensor<0xi64>)
            -> tensor<?x?x?x?xf32>
    """

    name = "graph.resize"
    GE_TYPE: ClassVar[str] = "Resize"

    x = operand_def(AnyTensor)
    roi = operand_def(AnyTensor)
    scales = operand_def(AnyTensor)
    sizes = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    coordinate_transformation_mode = prop_def(StringAttr, default_value=StringAttr("half_pixel"))
    cubic_coeff_a = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(-0.75, f32))
    exclude_outside = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    extrapolation_value = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(0.0, f32))
    mode = prop_def(StringAttr, default_value=StringAttr("nearest"))
    nearest_mode = prop_def(StringAttr, default_value=StringAttr("round_prefer_floor"))
    antialias = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    axes = prop_def(DenseArrayBase.constr(i64), default_value=int_array(()))
    keep_aspect_ratio_policy = prop_def(StringAttr, default_value=StringAttr("stretch"))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        roi: SSAValue | Operation,
        scales: SSAValue | Operation,
        sizes: SSAValue | Operation,
        *,
        mode: str = "nearest",
        coordinate_transformation_mode: str = "half_pixel",
        nearest_mode: str = "round_prefer_floor",
        cubic_coeff_a: float = -0.75,
        exclude_outside: int = 0,
        extrapolation_value: float = 0.0,
        antialias: int = 0,
        axes: Sequence[int] = (),
        keep_aspect_ratio_policy: str = "stretch",
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "coordinate_transformation_mode": StringAttr(coordinate_transformation_mode),
            "cubic_coeff_a": FloatAttr(cubic_coeff_a, f32),
            "exclude_outside": IntegerAttr(exclude_outside, i64),
            "extrapolation_value": FloatAttr(extrapolation_value, f32),
            "mode": StringAttr(mode),
            "nearest_mode": StringAttr(nearest_mode),
            "antialias": IntegerAttr(antialias, i64),
            "axes": int_array(axes),
            "keep_aspect_ratio_policy": StringAttr(keep_aspect_ratio_policy),
        }
        operands = [x, roi, scales, sizes]
        init_node(self, operands, result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The dims outside `axes` keep x's; the resized ones follow `resize_plan` when
        scales and sizes are known (an empty tensor type is known to be empty), else `?`."""
        operand_count(cls, operand_types, 4)
        tx = operand_types[0]
        x = tensor_shape(tx)
        if x is None:
            return (tensor_of(element_type(tx), None),)
        rank = len(x)
        axes = prop_ints(cls, properties, "axes")
        if any(not -rank <= a < rank for a in axes) or len({a % rank for a in axes}) != len(axes):
            raise ValueError(f"axes {list(axes)} are not distinct dims of x")
        resized = {a % rank for a in axes} if axes else set(range(rank))
        policy = prop_str(cls, properties, "keep_aspect_ratio_policy")

        def known(i: int) -> tuple[float | int, ...] | None:
            found = values(i)
            return () if found is None and vector_length(operand_types[i]) == 0 else found

        scales, sizes = known(2), known(3)
        if (
            scales is None
            or sizes is None
            or (policy != "stretch" and sizes and any(x[a] < 0 for a in resized))
        ):
            shape = tuple(-1 if i in resized else d for i, d in enumerate(x))
        else:
            roi = known(1) or ()
            plan = resize_plan(x, roi, scales, [int(v) for v in sizes], axes, policy)
            shape = tuple(plan[0])
        return (tensor_of(element_type(tx), shape),)

    def verify_(self) -> None:
        _verify_resize_modes(self)
        policy = self.keep_aspect_ratio_policy.data
        if policy not in ("stretch", "not_larger", "not_smaller"):
            fail(
                self,
                f'keep_aspect_ratio_policy "{policy}" is not one of stretch, not_larger, '
                "not_smaller",
            )
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        for what, value, integer in (
            ("roi", self.roi, False),
            ("scales", self.scales, False),
            ("sizes", self.sizes, True),
        ):
            verify_rank(self, what, value.type, 1)
            if isinstance(element_type(value.type), IntegerType) != integer:
                kind = "an integer" if integer else "a float"
                fail(self, f"{what} must be {kind} tensor, got {value.type}")
        x, y = tensor_shape(self.x.type), tensor_shape(self.y.type)
        if x is None:
            return
        if y is not None and len(y) != len(x):
            fail(self, f"result rank {len(y)} differs from the rank {len(x)} of x")
        axes = int_array_values(self.axes)
        if any(not -len(x) <= a < len(x) for a in axes) or len({a % len(x) for a in axes}) != len(
            axes
        ):
            fail(self, f"axes {list(axes)} are not distinct dims of x")
        verify_inferred(self, "the resized shape")


# --------------------------------------------------------------------------------------------
# Depth <-> space (transformation_ops.h)
# --------------------------------------------------------------------------------------------


def depth_space_shape(
    x: Sequence[int], block: int, data_format: str, to_space: bool
) -> tuple[int, ...]:
    """Result shape of DepthToSpace (`to_space`) or SpaceToDepth; -1 for unknown dims."""
    out = list(x)
    c, h, w = (3, 1, 2) if data_format == "NHWC" else (1, 2, 3)
    if to_space:
        out[c] = -1 if x[c] < 0 else x[c] // (block * block)
        out[h] = -1 if x[h] < 0 else x[h] * block
        out[w] = -1 if x[w] < 0 else x[w] * block
    else:
        out[c] = -1 if x[c] < 0 else x[c] * block * block
        out[h] = -1 if x[h] < 0 else x[h] // block
        out[w] = -1 if x[w] < 0 else x[w] // block
    return tuple(out)


class DepthSpaceOpBase(GEOp, NodeSyntax):
    """Shared definition of DepthToSpace and SpaceToDepth."""

    TO_SPACE: ClassVar[bool]

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    block_size = prop_def(IntegerAttr[I64])
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))

    traits = traits_def(Pure())

    if TYPE_CHECKING:
        mode: StringAttr  # defined by each subclass, after its own block_size

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        block_size: int,
        mode: str = "DCR",
        data_format: str = "NCHW",
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "block_size": IntegerAttr(block_size, i64),
            "mode": StringAttr(mode),
            "data_format": StringAttr(data_format),
        }
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """4-D always; the blocks that must divide a dim are checked where it is known."""
        operand_count(cls, operand_types, 1)
        (tx,) = operand_types
        block = prop_int(cls, properties, "block_size")
        if block < 1:
            raise ValueError(f"block_size must be positive, got {block}")
        data_format = prop_str(cls, properties, "data_format")
        if (message := _format_error(data_format, CONV_FORMATS[2])) is not None:
            raise ValueError(message)
        x = ranked_dims(tx, 4, "x")
        c, h, w = (3, 1, 2) if data_format == "NHWC" else (1, 2, 3)
        if cls.TO_SPACE and x[c] >= 0 and x[c] % (block * block):
            raise ValueError(
                f"{x[c]} channels are not a multiple of block_size^2 = {block * block}"
            )
        if not cls.TO_SPACE:
            for axis in (h, w):
                if x[axis] >= 0 and x[axis] % block:
                    raise ValueError(
                        f"spatial dim {x[axis]} is not a multiple of block_size {block}"
                    )
        shape = depth_space_shape(x, block, data_format, cls.TO_SPACE)
        return (tensor_of(element_type(tx), shape),)

    def verify_(self) -> None:
        mode = self.mode.data
        if mode not in ("DCR", "CRD"):
            fail(self, f'mode must be "DCR" or "CRD", got "{mode}"')
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_inferred(self, "the rearranged shape")


@irdl_op_definition
class DepthToSpaceOp(DepthSpaceOpBase):
    """GE DepthToSpace: moves blocks of channels into block_size x block_size spatial tiles.

    `mode` "DCR" (depth-column-row, TensorFlow and ONNX's default) or "CRD" (column-row-depth).
    GE's default data_format is NHWC; here NCHW (ONNX's layout).

        %y = graph.depth_to_space %x block_size 2 mode "CRD"
            : (tensor<1x8x2x3xf32>) -> tensor<1x2x4x6xf32>
    """

    name = "graph.depth_to_space"
    GE_TYPE: ClassVar[str] = "DepthToSpace"
    TO_SPACE: ClassVar[bool] = True

    block_size = prop_def(IntegerAttr[I64])
    mode = prop_def(StringAttr, default_value=StringAttr("DCR"))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))


@irdl_op_definition
class SpaceToDepthOp(DepthSpaceOpBase):
    """GE SpaceToDepth: moves block_size x block_size spatial tiles into channels.

    `mode` orders the new channels like DepthToSpace's: "DCR" (block offset major, GE's and
    TensorFlow's only order) or "CRD" (channel major, ONNX opset 28); the mode is an addition
    to GE's op. GE's default data_format is NHWC; here NCHW (ONNX's layout).

        %y = graph.space_to_depth %x block_size 2 : (tensor<1x2x4x6xf32>) -> tensor<1x8x2x3xf32>
    """

    name = "graph.space_to_depth"
    GE_TYPE: ClassVar[str] = "SpaceToDepth"
    TO_SPACE: ClassVar[bool] = False

    block_size = prop_def(IntegerAttr[I64])
    mode = prop_def(StringAttr, default_value=StringAttr("DCR"))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))


# --------------------------------------------------------------------------------------------


@irdl_op_definition
class Col2imOp(GEOp, NodeSyntax):
    """GE Col2im: sums the sliding blocks of `x` `[N, C * prod(kernel_size), L]` back into an
    image `[N, C, *output_size]` (the inverse of Im2col; torch's fold).

    Block l sits at `stride * position(l) - pads_begin` with taps `dilation` apart; where
    blocks overlap their values add. `pads` holds the begin pads, then the end pads, one per
    spatial dim (ONNX Col2Im's order; GE's `padding` is symmetric). GE's op is 2-D with
    `output_size` an input; here any number of spatial dims, the sizes attributes (ONNX
    Col2Im's image_shape and block_shape, which the import needs known).

        %y = graph.col2im %x output_size [5, 5] kernel_size [1, 5]
            : (tensor<1x5x5xf32>) -> tensor<1x1x5x5xf32>
    """

    name = "graph.col2im"
    GE_TYPE: ClassVar[str] = "Col2im"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    output_size = prop_def(DenseArrayBase.constr(i64))
    kernel_size = prop_def(DenseArrayBase.constr(i64))
    dilation = prop_def(DenseArrayBase.constr(i64), default_value=int_array(()))
    pads = prop_def(DenseArrayBase.constr(i64), default_value=int_array(()))
    stride = prop_def(DenseArrayBase.constr(i64), default_value=int_array(()))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        output_size: Sequence[int],
        kernel_size: Sequence[int],
        dilation: Sequence[int] = (),
        pads: Sequence[int] = (),
        stride: Sequence[int] = (),
    ) -> None:
        props: dict[str, Attribute] = {
            "output_size": int_array(output_size),
            "kernel_size": int_array(kernel_size),
            "dilation": int_array(dilation),
            "pads": int_array(pads),
            "stride": int_array(stride),
        }
        init_node(self, [x], None, props)

    @classmethod
    def geometry(
        cls, properties: Mapping[str, Attribute]
    ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """(output_size, kernel_size, dilation, pads, stride), defaults filled in (1s, 0s);
        ValueError when they do not go together."""
        size = prop_ints(cls, properties, "output_size")
        kernel = prop_ints(cls, properties, "kernel_size")
        rank = len(size)
        dilation = prop_ints(cls, properties, "dilation") or (1,) * rank
        pads = prop_ints(cls, properties, "pads") or (0,) * (2 * rank)
        stride = prop_ints(cls, properties, "stride") or (1,) * rank
        if rank == 0 or len(kernel) != rank or len(dilation) != rank or len(stride) != rank:
            raise ValueError(
                "output_size, kernel_size, dilation and stride must have one value per "
                f"spatial dim, got {list(size)}, {list(kernel)}, {list(dilation)}, {list(stride)}"
            )
        if len(pads) != 2 * rank:
            raise ValueError(f"pads must have {2 * rank} values (begins, ends), got {list(pads)}")
        if min(size) <= 0 or min(kernel) <= 0 or min(dilation) <= 0 or min(stride) <= 0:
            raise ValueError("output_size, kernel_size, dilation and stride must be positive")
        if min(pads) < 0:
            raise ValueError(f"pads must be non-negative, got {list(pads)}")
        return size, kernel, dilation, pads, stride

    @classmethod
    def blocks(cls, properties: Mapping[str, Attribute]) -> tuple[int, ...]:
        """The number of block positions along each spatial dim."""
        size, kernel, dilation, pads, stride = cls.geometry(properties)
        rank = len(size)
        return tuple(
            (size[d] + pads[d] + pads[d + rank] - dilation[d] * (kernel[d] - 1) - 1) // stride[d]
            + 1
            for d in range(rank)
        )

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[N, C, *output_size]` with C = x's dim 1 / prod(kernel_size)."""
        size, kernel, _, _, _ = cls.geometry(properties)
        blocks = cls.blocks(properties)
        if min(blocks) <= 0:
            raise ValueError(f"no block fits output_size {list(size)} with these kernels")
        taps = math.prod(kernel)
        x = tensor_shape(operand_types[0])
        elem = element_type(operand_types[0])
        if x is None:
            return (tensor_of(elem, (-1, -1, *size)),)
        if len(x) != 3:
            raise ValueError(f"x must be [N, C * prod(kernel_size), L], got {list(x)}")
        if x[1] >= 0 and x[1] % taps:
            raise ValueError(f"x's dim 1 ({x[1]}) is not a multiple of prod(kernel_size) {taps}")
        if x[2] >= 0 and x[2] != math.prod(blocks):
            raise ValueError(
                f"x has {x[2]} blocks; output_size {list(size)} holds {math.prod(blocks)}"
            )
        channels = -1 if x[1] < 0 else x[1] // taps
        return (tensor_of(elem, (x[0], channels, *size)),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_inferred(self, "the image shape")


@irdl_op_definition
class DeformableConv2DOp(GEOp, NodeSyntax):
    """GE DeformableConv2D: a 2-D convolution whose taps are moved by learned `offsets` and
    scaled by an optional `mask` (modulated, DCNv2), sampled bilinearly (zeros outside).

    `x` `[N, C, H, W]`, `filter` `[OC, C / groups, kh, kw]`, `offsets` `[N, dg * kh * kw * 2,
    oh, ow]` (per deformable group and tap, the (y, x) shift), `bias` `[OC]` (zeros when ONNX
    gives none), `mask` `[N, dg * kh * kw, oh, ow]`; `pads` are top, left, bottom, right.
    ONNX DeformConv's layout: GE's op takes NHWC offsets with the mask as their third part;
    the sum is the same.

        %y = graph.deformable_conv2d %x, %w, %o, %b strides [1, 1] pads [0, 0, 0, 0]
            : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x8x2x2xf32>, tensor<1xf32>)
            -> tensor<1x1x2x2xf32>
    """

    name = "graph.deformable_conv2d"
    GE_TYPE: ClassVar[str] = "DeformableConv2D"

    x = operand_def(AnyTensor)
    filter = operand_def(AnyTensor)
    offsets = operand_def(AnyTensor)
    bias = operand_def(AnyTensor)
    mask = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    strides = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64))
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=int_array((1, 1)))
    groups = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    deformable_groups = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        filter: SSAValue | Operation,
        offsets: SSAValue | Operation,
        bias: SSAValue | Operation,
        mask: SSAValue | Operation | None = None,
        *,
        strides: Sequence[int],
        pads: Sequence[int],
        dilations: Sequence[int] = (1, 1),
        groups: int = 1,
        deformable_groups: int = 1,
    ) -> None:
        props: dict[str, Attribute] = {
            "strides": int_array(strides),
            "pads": int_array(pads),
            "dilations": int_array(dilations),
            "groups": IntegerAttr(groups, i64),
            "deformable_groups": IntegerAttr(deformable_groups, i64),
        }
        operands = [x, filter, offsets, bias, [] if mask is None else [mask]]
        init_node(self, operands, None, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[N, OC, oh, ow]`, the usual convolution sizes."""
        strides = prop_ints(cls, properties, "strides")
        pads = prop_ints(cls, properties, "pads")
        dilations = prop_ints(cls, properties, "dilations")
        groups = prop_int(cls, properties, "groups")
        dg = prop_int(cls, properties, "deformable_groups")
        if len(strides) != 2 or len(dilations) != 2 or len(pads) != 4:
            raise ValueError("strides and dilations need 2 values, pads 4")
        if min(strides) <= 0 or min(dilations) <= 0 or min(pads) < 0 or groups <= 0 or dg <= 0:
            raise ValueError("strides, dilations, groups and deformable_groups must be positive")
        x, w = tensor_shape(operand_types[0]), tensor_shape(operand_types[1])
        o = tensor_shape(operand_types[2])
        elem = element_type(operand_types[0])
        if x is None or w is None:
            return (tensor_of(elem, (-1, -1, -1, -1)),)
        if len(x) != 4 or len(w) != 4:
            raise ValueError(f"x and filter must be 4-D, got {list(x)} and {list(w)}")
        if x[1] >= 0 and w[1] >= 0 and (x[1] != w[1] * groups or x[1] % dg):
            raise ValueError(
                f"x's {x[1]} channels do not fit filter {list(w)} in {groups} groups "
                f"and {dg} deformable groups"
            )
        out = []
        for d in range(2):
            span = dilations[d] * (w[2 + d] - 1) + 1
            size = x[2 + d] + pads[d] + pads[d + 2] - span
            out.append(-1 if x[2 + d] < 0 or w[2 + d] < 0 else size // strides[d] + 1)
        if min(out) == 0 or any(v < -1 for v in out):
            raise ValueError(f"the kernel does not fit x {list(x)}")
        if o is not None and len(o) == 4 and w[2] >= 0 and w[3] >= 0:
            taps = dg * w[2] * w[3]
            if o[1] not in (-1, 2 * taps) or o[2] not in (-1, out[0]) or o[3] not in (-1, out[1]):
                raise ValueError(
                    f"offsets must be [N, {2 * taps}, {out[0]}, {out[1]}], got {list(o)}"
                )
        return (tensor_of(elem, (x[0], w[0], *out)),)

    def verify_(self) -> None:
        verify_element_types(self, [v.type for v in self.operands] + [self.y.type], "operands")
        verify_inferred(self, "the convolution's shape")


__all__ = [
    "Col2imOp",
    "Conv2DOp",
    "Conv2DTransposeOp",
    "Conv3DOp",
    "Conv3DTransposeOp",
    "DeformableConv2DOp",
    "DepthToSpaceOp",
    "ResizeDOp",
    "ResizeOp",
    "SpaceToDepthOp",
    "conv_output_shape",
    "conv_transpose_output_shape",
    "resize_plan",
]

OPS = (
    Conv2DOp,
    Conv3DOp,
    Conv2DTransposeOp,
    Conv3DTransposeOp,
    ResizeDOp,
    ResizeOp,
    DepthToSpaceOp,
    SpaceToDepthOp,
    Col2imOp,
    DeformableConv2DOp,
)
"""The ops of this module, in the order the dialect lists them."""
