"""Neural-network ops: convolution, normalisation (GE nn_calculation_ops.h, nn_batch_norm_ops.h)."""

from __future__ import annotations

from collections.abc import Sequence
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
    element_type,
    int_array,
    int_array_values,
    shapes_compatible,
    tensor_shape,
    types_compatible,
)
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    fail,
    tensor_of,
    verify_data_format,
    verify_element_types,
    verify_rank,
    verify_result_shape,
)

# --------------------------------------------------------------------------------------------
# NN (nn_calculation_ops.h, nn_batch_norm_ops.h)
# --------------------------------------------------------------------------------------------


def channel_axis(data_format: str, rank: int) -> int:
    """Axis of C: 1 for NCHW and for 2-D [N, C] tensors, the last one for NHWC."""
    return rank - 1 if data_format == "NHWC" and rank == 4 else 1


@irdl_op_definition
class BatchNormOp(GEOp, NodeSyntax):
    """GE BatchNorm, inference form: `y = scale * (x - mean) / sqrt(variance + epsilon) + offset`.

    The 1-D `scale`, `offset`, `mean` and `variance` (length C) apply along the channel axis of
    `x` (4-D in `data_format`, or 2-D [N, C]). Only inference is modelled: `is_training` must
    be false, so GE's training-only outputs `batch_mean`, `batch_variance` and
    `reserve_space_*` do not exist here and `y` is the single result. GE's defaults differ
    for `data_format` ("NHWC") and `is_training` (true); ONNX BatchNormalization imports as
    this form.

        %y = graph.batch_norm %x, %scale, %offset, %mean, %var epsilon 0.001
            : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
            -> tensor<1x3x8x8xf32>
    """

    name = "graph.batch_norm"
    GE_TYPE: ClassVar[str] = "BatchNorm"

    x = operand_def(AnyTensor)
    scale = operand_def(AnyTensor)
    offset = operand_def(AnyTensor)
    mean = operand_def(AnyTensor)
    variance = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    epsilon = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(1e-4, f32))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    is_training = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        scale: SSAValue | Operation,
        offset: SSAValue | Operation,
        mean: SSAValue | Operation,
        variance: SSAValue | Operation,
        *,
        epsilon: float = 1e-4,
        data_format: str = "NCHW",
        result_type: Attribute | None = None,
    ) -> None:
        super().__init__(
            operands=[x, scale, offset, mean, variance],
            result_types=[SSAValue.get(x).type if result_type is None else result_type],
            properties={
                "epsilon": FloatAttr(epsilon, f32),
                "data_format": StringAttr(data_format),
            },
        )

    def verify_(self) -> None:
        if self.is_training.value.data:
            fail(self, "is_training = true is not supported: only inference BatchNorm is modelled")
        verify_data_format(self, self.data_format)
        if not self.epsilon.value.data >= 0:
            fail(self, f"epsilon must be non-negative, got {self.epsilon.value.data}")
        if not types_compatible(self.x.type, self.y.type):
            fail(self, f"result type {self.y.type} differs from the type {self.x.type} of x")
        params = (self.scale, self.offset, self.mean, self.variance)
        verify_element_types(self, [p.type for p in params], "scale, offset, mean and variance")
        shape = verify_rank(self, "x", self.x.type, 4, 2)
        channels = -1 if shape is None else shape[channel_axis(self.data_format.data, len(shape))]
        for param, what in zip(params, ("scale", "offset", "mean", "variance"), strict=True):
            pshape = verify_rank(self, what, param.type, 1)
            if pshape is not None and not shapes_compatible(pshape, (channels,)):
                fail(self, f"{what} has length {pshape[0]}, expected C = {channels}")


def conv2d_output_shape(
    x: Sequence[int],
    filter: Sequence[int],
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    data_format: str,
) -> tuple[int, ...]:
    """Result shape of Conv2D in `data_format` order, -1 where an input dim is unknown.

    Spatial dims: `(in + pad_before + pad_after - dilation * (k - 1) - 1) // stride + 1`, or 0
    when the dilated kernel is larger than the padded input (the verifier rejects that).
    """
    n, c, h, w = (0, 3, 1, 2) if data_format == "NHWC" else (0, 1, 2, 3)
    o, kh, kw = (3, 0, 1) if data_format == "NHWC" else (0, 2, 3)
    out = [x[n] if x[n] >= 0 else -1, 0, 0, 0]
    out[c] = filter[o] if filter[o] >= 0 else -1
    for axis, k, (before, after) in ((h, kh, pads[0:2]), (w, kw, pads[2:4])):
        if x[axis] < 0 or filter[k] < 0:
            out[axis] = -1
        else:
            extent = x[axis] + before + after - dilations[axis] * (filter[k] - 1)
            out[axis] = max(extent - 1, -1) // strides[axis] + 1
    return tuple(out)


@irdl_op_definition
class Conv2DOp(GEOp, NodeSyntax):
    """GE Conv2D: 2-D convolution with groups, strides, dilations and explicit padding.

    `strides` and `dilations` have 4 entries in `data_format` order (the N and C entries must
    be 1, as in GE); `pads` is [top, bottom, left, right]. For NCHW the filter is OIHW, for
    NHWC it is HWIO (GE's and TensorFlow's HWCN); I = C_in / groups and O = C_out. The optional
    `bias` is 1-D of length C_out. GE's default `data_format` is NHWC and `pads` is required;
    here NCHW (ONNX's layout) and zero pads are the defaults. GE's quantization inputs
    (`offset_w`, `offset_x`) are not modelled.

        %y = graph.conv2d %x, %w, %b strides [1, 1, 2, 2] pads [1, 1, 1, 1]
            : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
    """

    name = "graph.conv2d"
    GE_TYPE: ClassVar[str] = "Conv2D"

    x = operand_def(AnyTensor)
    filter = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    strides = prop_def(DenseArrayBase.constr(i64))
    pads = prop_def(DenseArrayBase.constr(i64), default_value=int_array((0, 0, 0, 0)))
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=int_array((1, 1, 1, 1)))
    groups = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        filter: SSAValue | Operation,
        bias: SSAValue | Operation | None = None,
        *,
        strides: Sequence[int],
        pads: Sequence[int] = (0, 0, 0, 0),
        dilations: Sequence[int] = (1, 1, 1, 1),
        groups: int = 1,
        data_format: str = "NCHW",
        result_type: Attribute | None = None,
    ) -> None:
        if result_type is None:
            tx, tf = SSAValue.get(x).type, SSAValue.get(filter).type
            sx, sf = tensor_shape(tx), tensor_shape(tf)
            shape = None
            if sx is not None and sf is not None:
                shape = conv2d_output_shape(sx, sf, strides, pads, dilations, data_format)
            result_type = tensor_of(element_type(tx), shape)
        super().__init__(
            operands=[x, filter, [] if bias is None else [bias]],
            result_types=[result_type],
            properties={
                "strides": int_array(strides),
                "pads": int_array(pads),
                "dilations": int_array(dilations),
                "groups": IntegerAttr(groups, i64),
                "data_format": StringAttr(data_format),
            },
        )

    def verify_(self) -> None:
        verify_data_format(self, self.data_format)
        nhwc = self.data_format.data == "NHWC"
        strides = int_array_values(self.strides)
        pads = int_array_values(self.pads)
        dilations = int_array_values(self.dilations)
        for what, values in (("strides", strides), ("pads", pads), ("dilations", dilations)):
            if len(values) != 4:
                fail(self, f"{what} must have 4 values, got {list(values)}")
        for what, values in (("strides", strides), ("dilations", dilations)):
            if any(v < 1 for v in values):
                fail(self, f"{what} must be positive, got {list(values)}")
            if values[0] != 1 or values[3 if nhwc else 1] != 1:
                fail(self, f"{what} must be 1 in the N and C dims, got {list(values)}")
        if any(p < 0 for p in pads):
            fail(self, f"pads must be non-negative, got {list(pads)}")
        groups = self.groups.value.data
        if groups < 1:
            fail(self, f"groups must be positive, got {groups}")
        types = [self.x.type, self.filter.type, self.y.type]
        if self.bias is not None:
            types.append(self.bias.type)
        verify_element_types(self, types, "operands and result")
        x = verify_rank(self, "x", self.x.type, 4)
        filt = verify_rank(self, "filter", self.filter.type, 4)
        verify_rank(self, "the result", self.y.type, 4)
        c_in = -1 if x is None else x[3 if nhwc else 1]
        c_out = -1 if filt is None else filt[3 if nhwc else 0]
        f_in = -1 if filt is None else filt[2 if nhwc else 1]
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
        if x is not None and filt is not None:
            shape = conv2d_output_shape(x, filt, strides, pads, dilations, self.data_format.data)
            hw = (1, 2) if nhwc else (2, 3)
            if 0 in (shape[hw[0]], shape[hw[1]]):
                kh, kw = (filt[0], filt[1]) if nhwc else (filt[2], filt[3])
                kernel = (dilations[hw[0]] * (kh - 1) + 1, dilations[hw[1]] * (kw - 1) + 1)
                padded = (x[hw[0]] + pads[0] + pads[1], x[hw[1]] + pads[2] + pads[3])
                fail(
                    self,
                    f"dilated {kernel[0]}x{kernel[1]} kernel exceeds the padded "
                    f"{padded[0]}x{padded[1]} input",
                )
            verify_result_shape(self, shape, "the computed shape")


# --------------------------------------------------------------------------------------------


__all__ = ["BatchNormOp", "Conv2DOp", "channel_axis", "conv2d_output_shape"]

OPS = (BatchNormOp, Conv2DOp)
"""The ops of this module, in the order the dialect lists them."""
