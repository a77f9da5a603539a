"""Shape manipulation ops (GE array_ops.h, transformation_ops.h, split_combination_ops.h,
pad_ops.h).

Where ONNX passes a shape-like argument as a tensor input (Reshape's shape, Expand's shape,
Tile's repeats, Pad's pads, Squeeze/Unsqueeze axes since opset 13) the op takes it as an
operand, as GE's non-`D` op types do, so a value computed at run time still works. Builders
infer static result types when such an operand is a small `graph.const`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    BoolAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    TensorType,
    i32,
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
    var_operand_def,
    var_result_def,
)
from xdsl.traits import (
    Pure,
)

from gedialects import fast_verify
from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    element_count,
    element_type,
    int_array,
    int_array_values,
    is_static,
    shapes_compatible,
    tensor_shape,
)
from gedialects.formats import format_of, origin_type, verify_tensor_format
from gedialects.graph.common import (
    FALSE,
    TRUE,
    AnyTensor,
    Shape,
    build_result_types,
    const_ints,
    fail,
    format_shape,
    i64_attr,
    index_dtype,
    infer_or_fail,
    init_node,
    known_dims,
    normalize_axis,
    operand_count,
    prop_bool,
    prop_int,
    prop_ints,
    reshape_shape,
    same_element_type,
    tensor_of,
    vector_length,
    verify_dtype,
    verify_element_types,
    verify_index_tensor,
    verify_inferred,
    verify_same_type,
)

# --------------------------------------------------------------------------------------------
# Reshaping (array_ops.h, transformation_ops.h)
# --------------------------------------------------------------------------------------------


def reshape_target(shape: Sequence[int], target: Sequence[int], allowzero: bool) -> Shape:
    """The shape Reshape gives `shape` for `target`; with `allowzero` a 0 stays a 0 dim."""
    if not allowzero or 0 not in target:
        return reshape_shape(shape, target)
    if -1 in target:
        raise ValueError(f"shape {list(target)} mixes -1 with 0 while allowzero is set")
    if any(d < -1 for d in target):
        raise ValueError(f"shape {list(target)} has a negative dim")
    if known_dims(shape) and element_count(shape) != 0:
        raise ValueError(f"cannot reshape {element_count(shape)} elements into {list(target)}")
    return tuple(target)


def _reshape_unranked(target: Sequence[int], allowzero: bool) -> Shape:
    """Reshape of an unranked x: every dim `target` spells out, `?` where it refers to x."""
    if sum(1 for d in target if d == -1) > 1:
        raise ValueError(f"shape {list(target)} has more than one -1")
    if any(d < -1 for d in target):
        raise ValueError(f"shape {list(target)} has the negative dim {min(target)}")
    return tuple(-1 if d == -1 or (d == 0 and not allowzero) else d for d in target)


@irdl_op_definition
class ReshapeOp(GEOp, NodeSyntax):
    """GE Reshape: the elements of `x` in a new shape read from the 1-D int32/int64 `shape`.

    As in GE and ONNX, a 0 in `shape` copies the input dim at that position and one -1 takes
    the remaining element count. `allowzero` (ONNX opset 14, not a GE attribute) makes a 0
    an empty dim instead. The result type must agree with the shape values at run time; the
    verifier checks what the types alone decide (rank, element count).

        %s = graph.const dense<[0, -1]> : tensor<2xi64>
        %y = graph.reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
    """

    name = "graph.reshape"
    GE_TYPE: ClassVar[str] = "Reshape"

    x = operand_def(AnyTensor)
    shape = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    allowzero = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        shape: SSAValue | Operation,
        *,
        allowzero: bool = False,
        result_type: Attribute | None = None,
    ) -> None:
        """Infers the result type from a `graph.const` shape; `?` dims for other shapes."""
        props: dict[str, Attribute] = {"allowzero": TRUE if allowzero else FALSE}
        init_node(self, [x, shape], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 2)
        tx, ts = operand_types
        dims, target = tensor_shape(tx), const_ints(values, 1)
        allowzero = prop_bool(cls, properties, "allowzero")
        if target is None:
            length = vector_length(ts)
            out = None if length is None else (-1,) * length
        elif dims is None:
            out = _reshape_unranked(target, allowzero)
        else:
            out = reshape_target(dims, target, allowzero)
        return (tensor_of(element_type(tx), out),)

    @fast_verify.local
    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        shape_type = self.shape.type
        if (
            not isinstance(shape_type, TensorType)
            or shape_type.get_num_dims() != 1
            or shape_type.element_type not in (i32, i64)
        ):
            fail(self, f"shape must be a 1-D int32 or int64 tensor, got {shape_type}")
        length = shape_type.get_shape()[0]
        result = tensor_shape(self.y.type)
        if length >= 0 and result is not None and len(result) != length:
            fail(self, f"result rank {len(result)} differs from the length {length} of shape")
        if is_static(self.x.type) and is_static(self.y.type):
            count, result_count = (
                element_count(tensor_shape(self.x.type) or ()),
                element_count(result or ()),
            )
            if count != result_count:
                fail(self, f"x has {count} elements but the result has {result_count}")
        verify_inferred(self, "the reshaped shape")


@irdl_op_definition
class TransposeOp(GEOp, NodeSyntax):
    """GE Transpose: permutes the dims of `x`, result dim i being input dim `perm[i]`.

    GE's Transpose takes `perm` as a second (usually constant) input; this op keeps it as a
    property, which is GE's TransposeD form, so the result shape is known statically.

        %y = graph.transpose %x perm [0, 2, 3, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>

    It is also the format change FE inserts between NCHW and NHWC (trans-node insertion's
    Permute step, generator `TransposeD`): then x and the result are one tensor (same origin
    shape and format) stored in the two layouts, one of them a `#graph.format<NHWC origin
    NCHW ...>` or `<NCHW origin NHWC ...>`, and `perm` maps x's storage dims to the result's:

        %y = graph.transpose %x perm [0, 2, 3, 1] : (tensor<1x3x4x4xf32>)
            -> tensor<1x4x4x3xf32, #graph.format<NHWC origin NCHW [1, 3, 4, 4]>>
    """

    name = "graph.transpose"
    GE_TYPE: ClassVar[str] = "Transpose"
    OWN_FORMATS: ClassVar[bool] = True

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    perm = prop_def(DenseArrayBase.constr(i64))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        perm: Sequence[int],
        *,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"perm": int_array(perm)}
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """The permuted dims; `perm` alone gives the rank of an unranked x. Of an x stored
        NCHW / NHWC (`#graph.format`), FE's TransposeD back to its origin layout: the origin
        tensor (a transpose into a storage format is not inferred: its result's format is in
        its type only)."""
        operand_count(cls, operand_types, 1)
        (tx,) = operand_types
        if format_of(tx) is not None:
            return (origin_type(tx),)
        perm = prop_ints(cls, properties, "perm")
        dims = tensor_shape(tx)
        rank = len(perm) if dims is None else len(dims)
        if sorted(perm) != list(range(rank)):
            raise ValueError(f"perm {list(perm)} does not permute the {rank} dims of x")
        source = (-1,) * rank if dims is None else dims
        return (tensor_of(element_type(tx), [source[p] for p in perm]),)

    @fast_verify.local
    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        perm = int_array_values(self.perm)
        if format_of(self.x.type) is not None or format_of(self.y.type) is not None:
            self._verify_format_change(perm)
            return
        x, y = tensor_shape(self.x.type), tensor_shape(self.y.type)
        known = x if x is not None else y
        rank = len(perm) if known is None else len(known)
        if sorted(perm) != list(range(rank)):
            fail(self, f"perm {list(perm)} is not a permutation of the {rank} dims")
        verify_inferred(self, "the permuted shape")

    def _verify_format_change(self, perm: Sequence[int]) -> None:
        """FE's TransposeD between NCHW and NHWC storage of one tensor."""
        for t in (self.x.type, self.y.type):
            if (why := verify_tensor_format(t)) is not None:
                fail(self, why)
            enc = format_of(t)
            if enc is not None and enc.fmt not in ("NCHW", "NHWC"):
                fail(self, f"a transpose changes NCHW / NHWC storage only, got {enc.fmt}")
        ex, ey = format_of(self.x.type), format_of(self.y.type)
        if tensor_shape(self.x.type) != tensor_shape(self.y.type) or (
            ex is not None and ey is not None and ex.origin != ey.origin
        ):
            fail(
                self,
                f"changes the storage format of one tensor: {self.x.type} and {self.y.type} "
                "are different tensors",
            )
        assert isinstance(self.x.type, TensorType) and isinstance(self.y.type, TensorType)
        xs, ys = self.x.type.get_shape(), self.y.type.get_shape()
        if sorted(perm) != list(range(len(xs))) or [xs[p] for p in perm] != list(ys):
            fail(self, f"perm {list(perm)} does not map storage {list(xs)} to {list(ys)}")


@irdl_op_definition
class IdentityOp(GEOp, NodeSyntax):
    """GE Identity: `y = x`, after the nodes that produce `ctrl`, if any.

    Also the inference form of ONNX Dropout. The operands after `x` are GE control edges
    into the Identity (its in-control anchor): they carry no data, only order, so `y` is
    ready once `x` and every `ctrl` value are. Control edges land on any GE node; in this IR
    an Identity in front of the consumer carries them (as GE's `VariablePrepareOpPass` does
    for a Merge consumer), e.g. GE's While variable rule (`SplitVariableIntoSubgraphPass`:
    the consumers of a While output are fed by the variable itself plus a control edge from
    the While) is `graph.identity %var, %while_out`. A pass keeps the edges: Identity folding
    and constant folding leave an Identity with control inputs alone, and partitioning makes
    them call operands like any edge (GE re-creates cross-cluster control edges between call
    nodes).

        %y = graph.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
        %z = graph.identity %x, %w : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
    """

    name = "graph.identity"
    GE_TYPE: ClassVar[str] = "Identity"

    x = operand_def(AnyTensor)
    ctrl = var_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        ctrl: Sequence[SSAValue | Operation] = (),
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [x, list(ctrl)], result_type)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        if not operand_types:
            operand_count(cls, operand_types, 1)
        return (operand_types[0],)  # the control inputs after x carry no data

    def verify_(self) -> None:
        verify_same_type(self, self.x.type, self.y.type)


def flatten_shape(dims: Sequence[int], axis: int) -> Shape:
    """`[prod(dims[:axis]), prod(dims[axis:])]`, a negative axis counting from the end.

    A part with a `?` dim is `?` unless another of its dims is 0.
    """
    if not -len(dims) <= axis <= len(dims):
        raise ValueError(f"axis {axis} is out of range for rank {len(dims)}")
    axis = axis + len(dims) if axis < 0 else axis

    def part(ds: Sequence[int]) -> int:
        return element_count(ds) if known_dims(ds) or 0 in ds else -1

    return (part(dims[:axis]), part(dims[axis:]))


@irdl_op_definition
class FlattenOp(GEOp, NodeSyntax):
    """GE Flatten: `x` as a 2-D tensor `[prod(dims[:axis]), prod(dims[axis:])]`.

    `axis` lies in [-rank, rank] (ONNX semantics; axis 0 gives `[1, size]`).

        %y = graph.flatten %x axis 2 : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
    """

    name = "graph.flatten"
    GE_TYPE: ClassVar[str] = "Flatten"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    axis = prop_def(IntegerAttr[I64], default_value=i64_attr(1))

    traits = traits_def(Pure())

    def __init__(
        self, x: SSAValue | Operation, *, axis: int = 1, result_type: Attribute | None = None
    ) -> None:
        props: dict[str, Attribute] = {"axis": i64_attr(axis)}
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 1)
        (tx,) = operand_types
        dims = tensor_shape(tx)
        axis = prop_int(cls, properties, "axis")
        out = (-1, -1) if dims is None else flatten_shape(dims, axis)
        return (tensor_of(element_type(tx), out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        y = tensor_shape(self.y.type)
        if y is not None and len(y) != 2:
            fail(self, f"result must be 2-D, got {self.y.type}")
        verify_inferred(self, "the flat shape")


def squeeze_shape(dims: Sequence[int], axes: Sequence[int] | None) -> Shape | None:
    """Removes `axes` (all size-1 dims when None; unknown rank if a `?` dim might be 1)."""
    if axes is None:
        if any(d < 0 for d in dims):
            return None
        return tuple(d for d in dims if d != 1)
    norm = {normalize_axis(None, a, len(dims)) for a in axes}
    for a in norm:
        if dims[a] > 1:
            raise ValueError(f"cannot squeeze dim {a} of size {dims[a]}")
    return tuple(d for i, d in enumerate(dims) if i not in norm)


@irdl_op_definition
class SqueezeV3Op(GEOp, NodeSyntax):
    """GE SqueezeV3: removes the size-1 dims listed in the 1-D int64 `axes` (ONNX Squeeze-13).

    Without `axes`, every size-1 dim goes. Axes may be negative. GE's Squeeze keeps the axes
    as an attribute; this form takes them as an input like ONNX since opset 13.

        %a = graph.const dense<[0, 2]> : tensor<2xi64>
        %y = graph.squeeze_v3 %x, %a : (tensor<1x3x1xf32>, tensor<2xi64>) -> tensor<3xf32>
    """

    name = "graph.squeeze_v3"
    GE_TYPE: ClassVar[str] = "SqueezeV3"

    x = operand_def(AnyTensor)
    axes = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        axes: SSAValue | Operation | None = None,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [x, [] if axes is None else [axes]], result_type)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """Unknown axes remove as many dims as they hold, which ones is unknown."""
        count = operand_count(cls, operand_types, 1, 2)
        tx = operand_types[0]
        dims = tensor_shape(tx)
        out: Shape | None
        if dims is None:
            out = None
        elif count == 1:
            out = squeeze_shape(dims, None)
        elif (axes := const_ints(values, 1)) is not None:
            out = squeeze_shape(dims, axes)
        else:
            length = vector_length(operand_types[1])
            if length is not None and length > len(dims):
                raise ValueError(f"axes has {length} values for rank {len(dims)}")
            out = None if length is None else (-1,) * (len(dims) - length)
        return (tensor_of(element_type(tx), out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        if self.axes is not None:
            verify_index_tensor(self, "axes", self.axes.type, 1)
        verify_inferred(self, "the squeezed shape")


def unsqueeze_shape(dims: Sequence[int], axes: Sequence[int]) -> Shape:
    rank = len(dims) + len(axes)
    norm = sorted(normalize_axis(None, a, rank) for a in axes)
    if len(set(norm)) != len(norm):
        raise ValueError(f"axes {list(axes)} repeat an axis")
    rest = iter(dims)
    return tuple(1 if i in norm else next(rest) for i in range(rank))


@irdl_op_definition
class UnsqueezeV3Op(GEOp, NodeSyntax):
    """GE UnsqueezeV3: inserts size-1 dims at the result positions in the 1-D int64 `axes`.

    Axes refer to the result rank and may be negative (ONNX Unsqueeze-13).

        %a = graph.const dense<[0, -1]> : tensor<2xi64>
        %y = graph.unsqueeze_v3 %x, %a : (tensor<3xf32>, tensor<2xi64>) -> tensor<1x3x1xf32>
    """

    name = "graph.unsqueeze_v3"
    GE_TYPE: ClassVar[str] = "UnsqueezeV3"

    x = operand_def(AnyTensor)
    axes = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        axes: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [x, axes], result_type)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 2)
        tx, ta = operand_types
        dims, axes = tensor_shape(tx), const_ints(values, 1)
        out: Shape | None
        if dims is None:
            out = None
        elif axes is not None:
            out = unsqueeze_shape(dims, axes)
        else:
            length = vector_length(ta)
            out = None if length is None else (-1,) * (len(dims) + length)
        return (tensor_of(element_type(tx), out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_index_tensor(self, "axes", self.axes.type, 1)
        verify_inferred(self, "the unsqueezed shape")


# --------------------------------------------------------------------------------------------
# Concatenation and splitting (split_combination_ops.h)
# --------------------------------------------------------------------------------------------


def concat_shape(shapes: Sequence[Shape | None], axis: int) -> Shape | None:
    known = [s for s in shapes if s is not None]
    if not known:
        return None
    rank = len(known[0])
    if any(len(s) != rank for s in known):
        raise ValueError("inputs differ in rank")
    axis = normalize_axis(None, axis, rank, "concat_dim")
    out: list[int] = []
    for i in range(rank):
        dims = [s[i] for s in known]
        if i == axis:
            out.append(sum(dims) if len(known) == len(shapes) and known_dims(dims) else -1)
            continue
        fixed = {d for d in dims if d >= 0}
        if len(fixed) > 1:
            raise ValueError(f"inputs differ in dim {i}: {format_shape(sorted(fixed))}")
        out.append(fixed.pop() if fixed else -1)
    return tuple(out)


@irdl_op_definition
class ConcatDOp(GEOp, NodeSyntax):
    """GE ConcatD: joins the inputs along `concat_dim` (negative counts from the end).

    The inputs share one element type and all dims except `concat_dim`. GE's `N` attribute
    (the input count) is implied by the operands and not stored.

        %y = graph.concat_d %a, %b concat_dim 1
            : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
    """

    name = "graph.concat_d"
    GE_TYPE: ClassVar[str] = "ConcatD"

    x = var_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    concat_dim = prop_def(IntegerAttr[I64])

    traits = traits_def(Pure())

    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        concat_dim: int,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"concat_dim": i64_attr(concat_dim)}
        init_node(self, [list(inputs)], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        if not operand_types:
            raise ValueError("needs at least one input")
        elem = same_element_type(operand_types, "inputs")
        axis = prop_int(cls, properties, "concat_dim")
        shape = concat_shape([tensor_shape(t) for t in operand_types], axis)
        return (tensor_of(elem, shape),)

    @fast_verify.local
    def verify_(self) -> None:
        if not self.x:
            fail(self, "needs at least one input")
        verify_element_types(self, [*(v.type for v in self.x), self.y.type], "inputs and result")
        verify_inferred(self, "the concatenated shape")


def split_shapes(dims: Shape | None, axis: int, sizes: Sequence[int]) -> list[Shape | None]:
    """The result shapes of splitting `dims` along `axis` into `sizes` (-1 for unknown)."""
    if dims is None:
        return [None] * len(sizes)
    axis = normalize_axis(None, axis, len(dims), "split_dim")
    if known_dims(sizes) and dims[axis] >= 0 and sum(sizes) != dims[axis]:
        raise ValueError(f"split sizes {list(sizes)} do not add up to dim {axis} ({dims[axis]})")
    return [(*dims[:axis], s, *dims[axis + 1 :]) for s in sizes]


def equal_split_sizes(dim: int, num_split: int) -> list[int]:
    """ONNX Split-18 `num_outputs`: chunks of ceil(dim / n), the last one smaller."""
    if dim < 0:
        return [-1] * num_split
    chunk = -(-dim // num_split)
    return [min(chunk, max(dim - i * chunk, 0)) for i in range(num_split)]


def _num_split(cls: type[GEOp], properties: Mapping[str, Attribute]) -> int:
    num_split = prop_int(cls, properties, "num_split")
    if num_split < 1:
        raise ValueError(f"num_split must be positive, got {num_split}")
    return num_split


def _verify_split_results(op: Operation, x: Attribute, expected: Sequence[Attribute]) -> None:
    for i, (result, inferred) in enumerate(zip(op.results, expected, strict=True)):
        if element_type(result.type) != element_type(x):
            fail(op, f"result {i} has element type {element_type(result.type)}, x has {x}")
        actual, shape = tensor_shape(result.type), tensor_shape(inferred)
        if not shapes_compatible(actual, shape):
            assert actual is not None and shape is not None
            fail(op, f"result {i} shape {format_shape(actual)} differs from {format_shape(shape)}")


@irdl_op_definition
class SplitVOp(GEOp, NodeSyntax):
    """GE SplitV: splits `x` along `split_dim` into pieces of the sizes in `size_splits`.

    `size_splits` (1-D) and `split_dim` (a scalar) are int32/int64 tensors, as in GE; one
    size may be -1 for the rest. `num_split` is the number of results.

        %s = graph.const dense<[2, 4]> : tensor<2xi64>
        %d = graph.const dense<1> : tensor<i64>
        %a, %b = graph.split_v %x, %s, %d num_split 2
            : (tensor<3x6xf32>, tensor<2xi64>, tensor<i64>) -> (tensor<3x2xf32>, tensor<3x4xf32>)
    """

    name = "graph.split_v"
    GE_TYPE: ClassVar[str] = "SplitV"

    x = operand_def(AnyTensor)
    size_splits = operand_def(AnyTensor)
    split_dim = operand_def(AnyTensor)
    y = var_result_def(AnyTensor)

    num_split = prop_def(IntegerAttr[I64])

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        size_splits: SSAValue | Operation,
        split_dim: SSAValue | Operation,
        *,
        num_split: int,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"num_split": i64_attr(num_split)}
        if result_types is None:
            result_types = build_result_types(type(self), [x, size_splits, split_dim], props)
        super().__init__(
            operands=[x, size_splits, split_dim],
            result_types=[list(result_types)],
            properties=props,
        )

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """Unknown sizes give `?` along the split dim; an unknown split_dim `?` everywhere."""
        operand_count(cls, operand_types, 3)
        tx = operand_types[0]
        num_split = _num_split(cls, properties)
        dims = tensor_shape(tx)
        axis, sizes = const_ints(values, 2), const_ints(values, 1)
        shapes: list[Shape | None]
        if dims is None:
            shapes = [None] * num_split
        elif axis is None or len(axis) != 1:
            shapes = [(-1,) * len(dims)] * num_split
        else:
            sizes_list = list(sizes) if sizes is not None else [-1] * num_split
            if len(sizes_list) != num_split:
                raise ValueError(f"size_splits has {len(sizes_list)} sizes for {num_split} results")
            rest = normalize_axis(None, axis[0], len(dims), "split_dim")
            if sizes is not None and sizes_list.count(-1) == 1 and dims[rest] >= 0:
                sizes_list[sizes_list.index(-1)] = dims[rest] - sum(
                    s for s in sizes_list if s != -1
                )
            shapes = split_shapes(dims, axis[0], sizes_list)
        return tuple(tensor_of(element_type(tx), s) for s in shapes)

    @fast_verify.local
    def verify_(self) -> None:
        num_split = self.num_split.value.data
        if num_split < 1 or num_split != len(self.y):
            fail(self, f"num_split {num_split} differs from the {len(self.y)} results")
        verify_index_tensor(self, "size_splits", self.size_splits.type, 1)
        verify_index_tensor(self, "split_dim", self.split_dim.type, 0, 1)
        _verify_split_results(self, self.x.type, infer_or_fail(self))


@irdl_op_definition
class SplitDOp(GEOp, NodeSyntax):
    """GE SplitD: splits `x` along `split_dim` into `num_split` equal pieces.

    When the dim does not divide evenly the pieces have ONNX Split-18's `num_outputs` sizes:
    ceil(dim / num_split) each, the last one smaller (GE requires an even split).

        %a, %b = graph.split_d %x split_dim 1 num_split 2
            : (tensor<3x6xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>)
    """

    name = "graph.split_d"
    GE_TYPE: ClassVar[str] = "SplitD"

    x = operand_def(AnyTensor)
    y = var_result_def(AnyTensor)

    split_dim = prop_def(IntegerAttr[I64])
    num_split = prop_def(IntegerAttr[I64])

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        split_dim: int,
        num_split: int,
        result_types: Sequence[Attribute] | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "split_dim": i64_attr(split_dim),
            "num_split": i64_attr(num_split),
        }
        if result_types is None:
            result_types = build_result_types(type(self), [x], props)
        super().__init__(operands=[x], result_types=[list(result_types)], properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 1)
        (tx,) = operand_types
        num_split = _num_split(cls, properties)
        dims = tensor_shape(tx)
        shapes: list[Shape | None] = [None] * num_split
        if dims is not None:
            axis = normalize_axis(
                None, prop_int(cls, properties, "split_dim"), len(dims), "split_dim"
            )
            shapes = split_shapes(dims, axis, equal_split_sizes(dims[axis], num_split))
        return tuple(tensor_of(element_type(tx), s) for s in shapes)

    def verify_(self) -> None:
        num_split = self.num_split.value.data
        if num_split < 1 or num_split != len(self.y):
            fail(self, f"num_split {num_split} differs from the {len(self.y)} results")
        _verify_split_results(self, self.x.type, infer_or_fail(self))


# --------------------------------------------------------------------------------------------
# Shapes (array_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ShapeOp(GEOp, NodeSyntax):
    """GE Shape: the dims of `x` as a 1-D int32 or int64 tensor.

    `dtype` (GE's attribute) is the result element type; the default here is int64 (ONNX's),
    GE's is int32. ONNX Shape-15 `start`/`end` are imported as a slice of this result.

        %s = graph.shape %x : (tensor<2x?xf32>) -> tensor<2xi64>
    """

    name = "graph.shape"
    GE_TYPE: ClassVar[str] = "Shape"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    dtype = prop_def(IntegerType, default_value=i64)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        dtype: Attribute = i64,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"dtype": dtype}
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
        return (tensor_of(index_dtype(cls, properties), (-1 if dims is None else len(dims),)),)

    def verify_(self) -> None:
        verify_index_tensor(self, "result", self.y.type, 1)
        verify_dtype(self, self.dtype, self.y.type)
        verify_inferred(self, "the rank of x")


@irdl_op_definition
class SizeOp(GEOp, NodeSyntax):
    """GE Size: the element count of `x` as an int32 or int64 scalar.

    `dtype` (GE's attribute) is the result element type; int64 by default (GE's is int32).

        %n = graph.size %x : (tensor<2x3xf32>) -> tensor<i64>
    """

    name = "graph.size"
    GE_TYPE: ClassVar[str] = "Size"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    dtype = prop_def(IntegerType, default_value=i64)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        dtype: Attribute = i64,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"dtype": dtype}
        init_node(self, [x], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 1)
        return (tensor_of(index_dtype(cls, properties), ()),)

    def verify_(self) -> None:
        verify_index_tensor(self, "result", self.y.type, 0)
        verify_dtype(self, self.dtype, self.y.type)
        verify_inferred(self, "a scalar")


__all__ = [
    "ConcatDOp",
    "FlattenOp",
    "IdentityOp",
    "ReshapeOp",
    "ShapeOp",
    "SizeOp",
    "SplitDOp",
    "SplitVOp",
    "SqueezeV3Op",
    "TransposeOp",
    "UnsqueezeV3Op",
]

OPS = (
    ReshapeOp,
    TransposeOp,
    IdentityOp,
    FlattenOp,
    SqueezeV3Op,
    UnsqueezeV3Op,
    ConcatDOp,
    SplitVOp,
    SplitDOp,
    ShapeOp,
    SizeOp,
)
"""The ops of this module, in the order the dialect lists them."""
