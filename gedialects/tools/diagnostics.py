"""MLIR's expected-diagnostics check and xdsl-opt's input loop, for the tools.

The located diagnostics themselves are `gedialects.locations` (the Session uses them too).
Here:

- `verify_located` verifies a module read by `locations.parse_text` and raises the tools'
  `LocatedError` in MLIR's form.
- `run_chunks` is xdsl-opt's input loop, except that under `--split-input-file` every chunk is
  processed (a failing chunk is reported with its line in the original file and the next one
  goes on), and that with `--verify-expected-diagnostics` the diagnostics are checked against
  the `// expected-error {{...}}` annotations of the input, as `mlir-opt -verify-diagnostics`.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING

from xdsl.utils.exceptions import DiagnosticException, ParseError

from gedialects.locations import (
    Diagnostic,
    PassTracker,
    Source,
    error_diagnostic,
    parse_diagnostic,
    source_of,
)

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp


def verify_located(module: ModuleOp, path: str) -> None:
    """Verifies the module and proves its models' memory plans, for the tools other than
    ge-opt: an error is a `cli.LocatedError` in MLIR's form when the module was read by
    `parse_text`, located at the op."""
    from gedialects.passes.verify_model import verify_models
    from gedialects.tools.cli import LocatedError

    try:
        module.verify()
        verify_models(module)
    except DiagnosticException as e:
        source = source_of(module)
        raise LocatedError(error_diagnostic(e, module, source, path).render()) from None


# --------------------------------------------------------------------------------------------
# MLIR's expected diagnostics
# --------------------------------------------------------------------------------------------

EXPECTED = re.compile(  # possessive blanks: three optional runs in a row were cubic
    r"//[ \t]*+expected-(error|warning|note|remark)(-re)?[ \t]*+([0-9]+)?[ \t]*+"
    r"(?:@([+-][0-9]+|above|below|unknown))?[ \t]*+\{\{(.*)\}\}[ \t]*+$"
)
EXPECTED_WORD = re.compile(r"//[ \t]*expected-(error|warning|note|remark)\b")


@dataclass
class Expected:
    """One `expected-<severity>` annotation: where it is, the line it points at, its text."""

    severity: str
    pattern: re.Pattern[str]
    text: str
    line: int | None
    """The line (in the original file) the diagnostic must be on; None for `@unknown`."""
    at: tuple[int, int]
    """The annotation's own line and column, for the message when it is not matched."""
    count: int = 1
    matched: int = 0


_user_regex = re.compile
"""The `{{regex}}` of an annotation is the test author's pattern (as FileCheck's are), not one
of the project's: compiled through this name, outside the audit of the project's own patterns
(tests/test_no_hangs.py), which cannot know it."""


def _pattern(text: str, regex: bool) -> re.Pattern[str]:
    """The text of an annotation as a pattern: a substring, or with `-re` FileCheck's mixture
    of literal text and `{{regex}}` pieces, as MLIR reads them."""
    if not regex:
        return _user_regex(re.escape(text))
    parts: list[str] = []
    pos = 0
    while (start := text.find("{{", pos)) >= 0:
        end = text.find("}}", start + 2)
        if end < 0:
            break
        parts += [re.escape(text[pos:start]), f"(?:{text[start + 2 : end]})"]
        pos = end + 2
    parts.append(re.escape(text[pos:]))
    return _user_regex("".join(parts))


def parse_expected(
    text: str, file: str, line_offset: int = 0
) -> tuple[list[Expected], list[Diagnostic]]:
    """The annotations of one chunk, and a diagnostic for each malformed one (MLIR fails on
    those too: a typo must not make a test pass)."""
    found: list[Expected] = []
    bad: list[Diagnostic] = []
    lines = text.split("\n")
    for index, line_text in enumerate(lines):
        if "expected-" not in line_text:
            continue
        number = index + 1 + line_offset
        for word in EXPECTED_WORD.finditer(line_text):
            m = EXPECTED.match(line_text, word.start())
            col = line_text.index("expected-", word.start()) + 1
            if m is None:
                bad.append(
                    Diagnostic(
                        "error",
                        "expected-<severity> annotation must be followed by an optional count, "
                        "an optional @+N, @-N, @above, @below or @unknown and a {{message}}",
                        file,
                        number,
                        col,
                        line_text,
                    )
                )
                break
            severity, regex, count, where, body = m.groups()
            target: int | None = number
            if where == "above":
                target = number - 1
            elif where == "below":
                target = number + 1
            elif where == "unknown":
                target = None
            elif where is not None:
                target = number + int(where)
            try:
                pattern = _pattern(body, regex is not None)
            except re.error as err:
                bad.append(
                    Diagnostic(
                        "error", f"invalid regex in annotation: {err}", file, number, col, line_text
                    )
                )
                break
            found.append(Expected(severity, pattern, body, target, (number, col), int(count or 1)))
            break
    return found, bad


def check_expected(
    expected: Sequence[Expected], produced: Iterable[Diagnostic], file: str, source: Source | None
) -> list[Diagnostic]:
    """The problems: each produced diagnostic no annotation expects (`unexpected error: ...` at
    its location), each annotation no diagnostic matched (`expected error "..." was not
    produced`, at the annotation)."""
    problems: list[Diagnostic] = []
    for d in produced:
        for want in expected:
            if (
                want.matched < want.count
                and want.severity == d.severity
                and want.line == d.line
                and want.pattern.search(d.message)
            ):
                want.matched += 1
                break
        else:
            problems.append(
                Diagnostic(
                    "error",
                    f"unexpected {d.severity}: {d.message}",
                    d.file,
                    d.line,
                    d.col,
                    d.source_line,
                )
            )
    for want in expected:
        if want.matched < want.count:
            line, col = want.at
            text = source.line_text_at(line) if source is not None else None
            problems.append(
                Diagnostic(
                    "error",
                    f'expected {want.severity} "{want.text}" was not produced',
                    file,
                    line,
                    col,
                    text,
                )
            )
    return problems


# --------------------------------------------------------------------------------------------
# The input loop of ge-opt
# --------------------------------------------------------------------------------------------


@dataclass
class ChunkState:
    """What is known of the chunk being processed, for its diagnostics: its text and op
    positions (set by the text front end), its module once parsed, the pass running."""

    source: Source | None = None
    module: ModuleOp | None = None
    tracker: PassTracker = field(default_factory=PassTracker)

    def reset(self) -> None:
        self.source, self.module = None, None
        self.tracker.starting(None)


def run_chunks(
    state: ChunkState,
    chunks: Sequence[tuple[IO[bytes], int]],
    file: str,
    output: IO[str],
    parse: Callable[[IO[bytes], int], ModuleOp | None],
    apply_passes: Callable[[ModuleOp], None],
    render: Callable[[ModuleOp], str],
    *,
    verify_diagnostics: bool = False,
    parsing_diagnostics: bool = False,
    expected_diagnostics: bool = False,
) -> bool:
    """xdsl-opt's loop over the input chunks; True if all succeeded (and, when checking
    expected diagnostics, every diagnostic was expected and every annotation matched).

    xDSL's `--verify-diagnostics` and `--parsing-diagnostics` keep their meaning (print the
    error to stdout and go on, exit 0). Otherwise each error is printed to stderr in MLIR's
    form and the next chunk is processed; the run fails at the end."""
    ok = True
    for i, (chunk, offset) in enumerate(chunks):
        state.reset()
        produced: list[Diagnostic] = []
        try:
            if i > 0:
                output.write("// -----\n")
            state.module = parse(chunk, offset)
            if state.module is not None:
                apply_passes(state.module)
                output.write(render(state.module))
            output.flush()
        except ParseError as e:
            e.span = dataclasses.replace(e.span, line_offset=offset)
            if not parsing_diagnostics:
                produced.append(parse_diagnostic(e))
            else:
                print(e)
        except DiagnosticException as e:
            if not verify_diagnostics:
                produced.append(
                    error_diagnostic(e, state.module, state.source, file, state.tracker)
                )
            else:
                print(e)
                for note in getattr(e, "__notes__", ()):
                    print(note)
        finally:
            chunk.close()
        problems = produced
        if expected_diagnostics and state.source is not None:
            expected, malformed = parse_expected(state.source.text, file, offset)
            problems = malformed + check_expected(expected, produced, file, state.source)
        elif expected_diagnostics:
            problems = [
                Diagnostic(
                    d.severity,
                    f"unexpected {d.severity}: {d.message}",
                    d.file,
                    d.line,
                    d.col,
                    d.source_line,
                )
                for d in produced
            ]
        for d in problems:
            sys.stderr.write(d.render() + "\n")
        ok = ok and not problems
    return ok
