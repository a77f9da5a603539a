"""Fast paths of the textual IR of our ops: interned types and a scanner for canonical text.

xDSL 0.74 parses every token through its lexer (a regular expression per token, a `Span`
and a `Token` object each) and every `tensor<4x8xf32>` through its type parser (seven
tokens, a shape list, a verified `TensorType`): on the 10k-node bench graph that was about
700 µs per op. Our op parsers therefore read the text the printer writes directly:

- `Scan` is a cursor over the parser's input from the current token. It matches the
  canonical spelling of strings, integers, keywords, punctuation, tensor types and
  `arena[...] : tensor<...>` buffers, and `commit()` hands the position back to the parser
  (one lexer call). Any other spelling (comments, escapes, line breaks inside a type, an
  error) makes a step return None; the caller then parses the same text the ordinary way,
  so the syntax and its diagnostics stay those of the ordinary path.
- Types and buffers are interned by their text: the same `tensor<...>` is parsed (and
  printed) once per process, not once per op. Attributes are immutable, so sharing them is
  safe; the caches are bounded.

Relies on xDSL 0.74's parser state (`_parser_state.current_token`, `lexer.pos`), which the
project pins; the string-literal handling of the lexer itself is not touched.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from xdsl.dialects.builtin import FunctionType, StringAttr, TensorType, UnrankedTensorType
from xdsl.ir import Attribute
from xdsl.irdl import AttrConstraint
from xdsl.irdl import base as _xdsl_base
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.lexer import Span

T = TypeVar("T")

CACHE_LIMIT = 1 << 14
"""Entries per intern table; a table that fills up starts again (no unbounded growth)."""

_SPACE = re.compile(r"[ \t\r\n]*")
_SIMPLE_TENSOR = re.compile(r"tensor<(?:\*x|(?:(?:[0-9]+|\?)x)*)[a-z][a-z0-9]*>")
"""`tensor<4x?xf32>`, `tensor<f32>`, `tensor<*xi64>`: builtin element types, no encoding."""
_BUFFER = re.compile(r"(arena|dyn)\[(0|[1-9][0-9]{0,17})\] : ")
_PLAIN_STRING = re.compile(r'"([ !#-\[\]-~]*)"')
"""A string literal without escapes: printable ASCII but `"` and backslash, as printed."""
_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})(?![0-9a-zA-Z_$.])")
_IDENT_CHAR = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$.")

_enabled = True
"""False inside `disabled()`: every op then reads and writes through xDSL's own paths."""

_types: dict[str, Attribute] = {}
_buffers: dict[str, Attribute] = {}
_strings: dict[str, StringAttr] = {}
_type_texts: dict[int, tuple[Attribute, str]] = {}
_texts_by_value: dict[Attribute, str] = {}


def remember(table: dict, key: object, value: T) -> T:
    if len(table) >= CACHE_LIMIT:
        table.clear()
    table[key] = value
    return value


def string_attr(text: str) -> StringAttr:
    """An interned `StringAttr` (kernel, engine and node names repeat across tasks)."""
    attr = _strings.get(text)
    if attr is None:
        attr = remember(_strings, text, StringAttr(text))
    return attr


class Scan:
    """A cursor over the parser's text, from the start of its current token.

    Every step skips blanks, then matches one canonical piece and returns its value, or
    returns None and leaves the cursor where it was. Nothing reaches the parser until
    `commit()`; a scan that is dropped leaves the parser untouched.
    """

    __slots__ = ("parser", "pos", "text")

    def __init__(self, parser: Parser) -> None:
        self.parser = parser
        token = parser._current_token  # pyright: ignore[reportPrivateUsage]
        text = parser.lexer.input.content
        self.text: str = text if isinstance(text, str) else ""
        # The lexer reads one token ahead of nothing: its position is the token's end.
        self.pos: int = token.span.start if parser.lexer.pos == token.span.end else -1

    @property
    def ok(self) -> bool:
        return _enabled and self.pos >= 0 and bool(self.text)

    def _skip(self) -> int:
        space = _SPACE.match(self.text, self.pos)  # matches at any position, maybe empty
        return self.pos if space is None else space.end()

    def commit(self) -> None:
        """Moves the parser to the cursor: the next parser call reads what follows."""
        lexer = self.parser.lexer
        lexer.pos = self.pos
        self.parser._parser_state.current_token = lexer.lex()  # pyright: ignore[reportPrivateUsage]

    def punct(self, chars: str) -> bool:
        pos = self._skip()
        if self.text.startswith(chars, pos):
            self.pos = pos + len(chars)
            return True
        return False

    def keyword(self, word: str) -> bool:
        pos = self._skip()
        end = pos + len(word)
        if self.text.startswith(word, pos) and (
            end >= len(self.text) or self.text[end] not in _IDENT_CHAR
        ):
            self.pos = end
            return True
        return False

    def peek_keyword(self, word: str) -> bool:
        pos = self.pos
        found = self.keyword(word)
        self.pos = pos
        return found

    def integer(self) -> int | None:
        m = _INT.match(self.text, self._skip())
        if m is None:
            return None
        self.pos = m.end()
        return int(m.group())

    def string(self) -> str | None:
        m = _PLAIN_STRING.match(self.text, self._skip())
        if m is None:
            return None
        self.pos = m.end()
        return m.group(1)

    def string_attr(self) -> StringAttr | None:
        text = self.string()
        return None if text is None else string_attr(text)

    def tensor_type(self) -> Attribute | None:
        """A `tensor<...>` of the canonical kind, interned; None for any other type."""
        m = _SIMPLE_TENSOR.match(self.text, self._skip())
        if m is None:
            return None
        key = m.group()
        t = _types.get(key)
        if t is None:
            t = _parse_type_text(key)
            if t is None:
                return None
        self.pos = m.end()
        return t

    def buffer(self, make: Callable[[str, int, Attribute], Attribute]) -> Attribute | None:
        """`arena[1024] : tensor<4xf32>` or `dyn[3] : tensor<?xf32>`, interned by text;
        `make(kind, number, type)` builds it the first time."""
        start = self._skip()
        m = _BUFFER.match(self.text, start)
        if m is None:
            return None
        t = _SIMPLE_TENSOR.match(self.text, m.end())
        if t is None:
            return None
        key = self.text[start : t.end()]
        attr = _buffers.get(key)
        if attr is None:
            self.pos = m.end()
            type = self.tensor_type()
            if type is None:
                self.pos = start
                return None
            try:
                attr = make(m.group(1), int(m.group(2)), type)
            except Exception:  # the ordinary path reports it, with its location
                self.pos = start
                return None
            remember(_buffers, key, attr)
        self.pos = t.end()
        return attr

    def operands(self) -> list[UnresolvedOperand] | None:
        """`%a, %b` (possibly none): SSA names without a `#n` result index."""
        out: list[UnresolvedOperand] = []
        m = _OPERAND.match(self.text, self._skip())
        if m is None:
            return out
        source = self.parser.lexer.input
        while True:
            out.append(UnresolvedOperand(Span(m.start(), m.end(), source), 0))
            self.pos = m.end()
            save = self.pos
            if not self.punct(","):
                return out
            m = _OPERAND.match(self.text, self._skip())
            if m is None:
                self.pos = save
                return None

    def identifier(self) -> str | None:
        m = _BARE_KEY.match(self.text, self._skip())
        if m is None:
            return None
        self.pos = m.end()
        return m.group()

    def int_list(self) -> list[int] | None:
        """`[1, 2, 3]` or `[]` of integers."""
        pos = self.pos
        if not self.punct("["):
            return None
        items: list[int] = []
        if self.punct("]"):
            return items
        while True:
            n = self.integer()
            if n is None:
                self.pos = pos
                return None
            items.append(n)
            if self.punct("]"):
                return items
            if not self.punct(","):
                self.pos = pos
                return None

    def type_list(self) -> list[Attribute] | None:
        """`(A, B)` or `()` of canonical tensor types."""
        pos = self.pos
        if not self.punct("("):
            return None
        types: list[Attribute] = []
        if self.punct(")"):
            return types
        while True:
            t = self.tensor_type()
            if t is None:
                self.pos = pos
                return None
            types.append(t)
            if self.punct(")"):
                return types
            if not self.punct(","):
                self.pos = pos
                return None

    def function_type(self) -> tuple[list[Attribute], list[Attribute]] | None:
        """`(A, B) -> C`, `(A) -> (B, C)`, `() -> ()` of canonical tensor types."""
        pos = self.pos
        inputs = self.type_list()
        if inputs is None or not self.punct("->"):
            self.pos = pos
            return None
        if self.text.startswith("(", self._skip()):
            outputs = self.type_list()
        else:
            t = self.tensor_type()
            outputs = None if t is None else [t]
        if outputs is None:
            self.pos = pos
            return None
        return inputs, outputs

    def string_dict(self) -> dict[str, Attribute] | None:
        """`{name = "text", ...}` with bare-identifier keys and plain string values."""
        pos = self.pos
        if not self.punct("{"):
            return None
        out: dict[str, Attribute] = {}
        while True:
            m = _KEY.match(self.text, self._skip())
            value = None
            if m is not None:
                self.pos = m.end()
                value = self.string_attr()
            if value is None or m is None or m.group(1) in out:
                self.pos = pos
                return None
            out[m.group(1)] = value
            if self.punct("}"):
                return out
            if not self.punct(","):
                self.pos = pos
                return None


_OPERAND = re.compile(r"%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*)(?![#a-zA-Z0-9_$.-])")
_BARE_KEY = re.compile(r"[a-zA-Z_][a-zA-Z0-9_$.]*")
_KEY = re.compile(r"([a-zA-Z_][a-zA-Z0-9_$.]*) = ")


def _parse_type_text(text: str) -> Attribute | None:
    """The type spelled `text`, parsed once by xDSL and interned."""
    from xdsl.context import Context
    from xdsl.dialects.builtin import Builtin

    try:
        ctx = Context()
        ctx.load_dialect(Builtin)
        t = Parser(ctx, text).parse_type()
    except Exception:  # the caller's ordinary path reports it in place
        return None
    if not isinstance(t, TensorType | UnrankedTensorType):
        return None
    return remember(_types, text, t)


def parse_tensor_type(parser: Parser) -> Attribute:
    """`parser.parse_type()`, with canonical tensor types read from the intern table."""
    scan = Scan(parser)
    if scan.ok and (t := scan.tensor_type()) is not None:
        scan.commit()
        return t
    return parser.parse_type()


def parse_function_type_fast(parser: Parser) -> tuple[list[Attribute], list[Attribute]] | None:
    """`Scan.function_type` at the parser's position, or None without consuming anything."""
    scan = Scan(parser)
    if not scan.ok or (types := scan.function_type()) is None:
        return None
    scan.commit()
    return types


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------


def enabled() -> bool:
    return _enabled


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Parses and prints without the fast paths (the reference the tests compare them to)."""
    global _enabled
    saved, _enabled = _enabled, False
    try:
        yield
    finally:
        _enabled = saved


def type_text(t: Attribute) -> str:
    """The printed form of a type, computed once per type object (types are immutable)."""
    entry = _type_texts.get(id(t))
    if entry is not None and entry[0] is t:
        return entry[1]
    text = _texts_by_value.get(t)
    if text is None:
        out = io.StringIO()
        Printer(stream=out).print_attribute(t)
        text = remember(_texts_by_value, t, out.getvalue())
    remember(_type_texts, id(t), (t, text))
    return text


def string_text(s: str) -> str | None:
    """`"s"` as the printer writes it when `s` needs no escape, else None."""
    return f'"{s}"' if _PLAIN_CONTENT.fullmatch(s) else None


_PLAIN_CONTENT = re.compile(r"[ !#-\[\]-~]*")


def print_string_literal(printer: Printer, s: str) -> None:
    text = string_text(s)
    if text is None:
        printer.print_string_literal(s)
    else:
        printer.print_string(text)


def attr_dict_text(attributes: Mapping[str, Attribute]) -> str | None:
    """` {k = "v", ...}` for a dict of plain string values with bare keys ("" when empty),
    else None (the printer's `print_op_attributes` then prints it)."""
    if not attributes:
        return ""
    parts: list[str] = []
    for key, value in attributes.items():
        if not isinstance(value, StringAttr) or not _BARE_KEY.fullmatch(key):
            return None
        text = string_text(value.data)
        if text is None:
            return None
        parts.append(f"{key} = {text}")
    return " {" + ", ".join(parts) + "}"


def print_attr_dict(printer: Printer, attributes: Mapping[str, Attribute]) -> None:
    """`printer.print_op_attributes(attributes)`, one string for the common dicts."""
    text = attr_dict_text(attributes) if _enabled else None
    if text is None:
        printer.print_op_attributes(attributes)
    elif text:
        printer.print_string(text)


def function_type_text(inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> str:
    """`(A, B) -> C` as `Printer.print_function_type` writes it (parentheses kept around
    several results, none, or one function type)."""
    text = "(" + ", ".join(map(type_text, inputs)) + ") -> "
    if len(outputs) == 1 and not isinstance(outputs[0], FunctionType):
        return text + type_text(outputs[0])
    return text + "(" + ", ".join(map(type_text, outputs)) + ")"


def parse_optional_attr_dict(parser: Parser) -> dict[str, Attribute]:
    """`parser.parse_optional_attr_dict()`, with `{name = "text", ...}` read by `Scan`."""
    scan = Scan(parser)
    if scan.ok and (attrs := scan.string_dict()) is not None:
        scan.commit()
        return attrs
    return parser.parse_optional_attr_dict()


# --------------------------------------------------------------------------------------------
# xDSL 0.74 work-around: the dense literal's type check rebuilt its constraint every time
# --------------------------------------------------------------------------------------------

_constraints: dict[object, AttrConstraint[Any]] = {}
_installed = False


_AttributeT = TypeVar("_AttributeT", bound=Attribute)


def _memo_base(irdl: type[_AttributeT]) -> AttrConstraint[_AttributeT]:
    """`xdsl.irdl.base`, built once per argument.

    `AttrParser._parse_dense_literal_type` checks each dense literal's type against
    `base(RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType])`, and xDSL 0.74
    converts that type expression into a constraint again on every call (about 1.5 ms, half
    the cost of reading an 8x8 weight). Constraints are immutable, so one is enough.
    """
    try:
        constr = _constraints.get(irdl)
    except TypeError:  # an unhashable argument: no caching
        return _xdsl_base(irdl)
    if constr is None:
        constr = _constraints[irdl] = _xdsl_base(irdl)
    return constr


def install() -> None:
    """Puts `_memo_base` in the one place xDSL's attribute parser calls `base` (idempotent)."""
    global _installed
    if _installed:
        return
    from xdsl.parser import attribute_parser

    # the name the attribute parser imported from xdsl.irdl, not one it exports
    attribute_parser.base = _memo_base  # pyright: ignore[reportPrivateImportUsage]
    _installed = True


def parse_operands(parser: Parser) -> list[UnresolvedOperand]:
    """`%a, %b, ...` (possibly none) before an op's other parts."""
    scan = Scan(parser)
    if scan.ok and (operands := scan.operands()) is not None:
        scan.commit()
        return operands
    return (
        parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        )
        or []
    )
