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
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRTokenKind

T = TypeVar("T")

CACHE_LIMIT = 1 << 14
"""Entries per intern table; a table that fills up starts again (no unbounded growth)."""

_SPACE = re.compile(r"[ \t\r\n]*")
_SIMPLE_TENSOR = re.compile(r"tensor<(?:\*x|(?:(?:[0-9]+|\?)x)*)[a-z][a-z0-9]*>")
"""`tensor<4x?xf32>`, `tensor<f32>`, `tensor<*xi64>`: builtin element types, no encoding."""
_BUFFER = re.compile(r"(arena|dyn|var)\[(0|[1-9][0-9]{0,17})\] : ")
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

    def __init__(self, parser: AttrParser) -> None:
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
        commit_at(self.parser, self.pos)

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
        start = self._skip()
        m = _OPERAND.match(self.text, start)
        if m is None:  # no operand, or one this scan does not read (`%x#1`): the parser's
            return None if self.text.startswith("%", start) else out
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
        return self._braced(self.string_attr, allow_empty=False)

    def attr_dict(self) -> dict[str, Attribute] | None:
        """`{k = v, ...}` (or `{}`) with bare keys and values of the kinds the printer writes
        for kernel parameters: plain strings, `N : i64`, `true`/`false`, `array<i64: ...>`."""
        return self._braced(self.simple_attr, allow_empty=True)

    def _braced(
        self, value_of: Callable[[], Attribute | None], *, allow_empty: bool
    ) -> dict[str, Attribute] | None:
        """`{k = v, ...}` with bare keys, each value read by `value_of`; None (and the
        position back) on anything else, a repeated key included."""
        pos = self.pos
        if not self.punct("{"):
            return None
        out: dict[str, Attribute] = {}
        if allow_empty and self.punct("}"):
            return out
        while True:
            m = _KEY.match(self.text, self._skip())
            value = None
            if m is not None and m.group(1) not in out:
                self.pos = m.end()
                value = value_of()
            if value is None or m is None:
                self.pos = pos
                return None
            out[m.group(1)] = value
            if self.punct("}"):
                return out
            if not self.punct(","):
                self.pos = pos
                return None

    def simple_attr(self) -> Attribute | None:
        """A string, an i64 integer, a boolean or an i64 dense array, interned by its text."""
        start = self._skip()
        if self.text.startswith('"', start):
            return self.string_attr()
        m = _SIMPLE_ATTR.match(self.text, start)
        if m is None:
            return None
        key = m.group()
        attr = _simple_attrs.get(key)
        if attr is None:
            attr = _simple_attr_value(m)
            if attr is None:
                return None
            remember(_simple_attrs, key, attr)
        self.pos = m.end()
        return attr


_SIMPLE_ATTR = re.compile(
    r"(?P<int>-?(?:0|[1-9][0-9]{0,18})) : i64(?![a-zA-Z0-9_$.])"
    r"|(?P<bool>true|false)(?![a-zA-Z0-9_$.])"
    r"|array<i64(?:: (?P<items>-?(?:0|[1-9][0-9]{0,18})(?:, -?(?:0|[1-9][0-9]{0,18}))*))?>"
)
_simple_attrs: dict[str, Attribute] = {}
_I64_RANGE = range(-(1 << 63), 1 << 63)


def _simple_attr_value(m: re.Match[str]) -> Attribute | None:
    """The attribute `Scan.simple_attr` matched, as xDSL's attribute parser builds it (None
    for an integer out of i64's range: the parser reports it)."""
    from xdsl.dialects.builtin import BoolAttr, DenseArrayBase, IntegerAttr, i64

    if m["int"] is not None:
        n = int(m["int"])
        return IntegerAttr(n, i64) if n in _I64_RANGE else None
    if m["bool"] is not None:
        return BoolAttr.from_bool(m["bool"] == "true")
    items = [int(s) for s in m["items"].split(", ")] if m["items"] else []
    if not all(n in _I64_RANGE for n in items):
        return None
    return DenseArrayBase.from_list(i64, items)


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


TENSOR = _SIMPLE_TENSOR.pattern
"""The canonical tensor type as a pattern, for the one-expression op scanners."""
SSA_NAME = r"%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*)"
PLAIN_STRING = _PLAIN_STRING.pattern
_TENSOR_ITEM = re.compile(r"tensor<(?:\*x|(?:(?:[0-9]+|\?)x)*)[a-z][a-z0-9]*>")
_SSA_ITEM = re.compile(SSA_NAME)


def tensor_types(text: str, start: int, end: int) -> list[Attribute] | None:
    """The interned types of `tensor<...>, tensor<...>` between `start` and `end` (already
    matched as such), None if one of them is not a valid type (the parser reports it)."""
    out: list[Attribute] = []
    for m in _TENSOR_ITEM.finditer(text, start, end):
        key = m.group()
        t = _types.get(key)
        if t is None:
            t = _parse_type_text(key)
            if t is None:
                return None
        out.append(t)
    return out


def unresolved_operands(parser: Parser, start: int, end: int) -> list[UnresolvedOperand]:
    """The `%a, %b` between `start` and `end` (already matched as such), with their spans."""
    source = parser.lexer.input
    return [
        UnresolvedOperand(Span(m.start(), m.end(), source), 0)
        for m in _SSA_ITEM.finditer(source.content, start, end)
    ]


def match_after_name(parser: Parser, pattern: re.Pattern[str]) -> re.Match[str] | None:
    """`pattern` matched at the blank after an op's name, when the parser has read nothing
    beyond its current token (the op's first) and that blank is one space; else None."""
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    lexer = parser.lexer
    text = lexer.input.content
    start = token.span.start - 1
    if not _enabled or lexer.pos != token.span.end or not isinstance(text, str) or start < 0:
        return None
    if text[start] != " ":
        return None
    m = pattern.match(text, start)
    return m if m is not None and m.end() > token.span.start else None


def commit_at(parser: AttrParser, pos: int) -> None:
    """Moves the parser to `pos`: its next call reads what follows."""
    lexer = parser.lexer
    lexer.pos = pos
    parser._parser_state.current_token = lex(lexer)  # pyright: ignore[reportPrivateUsage]


_NEXT_TOKEN = re.compile(
    r"[ \t\r\n]*(?:(?P<percent>%(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*))"
    r"|(?P<bare>[a-zA-Z_][a-zA-Z0-9_$.]*)|(?P<brace>\}))"
)
"""What follows an op as printed: the next op's `%result` or name, or the block's `}`."""
_TOKEN_KINDS = {
    "percent": MLIRTokenKind.PERCENT_IDENT,
    "bare": MLIRTokenKind.BARE_IDENT,
    "brace": MLIRTokenKind.R_BRACE,
}


def lex(lexer: Any) -> Token[MLIRTokenKind, str]:
    """`lexer.lex()`, the same token, with the three that follow an op read by one regular
    expression (xDSL's lexer: a whitespace regex, a character dispatch, a suffix regex and
    four small objects, about a tenth of an op's parse). Anything else is xDSL's lexer."""
    text = lexer.input.content
    m = _NEXT_TOKEN.match(text, lexer.pos) if isinstance(text, str) else None
    if m is None or not _enabled:
        return lexer.lex()
    kind = m.lastgroup
    assert kind is not None
    lexer.pos = m.end()
    return Token(_TOKEN_KINDS[kind], Span(m.start(kind), m.end(), lexer.input))


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


# --------------------------------------------------------------------------------------------
# Block bodies of our container ops (graph.graph, ascend.model)
# --------------------------------------------------------------------------------------------

_OP_HEAD = re.compile(
    r"((?:%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*), )*%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*)"
    r" = )?((?:graph|ascend|partition|multibatch)\.[a-zA-Z_][a-zA-Z0-9_$.]*)(?![a-zA-Z0-9_$.])"
)
"""`%a, %b = graph.split_v` or `ascend.kernel`: results without a `:N` count, then the name
of one of our ops, as the printer writes them."""
_RESULT = re.compile(r"%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*)")
_OP_START_KINDS = frozenset(
    (MLIRTokenKind.PERCENT_IDENT, MLIRTokenKind.BARE_IDENT, MLIRTokenKind.STRING_LIT)
)
"""The tokens `Parser.parse_optional_operation` starts an op at."""


def parse_block_body(parser: Parser, block: Any) -> None:
    """`Parser._parse_block_body` for the bodies of our container ops.

    xDSL's `parse_operation` reads each op's head (`%a, %b =`, the op name) through the lexer,
    three or four tokens with their `Span`s, before the op's own `parse`: a fifth of the load
    time of the bench models once the ops themselves are fast. Here the head of an op of our
    dialects, spelt as printed, is matched with one regular expression; what follows is what
    `parse_operation` does (the op's `parse` with its dialect on the dialect stack, an optional
    `loc(...)`, the result count check, the SSA definitions with the same spans and errors).
    Any other op (generic form, other dialects, `%x:2 =`, comments before the name) goes
    through `parse_optional_operation` as before.

    A parser with an `op_positions` dict (`locations.LocatingParser`) gets the offset
    each op starts at recorded, as its own `parse_operation` records it, for the locations of
    verifier and pass errors.
    """
    positions: dict[Any, int] | None = getattr(parser, "op_positions", None)
    state = parser._parser_state  # pyright: ignore[reportPrivateUsage]
    lexer = parser.lexer
    source = lexer.input
    text = source.content
    kinds = _OP_START_KINDS
    ctx = parser.ctx
    while True:
        token = state.current_token
        if token.kind not in kinds:
            return
        m = None
        if isinstance(text, str) and lexer.pos == token.span.end:
            m = _OP_HEAD.match(text, token.span.start)
        op_type = None
        if m is not None:
            op_type = ctx.get_optional_op(m.group(2), dialect_stack=state.dialect_stack)
        if op_type is None or op_type.name != m.group(2):  # pyright: ignore[reportOptionalMemberAccess]
            op = parser.parse_optional_operation()
            if op is None:  # pragma: no cover - the token kinds above start an op
                return
            block.add_op(op)
            continue
        assert m is not None
        start = token.span.start
        results = [
            Span(r.start(), r.end(), source)
            for r in _RESULT.finditer(text, start, m.end(1))
        ] if m.group(1) else []  # fmt: skip
        lexer.pos = m.end()
        state.current_token = lexer.lex()
        state.dialect_stack.append(op_type.dialect_name())
        op = op_type.parse(parser)
        state.dialect_stack.pop()
        if (location := parser.parse_optional_location()) is not None:
            op.location = location
        if results and len(op.results) != len(results):
            parser.raise_error(
                f"Operation has {len(op.results)} results, but was given {len(results)} to bind.",
                at_position=Span(start, results[0].end, source),
            )
        for i, span in enumerate(results):
            parser._register_ssa_definition(span.text[1:], op.results[i : i + 1], span)  # pyright: ignore[reportPrivateUsage]
        if positions is not None:
            positions[op] = start
        block.add_op(op)


@contextlib.contextmanager
def fast_block_bodies(parser: Parser) -> Iterator[None]:
    """Block bodies parsed by `parse_block_body` while our container op parses its region.

    Set on this parser object only, for the length of the `with` block (nested containers
    keep the outer setting): other parsers and other dialects' ops are untouched.
    """
    if not _enabled or "_parse_block_body" in vars(parser):
        yield
        return
    setattr(parser, "_parse_block_body", lambda block: parse_block_body(parser, block))  # noqa: B010
    try:
        yield
    finally:
        delattr(parser, "_parse_block_body")
