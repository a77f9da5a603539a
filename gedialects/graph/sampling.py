"""Sampling by a grid of coordinates (GE image_ops.h): GridSampler2D and GridSampler3D, which
ONNX GridSample imports to, and AffineGrid, which makes such grids (ONNX AffineGrid)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, StringAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    dims_agree,
    element_type,
    int_array,
    tensor_shape,
)
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    bool_attr,
    fail,
    format_shape,
    init_node,
    operand_count,
    prop_ints,
    prop_str,
    tensor_of,
    verify_element_types,
    verify_inferred,
)
from gedialects.graph.elementwise import is_float

INTERPOLATION_MODES = ("bilinear", "nearest", "bicubic")
PADDING_MODES = ("zeros", "border", "reflection")


class GridSamplerOpBase(GEOp, NodeSyntax):
    """`x` `[N, C, *spatial]` sampled at `grid` `[N, *out, rank]` (normalised to [-1, 1], the
    last axis in x, y[, z] order: the spatial dims reversed)."""

    SPATIAL: ClassVar[int]

    x = operand_def(AnyTensor)
    grid = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    interpolation_mode = prop_def(StringAttr, default_value=StringAttr("bilinear"))
    padding_mode = prop_def(StringAttr, default_value=StringAttr("zeros"))
    align_corners = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        grid: SSAValue | Operation,
        *,
        interpolation_mode: str = "bilinear",
        padding_mode: str = "zeros",
        align_corners: bool = False,
    ) -> None:
        props: dict[str, Attribute] = {
            "interpolation_mode": StringAttr(interpolation_mode),
            "padding_mode": StringAttr(padding_mode),
            "align_corners": bool_attr(align_corners),
        }
        init_node(self, [x, grid], None, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[N, C, *out]`."""
        operand_count(cls, operand_types, 2)
        if prop_str(cls, properties, "interpolation_mode") not in INTERPOLATION_MODES:
            raise ValueError('interpolation_mode must be "bilinear", "nearest" or "bicubic"')
        if prop_str(cls, properties, "padding_mode") not in PADDING_MODES:
            raise ValueError('padding_mode must be "zeros", "border" or "reflection"')
        rank = cls.SPATIAL
        x, g = tensor_shape(operand_types[0]), tensor_shape(operand_types[1])
        if x is not None and len(x) != rank + 2:
            raise ValueError(f"x must have {rank + 2} dims, got {len(x)}")
        if g is not None and (len(g) != rank + 2 or not dims_agree(g[-1], rank)):
            raise ValueError(
                f"grid must be [N, {', '.join(['out'] * rank)}, {rank}], got {format_shape(g)}"
            )
        if x is not None and g is not None and x[0] >= 0 and g[0] >= 0 and x[0] != g[0]:
            raise ValueError(f"x and grid differ in batch: {x[0]} and {g[0]}")
        batch = (x[0] if x[0] >= 0 else -1) if x is not None else -1
        if batch < 0 and g is not None:
            batch = g[0]
        channels = -1 if x is None else x[1]
        out = (-1,) * rank if g is None else g[1:-1]
        return (tensor_of(element_type(operand_types[0]), (batch, channels, *out)),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.grid.type, self.y.type), "operands")
        if not is_float(element_type(self.x.type)):
            fail(self, f"x must be a floating-point tensor, got {self.x.type}")
        verify_inferred(self, "the sampled shape")


@irdl_op_definition
class GridSampler2DOp(GridSamplerOpBase):
    """GE GridSampler2D: `x` `[N, C, H, W]` sampled at the `(x, y)` points of `grid`
    `[N, H_out, W_out, 2]`.

    `interpolation_mode` "bilinear", "nearest" (half to even) or "bicubic" (Keys' cubic,
    a = -0.75); `padding_mode` "zeros" (points and pixels outside read 0), "border" (clamped)
    or "reflection" (mirrored at the borders); `align_corners` maps -1 and 1 to the centres of
    the corner pixels, else to their outer edges. ONNX GridSample's semantics.

        %y = graph.grid_sampler2d %x, %g
            : (tensor<1x1x4x4xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
    """

    name = "graph.grid_sampler2d"
    GE_TYPE: ClassVar[str] = "GridSampler2D"
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class GridSampler3DOp(GridSamplerOpBase):
    """GE GridSampler3D: `graph.grid_sampler2d` over volumes, `x` `[N, C, D, H, W]` and
    `grid` `[N, D_out, H_out, W_out, 3]` of `(x, y, z)` points ("bilinear" is trilinear).

        %y = graph.grid_sampler3d %x, %g align_corners true
            : (tensor<1x1x2x3x4xf32>, tensor<1x2x2x2x3xf32>) -> tensor<1x1x2x2x2xf32>
    """

    name = "graph.grid_sampler3d"
    GE_TYPE: ClassVar[str] = "GridSampler3D"
    SPATIAL: ClassVar[int] = 3


@irdl_op_definition
class AffineGridOp(GEOp, NodeSyntax):
    """GE AffineGrid: the sampling grid of the affine maps `theta` `[N, 2, 3]` (2-D) or
    `[N, 3, 4]` (3-D) over an output of `size` `[N, C, H, W]` (`[N, C, D, H, W]`).

    The result is `[N, H, W, 2]` (`[N, D, H, W, 3]`) of `(x, y[, z])` points in [-1, 1],
    `theta` applied to each output pixel's normalised coordinates: the centres of the corner
    pixels when `align_corners`, else their outer edges (GridSampler's convention). GE takes
    the size as an input; it is an attribute here (ONNX AffineGrid's size input, which the
    import needs known).

        %g = graph.affine_grid %t size [1, 1, 4, 5] : (tensor<1x2x3xf32>) -> tensor<1x4x5x2xf32>
    """

    name = "graph.affine_grid"
    GE_TYPE: ClassVar[str] = "AffineGrid"

    theta = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    size = prop_def(DenseArrayBase.constr(i64))
    align_corners = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    def __init__(
        self, theta: SSAValue | Operation, *, size: Sequence[int], align_corners: bool = False
    ) -> None:
        props: dict[str, Attribute] = {
            "size": int_array(size),
            "align_corners": bool_attr(align_corners),
        }
        init_node(self, [theta], None, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[N, *spatial, rank]`."""
        operand_count(cls, operand_types, 1)
        size = prop_ints(cls, properties, "size")
        if len(size) not in (4, 5) or min(size) <= 0:
            raise ValueError(f"size must be [N, C, H, W] or [N, C, D, H, W], got {list(size)}")
        rank = len(size) - 2
        t = tensor_shape(operand_types[0])
        if t is not None and (
            len(t) != 3
            or not dims_agree(t[0], size[0])
            or not dims_agree(t[1], rank)
            or not dims_agree(t[2], rank + 1)
        ):
            raise ValueError(
                f"theta must be [{size[0]}, {rank}, {rank + 1}] for size {list(size)}, "
                f"got {format_shape(t)}"
            )
        return (tensor_of(element_type(operand_types[0]), (size[0], *size[2:], rank)),)

    def verify_(self) -> None:
        verify_element_types(self, (self.theta.type, self.y.type), "theta and result")
        if not is_float(element_type(self.theta.type)):
            fail(self, f"theta must be a floating-point tensor, got {self.theta.type}")
        verify_inferred(self, "the grid shape")


__all__ = [
    "INTERPOLATION_MODES",
    "PADDING_MODES",
    "AffineGridOp",
    "GridSampler2DOp",
    "GridSampler3DOp",
    "GridSamplerOpBase",
]

OPS = (GridSampler2DOp, GridSampler3DOp, AffineGridOp)
"""The ops of this module, in the order the dialect lists them."""
