"""The TransData kernel: GE's format transfers between every pair of storage formats."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from gedialects.formats import c0_of, format_of
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel, kernel_into
from gedialects.interpreters.layouts import LayoutError, pack, pack_into, unpack, unpack_into


def _attr_str(attrs: KernelAttrs, name: str) -> str:
    value = attrs.get(name)
    data = getattr(value, "data", None)
    if not isinstance(data, str):
        raise KernelError(f"TransData needs a string attribute '{name}'")
    return data


@kernel("TransData")
def trans_data(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> tuple[np.ndarray, ...]:
    """Unpack from `src_format`, pack into `dst_format`: every pair through the origin
    tensor, whose format and shape the result type names (its encoding, or the result
    itself when `dst_format` is the origin format)."""
    (x,) = inputs
    rtype = result_types[0]
    if not isinstance(rtype, TensorType):
        raise KernelError(f"TransData needs a ranked result type, got {rtype}")
    src_format, dst_format = _attr_str(attrs, "src_format"), _attr_str(attrs, "dst_format")
    enc = format_of(rtype)
    origin, origin_shape = (
        (dst_format, rtype.get_shape()) if enc is None else (enc.origin, enc.shape)
    )
    c0 = c0_of(rtype.element_type)
    try:
        plain = unpack(x, origin, origin_shape, src_format, c0)
        return (pack(plain, origin, dst_format, c0),)
    except ValueError as e:
        raise KernelError(f"TransData {src_format} -> {dst_format}: {e}") from None


@kernel_into("TransData")
def trans_data_into(
    inputs: Sequence[np.ndarray],
    attrs: KernelAttrs,
    result_types: Sequence[Attribute],
    outputs: Sequence[np.ndarray],
) -> None:
    """`trans_data` written into the output: NCHW <-> NC1HWC0 (a feature map entering or
    leaving the heavy format) as one strided copy per channel block, no temporaries; other
    pairs through the kernel and a copy."""
    (x,), (out,) = inputs, outputs
    rtype = result_types[0]
    src_format, dst_format = _attr_str(attrs, "src_format"), _attr_str(attrs, "dst_format")
    enc = format_of(rtype) if isinstance(rtype, TensorType) else None
    pair = (src_format, dst_format)
    try:
        if (
            pair == ("NCHW", "NC1HWC0")
            and enc is not None
            and enc.origin == "NCHW"
            and tuple(enc.shape) == x.shape
        ):
            pack_into(x, rtype, out)
            return
        if (
            pair == ("NC1HWC0", "NCHW")
            and enc is None
            and isinstance(rtype, TensorType)
            and x.ndim == 5
            and x.shape[4] == c0_of(rtype.element_type)
        ):
            unpack_into(x, out)
            return
    except LayoutError as e:
        raise KernelError(f"TransData {src_format} -> {dst_format}: {e}") from None
    (y,) = trans_data(inputs, attrs, result_types)
    np.copyto(out, y, casting="unsafe")
