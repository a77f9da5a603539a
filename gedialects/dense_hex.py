"""Fast text form of large weights: `dense<"0x...">` read and written without per-element work.

xDSL 0.74 prints a large dense attribute as one hex string, as MLIR does, but gets there by
unpacking every element into a Python tuple (to test for a splat), and parses it back through
its lexer (several copies of the literal and a regular expression over it): about 30 ms/MB
each way, 100 MB of weights took 2 to 6 s to load and 11 s to print. `ascend.weight` goes
through the two functions below instead: same text (the bytes in upper-case hex, a splat as
xDSL prints it), but one `bytes.fromhex` / `bytes.hex` over the literal. Small values keep
xDSL's own path. The module stays self-contained (no side file).
"""

from __future__ import annotations

from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, TensorType
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind

from gedialects import budget
from gedialects.base import element_count
from gedialects.exact_text import DenseBudgetError, is_splat

FAST_MIN_CHARS = 1 << 16
"""Hex literals shorter than this take xDSL's path (no measurable gain, and identical errors)."""


def parse_large_hex_dense(parser: Parser) -> DenseIntOrFPElementsAttr | None:
    """Parses `dense<"0x...."> : tensor<...>` at the current token if its literal is large.

    Returns None without consuming anything for any other text: the caller then parses the
    attribute the ordinary way. Relies on xDSL 0.74's lexer state (the project pins it).
    """
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    if token.kind != MLIRTokenKind.BARE_IDENT or token.text != "dense":
        return None
    lexer = parser.lexer
    text = lexer.input.content
    start = token.span.end
    if lexer.pos != start or not isinstance(text, str) or not text.startswith('<"0x', start):
        return None
    close = text.find('"', start + 4)
    if close - start - 4 < FAST_MIN_CHARS:
        return None
    try:
        data = bytes.fromhex(text[start + 4 : close])
    except ValueError:
        return None  # the ordinary path reports it
    lexer.pos = close + 1
    parser._parser_state.current_token = lexer.lex()  # pyright: ignore[reportPrivateUsage]
    parser.parse_punctuation(">", " in dense attribute")
    parser.parse_punctuation(":", " in dense attribute")
    pos = parser.pos
    type = parser.parse_type()
    if not isinstance(type, TensorType) or any(d < 0 for d in type.get_shape()):
        parser.raise_error(f"expected a static tensor type for a dense literal, got {type}", pos)
    size = getattr(type.element_type, "compile_time_size", None)
    if not isinstance(size, int) or size <= 0:
        parser.raise_error(f"dense literal element type {type.element_type} has no byte size", pos)
    count = element_count(type.get_shape())
    if len(data) == size:  # a hex splat, as MLIR and xDSL accept
        try:
            budget.check(size * count, f"dense splat literal of {type}")
        except budget.MemoryBudgetError as e:
            raise DenseBudgetError(token.span, str(e)) from None
        data *= count
    if len(data) != count * size:
        parser.raise_error(
            f"Shape mismatch in dense literal. Expected {count} elements from the type, but "
            f"got {len(data) // size} elements.",
            pos,
        )
    return DenseIntOrFPElementsAttr(type, BytesAttr(data))


def print_dense(printer: Printer, value: DenseIntOrFPElementsAttr) -> None:
    """Prints `value` as xDSL does, without unpacking the elements of a large one."""
    data = value.data.data
    size = getattr(value.get_element_type(), "compile_time_size", None)
    if not isinstance(size, int) or size <= 0 or len(data) <= 100 * size:
        printer.print_attribute(value)
        return
    if is_splat(data, size):  # print its one element the way exact_text does
        one = DenseIntOrFPElementsAttr(
            TensorType(value.get_element_type(), [1]), BytesAttr(data[:size])
        )
        one.print_without_type(printer)
    else:
        printer.print_string(f'dense<"0x{data.hex().upper()}">')
    printer.print_string(" : ")
    printer.print_attribute(value.get_type())
