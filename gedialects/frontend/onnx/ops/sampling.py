"""ONNX converters: GridSample (GE GridSampler2D / GridSampler3D) and AffineGrid (GE AffineGrid)."""

from __future__ import annotations

import numpy as np

from gedialects.base import tensor_shape
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import AffineGridOp, GridSampler2DOp, GridSampler3DOp

_MODES = {"linear": "bilinear", "bilinear": "bilinear", "nearest": "nearest",
          "cubic": "bicubic", "bicubic": "bicubic"}  # fmt: skip
"""ONNX's mode names (opset 16 bilinear/bicubic, 20 linear/cubic) -> GE's."""


@converter("GridSample")
def grid_sample(ctx: NodeContext) -> Outputs:
    x, grid = ctx.input(0), ctx.input(1)
    mode = ctx.attr("mode", "linear" if ctx.opset >= 20 else "bilinear")
    if mode not in _MODES:
        ctx.fail(f'mode must be linear, nearest or cubic, got "{mode}"')
    padding = ctx.attr("padding_mode", "zeros")
    if padding not in ("zeros", "border", "reflection"):
        ctx.fail(f'padding_mode must be zeros, border or reflection, got "{padding}"')
    shape = tensor_shape(x.type)
    if shape is None or len(shape) not in (4, 5):
        ctx.fail("x must be 4-D or 5-D (2-D and 3-D sampling; GE has GridSampler2D/3D)")
    op_type = GridSampler2DOp if len(shape) == 4 else GridSampler3DOp
    op = op_type(
        x,
        grid,
        interpolation_mode=_MODES[mode],
        padding_mode=padding,
        align_corners=bool(ctx.attr("align_corners", 0)),
    )
    return [ctx.emit(op).results[0]]


@converter("AffineGrid")
def affine_grid(ctx: NodeContext) -> Outputs:
    """GE AffineGrid; the size input must be known (it fixes the grid's shape)."""
    known = ctx.known(ctx.input(1))
    if known is None:
        ctx.fail("size must be a constant (it fixes the grid's shape)")
    size = [int(v) for v in np.asarray(known).reshape(-1)]
    op = AffineGridOp(ctx.input(0), size=size, align_corners=bool(ctx.attr("align_corners", 0)))
    return [ctx.emit(op).results[0]]
