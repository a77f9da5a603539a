"""ONNX converters: NonMaxSuppression (GE NonMaxSuppressionV6) and RoiAlign (GE ROIAlign)."""

from __future__ import annotations

import numpy as np

from gedialects.base import element_type
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import CastOp, ConcatDOp, NonMaxSuppressionV6Op, ReshapeOp, ROIAlignOp


@converter("NonMaxSuppression")
def non_max_suppression(ctx: NodeContext) -> Outputs:
    """Absent max_output_boxes_per_class and iou_threshold are ONNX's defaults, 0 and 0.0."""
    center = ctx.attr("center_point_box", 0)
    if center not in (0, 1):
        ctx.fail(f"center_point_box must be 0 or 1, got {center}")
    limit = ctx.optional_input(2)
    iou = ctx.optional_input(3)
    op = NonMaxSuppressionV6Op(
        ctx.input(0),
        ctx.input(1),
        limit if limit is not None else ctx.const(np.array([0], dtype=np.int64), "max_output"),
        iou if iou is not None else ctx.const(np.array([0.0], dtype=np.float32), "iou"),
        ctx.optional_input(4),
        center_point_box=center,
    )
    return [ctx.emit(op).results[0]]


@converter("RoiAlign")
def roi_align(ctx: NodeContext) -> Outputs:
    """GE's ROIAlign reads `[R, 5]` ROIs led by the batch index: batch_indices becomes that
    column. coordinate_transformation_mode (opset 16; before, output_half_pixel) picks
    roi_end_mode 2 (half_pixel) or 0."""
    x, rois, index = ctx.input(0), ctx.input(1), ctx.input(2)
    default = "half_pixel" if ctx.opset >= 16 else "output_half_pixel"
    mode = ctx.attr("coordinate_transformation_mode", default)
    if mode not in ("half_pixel", "output_half_pixel"):
        ctx.fail('coordinate_transformation_mode must be "half_pixel" or "output_half_pixel"')
    pool = ctx.attr("mode", "avg")
    if pool not in ("avg", "max"):
        ctx.fail(f'mode must be "avg" or "max", got "{pool}"')
    shape = ctx.const(np.array([-1, 1], dtype=np.int64), "column_shape")
    column = ctx.emit(ReshapeOp(index, shape), "column").results[0]
    column = ctx.emit(CastOp(column, element_type(rois.type)), "column_cast").results[0]
    joined = ctx.emit(ConcatDOp([column, rois], 1), "rois").results[0]
    op = ROIAlignOp(
        x,
        joined,
        spatial_scale=float(ctx.attr("spatial_scale", 1.0)),
        pooled_height=ctx.attr("output_height", 1),
        pooled_width=ctx.attr("output_width", 1),
        sample_num=ctx.attr("sampling_ratio", 0),
        roi_end_mode=2 if mode == "half_pixel" else 0,
        pool_mode=pool,
    )
    return [ctx.emit(op).results[0]]
