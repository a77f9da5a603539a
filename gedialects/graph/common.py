"""Shape helpers, verifier helpers and abstract bases shared by the graph compute ops."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NoReturn

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BoolAttr,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import (
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from gedialects.base import (
    GEOp,
    NodeSyntax,
    element_type,
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
    if shape is None:
        return UnrankedTensorType(elem)
    return TensorType(elem, [d if d >= 0 else DYNAMIC_INDEX for d in shape])


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
    count = product(shape)
    known = product(d for d in dims if d != -1)
    if -1 in dims:
        if known == 0 or count % known:
            raise ValueError(f"cannot reshape {count} elements into {list(target)}")
        dims[dims.index(-1)] = count // known
    elif known != count:
        raise ValueError(f"cannot reshape {count} elements into {list(target)}")
    return tuple(dims)


def product(dims: Iterable[int]) -> int:
    result = 1
    for d in dims:
        result *= d
    return result


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
    return BoolAttr.from_bool(value)


FALSE = bool_attr(False)


class ElementwiseBinaryOp(GEOp, NodeSyntax):
    """Base of GE's broadcasting binary ops `y = x1 <op> x2` (elewise_calculation_ops.h).

    Operands and result share one element type; the result shape is the numpy broadcast of
    the operand shapes (`?` matches anything, unranked tensors are accepted).
    """

    x1 = operand_def(AnyTensor)
    x2 = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        if result_type is None:
            t1, t2 = SSAValue.get(x1).type, SSAValue.get(x2).type
            shape = broadcast_shape(tensor_shape(t1), tensor_shape(t2))
            result_type = tensor_of(element_type(t1), shape)
        super().__init__(operands=[x1, x2], result_types=[result_type])

    def verify_(self) -> None:
        types = (self.x1.type, self.x2.type, self.y.type)
        verify_element_types(self, types, "operands and result")
        try:
            shape = broadcast_shape(tensor_shape(self.x1.type), tensor_shape(self.x2.type))
        except ValueError as e:
            fail(self, f"operand {e}")
        verify_result_shape(self, shape, "the broadcast shape")


class ElementwiseUnaryOp(GEOp, NodeSyntax):
    """Base of GE's unary elementwise ops `y = f(x)`: the result type is the operand type."""

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(self, x: SSAValue | Operation, *, result_type: Attribute | None = None) -> None:
        if result_type is None:
            result_type = SSAValue.get(x).type
        super().__init__(operands=[x], result_types=[result_type])

    def verify_(self) -> None:
        if not types_compatible(self.x.type, self.y.type):
            fail(self, f"result type {self.y.type} differs from the operand type {self.x.type}")


# --------------------------------------------------------------------------------------------
