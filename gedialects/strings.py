"""GE's `DT_STRING`: the `!graph.string` element type and the `#graph.strings<...>` constant.

A string tensor is a builtin tensor of `!graph.string` (`tensor<2x3x!graph.string>`), as GE
gives `DT_STRING` to a `GeTensorDesc` like any other data type. Each element is a Unicode
string of any length (ONNX's STRING tensors hold UTF-8; the ONNX importer decodes them). A
string constant is `graph.const` holding a `#graph.strings` attribute, its elements in row-major
order as string literals followed by its type:

    %s = graph.const #graph.strings<["a", "\\C3\\A9", ""] : tensor<3x!graph.string>>

One literal for a tensor of more elements is a splat. The literals use the printer's escapes
(`\\22` for a quote, `\\5C` for a backslash, `\\00` for NUL, UTF-8 bytes for non-ASCII), so
every string survives custom -> generic -> custom bit for bit, NULs included. Kept free of
numpy: `gedialects.tensors` turns the attribute into a numpy unicode array (whose `U` dtype
drops trailing NULs: a numpy property, the attribute keeps them).

Strings have no fixed byte size, so they live at graph level and in the interpreter only:
`ge-convert-graph-to-ascend` refuses a graph with a string tensor, naming it (the `ascend`
level addresses every tensor by a static byte offset in one arena).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, StringAttr, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    """GE `DT_STRING`: the element type of string tensors, `tensor<4x!graph.string>`."""

    name = "graph.string"


STRING = StringType()
"""The one `!graph.string`."""


def is_string_tensor(t: Attribute) -> bool:
    """Whether `t` is a tensor (ranked or not) of `!graph.string`."""
    return isinstance(t, TensorType | UnrankedTensorType) and isinstance(t.element_type, StringType)


@irdl_attr_definition
class StringsAttr(ParametrizedAttribute):
    """The elements of a string constant, row-major, with their tensor type.

    `#graph.strings<["a", "b"] : tensor<2x!graph.string>>`; one element for a larger static
    shape is a splat.
    """

    name = "graph.strings"

    values: ArrayAttr[StringAttr]
    type: TensorType

    def __init__(self, values: Sequence[str], type: TensorType) -> None:
        super().__init__(ArrayAttr(StringAttr(v) for v in values), type)

    @property
    def strings(self) -> tuple[str, ...]:
        return tuple(v.data for v in self.values.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            values = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_str_literal
            )
            parser.parse_punctuation(":")
            pos = parser.pos
            ttype = parser.parse_type()
            if not isinstance(ttype, TensorType):
                parser.raise_error(
                    f"#graph.strings expects a tensor<...x!graph.string> type, got {ttype}",
                    pos,
                    parser.pos,
                )
        return (ArrayAttr(StringAttr(v) for v in values), ttype)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<[")
        for i, v in enumerate(self.values.data):
            if i:
                printer.print_string(", ")
            printer.print_string_literal(v.data)
        printer.print_string("] : ")
        printer.print_attribute(self.type)
        printer.print_string(">")

    def verify(self) -> None:
        if not isinstance(self.type.element_type, StringType):
            raise VerifyException(
                f"#graph.strings has type {self.type}; its element type must be !graph.string"
            )
        shape = self.type.get_shape()
        if any(d < 0 for d in shape):
            raise VerifyException(f"#graph.strings has type {self.type}; it needs a static shape")
        count = math.prod(shape)
        n = len(self.values.data)
        if n != count and not (n == 1 and count > 1):
            raise VerifyException(
                f"#graph.strings has {n} elements, its type {self.type} holds {count}"
            )
        for v in self.values.data:
            try:
                v.data.encode("utf-8")
            except UnicodeEncodeError:
                raise VerifyException(
                    f"#graph.strings element {v.data!r} is not valid Unicode (a lone surrogate)"
                ) from None


__all__ = ["STRING", "StringType", "StringsAttr", "is_string_tensor"]
