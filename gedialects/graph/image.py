"""Image ops (GE image_ops.h): DecodeImage, ONNX's ImageDecoder. GE places it on AI CPU
(its output size depends on the encoded data, `gedialects.target.engines.DATA_DEPENDENT_OPS`);
GE's DVPP decoders (DecodeJpeg, DecodePng) each take one format only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr, IntegerType, Signedness, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from gedialects.base import GEOp, NodeSyntax, OperandValues, element_type, tensor_shape
from gedialects.graph.common import (
    AnyTensor,
    fail,
    format_shape,
    i64_attr,
    init_node,
    operand_count,
    prop_int,
    tensor_of,
    verify_inferred,
    verify_rank,
)

UI8 = IntegerType(8, Signedness.UNSIGNED)
DECODE_CHANNELS = (1, 3)
"""DecodeImage's modelled `channels`: 1 (grayscale, ITU-R 601-2 luma) and 3 (RGB)."""


@irdl_op_definition
class DecodeImageOp(GEOp, NodeSyntax):
    """GE DecodeImage: the pixels of one encoded image (JPEG, PNG, BMP, GIF, TIFF, WebP,
    JPEG 2000, PNM: whatever Pillow, onnx's reference decoder, reads) as uint8
    `[height, width, channels]`.

    `channels` 3 gives RGB, 1 grayscale (luma `L = R*299/1000 + G*587/1000 + B*114/1000`);
    any alpha is dropped and palette images are expanded. Height and width are in the data,
    so both dims are `?` and the node lands in an unknown-shape partition on AI CPU. Unlike
    GE's prototype, whose `contents` is a 0-D DT_STRING, `contents` here is the 1-D uint8
    byte tensor ONNX's ImageDecoder takes; GE's `channels` 0 (as encoded) and 4, `dtype`
    other than uint8 and `expand_animations` are not modelled (an animation decodes to its
    first frame). ONNX's BGR is this op followed by a reversing StridedSliceV2 on the channels.

        %y = graph.decode_image %x channels 3 : (tensor<312xui8>) -> tensor<?x?x3xui8>
    """

    name = "graph.decode_image"
    GE_TYPE: ClassVar[str] = "DecodeImage"

    contents = operand_def(AnyTensor)
    image = result_def(AnyTensor)

    channels = prop_def(IntegerAttr[I64], default_value=IntegerAttr(3, i64))

    traits = traits_def(Pure())

    def __init__(
        self,
        contents: SSAValue | Operation,
        *,
        channels: int = 3,
        result_type: Attribute | None = None,
    ) -> None:
        init_node(self, [contents], result_type, {"channels": i64_attr(channels)})

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[?, ?, channels]` uint8: the image size is in the encoded data."""
        operand_count(cls, operand_types, 1)
        channels = prop_int(cls, properties, "channels")
        if channels not in DECODE_CHANNELS:
            raise ValueError(
                f"channels must be 1 (grayscale) or 3 (RGB), got {channels} (GE's 0 and 4 "
                "are not modelled)"
            )
        return (tensor_of(UI8, (-1, -1, channels)),)

    def verify_(self) -> None:
        if element_type(self.contents.type) != UI8:
            fail(self, f"contents must be a uint8 byte tensor, got {self.contents.type}")
        verify_rank(self, "contents", self.contents.type, 1)
        if element_type(self.image.type) != UI8:
            fail(self, f"image must be a uint8 tensor, got {self.image.type}")
        verify_inferred(self, "the image layout")
        # a static height or width would claim the data (as NonZero's count)
        declared = tensor_shape(self.image.type)
        if declared is not None and len(declared) == 3 and (declared[0] >= 0 or declared[1] >= 0):
            fail(
                self,
                f"image shape {format_shape(declared)}: height and width are in the encoded "
                "data, so they must be ?",
            )


OPS = [DecodeImageOp]
__all__ = ["DECODE_CHANNELS", "DecodeImageOp"]
