"""ONNX converters: Slice, Gather*, Scatter*, NonZero, OneHot, ReverseSequence, MaxUnpool."""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation, SSAValue

from gedialects.base import element_type, tensor_shape
from gedialects.frontend.onnx.ops.array import ints_const, static
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    GatherElementsOp,
    GatherNdOp,
    GatherV2DOp,
    NonZeroOp,
    OneHotOp,
    PadV3Op,
    ReshapeOp,
    ReverseSequenceOp,
    ScatterElementsOp,
    SqueezeV3Op,
    StridedSliceV2Op,
    TensorScatterUpdateOp,
)
from gedialects.tensors import numpy_dtype


def _one(ctx: NodeContext, op: Operation) -> Outputs:
    return [ctx.emit(op).results[0]]


@converter("Slice")
def slice_(ctx: NodeContext) -> Outputs:
    """Missing `axes` are 0..n-1 and missing `steps` 1, n being the length of `starts`."""
    starts, ends = static(ctx, ctx.input(1), "starts"), static(ctx, ctx.input(2), "ends")
    shape = tensor_shape(starts.type)
    if shape is None or len(shape) != 1 or shape[0] < 0:
        ctx.fail(f"starts must be a 1-D tensor of known length, got {starts.type}")
    count = shape[0]
    axes, steps = ctx.optional_input(3), ctx.optional_input(4)
    axes = ints_const(ctx, range(count), "axes") if axes is None else static(ctx, axes, "axes")
    steps = ints_const(ctx, [1] * count, "steps") if steps is None else static(ctx, steps, "steps")
    return _one(ctx, StridedSliceV2Op(ctx.input(0), starts, ends, axes, steps))


@converter("Gather")
def gather(ctx: NodeContext) -> Outputs:
    return _one(ctx, GatherV2DOp(ctx.input(0), ctx.input(1), axis=ctx.attr("axis", 0)))


@converter("GatherElements")
def gather_elements(ctx: NodeContext) -> Outputs:
    return _one(ctx, GatherElementsOp(ctx.input(0), ctx.input(1), dim=ctx.attr("axis", 0)))


@converter("GatherND")
def gather_nd(ctx: NodeContext) -> Outputs:
    op = GatherNdOp(ctx.input(0), ctx.input(1), batch_dims=ctx.attr("batch_dims", 0))
    return _one(ctx, op)


@converter("ScatterElements")
def scatter_elements(ctx: NodeContext) -> Outputs:
    op = ScatterElementsOp(
        ctx.input(0),
        ctx.input(1),
        ctx.input(2),
        axis=ctx.attr("axis", 0),
        reduction=ctx.attr("reduction", "none"),
    )
    return _one(ctx, op)


@converter("Scatter")
def scatter(ctx: NodeContext) -> Outputs:
    """Scatter (opsets 9-10, deprecated) is ScatterElements without a reduction."""
    op = ScatterElementsOp(ctx.input(0), ctx.input(1), ctx.input(2), axis=ctx.attr("axis", 0))
    return _one(ctx, op)


@converter("Compress")
def compress(ctx: NodeContext) -> Outputs:
    """The slices where `condition` is true: NonZero of the condition, then a GatherV2 (the
    flattened input without `axis`). The count depends on the data: an unknown-shape node."""
    x, condition = ctx.input(0), ctx.input(1)
    flat = ctx.const(np.array([-1], dtype=np.int64), "flat_shape")
    found = ctx.emit(NonZeroOp(condition), "nonzero").results[0]
    indices = ctx.emit(ReshapeOp(found, flat), "indices").results[0]
    axis = ctx.attr("axis", None)
    if axis is None:
        x = ctx.emit(ReshapeOp(x, flat), "flatten").results[0]
        axis = 0
    return _one(ctx, GatherV2DOp(x, indices, axis=axis))


@converter("ScatterND")
def scatter_nd(ctx: NodeContext) -> Outputs:
    op = TensorScatterUpdateOp(
        ctx.input(0), ctx.input(1), ctx.input(2), reduction=ctx.attr("reduction", "none")
    )
    return _one(ctx, op)


@converter("NonZero")
def non_zero(ctx: NodeContext) -> Outputs:
    return _one(ctx, NonZeroOp(ctx.input(0)))


def _element(ctx: NodeContext, values: SSAValue, index: int, name: str) -> SSAValue:
    """`values[index]` as a scalar: a constant when known, else a slice and a squeeze."""
    known = ctx.known(values)
    if known is not None:
        return ctx.const(np.asarray(known).reshape(-1)[index], name)
    sliced = StridedSliceV2Op(
        values,
        ints_const(ctx, [index], f"{name}_start"),
        ints_const(ctx, [index + 1], f"{name}_end"),
        ints_const(ctx, [0], f"{name}_axes"),
        ints_const(ctx, [1], f"{name}_steps"),
    )
    one = ctx.emit(sliced, f"{name}_slice").results[0]
    squeezed = SqueezeV3Op(one, ints_const(ctx, [0], f"{name}_squeeze_axes"))
    return ctx.emit(squeezed, name).results[0]


@converter("OneHot")
def one_hot(ctx: NodeContext) -> Outputs:
    """`values` = [off, on] splits into the two scalar inputs of GE's OneHot."""
    values = ctx.input(2)
    off, on = _element(ctx, values, 0, "off_value"), _element(ctx, values, 1, "on_value")
    depth = static(ctx, ctx.input(1), "depth")
    return _one(ctx, OneHotOp(ctx.input(0), depth, on, off, axis=ctx.attr("axis", -1)))


@converter("ReverseSequence")
def reverse_sequence(ctx: NodeContext) -> Outputs:
    op = ReverseSequenceOp(
        ctx.input(0),
        ctx.input(1),
        seq_dim=ctx.attr("time_axis", 0),
        batch_dim=ctx.attr("batch_axis", 1),
    )
    return _one(ctx, op)


@converter("MaxUnpool")
def max_unpool(ctx: NodeContext) -> Outputs:
    """MaxPool's values put back where its indices say, zeros elsewhere: a ScatterElements of
    the flattened values into a flat zero tensor of the unpooled size (the indices count over
    the whole tensor, batch and channels included), reshaped, and padded at the end of each
    dim to a larger output_shape (onnx's and onnxruntime's placement)."""
    x, indices = ctx.input(0), ctx.input(1)
    shape = tensor_shape(x.type)
    if shape is None or any(d < 0 for d in shape) or len(shape) < 3:
        ctx.fail("X must have a static shape [N, C, spatial...]")
    rank = len(shape) - 2
    kernel = ctx.attr("kernel_shape")
    strides = ctx.attr("strides", [1] * rank)
    pads = ctx.attr("pads", [0] * 2 * rank)
    dims = [*shape[:2]] + [
        (shape[d + 2] - 1) * strides[d] + kernel[d] - pads[d] - pads[d + rank] for d in range(rank)
    ]
    wanted = dims
    if (out := ctx.optional_input(2)) is not None:
        known = ctx.known(out)
        if known is None:
            ctx.fail("output_shape must be a constant (it fixes the result's shape)")
        wanted = [int(v) for v in np.asarray(known).reshape(-1)]
    if min(dims) <= 0:
        ctx.fail(f"the unpooled shape {dims} is empty")
    if len(wanted) != len(dims) or any(w < d for w, d in zip(wanted, dims, strict=True)):
        ctx.fail(f"output_shape {wanted} does not hold the unpooled shape {dims}")
    elem = numpy_dtype(element_type(x.type))
    zeros = ctx.const(np.zeros(int(np.prod(dims)), elem), "zeros")
    flat = ints_const(ctx, [-1], "flat")
    values = ctx.emit(ReshapeOp(x, flat), "values").results[0]
    where = ctx.emit(ReshapeOp(indices, flat), "indices").results[0]
    scattered = ctx.emit(ScatterElementsOp(zeros, where, values, axis=0), "scatter").results[0]
    if wanted == dims:
        return _one(ctx, ReshapeOp(scattered, ints_const(ctx, dims, "shape")))
    unpooled = ctx.emit(ReshapeOp(scattered, ints_const(ctx, dims, "shape")), "unpooled")
    ends = [w - d for w, d in zip(wanted, dims, strict=True)]
    paddings = ints_const(ctx, [0] * len(dims) + ends, "paddings")
    zero = ctx.const(np.zeros((), elem), "constant_value")
    op = PadV3Op(unpooled.results[0], paddings, zero, paddings_contiguous=False)
    return _one(ctx, op)
