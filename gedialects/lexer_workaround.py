"""Workaround of an xDSL 0.74 bug: its MLIR lexer backtracks exponentially on an unterminated
string literal.

`MLIRLexer._lex_string_literal` (xdsl/utils/mlir_lexer.py) matches a literal with

    "(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"

A run of plain characters can be split between the inner `+` and the outer `*` in 2**(n-1)
ways, and when no closing quote follows, Python's `re` tries every split before it gives up:
a `node_name = "...` of 24 characters without its quote took 1.1 s, 26 took 4.2 s, 40 hours
(in `ge-opt`, `ge-run`, `Session.add_graph`; a file cut inside a `dense<"0x...">` weight the
same). `install()` swaps in the same expression with possessive quantifiers (`++`, `*+`,
Python 3.11): a plain run, an escape and a quote start with different characters, so the only
way the original can match is the greedy one, and the possessive form finds exactly that match
(same tokens, same escapes, same `End of file reached before closing string literal.` error
at the same place) without backtracking, in time linear in the literal. xDSL's own
`_lex_string_literal` keeps running; only the compiled pattern it reads is replaced.

Installed by `gedialects.make_context`, `register_all`, `dialect_factories` (hence `ge-opt`,
`ge-run`, `ge-atc`, the Session), by importing any of our dialects, and by our
`xdsl.universe` entry point (stock `xdsl-opt` loads it before it parses). The pattern is
replaced only if it is xDSL 0.74's: another xDSL keeps its own.
"""

from __future__ import annotations

import re

XDSL_STRING_LITERAL = r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
"""xDSL 0.74's `MLIRLexer._unescaped_characters_regex` pattern (the one that backtracks)."""

LINEAR_STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')
"""The same language, matched without backtracking (possessive quantifiers)."""


def install() -> bool:
    """Replaces xDSL 0.74's string-literal pattern by `LINEAR_STRING_LITERAL` (idempotent).

    Returns whether the lexer now uses the linear pattern.
    """
    from xdsl.utils.mlir_lexer import MLIRLexer

    current = MLIRLexer._unescaped_characters_regex  # pyright: ignore[reportPrivateUsage]
    if current is LINEAR_STRING_LITERAL:
        return True
    if current.pattern != XDSL_STRING_LITERAL or current.flags != LINEAR_STRING_LITERAL.flags:
        return False
    MLIRLexer._unescaped_characters_regex = LINEAR_STRING_LITERAL  # pyright: ignore[reportPrivateUsage]
    return True


def installed() -> bool:
    """Whether xDSL's lexer uses the linear pattern."""
    from xdsl.utils.mlir_lexer import MLIRLexer

    return MLIRLexer._unescaped_characters_regex is LINEAR_STRING_LITERAL  # pyright: ignore[reportPrivateUsage]
