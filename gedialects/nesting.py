"""The nesting limit of textual IR, checked before xDSL's recursive-descent parser runs.

xDSL 0.74 parses, verifies and prints nested regions by recursion, about six Python frames per
level: 200 nested `builtin.module`s exhaust Python's recursion limit and end in a
RecursionError. `check_nesting` scans the text once (skipping string literals and comments)
and refuses regions nested deeper than `MAX_NESTING` with a parse error at the brace that goes
too deep, so the user gets `file:line:col: error: ...` instead of an internal error. Real models
nest a handful of levels (module > graph > case branch).
"""

from __future__ import annotations

import re

MAX_NESTING = 64
"""Most `{ ... }` levels (regions, attribute dictionaries) a textual IR input may nest."""

_TOKENS = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|//[^\n]*|[{}]'
"""A string literal (closed or not: it then ends at the line's end), a comment, or a brace;
linear time: no two alternatives of a repetition can match the same text."""
_STR = re.compile(_TOKENS)
_BYTES = re.compile(_TOKENS.encode())


def nesting_error(text: str | bytes, name: str) -> tuple[int, str] | None:
    """(offset, message) of the first brace nested deeper than `MAX_NESTING`, or None."""
    if isinstance(text, bytes):
        if text.count(b"{") <= MAX_NESTING:
            return None
        tokens = ((m.start(), m.group()[0]) for m in _BYTES.finditer(text))
        opening, closing = ord("{"), ord("}")
    else:
        if text.count("{") <= MAX_NESTING:
            return None
        tokens = ((m.start(), m.group()[0]) for m in _STR.finditer(text))
        opening, closing = "{", "}"
    depth = 0
    for start, first in tokens:
        if first == opening:
            depth += 1
            if depth > MAX_NESTING:
                return start, (
                    f"regions or attribute dictionaries nested more than {MAX_NESTING} levels "
                    f"deep (gedialects' nesting limit)"
                )
        elif first == closing:
            depth -= 1
    return None


def check_nesting(text: str | bytes, name: str) -> None:
    """Raises xDSL's ParseError (`name:line:col`) when `text` nests too deeply."""
    found = nesting_error(text, name)
    if found is None:
        return
    from xdsl.utils.exceptions import ParseError
    from xdsl.utils.lexer import Input, Span

    offset, message = found
    # one Span per kind: its content type is str or bytes, never the union
    if isinstance(text, str):
        raise ParseError(Span(offset, offset + 1, Input(text, name)), message)
    raise ParseError(Span(offset, offset + 1, Input(text, name)), message)
