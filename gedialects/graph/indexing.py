"""Slicing, gathering and scattering ops (GE selection_ops.h, array_ops.h,
matrix_calculation_ops.h).

Split from `array.py` to keep modules short; the helpers come from there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    BoolAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
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
    tensor_shape,
)
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    Shape,
    const_ints,
    fail,
    format_shape,
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
    verify_same_type,
)

# --------------------------------------------------------------------------------------------
# Slicing (selection_ops.h)
# --------------------------------------------------------------------------------------------


def slice_bounds(dim: int, start: int, end: int, step: int) -> tuple[int, int, int]:
    """ONNX Slice's clamped `(start, end, length)` of one axis; end -1 means before index 0."""
    if step == 0:
        raise ValueError("strides must not be 0")
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
        length = max(0, -(-(end - start) // step))
    else:
        start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
        length = max(0, -(-(start - end) // -step))
    return start, end, length


def slice_shape(
    dims: Sequence[int],
    begin: Sequence[int],
    end: Sequence[int],
    axes: Sequence[int],
    strides: Sequence[int],
    *,
    bounds_known: bool = True,
) -> Shape:
    """The sliced shape; without `bounds_known` the sliced axes are `?`."""
    if not len(begin) == len(end) == len(axes) == len(strides):
        raise ValueError("begin, end, axes and strides differ in length")
    out = list(dims)
    seen: set[int] = set()
    for b, e, a, s in zip(begin, end, axes, strides, strict=True):
        axis = normalize_axis(None, a, len(dims))
        if axis in seen:
            raise ValueError(f"axes {list(axes)} repeat an axis")
        seen.add(axis)
        if s == 0:
            raise ValueError("strides must not be 0")
        if dims[axis] < 0 or not bounds_known:
            out[axis] = -1 if dims[axis] != 0 else 0
        else:
            out[axis] = slice_bounds(dims[axis], b, e, s)[2]
    return tuple(out)


@irdl_op_definition
class StridedSliceV2Op(GEOp, NodeSyntax):
    """GE StridedSliceV2: `x[begin:end:strides]` along `axes` (1-D int inputs of one length).

    ONNX Slice semantics: negative `begin`/`end` count from the end, out-of-range values are
    clamped, negative strides walk backwards. GE's mask attributes (TF's begin_mask, ...) are
    not modelled (always 0); `axes` and `strides` are required here (the importer supplies
    ONNX's defaults).

        %y = graph.strided_slice_v2 %x, %b, %e, %a, %s
            : (tensor<4x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>)
            -> tensor<4x3xf32>
    """

    name = "graph.strided_slice_v2"
    GE_TYPE: ClassVar[str] = "StridedSliceV2"

    x = operand_def(AnyTensor)
    begin = operand_def(AnyTensor)
    end = operand_def(AnyTensor)
    axes = operand_def(AnyTensor)
    strides = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        begin: SSAValue | Operation,
        end: SSAValue | Operation,
        axes: SSAValue | Operation,
        strides: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        operands = [x, begin, end, axes, strides]
        init_node(self, operands, result_type)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """Unknown bounds make the sliced axes `?`; unknown axes make every dim `?`."""
        operand_count(cls, operand_types, 5)
        tx = operand_types[0]
        dims = tensor_shape(tx)
        begin, end, axes, strides = (const_ints(values, i) for i in range(1, 5))
        out: Shape | None = None
        if dims is not None and axes is None:
            out = (-1,) * len(dims)
        elif dims is not None and axes is not None:
            if begin is None or end is None or strides is None:
                known = [len(v) for v in (begin, end, strides) if v is not None]
                if any(n != len(axes) for n in known):
                    raise ValueError("begin, end, axes and strides differ in length")
                zeros, ones = (0,) * len(axes), (1,) * len(axes)
                out = slice_shape(dims, zeros, zeros, axes, ones, bounds_known=False)
            else:
                out = slice_shape(dims, begin, end, axes, strides)
        return (tensor_of(element_type(tx), out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        names = ("begin", "end", "axes", "strides")
        operands = (self.begin, self.end, self.axes, self.strides)
        for what, v in zip(names, operands, strict=True):
            verify_index_tensor(self, what, v.type, 1)
        lengths = {vector_length(v.type) for v in operands} - {None}
        if len(lengths) > 1:
            fail(self, "begin, end, axes and strides differ in length")
        verify_inferred(self, "the sliced shape")


# --------------------------------------------------------------------------------------------
# Gathering (selection_ops.h)
# --------------------------------------------------------------------------------------------


def gather_shape(x: Shape | None, indices: Shape | None, axis: int) -> Shape | None:
    if x is None or indices is None:
        return None
    axis = normalize_axis(None, axis, len(x))
    return x[:axis] + indices + x[axis + 1 :]


@irdl_op_definition
class GatherV2DOp(GEOp, NodeSyntax):
    """GE GatherV2D: slices of `x` along `axis` picked by the int `indices` (ONNX Gather).

    The result shape is `x.shape[:axis] + indices.shape + x.shape[axis+1:]`; negative
    indices count from the end of the axis (GE's negative_index_support).

        %y = graph.gather_v2d %x, %i axis 1 : (tensor<3x5xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    """

    name = "graph.gather_v2d"
    GE_TYPE: ClassVar[str] = "GatherV2D"

    x = operand_def(AnyTensor)
    indices = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    axis = prop_def(IntegerAttr[I64], default_value=i64_attr(0))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        indices: SSAValue | Operation,
        *,
        axis: int = 0,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"axis": i64_attr(axis)}
        init_node(self, [x, indices], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 2)
        tx, ti = operand_types
        axis = prop_int(cls, properties, "axis")
        return (
            tensor_of(element_type(tx), gather_shape(tensor_shape(tx), tensor_shape(ti), axis)),
        )

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_index_tensor(self, "indices", self.indices.type)
        x = tensor_shape(self.x.type)
        if x is not None:
            normalize_axis(self, self.axis.value.data, len(x))
        verify_inferred(self, "the gathered shape")


@irdl_op_definition
class GatherElementsOp(GEOp, NodeSyntax):
    """GE GatherElements: `y[i][j] = x[index[i][j]][j]` for `dim` 0, and so on per dim.

    `index` has the rank of `x` and gives the result shape; negative indices count from the
    end.

        %y = graph.gather_elements %x, %i dim 1
            : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    """

    name = "graph.gather_elements"
    GE_TYPE: ClassVar[str] = "GatherElements"

    x = operand_def(AnyTensor)
    index = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    dim = prop_def(IntegerAttr[I64], default_value=i64_attr(0))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        index: SSAValue | Operation,
        *,
        dim: int = 0,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"dim": i64_attr(dim)}
        init_node(self, [x, index], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The shape of `index`, whose rank is that of x."""
        operand_count(cls, operand_types, 2)
        tx, ti = operand_types
        x, index = tensor_shape(tx), tensor_shape(ti)
        if x is not None:
            normalize_axis(None, prop_int(cls, properties, "dim"), len(x), "dim")
            if index is not None and len(index) != len(x):
                raise ValueError(f"index rank {len(index)} differs from x rank {len(x)}")
        out = index if index is not None else None if x is None else (-1,) * len(x)
        return (tensor_of(element_type(tx), out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_index_tensor(self, "index", self.index.type)
        x, index = tensor_shape(self.x.type), tensor_shape(self.index.type)
        if x is not None:
            normalize_axis(self, self.dim.value.data, len(x), "dim")
            if index is not None and len(index) != len(x):
                fail(self, f"index rank {len(index)} differs from x rank {len(x)}")
        verify_inferred(self, "the index shape")


def gather_nd_shape(x: Shape | None, indices: Shape | None, batch_dims: int) -> Shape | None:
    """`indices.shape[:-1] + x.shape[batch_dims + depth:]`; unranked when the depth is unknown."""
    if indices is not None and not indices:
        raise ValueError("indices must have rank 1 or more")
    if batch_dims < 0 or (x is not None and batch_dims >= len(x)):
        raise ValueError(f"batch_dims {batch_dims} is out of range")
    if x is None or indices is None or indices[-1] < 0:
        return None
    depth = indices[-1]
    if batch_dims + depth > len(x):
        raise ValueError(
            f"indices of depth {depth} after {batch_dims} batch dims exceed the rank of x"
        )
    return indices[:-1] + x[batch_dims + depth :]


@irdl_op_definition
class GatherNdOp(GEOp, NodeSyntax):
    """GE GatherNd: slices of `x` addressed by the last dim of `indices` (ONNX GatherND).

    Result shape `indices.shape[:-1] + x.shape[batch_dims + indices.shape[-1]:]`. The first
    `batch_dims` dims of `x` and `indices` are batch dims (an ONNX attribute GE lacks).

        %y = graph.gather_nd %x, %i : (tensor<2x2xf32>, tensor<2x2xi64>) -> tensor<2xf32>
    """

    name = "graph.gather_nd"
    GE_TYPE: ClassVar[str] = "GatherNd"

    x = operand_def(AnyTensor)
    indices = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    batch_dims = prop_def(IntegerAttr[I64], default_value=i64_attr(0))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        indices: SSAValue | Operation,
        *,
        batch_dims: int = 0,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"batch_dims": i64_attr(batch_dims)}
        init_node(self, [x, indices], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 2)
        tx, ti = operand_types
        batch_dims = prop_int(cls, properties, "batch_dims")
        out = gather_nd_shape(tensor_shape(tx), tensor_shape(ti), batch_dims)
        return (tensor_of(element_type(tx), out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_index_tensor(self, "indices", self.indices.type)
        x, indices = tensor_shape(self.x.type), tensor_shape(self.indices.type)
        batch_dims = self.batch_dims.value.data
        if indices is not None and len(indices) < 1:
            fail(self, "indices must have rank 1 or more")
        if batch_dims < 0 or (x is not None and batch_dims >= len(x)):
            fail(self, f"batch_dims {batch_dims} is out of range")
        verify_inferred(self, "the gathered shape")


# --------------------------------------------------------------------------------------------
# Scattering (matrix_calculation_ops.h)
# --------------------------------------------------------------------------------------------

SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")


def _verify_reduction(op: Operation, reduction: StringAttr) -> None:
    if reduction.data not in SCATTER_REDUCTIONS:
        fail(
            op, f'reduction must be one of {", ".join(SCATTER_REDUCTIONS)}, got "{reduction.data}"'
        )


@irdl_op_definition
class ScatterElementsOp(GEOp, NodeSyntax):
    """GE ScatterElements: `data` with `updates` written at `indices` along `axis`.

    `indices` and `updates` share a shape and the rank of `data`; `reduction` (none, add, mul,
    max, min) combines an update with the value it replaces.

        %y = graph.scatter_elements %d, %i, %u axis 1 reduction "add"
            : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<2x1xf32>) -> tensor<2x3xf32>
    """

    name = "graph.scatter_elements"
    GE_TYPE: ClassVar[str] = "ScatterElements"

    data = operand_def(AnyTensor)
    indices = operand_def(AnyTensor)
    updates = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    axis = prop_def(IntegerAttr[I64], default_value=i64_attr(0))
    reduction = prop_def(StringAttr, default_value=StringAttr("none"))

    traits = traits_def(Pure())

    def __init__(
        self,
        data: SSAValue | Operation,
        indices: SSAValue | Operation,
        updates: SSAValue | Operation,
        *,
        axis: int = 0,
        reduction: str = "none",
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "axis": i64_attr(axis),
            "reduction": StringAttr(reduction),
        }
        init_node(self, [data, indices, updates], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The type of `data`."""
        operand_count(cls, operand_types, 3)
        data = tensor_shape(operand_types[0])
        if data is not None:
            normalize_axis(None, prop_int(cls, properties, "axis"), len(data))
        return (operand_types[0],)

    def verify_(self) -> None:
        verify_same_type(self, self.data.type, self.y.type)
        verify_element_types(self, (self.data.type, self.updates.type), "data and updates")
        verify_index_tensor(self, "indices", self.indices.type)
        _verify_reduction(self, self.reduction)
        data, indices = tensor_shape(self.data.type), tensor_shape(self.indices.type)
        updates = tensor_shape(self.updates.type)
        if data is not None:
            normalize_axis(self, self.axis.value.data, len(data))
            if indices is not None and len(indices) != len(data):
                fail(self, f"indices rank {len(indices)} differs from data rank {len(data)}")
        if (
            indices is not None
            and updates is not None
            and (
                len(indices) != len(updates)
                or any(a >= 0 and b >= 0 and a != b for a, b in zip(indices, updates, strict=True))
            )
        ):
            fail(
                self,
                f"indices shape {format_shape(indices)} differs from updates shape "
                f"{format_shape(updates)}",
            )


@irdl_op_definition
class TensorScatterUpdateOp(GEOp, NodeSyntax):
    """GE TensorScatterUpdate: `x` with the slices addressed by `indices` replaced (ONNX
    ScatterND).

    `updates` has shape `indices.shape[:-1] + x.shape[indices.shape[-1]:]`. `reduction`
    (none, add, mul, max, min: ONNX ScatterND-18) is a deviation: GE spells the reducing
    forms as separate types (TensorScatterAdd, ...).

        %y = graph.tensor_scatter_update %x, %i, %u
            : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
    """

    name = "graph.tensor_scatter_update"
    GE_TYPE: ClassVar[str] = "TensorScatterUpdate"

    x = operand_def(AnyTensor)
    indices = operand_def(AnyTensor)
    updates = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    reduction = prop_def(StringAttr, default_value=StringAttr("none"))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        indices: SSAValue | Operation,
        updates: SSAValue | Operation,
        *,
        reduction: str = "none",
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"reduction": StringAttr(reduction)}
        init_node(self, [x, indices, updates], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The type of `x`."""
        operand_count(cls, operand_types, 3)
        return (operand_types[0],)

    def verify_(self) -> None:
        verify_same_type(self, self.x.type, self.y.type)
        verify_element_types(self, (self.x.type, self.updates.type), "x and updates")
        verify_index_tensor(self, "indices", self.indices.type)
        _verify_reduction(self, self.reduction)
        x, indices = tensor_shape(self.x.type), tensor_shape(self.indices.type)
        updates = tensor_shape(self.updates.type)
        if x is None or indices is None or not indices or indices[-1] < 0 or updates is None:
            return
        if indices[-1] > len(x):
            fail(self, f"indices address {indices[-1]} dims of a rank {len(x)} x")
        expected = indices[:-1] + x[indices[-1] :]
        if len(updates) != len(expected) or any(
            a >= 0 and b >= 0 and a != b for a, b in zip(updates, expected, strict=True)
        ):
            fail(
                self,
                f"updates shape {format_shape(updates)} differs from {format_shape(expected)}",
            )


# --------------------------------------------------------------------------------------------
# Data-dependent and index-generating ops (array_ops.h, selection_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class NonZeroOp(GEOp, NodeSyntax):
    """GE NonZero: the indices of the non-zero elements of `x`, as int64 `[rank, n]`.

    `n` depends on the data, so that dim is `?`. With `transpose` the layout is `[n, rank]`.
    `dtype` (GE's attribute, int64 by default) is the result element type.

        %y = graph.non_zero %x : (tensor<2x3xf32>) -> tensor<2x?xi64>
    """

    name = "graph.non_zero"
    GE_TYPE: ClassVar[str] = "NonZero"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    transpose = prop_def(BoolAttr, default_value=FALSE)
    dtype = prop_def(IntegerType, default_value=i64)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        transpose: bool = False,
        dtype: Attribute = i64,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"transpose": BoolAttr.from_bool(transpose), "dtype": dtype}
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[rank, ?]` (`[?, rank]` transposed): the count of non-zeros is data-dependent."""
        operand_count(cls, operand_types, 1)
        dims = tensor_shape(operand_types[0])
        rank = -1 if dims is None else len(dims)
        shape = (-1, rank) if prop_bool(cls, properties, "transpose") else (rank, -1)
        return (tensor_of(index_dtype(cls, properties), shape),)

    def verify_(self) -> None:
        verify_index_tensor(self, "result", self.y.type, 2)
        verify_dtype(self, self.dtype, self.y.type)
        inferred = infer_or_fail(self)
        verify_inferred(self, "the index layout", inferred)
        # `?` is a wildcard elsewhere, but here a static count claims the data: `?x1` for a
        # 1-d input passes the wildcard test yet the run gives `[1, n]`. The count may be
        # static only where it cannot vary, an input with no elements (count 0).
        declared, x = tensor_shape(self.y.type), tensor_shape(self.x.type)
        axis = 0 if self.transpose.value.data else 1
        if declared is None or len(declared) != 2 or declared[axis] < 0:
            return
        if x is not None and all(d >= 0 for d in x) and 0 in x and declared[axis] == 0:
            return
        expected = tensor_shape(inferred[0])
        assert expected is not None
        fail(
            self,
            f"result shape {format_shape(declared)} differs from the index layout "
            f"{format_shape(expected)}: dim {axis} counts the non-zeros, which depends on the "
            f"data, so it must be ?",
        )


def one_hot_shape(indices: Shape | None, depth: int, axis: int) -> Shape | None:
    if indices is None:
        return None
    axis = normalize_axis(None, axis, len(indices) + 1)
    return (*indices[:axis], depth, *indices[axis:])


@irdl_op_definition
class OneHotOp(GEOp, NodeSyntax):
    """GE OneHot: `on_value` where `x` equals the position along the new `axis`, else
    `off_value`.

    `depth`, `on_value` and `off_value` are scalars; `x` and `depth` may be any numeric type
    (ONNX casts them to integers). `depth` must be positive (onnxruntime rejects depth <= 0;
    a constant one is checked here, a computed one when the kernel runs). Indices in
    [-depth, depth) are valid, negative ones counting from the end (ONNX), others give an
    all-off row.

        %y = graph.one_hot %x, %d, %on, %off
            : (tensor<3xi64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<3x5xf32>
    """

    name = "graph.one_hot"
    GE_TYPE: ClassVar[str] = "OneHot"

    x = operand_def(AnyTensor)
    depth = operand_def(AnyTensor)
    on_value = operand_def(AnyTensor)
    off_value = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    axis = prop_def(IntegerAttr[I64], default_value=i64_attr(-1))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        depth: SSAValue | Operation,
        on_value: SSAValue | Operation,
        off_value: SSAValue | Operation,
        *,
        axis: int = -1,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"axis": i64_attr(axis)}
        operands = [x, depth, on_value, off_value]
        init_node(self, operands, result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`depth` inserted at `axis` of the shape of x; `?` when depth is not a constant."""
        operand_count(cls, operand_types, 4)
        known = const_ints(values, 1)
        depth = known[0] if known is not None and len(known) == 1 else -1
        if known is not None and len(known) == 1 and depth < 1:
            raise ValueError(f"depth must be positive, got {depth}")
        axis = prop_int(cls, properties, "axis")
        out = one_hot_shape(tensor_shape(operand_types[0]), depth, axis)
        return (tensor_of(element_type(operand_types[2]), out),)

    def verify_(self) -> None:
        types = (self.on_value.type, self.off_value.type, self.y.type)
        verify_element_types(self, types, "on_value, off_value and result")
        for what, v in (("on_value", self.on_value), ("off_value", self.off_value)):
            shape = tensor_shape(v.type)
            if shape is not None and len(shape) != 0:
                fail(self, f"{what} must be a scalar, got {v.type}")
        verify_inferred(self, "the one-hot shape")


@irdl_op_definition
class ReverseSequenceOp(GEOp, NodeSyntax):
    """GE ReverseSequence: reverses the first `seq_lengths[b]` elements along `seq_dim` of
    each batch entry `b` along `batch_dim` (ONNX time_axis and batch_axis).

        %y = graph.reverse_sequence %x, %l seq_dim 1
            : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<4x5xf32>
    """

    name = "graph.reverse_sequence"
    GE_TYPE: ClassVar[str] = "ReverseSequence"

    x = operand_def(AnyTensor)
    seq_lengths = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    seq_dim = prop_def(IntegerAttr[I64])
    batch_dim = prop_def(IntegerAttr[I64], default_value=i64_attr(0))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        seq_lengths: SSAValue | Operation,
        *,
        seq_dim: int,
        batch_dim: int = 0,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "seq_dim": i64_attr(seq_dim),
            "batch_dim": i64_attr(batch_dim),
        }
        init_node(self, [x, seq_lengths], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The type of `x`."""
        operand_count(cls, operand_types, 2)
        return (operand_types[0],)

    def verify_(self) -> None:
        verify_same_type(self, self.x.type, self.y.type)
        verify_index_tensor(self, "seq_lengths", self.seq_lengths.type, 1)
        dims = tensor_shape(self.x.type)
        if dims is None:
            return
        seq = normalize_axis(self, self.seq_dim.value.data, len(dims), "seq_dim")
        batch = normalize_axis(self, self.batch_dim.value.data, len(dims), "batch_dim")
        if seq == batch:
            fail(self, "seq_dim and batch_dim must differ")
        length = vector_length(self.seq_lengths.type)
        if length is not None and dims[batch] >= 0 and length != dims[batch]:
            fail(self, f"seq_lengths has {length} values for a batch of {dims[batch]}")


__all__ = [
    "GatherElementsOp",
    "GatherNdOp",
    "GatherV2DOp",
    "NonZeroOp",
    "OneHotOp",
    "ReverseSequenceOp",
    "ScatterElementsOp",
    "StridedSliceV2Op",
    "TensorScatterUpdateOp",
]

OPS = (
    StridedSliceV2Op,
    GatherV2DOp,
    GatherElementsOp,
    GatherNdOp,
    ScatterElementsOp,
    TensorScatterUpdateOp,
    NonZeroOp,
    OneHotOp,
    ReverseSequenceOp,
)
"""The ops of this module, in the order the dialect lists them."""
