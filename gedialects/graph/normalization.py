"""Normalisation and softmax ops (GE nn_batch_norm_ops.h, nn_norm_ops.h, nn_norm.h)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    BFloat16Type,
    BoolAttr,
    DenseArrayBase,
    Float16Type,
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
    shapes_compatible,
    tensor_shape,
    types_compatible,
)
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    build_result_types,
    fail,
    format_shape,
    infer_or_fail,
    init_node,
    operand_count,
    prop_int,
    prop_ints,
    prop_str,
    tensor_of,
    verify_data_format,
    verify_element_types,
    verify_inferred,
    verify_rank,
    verify_result_shape,
)

# --------------------------------------------------------------------------------------------
# Batch, instance, group and layer normalisation
# --------------------------------------------------------------------------------------------


def channel_axis(data_format: str, rank: int) -> int:
    """Axis of C: the last one for 4-D NHWC, else 1 (NCHW, N-D channels-first, 2-D [N, C])."""
    return rank - 1 if data_format == "NHWC" and rank == 4 else 1


def _verify_float(op: Operation, what: str, value: float, minimum: float = 0.0) -> None:
    if not value >= minimum:
        fail(op, f"{what} must be non-negative, got {value}")


def refine_dims(
    dims: tuple[int, ...], start: int, known: tuple[int, ...] | None
) -> tuple[int, ...]:
    """`dims` with its `?` dims from `start` on taken from `known` (a parameter's shape)."""
    if known is None:
        return dims
    out = list(dims)
    for i, d in enumerate(known):
        if start + i < len(out) and out[start + i] < 0 and d >= 0:
            out[start + i] = d
    return tuple(out)


def per_channel_type(x: Attribute, axis: int | None, params: Sequence[Attribute]) -> Attribute:
    """The type of x with a `?` channel dim (at `axis`) taken from a 1-D parameter's length."""
    shape = tensor_shape(x)
    if shape is None or axis is None:
        return x
    for param in params:
        pshape = tensor_shape(param)
        if pshape is not None and len(pshape) == 1:
            if shape[axis] >= 0 and pshape[0] >= 0 and shape[axis] != pshape[0]:
                raise ValueError(f"a parameter has length {pshape[0]}, expected C = {shape[axis]}")
            shape = refine_dims(shape, axis, pshape)
    return tensor_of(element_type(x), shape)


def _verify_per_channel(
    op: Operation, x: Sequence[int] | None, axis: int, params: Sequence[tuple[str, SSAValue]]
) -> None:
    channels = -1 if x is None else x[axis]
    for what, param in params:
        pshape = verify_rank(op, what, param.type, 1)
        if pshape is not None and not shapes_compatible(pshape, (channels,)):
            fail(op, f"{what} has length {pshape[0]}, expected C = {channels}")


@irdl_op_definition
class BatchNormOp(GEOp, NodeSyntax):
    """GE BatchNorm, inference form: `y = scale * (x - mean) / sqrt(variance + epsilon) + offset`.

    The 1-D `scale`, `offset`, `mean` and `variance` (length C) apply along the channel axis of
    `x`: 4-D in `data_format`, or channels-first [N, C, ...] of any rank >= 2 (GE's 2-D form,
    and GE's BatchNorm3D for 5-D). Only inference is modelled: `is_training` must be false, so
    GE's training-only outputs `batch_mean`, `batch_variance` and `reserve_space_*` do not
    exist here and `y` is the single result. GE's defaults differ for `data_format` ("NHWC")
    and `is_training` (true); ONNX BatchNormalization imports as this form.

        %y = graph.batch_norm %x, %scale, %offset, %mean, %var epsilon 0.001
            : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
            -> tensor<1x3x8x8xf32>
    """

    name = "graph.batch_norm"
    GE_TYPE: ClassVar[str] = "BatchNorm"
    HEAVY_PORTS: ClassVar[Mapping[str, str]] = {"x": "NC1HWC0", "y": "NC1HWC0"}

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
        props: dict[str, Attribute] = {
            "epsilon": FloatAttr(epsilon, f32),
            "data_format": StringAttr(data_format),
        }
        operands = [x, scale, offset, mean, variance]
        init_node(self, operands, result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The type of x, a `?` channel dim taken from the parameters' length."""
        operand_count(cls, operand_types, 5)
        tx = operand_types[0]
        data_format = prop_str(cls, properties, "data_format")
        shape = tensor_shape(tx)
        if shape is not None and (
            len(shape) < 2 or (data_format == "NHWC" and len(shape) not in (2, 4))
        ):
            raise ValueError(f"x must be 2-D, 4-D, or [N, C, ...] in NCHW, got {tx}")
        axis = None if shape is None else channel_axis(data_format, len(shape))
        return (per_channel_type(tx, axis, operand_types[1:]),)

    def verify_(self) -> None:
        if self.is_training.value.data:
            fail(self, "is_training = true is not supported: only inference BatchNorm is modelled")
        verify_data_format(self, self.data_format)
        _verify_float(self, "epsilon", self.epsilon.value.data)
        if not types_compatible(self.x.type, self.y.type):
            fail(self, f"result type {self.y.type} differs from the type {self.x.type} of x")
        params = (self.scale, self.offset, self.mean, self.variance)
        verify_element_types(self, [p.type for p in params], "scale, offset, mean and variance")
        shape = tensor_shape(self.x.type)
        if shape is not None and (
            len(shape) < 2 or (self.data_format.data == "NHWC" and len(shape) not in (2, 4))
        ):
            fail(self, f"x must be 2-D, 4-D, or [N, C, ...] in NCHW, got {self.x.type}")
        axis = 1 if shape is None else channel_axis(self.data_format.data, len(shape))
        names = ("scale", "offset", "mean", "variance")
        _verify_per_channel(self, shape, axis, list(zip(names, params, strict=True)))
        verify_inferred(self, "the normalised shape")


class _AffineNormOpBase(GEOp, NodeSyntax):
    """`x`, per-channel `gamma` and `beta`, one result of the type of `x`."""

    x = operand_def(AnyTensor)
    gamma = operand_def(AnyTensor)
    beta = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The type of x, a `?` channel dim taken from gamma's or beta's length."""
        operand_count(cls, operand_types, 3)
        tx = operand_types[0]
        shape = tensor_shape(tx)
        if shape is not None and len(shape) < 3:
            raise ValueError(f"x must be [N, C, spatial...], got {tx}")
        return (per_channel_type(tx, None if shape is None else 1, operand_types[1:]),)

    def verify_common(self, epsilon: float) -> tuple[int, ...] | None:
        _verify_float(self, "epsilon", epsilon)
        if not types_compatible(self.x.type, self.y.type):
            fail(self, f"result type {self.y.type} differs from the type {self.x.type} of x")
        verify_element_types(self, (self.gamma.type, self.beta.type), "gamma and beta")
        shape = tensor_shape(self.x.type)
        if shape is not None and len(shape) < 3:
            fail(self, f"x must be [N, C, spatial...], got {self.x.type}")
        _verify_per_channel(self, shape, 1, [("gamma", self.gamma), ("beta", self.beta)])
        verify_inferred(self, "the normalised shape")
        return shape


@irdl_op_definition
class InstanceNormOp(_AffineNormOpBase):
    """GE InstanceNorm: normalises each (n, c) slice over its spatial dims, then scales.

    `y = gamma[c] * (x - mean) / sqrt(var + epsilon) + beta[c]` with the mean and (biased)
    variance of x[n, c, ...]. `x` is channels-first [N, C, spatial...] ("NCHW"; GE's default
    is NDHWC). GE's `mean` and `variance` outputs are not modelled (ONNX InstanceNormalization
    has none).

        %y = graph.instance_norm %x, %g, %b epsilon 1.0e-05
            : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
    """

    name = "graph.instance_norm"
    GE_TYPE: ClassVar[str] = "InstanceNorm"

    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    epsilon = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(1e-6, f32))

    def __init__(
        self,
        x: SSAValue | Operation,
        gamma: SSAValue | Operation,
        beta: SSAValue | Operation,
        *,
        epsilon: float = 1e-6,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"epsilon": FloatAttr(epsilon, f32)}
        init_node(self, [x, gamma, beta], result_type, props)

    def verify_(self) -> None:
        if self.data_format.data != "NCHW":
            fail(self, f'supports data_format "NCHW" only, got "{self.data_format.data}"')
        self.verify_common(self.epsilon.value.data)


@irdl_op_definition
class GroupNormOp(_AffineNormOpBase):
    """GE GroupNorm: normalises each group of C / num_groups channels, then scales per channel.

    Statistics are those of `x` itself (as in ONNX GroupNormalization-21), so GE's
    `is_training`, `mean` and `variance` are not modelled; `x` is channels-first [N, C, ...]
    ("NCHW"; GE's default is NHWC). `eps` is GE's name.

        %y = graph.group_norm %x, %g, %b num_groups 2 eps 1.0e-05
            : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
    """

    name = "graph.group_norm"
    GE_TYPE: ClassVar[str] = "GroupNorm"

    num_groups = prop_def(IntegerAttr[I64])
    data_format = prop_def(StringAttr, default_value=StringAttr("NCHW"))
    eps = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(1e-4, f32))

    def __init__(
        self,
        x: SSAValue | Operation,
        gamma: SSAValue | Operation,
        beta: SSAValue | Operation,
        *,
        num_groups: int,
        eps: float = 1e-4,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "num_groups": IntegerAttr(num_groups, i64),
            "eps": FloatAttr(eps, f32),
        }
        init_node(self, [x, gamma, beta], result_type, props)

    def verify_(self) -> None:
        if self.data_format.data != "NCHW":
            fail(self, f'supports data_format "NCHW" only, got "{self.data_format.data}"')
        groups = self.num_groups.value.data
        if groups < 1:
            fail(self, f"num_groups must be positive, got {groups}")
        shape = self.verify_common(self.eps.value.data)
        if shape is not None and shape[1] >= 0 and shape[1] % groups:
            fail(self, f"num_groups = {groups} does not divide the {shape[1]} channels")


def layer_norm_stats_shape(x: Sequence[int], axis: int) -> tuple[int, ...]:
    """Shape of the mean and rstd of LayerNorm: the dims before `axis`, then 1s."""
    return (*(d if d >= 0 else -1 for d in x[:axis]), *(1 for _ in x[axis:]))


@irdl_op_definition
class LayerNormV3Op(GEOp, NodeSyntax):
    """GE LayerNormV3: normalises over the dims from `begin_norm_axis` on, returning the stats.

    `y = (x - mean) * rstd * gamma + beta` with `rstd = 1 / sqrt(var + epsilon)` over dims
    `begin_norm_axis`..; `gamma` and `beta` have the shape of dims `begin_params_axis`.. (the
    same axis in ONNX) and broadcast against them. `mean` and `rstd` keep the normalised dims
    as 1s (ONNX LayerNormalization's Mean and InvStdDev). Negative axes count from the end.

        %y, %m, %r = graph.layer_norm_v3 %x, %g, %b begin_norm_axis -1 begin_params_axis -1
            : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>)
            -> (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
    """

    name = "graph.layer_norm_v3"
    GE_TYPE: ClassVar[str] = "LayerNormV3"

    x = operand_def(AnyTensor)
    gamma = operand_def(AnyTensor)
    beta = operand_def(AnyTensor)
    y = result_def(AnyTensor)
    mean = result_def(AnyTensor)
    rstd = result_def(AnyTensor)

    begin_norm_axis = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    begin_params_axis = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    epsilon = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(1e-5, f32))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        gamma: SSAValue | Operation,
        beta: SSAValue | Operation,
        *,
        begin_norm_axis: int = 0,
        begin_params_axis: int = 0,
        epsilon: float = 1e-5,
        stats_type: Attribute | None = None,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        """`stats_type` overrides the element type of mean and rstd (see the rule)."""
        props: dict[str, Attribute] = {
            "begin_norm_axis": IntegerAttr(begin_norm_axis, i64),
            "begin_params_axis": IntegerAttr(begin_params_axis, i64),
            "epsilon": FloatAttr(epsilon, f32),
        }
        if result_types is None:
            y, mean, rstd = build_result_types(type(self), [x, gamma, beta], props)
            if stats_type is not None:
                mean = rstd = tensor_of(stats_type, tensor_shape(mean))
            result_types = (y, mean, rstd)
        super().__init__(
            operands=[x, gamma, beta], result_types=list(result_types), properties=props
        )

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """y of x's type (`?` dims refined by gamma/beta), mean and rstd of the stats shape.

        The stats are float32 for a 16-bit float x (GE computes LayerNormV3's statistics in
        float32, as ONNX's default stash_type does), else of x's element type.
        """
        operand_count(cls, operand_types, 3)
        tx = operand_types[0]
        elem = element_type(tx)
        stats_elem = f32 if isinstance(elem, Float16Type | BFloat16Type) else elem
        x = tensor_shape(tx)
        if x is None:
            return (tx, tensor_of(stats_elem, None), tensor_of(stats_elem, None))
        rank = len(x)
        axes = []
        for what in ("begin_norm_axis", "begin_params_axis"):
            axis = prop_int(cls, properties, what)
            if not -rank <= axis < rank:
                raise ValueError(f"{what} {axis} is out of range for the {rank} dims of x")
            axes.append(axis % rank)
        norm_axis, params_axis = axes
        for param in operand_types[1:]:
            pshape = tensor_shape(param)
            if shapes_compatible(pshape, x[params_axis:]):  # else the verifier names it
                x = refine_dims(x, params_axis, pshape)
        stats = layer_norm_stats_shape(x, norm_axis)
        return (tensor_of(elem, x), tensor_of(stats_elem, stats), tensor_of(stats_elem, stats))

    def verify_(self) -> None:
        _verify_float(self, "epsilon", self.epsilon.value.data)
        if not types_compatible(self.x.type, self.y.type):
            fail(self, f"result type {self.y.type} differs from the type {self.x.type} of x")
        verify_element_types(self, (self.gamma.type, self.beta.type), "gamma and beta")
        verify_element_types(self, (self.mean.type, self.rstd.type), "mean and rstd")
        x = tensor_shape(self.x.type)
        params_axis = self.begin_params_axis.value.data
        if x is not None and -len(x) <= params_axis < len(x):
            for what, param in (("gamma", self.gamma), ("beta", self.beta)):
                pshape = tensor_shape(param.type)
                if not shapes_compatible(pshape, x[params_axis % len(x) :]):
                    fail(
                        self, f"{what} shape {list(pshape or ())} differs from the normalised dims"
                    )
        # the stats' element type is free (ONNX stash_type): shapes only
        y, stats, _ = infer_or_fail(self)
        verify_result_shape(self, tensor_shape(y), "the normalised shape")
        expected = tensor_shape(stats)
        for what, value in (("mean", self.mean), ("rstd", self.rstd)):
            vshape = tensor_shape(value.type)
            if not shapes_compatible(vshape, expected):
                assert vshape is not None and expected is not None
                fail(
                    self,
                    f"{what} shape {format_shape(vshape)} differs from {format_shape(expected)}",
                )


@irdl_op_definition
class RmsNormOp(GEOp, NodeSyntax):
    """GE RmsNorm: `y = x * rstd * gamma` with `rstd = 1 / sqrt(mean(x^2) + epsilon)`.

    The mean runs over the dims from `begin_norm_axis` on (ONNX RMSNormalization's `axis`;
    GE's prototype normalises over gamma's dims, the same dims when gamma has their shape);
    `gamma` broadcasts against those dims. `rstd` keeps them as 1s; it is float32 for a 16-bit
    x (ONNX's default stash_type), as the statistics of `graph.layer_norm_v3`.

        %y, %r = graph.rms_norm %x, %g begin_norm_axis -1
            : (tensor<2x5xf32>, tensor<5xf32>) -> (tensor<2x5xf32>, tensor<2x1xf32>)
    """

    name = "graph.rms_norm"
    GE_TYPE: ClassVar[str] = "RmsNorm"

    x = operand_def(AnyTensor)
    gamma = operand_def(AnyTensor)
    y = result_def(AnyTensor)
    rstd = result_def(AnyTensor)

    begin_norm_axis = prop_def(IntegerAttr[I64], default_value=IntegerAttr(-1, i64))
    epsilon = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(1e-6, f32))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        gamma: SSAValue | Operation,
        *,
        begin_norm_axis: int = -1,
        epsilon: float = 1e-6,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "begin_norm_axis": IntegerAttr(begin_norm_axis, i64),
            "epsilon": FloatAttr(epsilon, f32),
        }
        if result_types is None:
            result_types = build_result_types(type(self), [x, gamma], props)
        super().__init__(operands=[x, gamma], result_types=list(result_types), properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """y of x's type; rstd of x's shape with the normalised dims as 1s."""
        operand_count(cls, operand_types, 2)
        tx = operand_types[0]
        elem = element_type(tx)
        stats_elem = f32 if isinstance(elem, Float16Type | BFloat16Type) else elem
        x = tensor_shape(tx)
        if x is None:
            return (tx, tensor_of(stats_elem, None))
        rank = len(x)
        axis = prop_int(cls, properties, "begin_norm_axis")
        if not -rank <= axis < rank:
            raise ValueError(f"begin_norm_axis {axis} is out of range for the {rank} dims of x")
        axis %= rank
        gamma = tensor_shape(operand_types[1])
        if gamma is not None:
            normalised = x[axis:]
            if len(gamma) > len(normalised) or any(
                g >= 0 and d >= 0 and g not in (1, d)
                for g, d in zip(reversed(gamma), reversed(normalised), strict=False)
            ):
                raise ValueError(
                    f"gamma shape {list(gamma)} does not broadcast to the normalised dims "
                    f"{list(normalised)}"
                )
        return (tx, tensor_of(stats_elem, layer_norm_stats_shape(x, axis)))

    def verify_(self) -> None:
        _verify_float(self, "epsilon", self.epsilon.value.data)
        verify_element_types(self, (self.x.type, self.gamma.type, self.y.type), "x, gamma and y")
        y, stats = infer_or_fail(self)
        verify_result_shape(self, tensor_shape(y), "the shape of x")
        expected, actual = tensor_shape(stats), tensor_shape(self.rstd.type)
        if not shapes_compatible(actual, expected):
            assert actual is not None and expected is not None
            fail(self, f"rstd shape {format_shape(actual)} differs from {format_shape(expected)}")


# --------------------------------------------------------------------------------------------
# Softmax family and LRN
# --------------------------------------------------------------------------------------------


class AxesOpBase(GEOp, NodeSyntax):
    """`y = f(x)` over the joint `axes` of `x` (negative axes count from the end)."""

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    axes = prop_def(DenseArrayBase.constr(i64), default_value=int_array((-1,)))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        axes: Sequence[int] = (-1,),
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"axes": int_array(axes)}
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The type of x (the axes are checked against its rank)."""
        operand_count(cls, operand_types, 1)
        (tx,) = operand_types
        axes = prop_ints(cls, properties, "axes")
        if not axes:
            raise ValueError("axes must not be empty")
        x = tensor_shape(tx)
        if x is not None:
            rank = max(len(x), 1)
            if any(not -rank <= a < rank for a in axes):
                raise ValueError(f"axes {list(axes)} are out of range for the {len(x)} dims of x")
            if len({a % rank for a in axes}) != len(axes):
                raise ValueError(f"axes {list(axes)} repeat a dim")
        return (tx,)

    def verify_(self) -> None:
        if not types_compatible(self.x.type, self.y.type):
            fail(self, f"result type {self.y.type} differs from the operand type {self.x.type}")
        infer_or_fail(self)


@irdl_op_definition
class SoftmaxV2Op(AxesOpBase):
    """GE SoftmaxV2: `exp(x - max) / sum(exp(x - max))` over the joint `axes`.

    ONNX Softmax-13 imports with `axes = [axis]`; Softmax-1/11 (which coerces x to 2-D at
    `axis`) with `axes = [axis, ..., rank - 1]`. GE's `half_to_float` is not modelled.

        %y = graph.softmax_v2 %x axes [1] : (tensor<2x5xf32>) -> tensor<2x5xf32>
    """

    name = "graph.softmax_v2"
    GE_TYPE: ClassVar[str] = "SoftmaxV2"


@irdl_op_definition
class LogSoftmaxV2Op(AxesOpBase):
    """GE LogSoftmaxV2: `x - max - log(sum(exp(x - max)))` over the joint `axes`.

    Imported from ONNX LogSoftmax like `graph.softmax_v2`.

        %y = graph.log_softmax_v2 %x : (tensor<2x5xf32>) -> tensor<2x5xf32>
    """

    name = "graph.log_softmax_v2"
    GE_TYPE: ClassVar[str] = "LogSoftmaxV2"


@irdl_op_definition
class HardmaxOp(AxesOpBase):
    """GE Hardmax: 1 at the first maximum over the joint `axes`, else 0 (ONNX op; GE has none).

    %y = graph.hardmax %x axes [0] : (tensor<3x4xf32>) -> tensor<3x4xf32>
    """

    name = "graph.hardmax"
    GE_TYPE: ClassVar[str] = "Hardmax"


@irdl_op_definition
class LRNOp(GEOp, NodeSyntax):
    """GE LRN: local response normalisation across channels (TensorFlow's definition).

    `y[c] = x[c] / (bias + alpha * sum(x[c - r .. c + r]^2))^beta` with r = `depth_radius`,
    along axis 1 of an [N, C, ...] tensor (GE: 4-D). ONNX LRN with an odd `size` imports with
    r = (size - 1) / 2 and alpha = alpha_onnx / size.

        %y = graph.lrn %x depth_radius 1 alpha 3.3e-05 beta 0.75
            : (tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
    """

    name = "graph.lrn"
    GE_TYPE: ClassVar[str] = "LRN"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    depth_radius = prop_def(IntegerAttr[I64], default_value=IntegerAttr(5, i64))
    bias = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(1.0, f32))
    alpha = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(1.0, f32))
    beta = prop_def(FloatAttr.constr(f32), default_value=FloatAttr(0.5, f32))
    norm_region = prop_def(StringAttr, default_value=StringAttr("ACROSS_CHANNELS"))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        depth_radius: int = 5,
        bias: float = 1.0,
        alpha: float = 1.0,
        beta: float = 0.5,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "depth_radius": IntegerAttr(depth_radius, i64),
            "bias": FloatAttr(bias, f32),
            "alpha": FloatAttr(alpha, f32),
            "beta": FloatAttr(beta, f32),
        }
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The type of x, an [N, C, spatial...] tensor."""
        operand_count(cls, operand_types, 1)
        (tx,) = operand_types
        x = tensor_shape(tx)
        if x is not None and len(x) < 3:
            raise ValueError(f"x must be [N, C, spatial...], got {tx}")
        return (tx,)

    def verify_(self) -> None:
        if self.norm_region.data != "ACROSS_CHANNELS":
            fail(
                self, f'supports norm_region "ACROSS_CHANNELS" only, got "{self.norm_region.data}"'
            )
        if self.depth_radius.value.data < 0:
            fail(self, f"depth_radius must be non-negative, got {self.depth_radius.value.data}")
        if not types_compatible(self.x.type, self.y.type):
            fail(self, f"result type {self.y.type} differs from the operand type {self.x.type}")
        verify_inferred(self, "the shape of x")


# --------------------------------------------------------------------------------------------


__all__ = [
    "BatchNormOp",
    "GroupNormOp",
    "HardmaxOp",
    "InstanceNormOp",
    "LRNOp",
    "LayerNormV3Op",
    "LogSoftmaxV2Op",
    "RmsNormOp",
    "SoftmaxV2Op",
    "channel_axis",
    "layer_norm_stats_shape",
]

OPS = (
    BatchNormOp,
    InstanceNormOp,
    GroupNormOp,
    LayerNormV3Op,
    RmsNormOp,
    SoftmaxV2Op,
    LogSoftmaxV2Op,
    HardmaxOp,
    LRNOp,
)
"""The ops of this module, in the order the dialect lists them."""
