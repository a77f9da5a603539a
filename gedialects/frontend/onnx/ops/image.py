"""ONNX converter of ImageDecoder: GE DecodeImage (`gedialects.graph.image`), with BGR as the
RGB image reversed along its channels (GE StridedSliceV2 of stride -1: DecodeImage has no
channel-order attribute)."""

from __future__ import annotations

from gedialects.frontend.onnx.ops.array import ints_const
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import DecodeImageOp, StridedSliceV2Op

PIXEL_FORMATS = {"RGB": 3, "BGR": 3, "Grayscale": 1}
"""ImageDecoder's `pixel_format`s and their channel counts."""

INT64_MIN = -(2**63)


@converter("ImageDecoder")
def image_decoder(ctx: NodeContext) -> Outputs:
    fmt = ctx.attr("pixel_format", "RGB")
    if fmt not in PIXEL_FORMATS:
        ctx.fail(f"pixel_format must be one of {', '.join(PIXEL_FORMATS)}, got {fmt!r}")
    image = ctx.emit(DecodeImageOp(ctx.input(0), channels=PIXEL_FORMATS[fmt])).results[0]
    if fmt != "BGR":
        return [image]
    reverse = StridedSliceV2Op(
        image,
        ints_const(ctx, [-1], "begin"),
        ints_const(ctx, [INT64_MIN], "end"),
        ints_const(ctx, [2], "axes"),
        ints_const(ctx, [-1], "strides"),
    )
    return [ctx.emit(reverse, "bgr").results[0]]
