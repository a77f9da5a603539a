"""Broadcasting, tiling, padding and generated tensors (GE array_ops.h, selection_ops.h,
pad_ops.h, matrix_calculation_ops.h).

Split from `array.py` to keep modules short; the helpers come from there.
"""

from __future__ import annotations

from collections.abc import Sequence
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
    element_type,
    tensor_shape,
)
from gedialects.graph.array import (
    Shape,
    const_ints,
    const_values,
    known_dims,
    normalize_axis,
    result_or,
    vector_length,
    verify_index_tensor,
    verify_same_type,
)
from gedialects.graph.common import (
    AnyTensor,
    fail,
    format_shape,
    product,
    verify_element_types,
    verify_result_shape,
)

# --------------------------------------------------------------------------------------------
# Broadcasting, tiling, padding (array_ops.h, selection_ops.h, pad_ops.h)
# --------------------------------------------------------------------------------------------


def expand_shape(dims: Sequence[int], target: Sequence[int]) -> Shape:
    """ONNX Expand: numpy broadcast of `dims` and `target` (a 1 in either takes the other)."""
    rank = max(len(dims), len(target))
    a = (1,) * (rank - len(dims)) + tuple(dims)
    b = (1,) * (rank - len(target)) + tuple(target)
    out: list[int] = []
    for x, y in zip(a, b, strict=True):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x < 0 or y < 0:
            out.append(max(x, y) if min(x, y) == -1 and max(x, y) > 1 else -1)
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
        tx = SSAValue.get(x).type
        result_type = result_or(result_type, element_type(tx), lambda: self._infer(tx, shape))
        super().__init__(operands=[x, shape], result_types=[result_type])

    @staticmethod
    def _infer(tx: Attribute, shape: SSAValue | Operation) -> Shape | None:
        dims, target = tensor_shape(tx), const_ints(shape)
        length = vector_length(SSAValue.get(shape).type)
        if dims is None or length is None:
            return None
        if target is None:
            return (-1,) * max(len(dims), length)
        return expand_shape(dims, target)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_index_tensor(self, "shape", self.shape.type, 1)
        try:
            expected = self._infer(self.x.type, self.shape)
        except ValueError as e:
            fail(self, str(e))
        verify_result_shape(self, expected, "the expanded shape")


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
        tx = SSAValue.get(x).type
        result_type = result_or(result_type, element_type(tx), lambda: self._infer(tx, multiples))
        super().__init__(operands=[x, multiples], result_types=[result_type])

    @staticmethod
    def _infer(tx: Attribute, multiples: SSAValue | Operation) -> Shape | None:
        dims, reps = tensor_shape(tx), const_ints(multiples)
        if dims is None:
            return None
        if reps is None:
            return (-1,) * len(dims)
        if len(reps) != len(dims):
            raise ValueError(f"multiples has {len(reps)} values for rank {len(dims)}")
        if any(r < 0 for r in reps):
            raise ValueError(f"multiples {list(reps)} has a negative value")
        return tuple(
            d * r if d >= 0 else (0 if r == 0 else -1) for d, r in zip(dims, reps, strict=True)
        )

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        verify_index_tensor(self, "multiples", self.multiples.type, 1)
        length, dims = vector_length(self.multiples.type), tensor_shape(self.x.type)
        if length is not None and dims is not None and length != len(dims):
            fail(self, f"multiples has {length} values for rank {len(dims)}")
        try:
            expected = self._infer(self.x.type, self.multiples)
        except ValueError as e:
            fail(self, str(e))
        verify_result_shape(self, expected, "the tiled shape")


PAD_MODES = ("constant", "reflect", "edge", "wrap")


def pad_shape(
    dims: Sequence[int], pads: Sequence[int], axes: Sequence[int] | None, contiguous: bool
) -> Shape:
    """The padded shape; `pads` holds a (begin, end) pair per axis in `axes` (all when None)."""
    rank = len(dims)
    axes = list(range(rank)) if axes is None else [normalize_axis(None, a, rank) for a in axes]
    if len(pads) != 2 * len(axes):
        raise ValueError(f"paddings has {len(pads)} values for {len(axes)} axes")
    n = len(axes)
    out = list(dims)
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
        tx = SSAValue.get(x).type
        super().__init__(
            operands=[x, paddings, constant_values, [] if axes is None else [axes]],
            result_types=[
                result_or(
                    result_type,
                    element_type(tx),
                    lambda: self._infer(tx, paddings, axes, paddings_contiguous),
                )
            ],
            properties={
                "mode": StringAttr(mode),
                "paddings_contiguous": BoolAttr.from_bool(paddings_contiguous),
            },
        )

    @staticmethod
    def _infer(
        tx: Attribute,
        paddings: SSAValue | Operation,
        axes: SSAValue | Operation | None,
        contiguous: bool,
    ) -> Shape | None:
        dims, pads = tensor_shape(tx), const_ints(paddings)
        axis_values = None if axes is None else const_ints(axes)
        if dims is None:
            return None
        if pads is None or (axes is not None and axis_values is None):
            return (-1,) * len(dims)
        return pad_shape(dims, pads, axis_values, contiguous)

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
        if cv is not None and product(cv) != 1 and known_dims(cv):
            fail(self, f"constant_values must hold one value, got {self.constant_values.type}")
        try:
            expected = self._infer(
                self.x.type, self.paddings, self.axes, self.paddings_contiguous.value.data != 0
            )
        except ValueError as e:
            fail(self, str(e))
        verify_result_shape(self, expected, "the padded shape")


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
        elem = element_type(SSAValue.get(value).type)
        result_type = result_or(result_type, elem, lambda: self._infer(dims))
        super().__init__(operands=[dims, value], result_types=[result_type])

    @staticmethod
    def _infer(dims: SSAValue | Operation) -> Shape | None:
        values = const_ints(dims)
        if values is not None:
            if any(d < 0 for d in values):
                raise ValueError(f"dims {list(values)} has a negative dim")
            return values
        length = vector_length(SSAValue.get(dims).type)
        return None if length is None else (-1,) * length

    def verify_(self) -> None:
        verify_element_types(self, (self.value.type, self.y.type), "value and result")
        verify_index_tensor(self, "dims", self.dims.type, 1)
        v = tensor_shape(self.value.type)
        if v is not None and known_dims(v) and product(v) != 1:
            fail(self, f"value must hold one element, got {self.value.type}")
        try:
            expected = self._infer(self.dims)
        except ValueError as e:
            fail(self, str(e))
        verify_result_shape(self, expected, "dims")


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
        elem = element_type(SSAValue.get(start).type)
        result_type = result_or(result_type, elem, lambda: self._infer(start, limit, delta))
        super().__init__(operands=[start, limit, delta], result_types=[result_type])

    @staticmethod
    def _infer(*inputs: SSAValue | Operation) -> Shape:
        values = [const_values(v) for v in inputs]
        if any(v is None or len(v) != 1 for v in values):
            return (-1,)
        start, limit, delta = (float(v[0]) for v in values if v is not None)
        return (range_length(start, limit, delta),)

    def verify_(self) -> None:
        types = (self.start.type, self.limit.type, self.delta.type, self.y.type)
        verify_element_types(self, types, "start, limit, delta and result")
        for what, t in zip(("start", "limit", "delta"), types, strict=False):
            shape = tensor_shape(t)
            if shape is not None and len(shape) != 0:
                fail(self, f"{what} must be a scalar, got {t}")
        try:
            expected = self._infer(self.start, self.limit, self.delta)
        except ValueError as e:
            fail(self, str(e))
        verify_result_shape(self, expected, "the range length")


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
        super().__init__(
            operands=[x, [] if k is None else [k]],
            result_types=[result_type or SSAValue.get(x).type],
            properties={"upper": BoolAttr.from_bool(upper)},
        )

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
