"""Kernel of DecodeImage (`gedialects.graph.image`): Pillow's decoders, as onnx's reference
ImageDecoder; Pillow is imported on the first decode only."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
from xdsl.ir import Attribute

from gedialects.graph import DecodeImageOp
from gedialects.interpreters.graph.common import Arrays, int_
from gedialects.interpreters.kernels import (
    InputDataError,
    KernelAttrs,
    KernelError,
    check_output,
    kernel,
)


@kernel("DecodeImage")
def decode_image(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """The header is read first, so the output size is checked against the memory budget
    before any pixel is decoded; then one `Image.convert` to RGB or L (alpha dropped,
    palettes expanded)."""
    import PIL.Image  # Pillow only where an image is decoded (ge-opt starts fast)

    x = inputs[0]
    if x.dtype != np.uint8 or x.ndim != 1:
        raise KernelError(
            f"DecodeImage: contents must be 1-D uint8 bytes, got {x.dtype}{list(x.shape)}"
        )
    channels = int_(attrs, "channels", DecodeImageOp)
    if channels not in (1, 3):
        raise KernelError(f"DecodeImage: channels must be 1 or 3, got {channels}")
    what = f"DecodeImage: cannot decode the {x.size} bytes of contents as an image"
    # The memory budget bounds the image, not Pillow's decompression-bomb limit (a warning
    # above 89M pixels, an error above 179M): it is lifted while this kernel decodes.
    bomb_limit = PIL.Image.MAX_IMAGE_PIXELS
    PIL.Image.MAX_IMAGE_PIXELS = None
    try:
        # Pillow's decoders raise many exception types on corrupt data (OSError, SyntaxError,
        # struct.error, EOFError, ...): every one is bad input here.
        try:
            img = PIL.Image.open(io.BytesIO(x.tobytes()))
            width, height = img.size
        except Exception as e:
            raise InputDataError(f"{what}: {_reason(e)}") from None
        # scratch: Pillow's decoded image (at most 4 bytes a pixel) and its converted copy
        scratch = -(-(4 + (4 if channels == 3 else 1)) // channels)
        check_output("DecodeImage", (height, width, channels), np.dtype(np.uint8), scratch)
        try:
            pixels = np.array(img.convert("L" if channels == 1 else "RGB"), dtype=np.uint8)
        except Exception as e:
            raise InputDataError(
                f"{what} ({img.format or 'unknown'} {width}x{height}): {_reason(e)}"
            ) from None
    finally:
        PIL.Image.MAX_IMAGE_PIXELS = bomb_limit
    return (pixels.reshape(height, width, channels),)


def _reason(e: BaseException) -> str:
    import PIL

    if isinstance(e, PIL.UnidentifiedImageError):  # its text names a BytesIO object
        return "not an image format Pillow reads"
    text = " ".join(str(e).split())
    return text or type(e).__name__
