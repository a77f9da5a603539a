"""Broadcasting, tiling, padding and generated tensors (GE array_ops.h, selection_ops.h,
pad_ops.h, matrix_calculation_ops.h).

Split from `array.py` to keep modules short; the helpers come from there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    StringAttr,
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
    element_count,
    element_type,
    tensor_shape,
)
from gedialects.graph.common import (
    AnyTensor,
    Shape,
    const_ints,
    fail,
    format_shape,
    init_node,
    known_dims,
    normalize_axis,
    operand_count,
    prop_bool,
    same_element_type,
    tensor_of,
    vector_length,
    verify_element_types,
    verify_index_tensor,
    verify_inferred,
    verify_same_type,
)

# --------------------------------------------------------------------------------------------
# Broadcasting, tiling, padding (array_ops.h, selection_ops.h, pad_ops.h)
# --------------------------------------------------------------------------------------------


def expand_shape(dims: Sequence[int], target: Sequence[int]) -> Shape:
    """ONNX Expand: numpy broadcast of `dims` and `target` (a 1 in either takes the other).

    A `?` on one side gives the other side's dim when that is not 1 (the only size that can
    broadcast with it), else `?`.
    """
    rank = max(len(dims), len(target))
    a = (1,) * (rank - len(dims)) + tuple(dims)
    b = (1,) * (rank - len(target)) + tuple(target)
    out: list[int] = []
    for x, y in zip(a, b, strict=True):
        if x == 1:
            out.append(y if y >= 0 else -1)
        elif y == 1 or x == y:
            out.append(x if x >= 0 else -1)
        elif x < 0 or y < 0:
            out.append(max(x, y))  # the known side (> 1 or 0) is the only fit; else `?`
        else:
            raise ValueError(f"cannot expand {format_shape(dims)} to {format_shape(target)}")
    return tuple(out)


@irdl_op_definition
class ExpandOp(GEOp, NodeSyntax):
    """GE Expand: broadcasts `x` against the 1-D int `shape` (numpy rules, both directions).

    As in ONNX, a 1 in `shape` keeps the input dim, so the result may be larger than `shape`.

        %s = graph.const dense<[2, 1, 4]> : tensor<3xi64>
        %y = graph.expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
    """

    name = "graph.expand"
    GE_TYPE: ClassVar[str] = "Expand"

    x = operand_def(AnyTensor)
    shape = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        shape: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [x, shape], result_type)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """An unknown `shape` of known length still keeps the dims of x that are > 1."""
        operand_count(cls, operand_types, 2)
        tx, ts = operand_types
        dims, target = tensor_shape(tx), const_ints(values, 1)
        length = len(target) if target is not None else vector_length(ts)
        out: Shape | None = None
        if dims is not None and length is not None:
            if target is None:
                target = (-1,) * length
            out = expand_shape(dims, target)
        return (tensor_of(element_type(tx), out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_index_tensor(self, "shape", self.shape.type, 1)
        verify_inferred(self, "the expanded shape")


@irdl_op_definition
class TileOp(GEOp, NodeSyntax):
    """GE Tile: repeats `x` `multiples[i]` times along dim i (`multiples` 1-D, one per dim).

    %m = graph.const dense<[2, 1]> : tensor<2xi64>
    %y = graph.tile %x, %m : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
    """

    name = "graph.tile"
    GE_TYPE: ClassVar[str] = "Tile"

    x = operand_def(AnyTensor)
    multiples = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        multiples: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [x, multiples], result_type)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`dims[i] * multiples[i]`; the length of `multiples` gives the rank of an unranked x."""
        operand_count(cls, operand_types, 2)
        tx, tm = operand_types
        dims, reps = tensor_shape(tx), const_ints(values, 1)
        if reps is not None and any(r < 0 for r in reps):
            raise ValueError(f"multiples {list(reps)} has a negative value")
        length = len(reps) if reps is not None else vector_length(tm)
        if dims is None and length is not None:
            dims = (-1,) * length
        out: Shape | None = None
        if dims is not None:
            if length is not None and length != len(dims):
                raise ValueError(f"multiples has {length} values for rank {len(dims)}")
            out = tuple(
                0 if d == 0 or r == 0 else (d * r if d >= 0 and r >= 0 else -1)
                for d, r in zip(dims, reps or (-1,) * len(dims), strict=True)
            )
        return (tensor_of(element_type(tx), out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_index_tensor(self, "multiples", self.multiples.type, 1)
        verify_inferred(self, "the tiled shape")


PAD_MODES = ("constant", "reflect", "edge", "wrap")


def pad_shape(
    dims: Sequence[int],
    pads: Sequence[int] | None,
    axes: Sequence[int] | None,
    contiguous: bool,
) -> Shape:
    """The padded shape; `pads` holds a (begin, end) pair per axis in `axes` (all when None).

    Unknown `pads` make the padded axes `?`.
    """
    rank = len(dims)
    axes = list(range(rank)) if axes is None else [normalize_axis(None, a, rank) for a in axes]
    out = list(dims)
    if pads is None:
        for a in axes:
            out[a] = -1
        return tuple(out)
    if len(pads) != 2 * len(axes):
        raise ValueError(f"paddings has {len(pads)} values for {len(axes)} axes")
    n = len(axes)
    for i, a in enumerate(axes):
        begin, end = (pads[2 * i], pads[2 * i + 1]) if contiguous else (pads[i], pads[n + i])
        if out[a] >= 0:
            out[a] += begin + end
            if out[a] < 0:
                raise ValueError(f"paddings {list(pads)} remove more than dim {a} holds")
    return tuple(out)


@irdl_op_definition
class PadV3Op(GEOp, NodeSyntax):
    """GE PadV3: pads `x` by the 1-D int `paddings` in `mode` constant, reflect, edge or wrap.

    With `paddings_contiguous` (GE's default) the pads are `[begin0, end0, begin1, ...]`;
    false is ONNX's layout `[begin0, begin1, ..., end0, end1, ...]`. Negative pads crop.
    `constant_values` (a scalar of x's type) fills the constant mode. Deviations from GE: the
    `wrap` mode and the optional `axes` input (ONNX Pad-18; pads then cover only those axes).

        %p = graph.const dense<[0, 1, 0, 2]> : tensor<4xi64>
        %c = graph.const dense<0.0> : tensor<f32>
        %y = graph.pad_v3 %x, %p, %c paddings_contiguous false
            : (tensor<2x3xf32>, tensor<4xi64>, tensor<f32>) -> tensor<2x6xf32>
    """

    name = "graph.pad_v3"
    GE_TYPE: ClassVar[str] = "PadV3"

    x = operand_def(AnyTensor)
    paddings = operand_def(AnyTensor)
    constant_values = operand_def(AnyTensor)
    axes = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    mode = prop_def(StringAttr, default_value=StringAttr("constant"))
    paddings_contiguous = prop_def(BoolAttr, default_value=BoolAttr.from_bool(True))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        paddings: SSAValue | Operation,
        constant_values: SSAValue | Operation,
        axes: SSAValue | Operation | None = None,
        *,
        mode: str = "constant",
        paddings_contiguous: bool = True,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "mode": StringAttr(mode),
            "paddings_contiguous": BoolAttr.from_bool(paddings_contiguous),
        }
        init_node(
            self, [x, paddings, constant_values, [] if axes is None else [axes]], result_type, props
        )

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """Without `axes`, the length of `paddings` gives the rank of an unranked x."""
        count = operand_count(cls, operand_types, 3, 4)
        tx, tp = operand_types[0], operand_types[1]
        elem = same_element_type(operand_types[0:3:2], "x and constant_values")
        contiguous = prop_bool(cls, properties, "paddings_contiguous")
        dims, pads = tensor_shape(tx), const_ints(values, 1)
        axes = const_ints(values, 3) if count == 4 else None
        out: Shape | None = None
        if dims is None and count == 3:
            length = len(pads) if pads is not None else vector_length(tp)
            if length is not None:
                if length % 2:
                    raise ValueError(f"paddings has {length} values, not a pair per dim")
                out = (-1,) * (length // 2)
        elif dims is not None:
            if count == 4 and axes is None:
                out = (-1,) * len(dims) if pads is None or any(pads) else tuple(dims)
            else:
                out = pad_shape(dims, pads, axes, contiguous)
        return (tensor_of(elem, out),)

    def verify_(self) -> None:
        verify_element_types(
            self,
            (self.x.type, self.constant_values.type, self.y.type),
            "x, constant_values and result",
        )
        verify_index_tensor(self, "paddings", self.paddings.type, 1)
        if self.axes is not None:
            verify_index_tensor(self, "axes", self.axes.type, 1)
        if self.mode.data not in PAD_MODES:
            fail(self, f'mode must be one of {", ".join(PAD_MODES)}, got "{self.mode.data}"')
        cv = tensor_shape(self.constant_values.type)
        if cv is not None and element_count(cv) != 1 and known_dims(cv):
            fail(self, f"constant_values must hold one value, got {self.constant_values.type}")
        verify_inferred(self, "the padded shape")


# --------------------------------------------------------------------------------------------
# Generated tensors (pad_ops.h, selection_ops.h, matrix_calculation_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class FillOp(GEOp, NodeSyntax):
    """GE Fill: a tensor of shape `dims` (1-D int) filled with the scalar `value`.

    ONNX ConstantOfShape imports as Fill with its `value` attribute as a constant input.

        %d = graph.const dense<[2, 3]> : tensor<2xi64>
        %v = graph.const dense<1.0> : tensor<f32>
        %y = graph.fill %d, %v : (tensor<2xi64>, tensor<f32>) -> tensor<2x3xf32>
    """

    name = "graph.fill"
    GE_TYPE: ClassVar[str] = "Fill"

    dims = operand_def(AnyTensor)
    value = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        dims: SSAValue | Operation,
        value: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [dims, value], result_type)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 2)
        td, tv = operand_types
        out = const_ints(values, 0)
        if out is not None:
            if any(d < 0 for d in out):
                raise ValueError(f"dims {list(out)} has a negative dim")
        else:
            length = vector_length(td)
            out = None if length is None else (-1,) * length
        return (tensor_of(element_type(tv), out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.value.type, self.y.type), "value and result")
        verify_index_tensor(self, "dims", self.dims.type, 1)
        v = tensor_shape(self.value.type)
        if v is not None and known_dims(v) and element_count(v) != 1:
            fail(self, f"value must hold one element, got {self.value.type}")
        verify_inferred(self, "dims")


def range_length(start: float, limit: float, delta: float) -> int:
    if delta == 0:
        raise ValueError("delta must not be 0")
    length = (limit - start) / delta
    whole = int(length)
    return max(whole + (1 if length > whole else 0), 0)


@irdl_op_definition
class RangeOp(GEOp, NodeSyntax):
    """GE Range: `start, start + delta, ...` up to but excluding `limit` (scalar inputs).

    The length is `max(ceil((limit - start) / delta), 0)`; it is `?` unless all three inputs
    are constants.

        %y = graph.range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
    """

    name = "graph.range"
    GE_TYPE: ClassVar[str] = "Range"

    start = operand_def(AnyTensor)
    limit = operand_def(AnyTensor)
    delta = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        start: SSAValue | Operation,
        limit: SSAValue | Operation,
        delta: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [start, limit, delta], result_type)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 3)
        known = [values(i) for i in range(3)]
        length = -1
        if all(v is not None and len(v) == 1 for v in known):
            start, limit, delta = (float(v[0]) for v in known if v is not None)
            length = range_length(start, limit, delta)
        return (tensor_of(element_type(operand_types[0]), (length,)),)

    def verify_(self) -> None:
        types = (self.start.type, self.limit.type, self.delta.type, self.y.type)
        verify_element_types(self, types, "start, limit, delta and result")
        for what, t in zip(("start", "limit", "delta"), types, strict=False):
            shape = tensor_shape(t)
            if shape is not None and len(shape) != 0:
                fail(self, f"{what} must be a scalar, got {t}")
        verify_inferred(self, "the range length")


@irdl_op_definition
class TriluOp(GEOp, NodeSyntax):
    """GE Trilu (ONNX name): keeps the upper (`upper`) or lower triangle of the last two dims.

    The optional int64 scalar `k` shifts the diagonal (positive: above the main one). GE
    splits this into Tril/Triu with the diagonal as an attribute; ONNX takes `k` as an input.

        %y = graph.trilu %x upper false : (tensor<3x4xf32>) -> tensor<3x4xf32>
    """

    name = "graph.trilu"
    GE_TYPE: ClassVar[str] = "Trilu"

    x = operand_def(AnyTensor)
    k = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    upper = prop_def(BoolAttr, default_value=BoolAttr.from_bool(True))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        k: SSAValue | Operation | None = None,
        *,
        upper: bool = True,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"upper": BoolAttr.from_bool(upper)}
        init_node(self, [x, [] if k is None else [k]], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        operand_count(cls, operand_types, 1, 2)
        dims = tensor_shape(operand_types[0])
        if dims is not None and len(dims) < 2:
            raise ValueError(f"x must have rank 2 or more, got {operand_types[0]}")
        return (operand_types[0],)

    def verify_(self) -> None:
        verify_same_type(self, self.x.type, self.y.type)
        dims = tensor_shape(self.x.type)
        if dims is not None and len(dims) < 2:
            fail(self, f"x must have rank 2 or more, got {self.x.type}")
        if self.k is not None:
            verify_index_tensor(self, "k", self.k.type, 0)


__all__ = [
    "ExpandOp",
    "FillOp",
    "PadV3Op",
    "RangeOp",
    "TileOp",
    "TriluOp",
]

OPS = (
    ExpandOp,
    TileOp,
    PadV3Op,
    FillOp,
    RangeOp,
    TriluOp,
)
"""The ops of this module, in the order the dialect lists them."""
