"""Reductions, arg-reductions, TopK and CumSum (GE reduce_ops.h, elewise_calculation_ops.h,
selection_ops.h)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    BoolAttr,
    IntegerAttr,
    IntegerType,
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
    OperandValues,
    element_type,
    tensor_shape,
)
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    Shape,
    build_result_types,
    const_ints,
    fail,
    i64_attr,
    index_dtype,
    infer_or_fail,
    init_node,
    normalize_axis,
    operand_count,
    prop_bool,
    prop_int,
    tensor_of,
    vector_length,
    verify_dtype,
    verify_element_types,
    verify_index_tensor,
    verify_inferred,
    verify_result_shape,
    verify_same_type,
)

# --------------------------------------------------------------------------------------------
# Reductions (reduce_ops.h)
# --------------------------------------------------------------------------------------------


def reduce_shape(
    dims: Sequence[int], axes: Sequence[int] | None, keep_dims: bool, noop_with_empty_axes: bool
) -> Shape:
    """The result shape of reducing `dims` over `axes` (None or empty: all, or none if noop)."""
    if not axes:
        if noop_with_empty_axes:
            return tuple(dims)
        return (1,) * len(dims) if keep_dims else ()
    norm = {normalize_axis(None, a, len(dims)) for a in axes}
    if len(norm) != len(axes):
        raise ValueError(f"axes {list(axes)} repeat an axis")
    if keep_dims:
        return tuple(1 if i in norm else d for i, d in enumerate(dims))
    return tuple(d for i, d in enumerate(dims) if i not in norm)


class ReduceOp(GEOp, NodeSyntax):
    """Base of GE's reductions `y = reduce(x, axes)`.

    `axes` (1-D int, optional) lists the reduced dims, negative ones counting from the end;
    without it, or when it is empty, every dim is reduced unless `noop_with_empty_axes`,
    which keeps the shape and applies only the elementwise part (`|x|` for ReduceL1, `x * x`
    for ReduceSumSquare, as onnx's reference does; ONNX semantics; GE's ReduceMean has the
    same attribute, defaulting to true). `keep_dims` keeps reduced dims as 1. Reducing an
    empty set gives the identity of the reduction (0 for sums, 1 for products, -inf/+inf
    for max/min).
    """

    x = operand_def(AnyTensor)
    axes = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    keep_dims = prop_def(BoolAttr, default_value=FALSE)
    noop_with_empty_axes = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        axes: SSAValue | Operation | None = None,
        *,
        keep_dims: bool = False,
        noop_with_empty_axes: bool = False,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "keep_dims": BoolAttr.from_bool(keep_dims),
            "noop_with_empty_axes": BoolAttr.from_bool(noop_with_empty_axes),
        }
        init_node(self, [x, [] if axes is None else [axes]], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """Unknown axes of known length L: with keep_dims the 1 dims stay 1 and the rest are
        `?`; without, the rank drops by L. An empty axes tensor is known to be empty."""
        count = operand_count(cls, operand_types, 1, 2)
        tx = operand_types[0]
        keep_dims = prop_bool(cls, properties, "keep_dims")
        noop = prop_bool(cls, properties, "noop_with_empty_axes")
        dims = tensor_shape(tx)
        axes = None if count == 1 else const_ints(values, 1)
        length = None if count == 1 else vector_length(operand_types[1])
        if count == 2 and axes is None and length == 0:
            axes = ()
        out: Shape | None = None
        if dims is not None:
            if count == 1 or axes is not None:
                out = reduce_shape(dims, axes, keep_dims, noop)
            elif keep_dims:
                out = tuple(1 if d == 1 else -1 for d in dims)
            elif length is not None:
                if length > len(dims):
                    raise ValueError(f"axes has {length} values for rank {len(dims)}")
                out = (-1,) * (len(dims) - length)
        return (tensor_of(element_type(tx), out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        if self.axes is not None:
            verify_index_tensor(self, "axes", self.axes.type, 1)
        verify_inferred(self, "the reduced shape")


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    """GE ReduceSum: sum over `axes` (see `ReduceOp`).

    %a = graph.const dense<[1]> : tensor<1xi64>
    %y = graph.reduce_sum %x, %a keep_dims true
        : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
    """

    name = "graph.reduce_sum"
    GE_TYPE: ClassVar[str] = "ReduceSum"


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    """GE ReduceMean: arithmetic mean over `axes` (see `ReduceOp`).

    %y = graph.reduce_mean %x : (tensor<2x3xf32>) -> tensor<f32>
    """

    name = "graph.reduce_mean"
    GE_TYPE: ClassVar[str] = "ReduceMean"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    """GE ReduceMax: maximum over `axes` (see `ReduceOp`).

    %y = graph.reduce_max %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
    """

    name = "graph.reduce_max"
    GE_TYPE: ClassVar[str] = "ReduceMax"


@irdl_op_definition
class ReduceMinOp(ReduceOp):
    """GE ReduceMin: minimum over `axes` (see `ReduceOp`).

    %y = graph.reduce_min %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
    """

    name = "graph.reduce_min"
    GE_TYPE: ClassVar[str] = "ReduceMin"


@irdl_op_definition
class ReduceProdOp(ReduceOp):
    """GE ReduceProd: product over `axes` (see `ReduceOp`).

    %y = graph.reduce_prod %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
    """

    name = "graph.reduce_prod"
    GE_TYPE: ClassVar[str] = "ReduceProd"


@irdl_op_definition
class ReduceL1Op(ReduceOp):
    """GE ReduceL1 (ONNX name; GE has no L1 reduction): sum of `|x|` over `axes`.

    %y = graph.reduce_l1 %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
    """

    name = "graph.reduce_l1"
    GE_TYPE: ClassVar[str] = "ReduceL1"


@irdl_op_definition
class EuclideanNormOp(ReduceOp):
    """GE EuclideanNorm: `sqrt(sum(x * x))` over `axes` (ONNX ReduceL2).

    %y = graph.euclidean_norm %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
    """

    name = "graph.euclidean_norm"
    GE_TYPE: ClassVar[str] = "EuclideanNorm"


@irdl_op_definition
class ReduceLogSumOp(ReduceOp):
    """GE ReduceLogSum: `log(sum(x))` over `axes`.

    %y = graph.reduce_log_sum %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
    """

    name = "graph.reduce_log_sum"
    GE_TYPE: ClassVar[str] = "ReduceLogSum"


@irdl_op_definition
class ReduceLogSumExpOp(ReduceOp):
    """GE ReduceLogSumExp: `log(sum(exp(x)))` over `axes`, computed without overflow.

    %y = graph.reduce_log_sum_exp %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
    """

    name = "graph.reduce_log_sum_exp"
    GE_TYPE: ClassVar[str] = "ReduceLogSumExp"


@irdl_op_definition
class ReduceSumSquareOp(ReduceOp):
    """GE ReduceSumSquare (ONNX name; GE has no such type): sum of `x * x` over `axes`.

    %y = graph.reduce_sum_square %x, %a : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2xf32>
    """

    name = "graph.reduce_sum_square"
    GE_TYPE: ClassVar[str] = "ReduceSumSquare"


# --------------------------------------------------------------------------------------------
# Arg-reductions (elewise_calculation_ops.h)
# --------------------------------------------------------------------------------------------


class ArgReduceOp(GEOp, NodeSyntax):
    """Base of ArgMaxD/ArgMinD: the int64 index of the extreme value along `dimension`.

    `keep_dims` and `select_last_index` (ties give the last index instead of the first) are
    ONNX attributes GE's ArgMaxD lacks; `dtype` (GE's attribute, int64 by default) is the
    result element type.
    """

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    dimension = prop_def(IntegerAttr[I64], default_value=i64_attr(0))
    keep_dims = prop_def(BoolAttr, default_value=FALSE)
    select_last_index = prop_def(BoolAttr, default_value=FALSE)
    dtype = prop_def(IntegerType, default_value=i64)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        dimension: int = 0,
        keep_dims: bool = False,
        select_last_index: bool = False,
        dtype: Attribute = i64,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "dimension": i64_attr(dimension),
            "keep_dims": BoolAttr.from_bool(keep_dims),
            "select_last_index": BoolAttr.from_bool(select_last_index),
            "dtype": dtype,
        }
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 1)
        dims = tensor_shape(operand_types[0])
        out: Shape | None = None
        if dims is not None:
            axis = normalize_axis(
                None, prop_int(cls, properties, "dimension"), len(dims), "dimension"
            )
            out = reduce_shape(dims, (axis,), prop_bool(cls, properties, "keep_dims"), False)
        return (tensor_of(index_dtype(cls, properties), out),)

    def verify_(self) -> None:
        verify_index_tensor(self, "result", self.y.type)
        verify_dtype(self, self.dtype, self.y.type)
        verify_inferred(self, "the reduced shape")


@irdl_op_definition
class ArgMaxDOp(ArgReduceOp):
    """GE ArgMaxD: index of the maximum along `dimension` (see `ArgReduceOp`).

    %y = graph.arg_max_d %x dimension 1 : (tensor<2x3xf32>) -> tensor<2xi64>
    """

    name = "graph.arg_max_d"
    GE_TYPE: ClassVar[str] = "ArgMaxD"


@irdl_op_definition
class ArgMinDOp(ArgReduceOp):
    """GE ArgMinD: index of the minimum along `dimension` (see `ArgReduceOp`).

    %y = graph.arg_min_d %x dimension 1 keep_dims true : (tensor<2x3xf32>) -> tensor<2x1xi64>
    """

    name = "graph.arg_min_d"
    GE_TYPE: ClassVar[str] = "ArgMinD"


# --------------------------------------------------------------------------------------------
# TopK and cumulative sums (selection_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class TopKV2Op(GEOp, NodeSyntax):
    """GE TopKV2: the `k` largest (`largest`) or smallest values along `dim`, and their int64
    indices.

    `k` is an int64 scalar or 1-element tensor. With `sorted` the values come in order; ties
    keep the lower index first, as ONNX requires.

        %v, %i = graph.top_kv2 %x, %k dim 1 : (tensor<2x5xf32>, tensor<1xi64>)
            -> (tensor<2x3xf32>, tensor<2x3xi64>)
    """

    name = "graph.top_kv2"
    GE_TYPE: ClassVar[str] = "TopKV2"

    x = operand_def(AnyTensor)
    k = operand_def(AnyTensor)
    values = result_def(AnyTensor)
    indices = result_def(AnyTensor)

    sorted = prop_def(BoolAttr, default_value=BoolAttr.from_bool(True))
    dim = prop_def(IntegerAttr[I64], default_value=i64_attr(-1))
    largest = prop_def(BoolAttr, default_value=BoolAttr.from_bool(True))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        k: SSAValue | Operation,
        *,
        dim: int = -1,
        largest: bool = True,
        sorted: bool = True,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "sorted": BoolAttr.from_bool(sorted),
            "dim": i64_attr(dim),
            "largest": BoolAttr.from_bool(largest),
        }
        if result_types is None:
            result_types = build_result_types(type(self), [x, k], props)
        super().__init__(operands=[x, k], result_types=list(result_types), properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """Values and int64 indices of x's shape with `k` along `dim` (`?` unless constant)."""
        operand_count(cls, operand_types, 2)
        tx = operand_types[0]
        dims = tensor_shape(tx)
        known = const_ints(values, 1)
        count = known[0] if known is not None and len(known) == 1 else -1
        if known is not None and len(known) == 1 and count < 0:
            raise ValueError(f"k must be non-negative, got {count}")
        shape: Shape | None = None
        if dims is not None:
            axis = normalize_axis(None, prop_int(cls, properties, "dim"), len(dims), "dim")
            if count >= 0 and dims[axis] >= 0 and count > dims[axis]:
                raise ValueError(f"k {count} exceeds dim {axis} ({dims[axis]})")
            shape = (*dims[:axis], count, *dims[axis + 1 :])
        return (tensor_of(element_type(tx), shape), tensor_of(i64, shape))

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.values.type), "x and values")
        verify_index_tensor(self, "indices", self.indices.type)
        verify_index_tensor(self, "k", self.k.type, 0, 1)
        # indices may be int32 (GE's TopKV2) or int64 (the rule's, ONNX's): shapes only
        values = infer_or_fail(self)[0]
        verify_result_shape(self, tensor_shape(values), "the top-k shape")
        if tensor_shape(self.indices.type) != tensor_shape(self.values.type):
            fail(self, f"indices type {self.indices.type} differs in shape from the values")


class CumulativeOpBase(GEOp, NodeSyntax):
    """Running reductions of `x` along the scalar int `axis` (`exclusive`, `reverse`)."""

    x = operand_def(AnyTensor)
    axis = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    exclusive = prop_def(BoolAttr, default_value=FALSE)
    reverse = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        axis: SSAValue | Operation,
        *,
        exclusive: bool = False,
        reverse: bool = False,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "exclusive": BoolAttr.from_bool(exclusive),
            "reverse": BoolAttr.from_bool(reverse),
        }
        init_node(self, [x, axis], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The type of `x` (a constant `axis` is checked against its rank)."""
        operand_count(cls, operand_types, 2)
        dims, axis = tensor_shape(operand_types[0]), const_ints(values, 1)
        if dims is not None and axis is not None and len(axis) == 1:
            normalize_axis(None, axis[0], len(dims))
        return (operand_types[0],)

    def verify_(self) -> None:
        verify_same_type(self, self.x.type, self.y.type)
        verify_index_tensor(self, "axis", self.axis.type, 0, 1)
        infer_or_fail(self)


@irdl_op_definition
class CumsumOp(CumulativeOpBase):
    """GE Cumsum: running sums of `x` along the scalar int `axis`.

    `exclusive` leaves out the element itself (the first sum is 0); `reverse` sums from the
    end.

        %y = graph.cumsum %x, %a exclusive true : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
    """

    name = "graph.cumsum"
    GE_TYPE: ClassVar[str] = "Cumsum"


@irdl_op_definition
class CumprodOp(CumulativeOpBase):
    """GE Cumprod: running products of `x` along the scalar int `axis`.

    `exclusive` leaves out the element itself (the first product is 1); `reverse` multiplies
    from the end. ONNX CumProd (opset 26) imports to it.

        %y = graph.cumprod %x, %a reverse true : (tensor<2x3xf32>, tensor<i64>) -> tensor<2x3xf32>
    """

    name = "graph.cumprod"
    GE_TYPE: ClassVar[str] = "Cumprod"


__all__ = [
    "ArgMaxDOp",
    "ArgMinDOp",
    "ArgReduceOp",
    "CumprodOp",
    "CumsumOp",
    "CumulativeOpBase",
    "EuclideanNormOp",
    "ReduceL1Op",
    "ReduceLogSumExpOp",
    "ReduceLogSumOp",
    "ReduceMaxOp",
    "ReduceMeanOp",
    "ReduceMinOp",
    "ReduceOp",
    "ReduceProdOp",
    "ReduceSumOp",
    "ReduceSumSquareOp",
    "TopKV2Op",
    "reduce_shape",
]

OPS = (
    ReduceSumOp,
    ReduceMeanOp,
    ReduceMaxOp,
    ReduceMinOp,
    ReduceProdOp,
    ReduceL1Op,
    EuclideanNormOp,
    ReduceLogSumOp,
    ReduceLogSumExpOp,
    ReduceSumSquareOp,
    ArgMaxDOp,
    ArgMinDOp,
    TopKV2Op,
    CumsumOp,
    CumprodOp,
)
"""The ops of this module, in the order the dialect lists them."""
