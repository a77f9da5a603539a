"""ONNX converters: shape manipulation, broadcasting, padding and generated tensors.

Shape-like inputs (Reshape's shape, Squeeze/Unsqueeze axes, Split sizes, Expand's shape, Tile's
repeats, Pad's pads) whose values the import knows (`NodeContext.known`: constants, and small
ops over them such as Shape -> Gather -> Concat chains) are passed as fresh `graph.const`s,
so the builders see the values and give static result types. Unknown values stay operands and
the result dims they decide are `?`. Identity is converted in `core.py`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from gedialects.base import tensor_shape
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    ConcatDOp,
    ConstOp,
    ExpandOp,
    FillOp,
    FlattenOp,
    IdentityOp,
    PadV3Op,
    RangeOp,
    ReshapeOp,
    ShapeOp,
    SizeOp,
    SplitDOp,
    SplitVOp,
    SqueezeV3Op,
    StridedSliceV2Op,
    TileOp,
    TransposeOp,
    TriluOp,
    UnsqueezeV3Op,
)
from gedialects.graph.array import equal_split_sizes
from gedialects.tensors import numpy_dtype

# --------------------------------------------------------------------------------------------
# Known values
# --------------------------------------------------------------------------------------------


def static(ctx: NodeContext, value: SSAValue, suffix: str) -> SSAValue:
    """`value`, or a `graph.const` of it when the import knows its value."""
    if isinstance(value.owner, ConstOp):
        return value
    known = ctx.known(value)
    return value if known is None else ctx.const(np.asarray(known), suffix)


def one_element_scalar(ctx: NodeContext, value: SSAValue, what: str) -> SSAValue:
    """`value` as a rank-0 tensor: ONNX asks for scalars (conds, trip counts, Range's bounds)
    where onnxruntime also takes a one-element tensor, and exported graphs rely on it."""
    t = value.type
    if isinstance(t, TensorType) and t.get_num_dims() == 0:
        return value
    if isinstance(t, TensorType) and any(d > 1 for d in t.get_shape()):
        ctx.fail(f"{what} has type {t}; it must hold one element")
    shape = ctx.const(np.zeros((0,), np.int64), f"{what}_shape")
    return ctx.emit(ReshapeOp(value, shape), f"{what}_scalar").results[0]


def ints_const(ctx: NodeContext, values: object, suffix: str) -> SSAValue:
    return ctx.const(np.asarray(values, dtype=np.int64).reshape(-1), suffix)


def axes_operand(ctx: NodeContext, index: int, since: int, suffix: str = "axes") -> SSAValue | None:
    """The `axes` of Squeeze/Unsqueeze/Reduce*: an attribute before opset `since`, then an
    optional input."""
    if ctx.opset < since:
        axes = ctx.attr("axes", None)
        return None if axes is None else ints_const(ctx, axes, suffix)
    value = ctx.optional_input(index)
    if value is None:
        return None
    known = ctx.known(value)
    if known is not None and np.ndim(known) == 0:
        return ints_const(ctx, known, suffix)  # a scalar axis (ONNX's reference takes one)
    if known is not None:
        return static(ctx, value, suffix)
    if isinstance(value.type, TensorType) and value.type.get_num_dims() == 0:
        shape = ints_const(ctx, [1], f"{suffix}_shape")
        return ctx.emit(ReshapeOp(value, shape), f"{suffix}_1d").results[0]
    return value


def rank_of(ctx: NodeContext, value: SSAValue) -> int:
    shape = tensor_shape(value.type)
    if shape is None:
        ctx.fail("needs an input of known rank")
    return len(shape)


def _one(ctx: NodeContext, op: Operation) -> Outputs:
    return [ctx.emit(op).results[0]]


# --------------------------------------------------------------------------------------------
# Reshaping
# --------------------------------------------------------------------------------------------


@converter("Reshape")
def reshape(ctx: NodeContext) -> Outputs:
    shape = static(ctx, ctx.input(1), "shape")
    return _one(ctx, ReshapeOp(ctx.input(0), shape, allowzero=bool(ctx.attr("allowzero", 0))))


@converter("Transpose")
def transpose(ctx: NodeContext) -> Outputs:
    x = ctx.input(0)
    perm = ctx.attr("perm", None)
    if perm is None:
        perm = list(reversed(range(rank_of(ctx, x))))
    return _one(ctx, TransposeOp(x, perm))


@converter("Flatten")
def flatten(ctx: NodeContext) -> Outputs:
    return _one(ctx, FlattenOp(ctx.input(0), axis=ctx.attr("axis", 1)))


@converter("Squeeze")
def squeeze(ctx: NodeContext) -> Outputs:
    axes = axes_operand(ctx, 1, since=13)
    return _one(ctx, SqueezeV3Op(ctx.input(0), axes))


@converter("Unsqueeze")
def unsqueeze(ctx: NodeContext) -> Outputs:
    axes = axes_operand(ctx, 1, since=13)
    if axes is None:
        ctx.fail("axes are required")
    return _one(ctx, UnsqueezeV3Op(ctx.input(0), axes))


@converter("Dropout")
def dropout(ctx: NodeContext) -> Outputs:
    """Inference only: the data unchanged and, when asked for, an all-true mask. Training
    mode with a known ratio of 0 is the same; other training modes are random and refused."""
    training = ctx.optional_input(2)
    if training is not None:
        mode = ctx.known(training)
        if mode is None:
            ctx.fail("training_mode must be a constant (only inference is supported)")
        ratio = ctx.known(ctx.optional_input(1))
        zero_ratio = ratio is not None and float(np.asarray(ratio).reshape(-1)[0]) == 0.0
        if bool(np.asarray(mode).reshape(-1)[0]) and not zero_ratio:
            ctx.fail("training_mode = 1 is not supported (only inference)")
    x = ctx.input(0)
    y = ctx.emit(IdentityOp(x)).results[0]
    if len(ctx.node.output) < 2 or not ctx.node.output[1]:
        return [y]
    dims = static(ctx, ctx.emit(ShapeOp(x), "shape").results[0], "mask_shape")
    true = ctx.const(np.array(True), "true")
    return [y, ctx.emit(FillOp(dims, true), "mask").results[0]]


# --------------------------------------------------------------------------------------------
# Concatenation and splitting
# --------------------------------------------------------------------------------------------


@converter("Concat")
def concat(ctx: NodeContext) -> Outputs:
    inputs = [v for v in ctx.inputs if v is not None]
    return _one(ctx, ConcatDOp(inputs, ctx.attr("axis")))


@converter("Split")
def split(ctx: NodeContext) -> Outputs:
    x = ctx.input(0)
    count = len(ctx.node.output)
    axis = ctx.attr("axis", 0)
    if ctx.opset < 13:
        sizes_attr = ctx.attr("split", None)
        sizes = None if sizes_attr is None else ints_const(ctx, sizes_attr, "split")
    else:
        given = ctx.optional_input(1)
        sizes = None if given is None else static(ctx, given, "split")
    if ctx.opset >= 18 and sizes is None:
        count = ctx.attr("num_outputs", count)
    if sizes is None:
        shape = tensor_shape(x.type)
        if shape is not None and shape[axis % len(shape)] >= 0:
            dim = shape[axis % len(shape)]
            if ctx.opset < 18 and dim % count:
                ctx.fail(f"cannot split dim {dim} into {count} equal parts")
            sizes = ints_const(ctx, equal_split_sizes(dim, count), "split")
        else:
            op = SplitDOp(x, split_dim=axis, num_split=count)
            return list(ctx.emit(op).results)
    split_dim = ctx.const(np.array(axis, dtype=np.int64), "axis")
    return list(ctx.emit(SplitVOp(x, sizes, split_dim, num_split=count)).results)


# --------------------------------------------------------------------------------------------
# Broadcasting, tiling, padding
# --------------------------------------------------------------------------------------------


@converter("Expand")
def expand(ctx: NodeContext) -> Outputs:
    return _one(ctx, ExpandOp(ctx.input(0), static(ctx, ctx.input(1), "shape")))


@converter("Tile")
def tile(ctx: NodeContext) -> Outputs:
    return _one(ctx, TileOp(ctx.input(0), static(ctx, ctx.input(1), "repeats")))


@converter("Pad")
def pad(ctx: NodeContext) -> Outputs:
    x = ctx.input(0)
    mode = ctx.attr("mode", "constant")
    if mode not in ("constant", "reflect", "edge", "wrap"):
        ctx.fail(f"unknown mode '{mode}'")
    pads = static(ctx, ctx.input(1), "pads")
    value = ctx.optional_input(2)
    if value is None:
        dtype = numpy_dtype(x.type.element_type) if isinstance(x.type, TensorType) else None
        value = ctx.const(np.zeros((), dtype=dtype), "constant_value")
    axes = ctx.optional_input(3)
    axes = None if axes is None else static(ctx, axes, "axes")
    op = PadV3Op(x, pads, value, axes, mode=mode, paddings_contiguous=False)
    return _one(ctx, op)


# --------------------------------------------------------------------------------------------
# Shapes and generated tensors
# --------------------------------------------------------------------------------------------


@converter("Shape")
def shape(ctx: NodeContext) -> Outputs:
    """Shape-15 `start`/`end` slice the shape vector (a `graph.strided_slice_v2`)."""
    x = ctx.input(0)
    dims = ctx.emit(ShapeOp(x)).results[0]
    start, end = ctx.attr("start", 0), ctx.attr("end", None)
    if start == 0 and end is None:
        return [dims]
    stop = np.iinfo(np.int64).max if end is None else end
    slice_op = StridedSliceV2Op(
        dims,
        ints_const(ctx, [start], "start"),
        ints_const(ctx, [stop], "end"),
        ints_const(ctx, [0], "axes"),
        ints_const(ctx, [1], "steps"),
    )
    return [ctx.emit(slice_op, "slice").results[0]]


@converter("Size")
def size(ctx: NodeContext) -> Outputs:
    return _one(ctx, SizeOp(ctx.input(0)))


@converter("ConstantOfShape")
def constant_of_shape(ctx: NodeContext) -> Outputs:
    value = ctx.attr("value", None)
    value = np.zeros((), np.float32) if value is None else np.asarray(value).reshape(())
    dims = static(ctx, ctx.input(0), "shape")
    return _one(ctx, FillOp(dims, ctx.const(value, "value")))


@converter("Range")
def range_(ctx: NodeContext) -> Outputs:
    names = ("start", "limit", "delta")
    start, limit, delta = (
        one_element_scalar(ctx, static(ctx, ctx.input(i), n), n) for i, n in enumerate(names)
    )
    return _one(ctx, RangeOp(start, limit, delta))


@converter("Trilu")
def trilu(ctx: NodeContext) -> Outputs:
    k = ctx.optional_input(1)
    return _one(ctx, TriluOp(ctx.input(0), k, upper=bool(ctx.attr("upper", 1))))
