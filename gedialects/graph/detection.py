"""Detection ops (GE nn_detect_ops.h, non_max_suppression_v6_ops.h): NonMaxSuppressionV6,
whose output count depends on the data, and ROIAlign. GE places both on AI CPU."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, FloatAttr, IntegerAttr, StringAttr, f32, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from gedialects.base import GEOp, NodeSyntax, OperandValues, dims_agree, element_type, tensor_shape
from gedialects.graph.common import (
    AnyTensor,
    build_result_types,
    fail,
    format_shape,
    i64_attr,
    init_node,
    operand_count,
    prop_float,
    prop_int,
    prop_str,
    tensor_of,
    verify_element_types,
    verify_index_tensor,
    verify_inferred,
    verify_rank,
)
from gedialects.graph.elementwise import is_float


def _scalar_like(op: Operation, what: str, t: Attribute) -> None:
    shape = tensor_shape(t)
    if shape is not None and (len(shape) > 1 or (shape and not dims_agree(shape[0], 1))):
        fail(op, f"{what} must hold one value, got {t}")


@irdl_op_definition
class NonMaxSuppressionV6Op(GEOp, NodeSyntax):
    """GE NonMaxSuppressionV6: greedy non-maximum suppression per batch and class (ONNX's
    NonMaxSuppression, which GE's prototype is compatible with).

    `boxes` is `[B, N, 4]`, `scores` `[B, C, N]`; `max_output_size` (int, one value),
    `iou_threshold` (float, one value) and the optional `score_threshold` (absent: no score
    filter) are GE's inputs. For each batch and class the boxes scoring above
    `score_threshold` are taken in descending score order (ties: lower index first) and a box
    is kept unless its IoU with a kept box exceeds `iou_threshold`, up to `max_output_size`
    boxes. `center_point_box` 0 reads a box as two diagonal corners `[y1, x1, y2, x2]`, 1 as
    `[x_center, y_center, width, height]`. The result lists `[batch, class, box]` per kept box:
    `[?, 3]`, its count known only when the kernel runs, so the node lands in an unknown-shape
    partition on AI CPU. The indices are int64 (ONNX's; GE's kernel writes int32).

        %s = graph.non_max_suppression_v6 %b, %sc, %m, %iou
            : (tensor<1x6x4xf32>, tensor<1x1x6xf32>, tensor<1xi64>, tensor<1xf32>)
            -> tensor<?x3xi64>
    """

    name = "graph.non_max_suppression_v6"
    GE_TYPE: ClassVar[str] = "NonMaxSuppressionV6"

    boxes = operand_def(AnyTensor)
    scores = operand_def(AnyTensor)
    max_output_size = operand_def(AnyTensor)
    iou_threshold = operand_def(AnyTensor)
    score_threshold = opt_operand_def(AnyTensor)
    selected_indices = result_def(AnyTensor)

    center_point_box = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))

    traits = traits_def(Pure())

    def __init__(
        self,
        boxes: SSAValue | Operation,
        scores: SSAValue | Operation,
        max_output_size: SSAValue | Operation,
        iou_threshold: SSAValue | Operation,
        score_threshold: SSAValue | Operation | None = None,
        *,
        center_point_box: int = 0,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {"center_point_box": i64_attr(center_point_box)}
        operands = [boxes, scores, max_output_size, iou_threshold]
        init_node(
            self, [*operands, [] if score_threshold is None else [score_threshold]],
            result_type if result_type is not None else tensor_of(i64, (-1, 3)),
            props,
        )  # fmt: skip

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[?, 3]` int64: how many boxes survive depends on the data."""
        operand_count(cls, operand_types, 4, 5)
        if prop_int(cls, properties, "center_point_box") not in (0, 1):
            raise ValueError("center_point_box must be 0 or 1")
        b, s = tensor_shape(operand_types[0]), tensor_shape(operand_types[1])
        if b is not None and (len(b) != 3 or not dims_agree(b[2], 4)):
            raise ValueError(f"boxes must be [batch, boxes, 4], got {format_shape(b)}")
        if s is not None and len(s) != 3:
            raise ValueError(f"scores must be [batch, classes, boxes], got {format_shape(s)}")
        if b is not None and s is not None:
            for what, x, y in (("batch", b[0], s[0]), ("box count", b[1], s[2])):
                if x >= 0 and y >= 0 and x != y:
                    raise ValueError(f"boxes and scores differ in {what}: {x} and {y}")
        return (tensor_of(i64, (-1, 3)),)

    def verify_(self) -> None:
        verify_element_types(self, (self.boxes.type, self.scores.type), "boxes and scores")
        if not is_float(element_type(self.boxes.type)):
            fail(self, f"boxes must be a floating-point tensor, got {self.boxes.type}")
        verify_index_tensor(self, "max_output_size", self.max_output_size.type)
        _scalar_like(self, "max_output_size", self.max_output_size.type)
        thresholds = [("iou_threshold", self.iou_threshold)]
        if self.score_threshold is not None:
            thresholds.append(("score_threshold", self.score_threshold))
        for what, value in thresholds:
            if not is_float(element_type(value.type)):
                fail(self, f"{what} must be a floating-point tensor, got {value.type}")
            _scalar_like(self, what, value.type)
        verify_inferred(self, "the selection layout")
        # a static count would claim the data (as for NonZero)
        declared, boxes = tensor_shape(self.selected_indices.type), tensor_shape(self.boxes.type)
        if declared is not None and declared[0] >= 0 and not (boxes and boxes[1] == 0):
            fail(self, "the number of selected boxes depends on the data: its dim must be ?")


ROI_END_MODES = (0, 2)
"""ROIAlign's modelled `roi_end_mode`s: 0 (align=False: no half-pixel shift, ROIs at least
1x1; ONNX's output_half_pixel) and 2 (PyTorch's align=True; ONNX's half_pixel)."""


@irdl_op_definition
class ROIAlignOp(GEOp, NodeSyntax):
    """GE ROIAlign: bilinear samples of `features` `[N, C, H, W]` pooled over each ROI's bins.

    `rois` is `[R, 5]`: batch index, then `x1, y1, x2, y2` in input coordinates, scaled by
    `spatial_scale` (ONNX's separate batch_indices become the first column on import). Each
    ROI is cut into `pooled_height` x `pooled_width` bins, each sampled on a `sample_num`
    square grid (0: `ceil(roi size / bins)` per axis, ONNX's adaptive sampling_ratio), and the
    samples are averaged (`pool_mode` "avg") or maximised ("max", each sample the largest of
    its four weighted neighbours, as onnxruntime computes it). `roi_end_mode` 2 shifts by
    half a pixel; 0 does not and keeps ROIs at least 1x1. The result is `[R, C, ph, pw]`.

        %y = graph.roialign %x, %r spatial_scale 0.5 pooled_height 2 pooled_width 2
            : (tensor<1x3x8x8xf32>, tensor<4x5xf32>) -> tensor<4x3x2x2xf32>
    """

    name = "graph.roialign"
    GE_TYPE: ClassVar[str] = "ROIAlign"

    features = operand_def(AnyTensor)
    rois = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    spatial_scale = prop_def(FloatAttr.constr(f32))
    pooled_height = prop_def(IntegerAttr[I64])
    pooled_width = prop_def(IntegerAttr[I64])
    sample_num = prop_def(IntegerAttr[I64], default_value=IntegerAttr(2, i64))
    roi_end_mode = prop_def(IntegerAttr[I64], default_value=IntegerAttr(1, i64))
    pool_mode = prop_def(StringAttr, default_value=StringAttr("avg"))

    traits = traits_def(Pure())

    def __init__(
        self,
        features: SSAValue | Operation,
        rois: SSAValue | Operation,
        *,
        spatial_scale: float,
        pooled_height: int,
        pooled_width: int,
        sample_num: int = 2,
        roi_end_mode: int = 1,
        pool_mode: str = "avg",
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "spatial_scale": FloatAttr(spatial_scale, f32),
            "pooled_height": i64_attr(pooled_height),
            "pooled_width": i64_attr(pooled_width),
            "sample_num": i64_attr(sample_num),
            "roi_end_mode": i64_attr(roi_end_mode),
            "pool_mode": StringAttr(pool_mode),
        }
        if result_type is None:
            (result_type,) = build_result_types(type(self), [features, rois], props)
        super().__init__(operands=[features, rois], result_types=[result_type], properties=props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[R, C, pooled_height, pooled_width]`."""
        operand_count(cls, operand_types, 2)
        ph = prop_int(cls, properties, "pooled_height")
        pw = prop_int(cls, properties, "pooled_width")
        if ph <= 0 or pw <= 0:
            raise ValueError(f"pooled_height and pooled_width must be positive, got {ph}, {pw}")
        if prop_int(cls, properties, "sample_num") < 0:
            raise ValueError("sample_num must be non-negative")
        if prop_int(cls, properties, "roi_end_mode") not in ROI_END_MODES:
            raise ValueError("roi_end_mode must be 0 (align=False) or 2 (align=True)")
        if prop_str(cls, properties, "pool_mode") not in ("avg", "max"):
            raise ValueError('pool_mode must be "avg" or "max"')
        if not math.isfinite(prop_float(cls, properties, "spatial_scale")):
            raise ValueError("spatial_scale must be finite")
        x, r = tensor_shape(operand_types[0]), tensor_shape(operand_types[1])
        if x is not None and len(x) != 4:
            raise ValueError(f"features must be [N, C, H, W], got {format_shape(x)}")
        if r is not None and (len(r) != 2 or not dims_agree(r[1], 5)):
            raise ValueError(f"rois must be [R, 5], got {format_shape(r)}")
        rois = -1 if r is None else r[0]
        channels = -1 if x is None else x[1]
        return (tensor_of(element_type(operand_types[0]), (rois, channels, ph, pw)),)

    def verify_(self) -> None:
        verify_element_types(self, (self.features.type, self.rois.type, self.y.type), "operands")
        if not is_float(element_type(self.features.type)):
            fail(self, f"features must be a floating-point tensor, got {self.features.type}")
        verify_rank(self, "features", self.features.type, 4)
        verify_inferred(self, "the pooled shape")


__all__ = ["ROI_END_MODES", "NonMaxSuppressionV6Op", "ROIAlignOp"]

OPS = (NonMaxSuppressionV6Op, ROIAlignOp)
"""The ops of this module, in the order the dialect lists them."""
