"""Exact text for dense literals, arrays and strings: xDSL 0.74 work-arounds, loaded with ours.

MLIR prints a float that has no decimal form (inf, NaN, and in xDSL some large f32/f64) as
the bit pattern of its element type, `dense<[0xff800000, 1.0]> : tensor<2xf32>`, and reads a
hex integer in a float dense list back as that bit pattern. xDSL 0.74 prints the same text but
its parser reads `0xff800000` as the integer 4286578688 converted to float, so every -inf, +inf
and NaN constant came back as a large number after print -> parse (masked attention, Clip's
default bounds). It also loses bits on the way out: it finds splats by comparing Python floats
(`[0.0, -0.0]` printed as the splat `0.0`) and prints NaNs through a Python float (an f16 NaN
loses its payload, a signalling f32 NaN is quieted); and it expands a splat into a Python list
of `count` floats before packing it (`dense<1.0> : tensor<400000000xf32>`, a 130-byte file,
took 6 GB).

`install()` replaces four methods, and only those:

- `AttrParser.parse_dense_int_or_fp_elements_attr`: same grammar and messages; a hex integer
  in a float literal is the bit pattern of the element width (f16, bf16, f32, f64, ...; it
  must fit, and takes no minus sign, as in MLIR); `true` is the byte 1 (xDSL writes 0xff, which
  numpy's bool does not hold); a splat becomes its element's bytes times the element count,
  after `gedialects.budget.check` has accepted the size; out-of-range values are parse errors at
  the element.
- `DenseIntOrFPElementsAttr.print_without_type`: same text as xDSL for every finite value; a
  splat is found by comparing bytes; a non-finite float element prints its stored bits.
- `AttrParser._parse_builtin_densearray_attr`: `array<f32: 0x7f800000>` (which xDSL prints for
  inf) is read as bits instead of failing.
- `BaseParser.parse_optional_str_literal`: a string literal with escaped non-ASCII UTF-8 (which
  xDSL prints for every non-ASCII string) is a string again, not a bytes literal.

Everything else (lexer, other attributes, scalar `FloatAttr`s, whose hex form xDSL already
reads as bits) stays xDSL's. `gedialects.base` (every dialect) and `dialect_factories()` (so
`register_all`, `make_context` and the `xdsl.universe` entry point) call `install()`: `ge-opt`,
`ge-run`, the Session, `Parser(make_context(), text)` and stock `xdsl-opt` all read and write
the same text.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import (
    AnyFloat,
    BytesAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.parser import AttrParser, BaseParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind, StringLiteral

from gedialects import budget, fast_text

_installed = False


class DenseBudgetError(ParseError, budget.MemoryBudgetError):
    """A dense splat whose bytes would exceed the memory budget (a parse error with a location)."""


def install() -> None:
    """Puts the exact parse and print of dense literals in place (idempotent)."""
    global _installed
    if _installed:
        return
    AttrParser.parse_dense_int_or_fp_elements_attr = parse_dense
    AttrParser._parse_builtin_densearray_attr = parse_dense_array  # pyright: ignore[reportPrivateUsage]
    BaseParser.parse_optional_str_literal = parse_optional_str_literal
    DenseIntOrFPElementsAttr.print_without_type = print_dense_without_type
    _installed = True


# --------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------


def parse_dense(self: AttrParser, type: Any | None) -> DenseIntOrFPElementsAttr:
    """`dense<...>` with its type (or with `type` given), straight to bytes."""
    if type is None and fast_text.enabled():
        fast = scan_dense(self)
        if fast is not None:
            return fast
    start = self.pos
    self.parse_punctuation("<", " in dense attribute")
    hex_string: str | None = None
    literal: tuple[list[Any], list[int]] | None = None
    if self.parse_optional_punctuation(">") is None:
        hex_string = self.parse_optional_str_literal()
        if hex_string is None:
            literal = self._parse_tensor_literal()  # pyright: ignore[reportPrivateUsage]
        self.parse_punctuation(">", " in dense attribute")
    if type is None:
        self.parse_punctuation(":", " in dense attribute")
        type = self._parse_dense_literal_type()  # pyright: ignore[reportPrivateUsage]
    span = Span(start, self.pos, self.lexer.input)
    element = type.element_type
    count = math.prod(type.get_shape())
    size = element.compile_time_size

    if literal is None and hex_string is None:
        if count != 0:
            self.raise_error(
                "Expected at least one element in the dense literal, but got None", span
            )
        return DenseIntOrFPElementsAttr(type, BytesAttr(b""))

    if hex_string is not None:
        try:
            if hex_string[:2] not in ("0x", "0X"):
                raise ValueError
            data = bytes.fromhex(hex_string[2:])
        except ValueError:
            self.raise_error("Hex string in denseAttr is invalid", span)
        if len(data) == size:  # a hex splat
            _check_splat(self, span, size * count, type)
            data *= count
        if len(data) != count * size:
            self.raise_error(
                f"Shape mismatch in dense literal. Expected {count} elements from the type, "
                f"but got {len(data) // size} elements.",
                span,
            )
        return DenseIntOrFPElementsAttr(type, BytesAttr(data))

    assert literal is not None
    values, shape = literal
    if not shape:  # a splat: one element's bytes, repeated once the budget allows it
        one = _pack(self, values, element)
        _check_splat(self, span, len(one) * count, type)
        return DenseIntOrFPElementsAttr(type, BytesAttr(one * count))
    type_shape = list(type.get_shape())
    if type_shape != shape:
        self.raise_error(
            f"Shape mismatch in dense literal. Expected {type_shape} shape from the type, "
            f"but got {shape} shape.",
            span,
        )
    return DenseIntOrFPElementsAttr(type, BytesAttr(_pack(self, values, element)))


_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]*(?:[eE][+-]?[0-9]+)?)?")
"""A decimal literal as xDSL's lexer reads it (`1`, `-2.5`, `6.930560e-01`, `1.`); the minus
sign joined to it, as the printer writes it."""
_BODY = re.compile(r"[-+0-9.eE, \[\]]*")
_SKELETONS: dict[tuple[int, ...], str] = {}


def _skeleton(shape: tuple[int, ...]) -> str:
    """The printer's spelling of a literal of `shape` with every number replaced by `x`:
    `[[x, x], [x, x]]` for 2x2, `x` for a splat."""
    text = _SKELETONS.get(shape)
    if text is None:
        text = "x"
        for dim in reversed(shape):
            text = "[" + ", ".join([text] * dim) + "]"
        if len(text) <= 1 << 16:
            fast_text.remember(_SKELETONS, shape, text)
    return text


def scan_dense(parser: AttrParser) -> DenseIntOrFPElementsAttr | None:
    """`<[...]> : tensor<...>` after `dense`, read in a few regular-expression passes when it
    is spelt as the printer writes decimal literals (xDSL's path: a `Token`, a `Span` and a
    tensor-literal element per number, about 2 ms for an 8x8 f32 weight).

    Canonical text only: numbers as `_NUMBER` with `, ` between them and brackets nested as
    the type's shape (or one number, a splat), a static `tensor<>` of a float or an integer
    type wider than i1. Anything else (hex, `true`, complex, spaces or comments elsewhere, a
    value out of range, a shape mismatch, a splat over the memory budget) returns None
    having consumed nothing: `parse_dense` then reads the same text the ordinary way and
    reports any error exactly as before. The bytes are those that path packs: `float(text)`
    per element (an integer among floats too) through `element.pack`, and for integers
    `int(text)` checked by `get_normalized_value`.
    """
    scan = fast_text.Scan(parser)
    if not scan.ok or not scan.punct("<"):
        return None
    return _scan_dense_from(scan)


def parse_dense_value(parser: Parser) -> DenseIntOrFPElementsAttr | None:
    """`scan_dense` for a value that starts at the current token (`graph.const`'s and
    `ascend.weight`'s): `dense<...> : tensor<...>` without xDSL's dispatch over every
    attribute kind; None, having consumed nothing, for any other text."""
    scan = fast_text.Scan(parser)
    if not scan.ok or not scan.keyword("dense") or not scan.text.startswith("<", scan.pos):
        return None
    scan.pos += 1
    return _scan_dense_from(scan)


def _scan_dense_from(scan: fast_text.Scan) -> DenseIntOrFPElementsAttr | None:
    text = scan.text
    body = _BODY.match(text, scan.pos)
    end = body.end() if body is not None else scan.pos
    if end == scan.pos or not text.startswith(">", end):
        return None
    literal = text[scan.pos : end]
    scan.pos = end + 1
    if not scan.punct(":"):
        return None
    type = scan.tensor_type()
    if not isinstance(type, TensorType):
        return None
    element = type.element_type
    shape = tuple(type.get_shape())
    if any(d <= 0 for d in shape):  # dynamic, or empty (`dense<>`/`[]`: the ordinary path)
        return None
    numbers = _NUMBER.findall(literal)
    splat = len(numbers) == 1
    if not splat and len(numbers) != math.prod(shape):
        return None  # before the skeleton, which is as long as the type says (make fuzz:
        # a [2, 2] literal typed tensor<400000000x2xf32> built a 2.4 GB string)
    if _NUMBER.sub("x", literal) != ("x" if splat else _skeleton(shape)):
        return None
    try:
        if isinstance(element, AnyFloat):
            data = element.pack([float(n) for n in numbers])
        elif isinstance(element, IntegerType) and element.bitwidth > 1:
            if element.signedness.data == Signedness.UNSIGNED and "-" in literal:
                return None
            data = element.pack([element.get_normalized_value(int(n)) for n in numbers])
        else:
            return None
    except (ValueError, OverflowError, NotImplementedError):
        return None  # the ordinary path reports it at the element
    if splat:
        count = math.prod(shape)
        if count != 1:
            try:
                within = len(data) * count <= budget.max_memory()
            except Exception:  # e.g. a malformed GE_MAX_MEMORY: the ordinary path reports it
                within = False
            if not within:
                return None  # the ordinary path raises it as a located DenseBudgetError
            data *= count
    scan.commit()
    return checked_dense(type, data)


def checked_dense(type: TensorType, data: bytes) -> DenseIntOrFPElementsAttr:
    """`DenseIntOrFPElementsAttr(type, BytesAttr(data))` without their IRDL verification
    (about 45 µs, mostly the `RankedStructure[...]` constraint), for values the caller has
    checked: a ranked `TensorType` of an integer or float element and `data` of exactly its
    element count (`scan_dense`; `tensors.dense_from_numpy`, the constants the fusions and
    the folding make per node)."""
    payload = BytesAttr.__new__(BytesAttr)
    object.__setattr__(payload, "data", data if isinstance(data, bytes) else bytes(data))
    attr = DenseIntOrFPElementsAttr.__new__(DenseIntOrFPElementsAttr)
    object.__setattr__(attr, "type", type)
    object.__setattr__(attr, "data", payload)
    return attr


def _check_splat(parser: AttrParser, span: Span, nbytes: int, type: Any) -> None:
    try:
        budget.check(nbytes, f"dense splat literal of {type}")
    except budget.MemoryBudgetError as e:
        raise DenseBudgetError(span, str(e)) from None


def _pack(parser: AttrParser, values: Sequence[Any], element: Any) -> bytes:
    """The elements' bytes; hex integers in a float literal are bit patterns."""
    if isinstance(element, AnyFloat):
        return _pack_floats(parser, values, element)
    if isinstance(element, ComplexType):
        for v in values:
            if not isinstance(v.value, tuple):
                parser.raise_error(f"expected a complex literal (re, im) for {element}", v.span)
    converted: list[Any] = [v.to_type(parser, element) for v in values]
    try:
        if isinstance(element, IntegerType):
            converted = [element.get_normalized_value(x) for x in converted]
            if element.bitwidth == 1:
                # xDSL normalizes true to -1 (byte 0xff); numpy's bool and MLIR's i1 store 1.
                return bytes(1 if x else 0 for x in converted)
        return element.pack(converted)
    except (ValueError, OverflowError) as e:
        bad = _first_unpackable(values, converted, element)
        parser.raise_error(str(e).splitlines()[0], bad.span if bad is not None else None)


def _first_unpackable(values: Sequence[Any], converted: Sequence[Any], element: Any) -> Any:
    for value, x in zip(values, converted, strict=True):
        try:
            if isinstance(element, IntegerType):
                element.get_normalized_value(x)
            element.pack([x])
        except (ValueError, OverflowError):
            return value
    return None


def _pack_floats(parser: AttrParser, values: Sequence[Any], element: AnyFloat) -> bytes:
    size = element.compile_time_size
    floats: list[float] = []
    bits: list[tuple[int, int]] = []
    for i, value in enumerate(values):
        if _is_hex(value):
            pattern = value.value
            if value.is_negative:
                parser.raise_error(
                    "hexadecimal float literal should not have a leading minus", value.span
                )
            if pattern >> element.bitwidth:
                parser.raise_error(
                    f"hexadecimal float literal 0x{pattern:X} does not fit {element} "
                    f"({element.bitwidth} bits)",
                    value.span,
                )
            bits.append((i, pattern))
            floats.append(0.0)
        else:
            floats.append(value.to_float(parser))
    try:
        data = element.pack(floats)
    except (OverflowError, ValueError):
        for value, f in zip(values, floats, strict=True):
            try:
                element.pack([f])
            except (OverflowError, ValueError):
                parser.raise_error(f"value {f!r} is out of range for {element}", value.span)
        raise
    if not bits:
        return data
    out = bytearray(data)
    for i, pattern in bits:
        out[i * size : (i + 1) * size] = pattern.to_bytes(size, "little")
    return bytes(out)


def _is_hex(value: Any) -> bool:
    if isinstance(value.value, bool) or not isinstance(value.value, int):
        return False
    return value.span.text.lstrip("-").lstrip()[:2] in ("0x", "0X")


def parse_dense_array(self: AttrParser) -> DenseArrayBase:
    """`array<T: ...>` after `array`, as xDSL parses it, but a hex integer among float
    elements is their bit pattern (xDSL prints inf/NaN that way and could not read it back)."""
    self.parse_characters("<", " in dense array")
    pos = self.pos
    element = self.parse_attribute()
    if not isinstance(element, IntegerType | AnyFloat):
        self.raise_error(
            "dense array element type must be an integer or floating point type", pos, self.pos
        )
    if self.parse_optional_punctuation(">"):
        return DenseArrayBase.from_list(element, [])
    self.parse_characters(":", " in dense array")
    if isinstance(element, IntegerType):
        values = self.parse_comma_separated_list(
            self.Delimiter.NONE,
            lambda: self._parse_typed_integer(element, allow_boolean=True),  # pyright: ignore[reportPrivateUsage]
        )
        result = DenseArrayBase.from_list(element, values)
    else:
        elements = self.parse_comma_separated_list(
            self.Delimiter.NONE,
            lambda: self._parse_tensor_literal_element(),  # pyright: ignore[reportPrivateUsage]
        )
        for e in elements:
            if not _is_hex(e) and not isinstance(e.value, float):
                self.raise_error("Expected float literal", e.span)
        result = DenseArrayBase(element, BytesAttr(_pack_floats(self, elements, element)))
    self.parse_characters(">", " in dense array")
    return result


def parse_optional_str_literal(self: BaseParser) -> str | None:
    """A string literal, also one with escapes of non-ASCII UTF-8 bytes.

    xDSL 0.74's lexer calls a literal with an escape and a non-ASCII byte a bytes literal even
    when the bytes are UTF-8 (its docstring says it decodes them), and its printer escapes every
    non-ASCII byte: `StringAttr("é")` printed as `"\\C3\\A9"` came back as a `BytesAttr`. Bytes
    that are not UTF-8 stay a bytes literal.
    """
    token = self._current_token  # pyright: ignore[reportPrivateUsage]
    if token.kind == MLIRTokenKind.BYTES_LIT:
        try:
            value = StringLiteral.from_span(token.span).bytes_contents.decode("utf-8")
        except UnicodeDecodeError:
            return None
        self._consume_token(MLIRTokenKind.BYTES_LIT)  # pyright: ignore[reportPrivateUsage]
        return value
    if (token := self._parse_optional_token(MLIRTokenKind.STRING_LIT)) is None:  # pyright: ignore[reportPrivateUsage]
        return None
    try:
        return token.kind.get_string_literal_value(token.span)
    except UnicodeDecodeError:
        return None


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------


def is_splat(data: bytes, size: int) -> bool:
    """Whether every element has the same bytes (so -0.0 and 0.0 differ, as do NaN payloads)."""
    view = memoryview(data)  # compares without copying a large value
    return len(data) >= size and view[size:] == view[:-size]


def print_dense_without_type(self: DenseIntOrFPElementsAttr, printer: Printer) -> None:
    """xDSL's `dense<...>` text, taken from the bytes."""
    element = self.get_element_type()
    data = self.data.data
    size = element.compile_time_size
    length = len(data) // size
    shape = self.get_shape() if self.shape_is_complete else (length,)
    text = _dense_text(element, data, size, length, shape)
    if text is not None:
        printer.print_string(text)
        return
    printer.print_string("dense")
    with printer.in_angle_brackets():
        if length == 0:
            pass
        elif is_splat(data, size):
            _print_elements(printer, element, data[:size], (1,), bracket=False)
        elif length > 100:
            printer.print_string(f'"0x{data.hex().upper()}"')
        else:
            _print_elements(printer, element, data, tuple(shape), bracket=True)


def dense_text(value: DenseIntOrFPElementsAttr) -> str | None:
    """`dense<...> : tensor<...>` as `Printer.print_attribute` writes it, built as one string
    (decimal literals of finite floats and integers), else None."""
    element = value.get_element_type()
    data = value.data.data
    size = element.compile_time_size
    length = len(data) // size
    shape = value.get_shape() if value.shape_is_complete else (length,)
    text = _dense_text(element, data, size, length, shape)
    return None if text is None else f"{text} : {fast_text.type_text(value.type)}"


def _dense_text(
    element: Any, data: bytes, size: int, length: int, shape: Sequence[int]
) -> str | None:
    if not 0 < length <= 100 or not fast_text.enabled():
        return None
    splat = is_splat(data, size)
    text = _elements_text(element, data[:size] if splat else data, () if splat else shape)
    return None if text is None else f"dense<{text}>"


def _elements_text(element: Any, data: bytes, shape: Sequence[int]) -> str | None:
    """The text `_print_elements` writes for finite floats or integers wider than i1, built
    as one string (xDSL's `print_float` per element: 2 to 3 µs each, half the print time of
    the bench graph); None for anything else (non-finite floats, i1, index, complex).

    A float is `print_float`'s text: `{v:.5e}` with a `0` before the exponent where that
    reads back to the same value of the element type (checked for all elements with one
    `pack`/`unpack`), else what `print_float` itself writes for that element.
    """
    count = len(data) // element.compile_time_size
    if isinstance(element, AnyFloat):
        values = element.unpack(data, count)
        joined = ", ".join([f"{v:.5e}" for v in values])
        if joined.count("e") != count:  # inf or nan among them: their bits, elsewhere
            return None
        texts = joined.replace("e", "0e").split(", ")
        try:
            back = element.unpack(element.pack([float(t) for t in texts]), count)
        except (ValueError, OverflowError, NotImplementedError):
            return None
        if back != values:
            digits = _DIGITS.get(type(element))
            for i, (a, b) in enumerate(zip(back, values, strict=True)):
                if a != b:
                    text = None if digits is None else f"{b:.{digits}g}"
                    texts[i] = text if text and "." in text else _float_text(b, element)
    elif isinstance(element, IntegerType) and element.bitwidth > 1:
        texts = [str(v) for v in element.unpack(data, count)]
    else:
        return None
    if not shape:
        return texts[0]
    for dim in reversed(shape[1:]):
        texts = ["[" + ", ".join(texts[i : i + dim]) + "]" for i in range(0, len(texts), dim)]
    return "[" + ", ".join(texts) + "]"


_DIGITS = {Float32Type: 9, Float64Type: 17}
"""Significant digits `print_float` writes when the short form is not exact (a result without
a `.` is printed as hex bits instead)."""


def _float_text(value: float, element: Any) -> str:
    """What `Printer.print_float` writes for `value` (the rare element whose short form is not
    exact: 9 or 17 significant digits, or hex bits)."""
    out = io.StringIO()
    Printer(stream=out).print_float(value, element)
    return out.getvalue()


def _print_elements(
    printer: Printer, element: Any, data: bytes, shape: tuple[int, ...], bracket: bool
) -> None:
    size = element.compile_time_size
    values = element.unpack(data, len(data) // size)
    if not bracket:
        _print_one(printer, element, values[0], data[:size])
        return
    _print_nested(printer, element, values, data, list(shape), 0, len(values))


def _print_nested(
    printer: Printer,
    element: Any,
    values: Sequence[Any],
    data: bytes,
    shape: list[int],
    lo: int,
    hi: int,
) -> None:
    size = element.compile_time_size
    printer.print_string("[")
    if len(shape) > 1:
        k = (hi - lo) // shape[0]
        for n, i in enumerate(range(lo, hi, k)):
            if n:
                printer.print_string(", ")
            _print_nested(printer, element, values, data, shape[1:], i, i + k)
    else:
        for i in range(lo, hi):
            if i > lo:
                printer.print_string(", ")
            _print_one(printer, element, values[i], data[i * size : (i + 1) * size])
    printer.print_string("]")


def _print_one(printer: Printer, element: Any, value: Any, raw: bytes) -> None:
    if isinstance(element, AnyFloat):
        if math.isnan(value) or math.isinf(value):
            printer.print_string(f"0x{raw[::-1].hex()}")  # the stored bits, payload and all
        else:
            printer.print_float(value, element)
    elif isinstance(element, IntegerType | IndexType):
        printer.print_int(value, element)
    else:
        assert isinstance(element, ComplexType)
        printer.print_complex(value, element)
