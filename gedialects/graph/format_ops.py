"""Format transfer ops: GE's TransData between the storage formats of `gedialects.formats`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.traits import Pure

from gedialects.base import GEOp, NodeSyntax, OperandValues
from gedialects.formats import (
    FORMATS,
    ORIGIN_FORMATS,
    format_of,
    verify_tensor_format,
    with_format,
)
from gedialects.graph.common import AnyTensor, fail, init_node, prop_str


def trans_data_type(src: Attribute, src_format: str, dst_format: str) -> Attribute:
    """The type TransData gives `src` in `dst_format` (ValueError naming the mismatch)."""
    for what, fmt in (("src_format", src_format), ("dst_format", dst_format)):
        if fmt not in FORMATS:
            raise ValueError(f"{what} '{fmt}' is not a data format ({', '.join(FORMATS)})")
    if not isinstance(src, TensorType):
        raise ValueError(f"needs a ranked tensor, got {src}")
    enc = format_of(src)
    if enc is None:
        if src_format not in ORIGIN_FORMATS:
            raise ValueError(
                f"src is in its origin format, so src_format must be one of "
                f"{', '.join(ORIGIN_FORMATS)}, got {src_format}"
            )
        origin = src_format
    else:
        if enc.fmt != src_format:
            raise ValueError(f"src is in {enc.fmt}, src_format says {src_format}")
        origin = enc.origin
    try:
        return with_format(src, dst_format, origin)
    except ValueError as e:
        raise ValueError(f"cannot convert {src} from {src_format} to {dst_format}: {e}") from None


@irdl_op_definition
class TransDataOp(GEOp, NodeSyntax):
    """GE TransData: `src` re-laid out from storage format `src_format` to `dst_format`.

    The tensor is the same (origin format and shape unchanged); only its storage changes, so
    the result type is `src`'s origin tensor in `dst_format` (see `gedialects.formats`), and
    padding positions (channels past C, rows past the 16-row block) are zero. A plain `src`
    is in its origin format, which `src_format` then names. FE inserts TransData on every edge
    whose producer and consumer formats differ (`trans_node_insertion.cc`); weights' Const ->
    TransData folds at compile time (`transdata_kernel.cc`).

        %y = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0"
            : (tensor<1x3x4x4xf16>)
            -> tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>
    """

    name = "graph.trans_data"
    GE_TYPE: ClassVar[str] = "TransData"
    OWN_FORMATS: ClassVar[bool] = True

    src = operand_def(AnyTensor)
    dst = result_def(AnyTensor)

    src_format = prop_def(StringAttr)
    dst_format = prop_def(StringAttr)

    traits = traits_def(Pure())

    def __init__(
        self,
        src: SSAValue | Operation,
        *,
        src_format: str,
        dst_format: str,
        result_type: Attribute | None = None,
    ) -> None:
        props: dict[str, Attribute] = {
            "src_format": StringAttr(src_format),
            "dst_format": StringAttr(dst_format),
        }
        init_node(self, [src], result_type, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        src_format = prop_str(cls, properties, "src_format")
        dst_format = prop_str(cls, properties, "dst_format")
        return (trans_data_type(operand_types[0], src_format, dst_format),)

    def verify_(self) -> None:
        for t in (self.src.type, self.dst.type):
            if (why := verify_tensor_format(t)) is not None:
                fail(self, why)
        try:
            expected = trans_data_type(self.src.type, self.src_format.data, self.dst_format.data)
        except ValueError as e:
            fail(self, str(e))
        if self.dst.type != expected:
            fail(self, f"result type {self.dst.type} differs from the computed {expected}")


__all__ = ["TransDataOp", "trans_data_type"]

OPS = (TransDataOp,)
"""The ops of this module, in the order the dialect lists them."""
