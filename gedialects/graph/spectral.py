"""Spectral ops (GE spectral_ops.h): DFT and STFT, which ONNX DFT and STFT import to.

GE's own spectral op, RFFT, gives complex64; the graph dialect has no complex type, so these
keep ONNX's representation: a trailing axis of 1 (real) or 2 (real, imaginary)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I64, BoolAttr, IntegerAttr, i64
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
    FALSE,
    AnyTensor,
    bool_attr,
    fail,
    format_shape,
    i64_attr,
    init_node,
    prop_bool,
    prop_int,
    tensor_of,
    verify_element_types,
    verify_inferred,
)
from gedialects.graph.elementwise import is_float


@irdl_op_definition
class DFTOp(GEOp, NodeSyntax):
    """GE DFT (GE-local: GE's RFFT gives complex64): the discrete Fourier transform of `x`
    along `axis`.

    `x` is `[..., 1]` (real) or `[..., 2]` (real, imaginary); `axis` counts in x's dims and
    is not the last. `dft_length` (0: the signal's length; 2 (n - 1) for an inverse
    one-sided transform) zero-pads or truncates the signal. `onesided` keeps the
    `dft_length / 2 + 1` non-redundant frequencies of a forward transform; an inverse
    one-sided transform reads them and gives the real signal `[..., 1]`. `inverse` divides by
    `dft_length`. ONNX DFT's semantics.

        %y = graph.dft %x axis 1 onesided true : (tensor<1x10x1xf32>) -> tensor<1x6x2xf32>
    """

    name = "graph.dft"
    GE_TYPE: ClassVar[str] = "DFT"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    axis = prop_def(IntegerAttr[I64])
    dft_length = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    inverse = prop_def(BoolAttr, default_value=FALSE)
    onesided = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        axis: int,
        dft_length: int = 0,
        inverse: bool = False,
        onesided: bool = False,
    ) -> None:
        props: dict[str, Attribute] = {
            "axis": i64_attr(axis),
            "dft_length": i64_attr(dft_length),
            "inverse": bool_attr(inverse),
            "onesided": bool_attr(onesided),
        }
        init_node(self, [x], None, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """x's shape with `axis` the transform's length and a last axis of 2 (1 for an inverse
        one-sided transform)."""
        elem = element_type(operand_types[0])
        x = tensor_shape(operand_types[0])
        length = prop_int(cls, properties, "dft_length")
        inverse = prop_bool(cls, properties, "inverse")
        onesided = prop_bool(cls, properties, "onesided")
        if length < 0:
            raise ValueError(f"dft_length must be non-negative, got {length}")
        if x is None:
            return (tensor_of(elem, None),)
        rank = len(x)
        axis = prop_int(cls, properties, "axis")
        if rank < 2 or not -rank <= axis < rank or axis % rank == rank - 1:
            raise ValueError(
                f"axis {axis} must be a signal axis of x {format_shape(x)} (not the last)"
            )
        if x[-1] >= 0 and x[-1] not in (1, 2):
            raise ValueError(f"x's last dim must be 1 (real) or 2 (complex), got {x[-1]}")
        axis %= rank
        n = x[axis]
        if length == 0 and n >= 0:
            length = 2 * (n - 1) if inverse and onesided else n
        out = list(x)
        out[axis] = -1 if length <= 0 and n < 0 else length
        if onesided and not inverse and out[axis] >= 0:
            out[axis] = out[axis] // 2 + 1
        out[-1] = 1 if inverse and onesided else 2
        return (tensor_of(elem, out),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        if not is_float(element_type(self.x.type)):
            fail(self, f"x must be a floating-point tensor, got {self.x.type}")
        verify_inferred(self, "the transform's shape")


@irdl_op_definition
class STFTOp(GEOp, NodeSyntax):
    """GE STFT: the short-time Fourier transform of `signal` `[B, L, 1 | 2]`.

    Frames of `frame_length` samples start every `frame_step` samples (`(L - frame_length) /
    frame_step + 1` of them), each multiplied by `window` `[frame_length]` when given, and
    transformed; `onesided` keeps `frame_length / 2 + 1` frequencies. The result is `[B,
    frames, frequencies, 2]`. ONNX STFT's semantics.

        %y = graph.stft %s, %w frame_step 8 frame_length 16
            : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
    """

    name = "graph.stft"
    GE_TYPE: ClassVar[str] = "STFT"

    signal = operand_def(AnyTensor)
    window = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    frame_step = prop_def(IntegerAttr[I64])
    frame_length = prop_def(IntegerAttr[I64])
    onesided = prop_def(BoolAttr, default_value=bool_attr(True))

    traits = traits_def(Pure())

    def __init__(
        self,
        signal: SSAValue | Operation,
        window: SSAValue | Operation | None,
        *,
        frame_step: int,
        frame_length: int,
        onesided: bool = True,
    ) -> None:
        props: dict[str, Attribute] = {
            "frame_step": i64_attr(frame_step),
            "frame_length": i64_attr(frame_length),
            "onesided": bool_attr(onesided),
        }
        init_node(self, [signal, [] if window is None else [window]], None, props)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """`[B, frames, frequencies, 2]`."""
        elem = element_type(operand_types[0])
        step = prop_int(cls, properties, "frame_step")
        length = prop_int(cls, properties, "frame_length")
        if step <= 0 or length <= 0:
            raise ValueError(f"frame_step and frame_length must be positive, got {step}, {length}")
        if len(operand_types) > 1:
            w = tensor_shape(operand_types[1])
            if w is not None and (len(w) != 1 or not dims_agree(w[0], length)):
                raise ValueError(f"window must be [{length}] (frame_length), got {format_shape(w)}")
        bins = length // 2 + 1 if prop_bool(cls, properties, "onesided") else length
        s = tensor_shape(operand_types[0])
        if s is None:
            return (tensor_of(elem, (-1, -1, bins, 2)),)
        if len(s) != 3 or s[-1] not in (-1, 1, 2):
            raise ValueError(f"signal must be [batch, length, 1 | 2], got {format_shape(s)}")
        if 0 <= s[1] < length:
            raise ValueError(f"signal length {s[1]} is shorter than frame_length {length}")
        frames = -1 if s[1] < 0 else (s[1] - length) // step + 1
        return (tensor_of(elem, (s[0], frames, bins, 2)),)

    def verify_(self) -> None:
        types = [self.signal.type, self.y.type]
        if self.window is not None:
            types.append(self.window.type)
        verify_element_types(self, types, "signal, window and result")
        if not is_float(element_type(self.signal.type)):
            fail(self, f"signal must be a floating-point tensor, got {self.signal.type}")
        verify_inferred(self, "the frames' shape")


__all__ = ["DFTOp", "STFTOp"]

OPS = (DFTOp, STFTOp)
"""The ops of this module, in the order the dialect lists them."""
