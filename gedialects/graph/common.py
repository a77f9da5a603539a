"""Shape helpers, verifier helpers and abstract bases shared by the graph compute ops."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import ClassVar, NoReturn

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BoolAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    OperandDef,
    ResultDef,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import (
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from gedialects import fast_verify
from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    const_values,
    element_count,
    element_type,
    i64_interned,
    infer_kept,
    shapes_compatible,
    tensor_shape,
    types_compatible,
)

# --------------------------------------------------------------------------------------------
# Shape helpers and abstract bases of the compute ops
# --------------------------------------------------------------------------------------------

AnyTensor = TensorType | UnrankedTensorType
"""Operand/result constraint of compute ops: GE tensors may have unknown dims or unknown rank."""

DATA_FORMATS = ("NCHW", "NHWC")


def fail(op: Operation, message: str) -> NoReturn:
    raise VerifyException(f"'{op.name}' {message}")


def format_shape(shape: Sequence[int]) -> str:
    """`[2, ?, 3]`: a shape as diagnostics print it."""
    return "[" + ", ".join("?" if d < 0 else str(d) for d in shape) + "]"


def tensor_of(elem: Attribute, shape: Sequence[int] | None) -> TensorType | UnrankedTensorType:
    """A tensor type from dims that use any negative value for `?`; None gives `tensor<*x...>`."""
    return _tensor_of(elem, None if shape is None else tuple(d if d >= 0 else -1 for d in shape))


@functools.lru_cache(maxsize=1 << 14)
def _tensor_of(elem: Attribute, dims: tuple[int, ...] | None) -> TensorType | UnrankedTensorType:
    """Types are immutable and building one verifies it (a quarter of shape inference): the
    inference rules ask for the same few types again and again, so each is built once."""
    if dims is None:
        return UnrankedTensorType(elem)
    return TensorType(elem, [d if d >= 0 else DYNAMIC_INDEX for d in dims])


def broadcast_shape(a: Sequence[int] | None, b: Sequence[int] | None) -> tuple[int, ...] | None:
    """numpy broadcasting of two shapes (None when either rank is unknown).

    A `?` dim against 1 or `?` stays `?` (-1); against n > 1 it becomes n, the only value
    that can broadcast. Raises ValueError when two known dims disagree.
    """
    if a is None or b is None:
        return None
    rank = max(len(a), len(b))
    out: list[int] = []
    for x, y in zip(
        (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b), strict=True
    ):
        if x == 1 or (x < 0 and y > 1):
            out.append(y if y >= 0 else -1)
        elif y == 1 or y < 0 or x == y:
            out.append(x if x >= 0 else -1)
        else:
            raise ValueError(f"shapes {format_shape(a)} and {format_shape(b)} do not broadcast")
    return tuple(out)


def reshape_shape(shape: Sequence[int], target: Sequence[int]) -> tuple[int, ...]:
    """The shape GE/ONNX Reshape gives `shape` for the requested `target`.

    A 0 in `target` copies the input dim at that position, one -1 takes the remaining element
    count; `?` input dims make the inferred dim `?` (-1). Raises ValueError when impossible.
    """
    if sum(1 for d in target if d == -1) > 1:
        raise ValueError(f"shape {list(target)} has more than one -1")
    dims: list[int] = []
    for i, d in enumerate(target):
        if d == 0:
            if i >= len(shape):
                raise ValueError(f"shape {list(target)} copies dim {i} of a rank {len(shape)} x")
            dims.append(shape[i] if shape[i] >= 0 else -1)
        elif d < -1:
            raise ValueError(f"shape {list(target)} has the negative dim {d}")
        else:
            dims.append(d)
    if any(d < 0 for d in shape):
        return tuple(dims)
    count = element_count(shape)
    known = element_count(d for d in dims if d != -1)
    if -1 in dims:
        if known == 0 or count % known:
            raise ValueError(f"cannot reshape {count} elements into {list(target)}")
        dims[dims.index(-1)] = count // known
    elif known != count:
        raise ValueError(f"cannot reshape {count} elements into {list(target)}")
    return tuple(dims)


def verify_element_types(op: Operation, types: Sequence[Attribute], what: str) -> None:
    elems = [element_type(t) for t in types]
    if any(e != elems[0] for e in elems):
        fail(op, f"requires one element type for {what}, got {', '.join(map(str, elems))}")


def verify_rank(op: Operation, what: str, t: Attribute, *ranks: int) -> tuple[int, ...] | None:
    """The shape of `t` after checking its rank is one of `ranks` (None when unranked)."""
    shape = tensor_shape(t)
    if shape is not None and len(shape) not in ranks:
        expected = " or ".join(f"{r}-D" for r in ranks)
        fail(op, f"{what} must be {expected}, got {t}")
    return shape


def verify_result_shape(op: Operation, expected: Sequence[int] | None, what: str) -> None:
    actual = tensor_shape(op.results[0].type)
    if not shapes_compatible(actual, expected):
        assert actual is not None and expected is not None
        actual_text, expected_text = format_shape(actual), format_shape(expected)
        fail(op, f"result shape {actual_text} differs from {what} {expected_text}")


def verify_data_format(op: Operation, data_format: StringAttr) -> None:
    if data_format.data not in DATA_FORMATS:
        fail(op, f'data_format must be "NCHW" or "NHWC", got "{data_format.data}"')


def bool_attr(value: bool) -> BoolAttr:
    """One of two shared attributes (immutable): `BoolAttr.from_bool` builds and verifies a
    new IntegerAttr per call, and the builders make one per flag of every node."""
    return TRUE if value else FALSE


TRUE = BoolAttr.from_bool(True)
FALSE = BoolAttr.from_bool(False)


# --------------------------------------------------------------------------------------------
# Inference helpers: builders and verifiers go through the op's `infer_result_types`
# --------------------------------------------------------------------------------------------

BuilderOperand = SSAValue | Operation | Sequence[SSAValue | Operation]
"""An operand group as IRDL builders take it: one value, or a list for optional/variadic defs."""


def build_result_types(
    op_type: type[GEOp],
    operands: Sequence[BuilderOperand],
    properties: Mapping[str, Attribute] | None = None,
) -> list[Attribute]:
    """The result types `op_type`'s rule gives `operands`, for builders called without them.

    Properties not given take their IRDL defaults, as they will on the built op; constant
    operands feed the rule's `values`. Raises ValueError when the operands do not go together.
    """
    flat: list[SSAValue] = []
    for group in operands:
        if group.__class__ in _VALUE_CLASSES:  # most operands: no ABC test, no SSAValue.get
            flat.append(group)  # pyright: ignore[reportArgumentType]
        elif isinstance(group, SSAValue | Operation):
            flat.append(SSAValue.get(group))
        else:
            flat.extend(SSAValue.get(v) for v in group)
    props = dict(_default_properties(op_type))
    if properties:
        props.update(properties)
    # kept as the verifier keeps it: a graph repeats few (class, types, properties)
    inferred = infer_kept(
        op_type, tuple(v.type for v in flat), props, lambda i: const_values(flat[i])
    )
    if inferred is None:
        raise ValueError(f"'{op_type.name}' has no inference rule: give its result types")
    return list(inferred)


_VALUE_CLASSES = frozenset((OpResult, BlockArgument))
"""The concrete SSA value classes: an operand of one of them is its own `SSAValue.get`."""


@functools.cache
def _default_properties(op_type: type[GEOp]) -> tuple[tuple[str, Attribute], ...]:
    """The IRDL defaults of `op_type`'s properties (a builder is called per node)."""
    return tuple(
        (key, prop.default_value)
        for key, prop in op_type.get_irdl_definition().properties.items()
        if prop.default_value is not None
    )


def init_node(
    op: GEOp,
    operands: Sequence[BuilderOperand],
    result_type: Attribute | None,
    properties: Mapping[str, Attribute] | None = None,
) -> None:
    """The builder body of a one-result node: `operands` as IRDL takes them (a list per
    optional or variadic operand), the result type from the op's rule when not given."""
    if result_type is None:
        (result_type,) = build_result_types(type(op), operands, properties)
    values = [v for v in operands if isinstance(v, SSAValue)]
    if len(values) == len(operands) and _plain_signature(type(op), len(operands)):
        # what irdl_op_init ends in for one value per operand def, one result and no
        # segment sizes: its argument lists, checks and None filtering would change nothing
        # (a third of building a node: the importer builds one or more per ONNX node)
        Operation.__init__(
            op,
            operands=values,
            result_types=(result_type,),
            properties={k: v for k, v in (properties or {}).items() if v is not None},
        )
        return
    IRDLOperation.__init__(
        op, operands=list(operands), result_types=[result_type], properties=dict(properties or {})
    )


@functools.cache
def _plain_signature(op_type: type[GEOp], given: int) -> bool:
    """Whether `op_type` has `given` operand defs, each of one value, a single one-value
    result and no regions, successors or IRDL options (segment sizes, same-size checks)."""
    op_def = op_type.get_irdl_definition()
    return (
        len(op_def.operands) == given
        and all(type(d) is OperandDef for _, d in op_def.operands)
        and len(op_def.results) == 1
        and type(op_def.results[0][1]) is ResultDef
        and not op_def.regions
        and not op_def.successors
        and not op_def.options
    )


def infer_or_fail(op: GEOp) -> tuple[Attribute, ...]:
    """`op.infer_types()`, a ValueError of the rule raised as the op's diagnostic.

    An op without a rule gets its declared result types back (nothing to check against).
    """
    try:
        inferred = op.infer_types()
    except ValueError as e:
        fail(op, str(e))
    return tuple(op.result_types) if inferred is None else inferred


def verify_inferred(op: GEOp, what: str, inferred: Sequence[Attribute] | None = None) -> None:
    """Checks the declared result types against the rule's (`?` and `*` are wildcards).

    `what` names the inferred shape in the diagnostic: `result shape [3] differs from
    <what> [2, 3]`. Element types are compared after the shapes. `inferred` saves running
    the rule again when the verifier already has its result.
    """
    if inferred is None:
        inferred = infer_or_fail(op)
    for i, (result, expected) in enumerate(zip(op.results, inferred, strict=True)):
        label = "result" if len(op.results) == 1 else f"result #{i}"
        actual_shape, expected_shape = tensor_shape(result.type), tensor_shape(expected)
        if not shapes_compatible(actual_shape, expected_shape):
            assert actual_shape is not None and expected_shape is not None
            fail(
                op,
                f"{label} shape {format_shape(actual_shape)} differs from {what} "
                f"{format_shape(expected_shape)}",
            )
        if element_type(result.type) != element_type(expected):
            fail(
                op,
                f"{label} element type {element_type(result.type)} differs from the inferred "
                f"{element_type(expected)}",
            )


def is_int8(elem: Attribute) -> bool:
    """An 8-bit integer element type (int8 or uint8): the operands of GE's int8 cube products."""
    return isinstance(elem, IntegerType) and elem.width.data == 8


def product_element_type(types: Sequence[Attribute], names: str) -> Attribute:
    """The result element type of a GE cube product (Conv2D, MatMul) over `types` = x, the
    filter (or x2), then the optional bias: their one element type, or i32 for GE's int8 form
    (`DT_INT8` in, `DT_INT32` out: an i8/ui8 x, an i8 filter, an i32 bias). ValueError naming
    what differs."""
    elems = [element_type(t) for t in types]
    if len(elems) >= 2 and is_int8(elems[0]):
        if elems[1] != IntegerType(8):
            raise ValueError(f"an 8-bit integer x takes an i8 weight, got {elems[1]}")
        if len(elems) > 2 and elems[2] != i32:
            raise ValueError(f"the bias of an 8-bit integer product must be i32, got {elems[2]}")
        return i32
    return same_element_type(types, names)


def verify_product_types(op: Operation, types: Sequence[Attribute], result: Attribute) -> None:
    """x, the weight and the optional bias (`types`) and `result` have one element type, or
    GE's int8 form (`product_element_type`)."""
    if len(types) < 2 or not is_int8(element_type(types[0])):
        verify_element_types(op, [*types[:2], result, *types[2:]], "operands and result")
        return
    try:
        elem = product_element_type(types, "operands")
    except ValueError as e:
        fail(op, str(e))
    if element_type(result) != elem:
        fail(op, f"result element type must be {elem}, got {element_type(result)}")


def same_element_type(types: Sequence[Attribute], names: str) -> Attribute:
    """The one element type of `types`; ValueError naming the operands when they differ."""
    elems = [element_type(t) for t in types]
    if any(e != elems[0] for e in elems):
        raise ValueError(f"requires one element type for {names}, got {', '.join(map(str, elems))}")
    return elems[0]


def operand_broadcast(a: Attribute, b: Attribute) -> tuple[int, ...] | None:
    """`broadcast_shape` of two operand types, its ValueError worded for diagnostics."""
    try:
        return broadcast_shape(tensor_shape(a), tensor_shape(b))
    except ValueError as e:
        raise ValueError(f"operand {e}") from None


def broadcast_into(src: Sequence[int] | None, dst: Sequence[int] | None) -> tuple[int, ...] | None:
    """`dst` refined by a `src` that broadcasts into it without changing its rank or dims.

    A `?` dim of `dst` facing n > 1 in `src` must be n. None (unranked) stays None; raises
    ValueError when `src` cannot broadcast into `dst`.
    """
    if dst is None:
        return None
    if src is None:
        return tuple(dst)
    if len(src) > len(dst):
        raise ValueError(f"rank {len(src)} exceeds rank {len(dst)}")
    out = list(dst)
    offset = len(dst) - len(src)
    for i, s in enumerate(src):
        d = dst[offset + i]
        if d < 0:
            out[offset + i] = s if s > 1 else -1
        elif s >= 0 and s not in (1, d):
            raise ValueError(f"dim {s} does not broadcast to {d}")
    return tuple(out)


class ElementwiseBinaryOp(GEOp, NodeSyntax):
    """Base of GE's broadcasting binary ops `y = x1 <op> x2` (elewise_calculation_ops.h).

    Operands and result share one element type; the result shape is the numpy broadcast of
    the operand shapes (`?` matches anything, unranked tensors are accepted).
    """

    FORMAT_AGNOSTIC: ClassVar[bool] = True

    x1 = operand_def(AnyTensor)
    x2 = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        t1, t2 = operand_types
        elem = same_element_type((t1, t2), "x1 and x2")
        return (tensor_of(elem, operand_broadcast(t1, t2)),)

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [x1, x2], result_type)

    @fast_verify.local
    def verify_(self) -> None:
        types = (self.x1.type, self.x2.type, self.y.type)
        verify_element_types(self, types, "operands and result")
        verify_inferred(self, "the broadcast shape")


class ElementwiseUnaryOp(GEOp, NodeSyntax):
    """Base of GE's unary elementwise ops `y = f(x)`: the result type is the operand type."""

    FORMAT_AGNOSTIC: ClassVar[bool] = True

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        return (operand_types[0],)

    def __init__(self, x: SSAValue | Operation, *, result_type: Attribute | None = None) -> None:
        init_node(self, [x], result_type)

    @fast_verify.local
    def verify_(self) -> None:
        (inferred,) = infer_or_fail(self)
        if not types_compatible(self.y.type, inferred):
            fail(self, f"result type {self.y.type} differs from the operand type {self.x.type}")


# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Operand, property and index helpers of the category modules (array, broadcast, indexing,
# reduction, nn, normalization, pooling)
# --------------------------------------------------------------------------------------------

Shape = tuple[int, ...]
"""Dims with -1 for `?`."""


def i64_attr(value: int) -> IntegerAttr:
    return i64_interned(value)


def is_index_type(t: Attribute) -> bool:
    return element_type(t) in (i32, i64)


def verify_index_tensor(op: Operation, what: str, t: Attribute, *ranks: int) -> None:
    """`t` has an int32/int64 element type and, when ranked and `ranks` are given, such a rank."""
    if not is_index_type(t):
        fail(op, f"{what} must be an int32 or int64 tensor, got {t}")
    shape = tensor_shape(t)
    if ranks and shape is not None and len(shape) not in ranks:
        expected = " or ".join(f"{r}-D" for r in ranks)
        fail(op, f"{what} must be {expected}, got {t}")


def normalize_axis(op: Operation | None, axis: int, rank: int, what: str = "axis") -> int:
    """`axis` in [-rank, rank) as an index in [0, rank); raises (VerifyException/ValueError)."""
    if not -rank <= axis < rank:
        message = f"{what} {axis} is out of range for rank {rank}"
        if op is None:
            raise ValueError(message)
        fail(op, message)
    return axis % rank


def vector_length(t: Attribute) -> int | None:
    """The static length of a 1-D tensor type, None when unknown."""
    shape = tensor_shape(t)
    if shape is None or len(shape) != 1 or shape[0] < 0:
        return None
    return shape[0]


def known_dims(shape: Sequence[int]) -> bool:
    return all(d >= 0 for d in shape)


def verify_same_type(op: Operation, x: Attribute, y: Attribute) -> None:
    if not types_compatible(x, y):
        fail(op, f"result type {y} differs from the operand type {x}")


# Reading an op's properties inside `infer_result_types` (a classmethod: there is no op yet
# when a builder asks). A property the caller left out takes the op definition's default.


def prop(cls: type[GEOp], properties: Mapping[str, Attribute], name: str) -> Attribute:
    attr = properties.get(name)
    if attr is None:
        definition = cls.get_irdl_definition().properties.get(name)
        attr = None if definition is None else definition.default_value
        if attr is None:
            raise ValueError(f"'{cls.name}' needs the property {name}")
    return attr


def _bad_prop(cls: type[GEOp], name: str, attr: Attribute) -> NoReturn:
    raise ValueError(f"'{cls.name}' property {name} has the wrong kind of value {attr}")


def prop_int(cls: type[GEOp], properties: Mapping[str, Attribute], name: str) -> int:
    attr = prop(cls, properties, name)
    if not isinstance(attr, IntegerAttr):
        _bad_prop(cls, name, attr)
    return int(attr.value.data)


def prop_bool(cls: type[GEOp], properties: Mapping[str, Attribute], name: str) -> bool:
    return prop_int(cls, properties, name) != 0


def prop_float(cls: type[GEOp], properties: Mapping[str, Attribute], name: str) -> float:
    attr = prop(cls, properties, name)
    if not isinstance(attr, FloatAttr):
        _bad_prop(cls, name, attr)
    return float(attr.value.data)


def prop_str(cls: type[GEOp], properties: Mapping[str, Attribute], name: str) -> str:
    attr = prop(cls, properties, name)
    if not isinstance(attr, StringAttr):
        _bad_prop(cls, name, attr)
    return attr.data


def prop_ints(cls: type[GEOp], properties: Mapping[str, Attribute], name: str) -> Shape:
    attr = prop(cls, properties, name)
    if not isinstance(attr, DenseArrayBase):
        _bad_prop(cls, name, attr)
    return tuple(int(v) for v in attr.get_values())


def prop_floats(
    cls: type[GEOp], properties: Mapping[str, Attribute], name: str
) -> tuple[float, ...]:
    attr = prop(cls, properties, name)
    if not isinstance(attr, DenseArrayBase):
        _bad_prop(cls, name, attr)
    return tuple(float(v) for v in attr.get_values())


def const_ints(values: OperandValues, i: int) -> Shape | None:
    """The value of shape-like operand `i` as ints, None when it is not a known constant."""
    known = values(i)
    return None if known is None else tuple(int(v) for v in known)


def operand_count(cls: type[GEOp], types: Sequence[Attribute], *counts: int) -> int:
    """`len(types)` after checking it is one of `counts` (optional operands change it)."""
    if len(types) not in counts:
        expected = " or ".join(map(str, counts))
        raise ValueError(f"'{cls.name}' takes {expected} operands, got {len(types)}")
    return len(types)


def index_dtype(cls: type[GEOp], properties: Mapping[str, Attribute]) -> Attribute:
    """The `dtype` property of an op returning indices or dims: i32 or i64."""
    dtype = prop(cls, properties, "dtype")
    if dtype not in (i32, i64):
        raise ValueError(f"dtype must be i32 or i64, got {dtype}")
    return dtype


def verify_dtype(op: Operation, dtype: Attribute, result: Attribute) -> None:
    if dtype not in (i32, i64):
        fail(op, f"dtype must be i32 or i64, got {dtype}")
    if element_type(result) != dtype:
        fail(op, f"result element type {element_type(result)} differs from dtype {dtype}")


# --------------------------------------------------------------------------------------------
# Layout helpers of the convolution, pooling and normalisation ops and their kernels
# --------------------------------------------------------------------------------------------

CONV_FORMATS = {2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}
"""data_format values per number of spatial dims: channels first, then channels last."""


def channels_last(data_format: str) -> bool:
    """True for NHWC-like formats (C is the last letter)."""
    return data_format.endswith("C")


def spatial_axes(data_format: str, rank: int) -> tuple[int, ...]:
    """The spatial axes of a rank-`rank` tensor in `data_format` (N first, then C or spatial)."""
    return tuple(range(1, rank - 1)) if channels_last(data_format) else tuple(range(2, rank))


def window_output_size(
    size: int, kernel: int, stride: int, dilation: int, before: int, after: int, ceil: bool
) -> int:
    """Output length of a sliding window (ONNX/GE rule); 0 when the window does not fit.

    With `ceil`, a last window that would start inside the end padding is dropped, as in
    ONNX (and PyTorch).
    """
    extent = size + before + after - dilation * (kernel - 1) - 1
    if extent < 0:
        return 0
    out = (-(-extent // stride) if ceil else extent // stride) + 1
    if ceil and (out - 1) * stride >= size + before:
        out -= 1
    return out
