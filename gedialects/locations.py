"""Where an op came from in a text IR file, and diagnostics in MLIR's format.

xDSL 0.74 keeps no text position on the ops it parses (only an explicit `loc(...)`), and its
verifier errors carry no op (the failing op is only underlined in a printed copy of the
module, `e.__notes__`). Here, below every layer that reads IR text (the Session's
`add_graph` and the tools both use it):

- `LocatingParser` records where each op starts (`op_positions`); the fast block-body loop
  of our container ops (`fast_text.parse_block_body`) records the same for the ops it builds
  itself, one dict store per op.
- `find_failing_op` finds the op a failed `module.verify()` stopped at, by verifying the
  ops one by one (done only after a failure, so a good module pays nothing).
- `Diagnostic.render` prints MLIR's form: `file:line:col: error: 'graph.relu' op %y
  (node_name "relu1"): message`, then the source line and a caret under the op name.
"""

from __future__ import annotations

import re
import weakref
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from gedialects.base import NODE_NAME

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

SEVERITIES = ("error", "warning", "note", "remark")

MAX_SOURCE_LINE = 160
"""Source lines longer than this are shown as a window around the column (a dense literal
can make one line of megabytes)."""

RESULTS_HEAD = re.compile(
    r"((?:%[^\s,=:(){}]+(?::[0-9]+)?[ \t]*,[ \t]*)*%[^\s,=:(){}]+(?::[0-9]+)?)[ \t]*=[ \t]*"
)
"""`%a, %b:2 = ` before an op's name: the op's SSA names, and where its name starts."""
NAMED_NODE = re.compile(r"'([a-z_]+\.[a-z_0-9.]+)' \"([^\"]*)\"")
"""`'ascend.output' "y2"`: how our messages name an op by its GE node name."""
SYMBOL_IN_MESSAGE = re.compile(r"@([a-zA-Z_$.][a-zA-Z0-9_$.-]*)")


class LocatingParser(Parser):
    """xDSL's parser, recording the text offset each op starts at (its results or its name)."""

    op_positions: dict[Operation, int]
    """op -> offset in the parser's input; `fast_text.parse_block_body` fills it as well."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # pyright: ignore[reportArgumentType]
        self.op_positions = {}

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        self.op_positions[op] = start
        return op


@dataclass
class Source:
    """One parsed text (a chunk of the input file) and where its ops start.

    `line_offset` is the number of lines before the chunk in the original file, so that every
    location names the line of the file the user opened."""

    name: str
    text: str
    line_offset: int = 0
    positions: dict[Operation, int] = field(default_factory=dict)
    _line_starts: list[int] | None = None

    def line_col(self, pos: int) -> tuple[int, int]:
        """The 1-based line (in the original file) and column of an offset in the text."""
        if self._line_starts is None:
            starts = [0]
            find = self.text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self._line_starts = starts
        index = bisect_right(self._line_starts, pos) - 1
        return index + 1 + self.line_offset, pos - self._line_starts[index] + 1

    def line_text(self, pos: int) -> str:
        start = self.text.rfind("\n", 0, pos) + 1
        end = self.text.find("\n", pos)
        return self.text[start : len(self.text) if end < 0 else end].rstrip("\r")

    def line_text_at(self, line: int) -> str | None:
        """The text of a line given by its number in the original file."""
        index = line - 1 - self.line_offset
        lines = self.text.split("\n")
        return lines[index].rstrip("\r") if 0 <= index < len(lines) else None

    def position_of(self, op: Operation) -> int | None:
        """Where `op`'s name starts, or that of its closest parsed ancestor; None if neither
        was parsed from this text (built by a pass)."""
        current: Operation | None = op
        while current is not None:
            pos = self.positions.get(current)
            if pos is not None:
                m = RESULTS_HEAD.match(self.text, pos)
                return m.end() if m is not None else pos
            current = current.parent_op()
        return None

    def ssa_names(self, op: Operation) -> str:
        """`%a, %b`: the op's results as spelt in the text (or their name hints)."""
        pos = self.positions.get(op)
        if pos is not None:
            m = RESULTS_HEAD.match(self.text, pos)
            if m is not None:
                return re.sub(r"[ \t]+", " ", m.group(1))
        return ", ".join(f"%{r.name_hint}" for r in op.results if r.name_hint)


@dataclass
class Diagnostic:
    """One diagnostic as MLIR prints it: a located head line, then the source line and a caret."""

    severity: str
    message: str
    file: str
    line: int | None = None
    col: int | None = None
    source_line: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.col}" if self.line is not None else self.file

    def render(self) -> str:
        head = f"{self.where}: {self.severity}: {self.message}"
        if self.source_line is None or self.col is None or not self.source_line.strip():
            return head
        text, col = self.source_line, self.col
        if len(text) > MAX_SOURCE_LINE:
            start = max(0, col - 1 - MAX_SOURCE_LINE // 2)
            end = start + MAX_SOURCE_LINE
            pre = "..." if start > 0 else ""
            text = pre + text[start:end] + ("..." if end < len(text) else "")
            col = col - start + len(pre)
        indent = "".join(c if c == "\t" else " " for c in text[: col - 1])
        return f"{head}\n{text}\n{indent}^"


def _clean(message: str, op: Operation | None) -> str:
    text = " ".join(line.strip() for line in message.splitlines() if line.strip())
    if op is None:
        return text
    for prefix in (f"'{op.name}' op ", f"'{op.name}' ", f"{op.name}: "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            node = getattr(op.attributes.get(NODE_NAME), "data", None)
            for spelling in (f"({node}) ", f'"{node}" ', f"({node}): "):
                if isinstance(node, str) and text.startswith(spelling):
                    text = text[len(spelling) :]
            break
    sym = getattr(op.attributes.get("sym_name") or op.properties.get("sym_name"), "data", None)
    if isinstance(sym, str) and text.startswith(f"@{sym}: "):
        text = text[len(sym) + 3 :]
    return text


def describe_op(op: Operation, source: Source | None) -> str:
    """`'graph.relu' op %y (node_name "relu1")`: MLIR's op prefix, with our SSA and GE names."""
    parts = [f"'{op.name}' op"]
    names = source.ssa_names(op) if source is not None else ""
    if not names:
        names = ", ".join(f"%{r.name_hint}" for r in op.results if r.name_hint)
    if names:
        parts.append(names)
    sym = op.attributes.get("sym_name") or op.properties.get("sym_name")
    data = getattr(sym, "data", None)
    if isinstance(data, str):
        parts.append(f"@{data}")
    node = op.attributes.get(NODE_NAME) or op.properties.get(NODE_NAME)
    data = getattr(node, "data", None)
    if isinstance(data, str):
        parts.append(f'(node_name "{data}")')
    return " ".join(parts)


def op_diagnostic(
    op: Operation | None,
    message: str,
    source: Source | None,
    file: str,
    severity: str = "error",
    prefix: str = "",
    at: Operation | None = None,
) -> Diagnostic:
    """A diagnostic on `op`, located at its name in `source` when it was parsed from there
    (or at `at`, an op inside it that the message is about)."""
    body = _clean(message, op)
    if op is None:
        return Diagnostic(severity, prefix + body, file)
    who = describe_op(op, source)
    # MLIR's `'graph.relu' op message`; a colon once names follow the op
    sep = " " if who == f"'{op.name}' op" else ": "
    text = f"{prefix}{who}{sep}{body}"
    return _located(Diagnostic(severity, text, file), at or op, source)


def _located(d: Diagnostic, op: Operation, source: Source | None) -> Diagnostic:
    """`d` at `op`'s name (or its closest parsed ancestor's) when the op was parsed."""
    pos = source.position_of(op) if source is not None else None
    if source is None or pos is None:
        return d
    d.line, d.col = source.line_col(pos)
    d.source_line = source.line_text(pos)
    return d


def parse_diagnostic(e: ParseError) -> Diagnostic:
    """A parse error as xdsl-opt prints it, one line: `file:line:col: error: message` (its
    `line_offset` counts the lines of earlier chunks). Unlike a verifier error it shows no
    source line: the parser's position is a token, often far into a long line."""
    loc = e.span.get_location()
    return Diagnostic("error", e.msg, loc.file, loc.line, loc.col)


_sources: weakref.WeakKeyDictionary[Operation, Source] = weakref.WeakKeyDictionary()
"""The text each module of `parse_text` came from, while the module lives."""


def source_of(module: Operation) -> Source | None:
    """The text a module of `parse_text` was parsed from, while the module lives."""
    return _sources.get(module)


def located_message(e: DiagnosticException, module: ModuleOp, path: str) -> str:
    """A verifier error of a module read by `parse_text` as one line, `file:line:col: error:
    'graph.relu' op ...` (the Session's errors are one line; the tools add the source line
    and caret)."""
    return error_diagnostic(e, module, source_of(module), path).render().split("\n", 1)[0]


def parse_text(ctx: Context, text: str, path: str) -> ModuleOp:
    """A text IR file parsed with its ops' positions (kept for `verify_located`)."""
    source = Source(path, text)
    module = parse_mlir(ctx, source)
    _sources[module] = source
    return module


def find_failing_op(root: Operation) -> tuple[Operation, VerifyException] | None:
    """The innermost op whose own verification fails, in the order xDSL verifies (nested ops
    before their parent's `verify_`); None if every op verifies by itself."""
    stack: list[tuple[Operation, bool]] = [(root, False)]
    while stack:
        op, children_done = stack.pop()
        if not children_done:
            stack.append((op, True))
            nested = [
                child for region in op.regions for block in region.blocks for child in block.ops
            ]
            stack.extend((child, False) for child in reversed(nested))
            continue
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            return op, e
    return None


def symbol_op(module: Operation, message: str) -> Operation | None:
    """The top-level symbol (`@main`) a message names first, for errors that carry no op."""
    by_name: dict[str, Operation] = {}
    for op in (
        module.regions[0].blocks[0].ops if module.regions and module.regions[0].blocks else ()
    ):
        sym = op.attributes.get("sym_name") or op.properties.get("sym_name")
        data = getattr(sym, "data", None)
        if isinstance(data, str):
            by_name.setdefault(data, op)
    for m in SYMBOL_IN_MESSAGE.finditer(message):
        if m.group(1) in by_name:
            return by_name[m.group(1)]
    return None


def named_node(root: Operation, message: str) -> Operation | None:
    """The op inside `root` that the message names first as `'dialect.op' "name"` (its
    `node_name`, or the name an op of ours carries: `output_name`, `input_name`, ...)."""
    mentions = NAMED_NODE.findall(message)
    if not mentions:
        return None
    names = {name for name, _ in mentions}
    found: dict[tuple[str, str], Operation] = {}
    for op in root.walk():
        if op.name in names:
            for holder in (op.attributes, op.properties):
                for value in holder.values():
                    if isinstance(value, StringAttr):
                        found.setdefault((op.name, value.data), op)
    return next((found[m] for m in mentions if m in found), None)


class PassTracker:
    """What the pass pipeline was doing when it raised: running a pass, or verifying the IR
    after one (`ge-opt`'s pipeline callback reports each step)."""

    def __init__(self) -> None:
        self.running: ModulePass | None = None
        self.verified_after: ModulePass | None = None

    def verifying(self, prev: ModulePass | None) -> None:
        self.running, self.verified_after = None, prev

    def starting(self, nxt: ModulePass | None) -> None:
        self.running, self.verified_after = nxt, None


def error_diagnostic(
    e: DiagnosticException,
    module: ModuleOp | None,
    source: Source | None,
    file: str,
    tracker: PassTracker | None = None,
) -> Diagnostic:
    """The diagnostic of a verifier or pass error: the op it names (the op a pass attached to
    the error as `e.op`, the op the verifier stopped at, or the `@symbol` of the message), the
    pass that failed or after which the IR did not verify."""
    message = " ".join(line.strip() for line in str(e).splitlines() if line.strip())
    running = tracker.running if tracker is not None else None
    after = tracker.verified_after if tracker is not None else None
    op = getattr(e, "op", None)
    if not isinstance(op, Operation):
        op = None
    attached = op is not None
    if op is None and running is None and module is not None and isinstance(e, VerifyException):
        found = find_failing_op(module)
        if found is not None:
            op = found[0]
            message = " ".join(ln.strip() for ln in str(found[1]).splitlines() if ln.strip())
    if op is None and module is not None:
        # the op the message names (`@main`, then `'ascend.output' "y2"` inside it): the
        # message is kept as it is, at that op's place
        named = symbol_op(module, message)
        if named is not None:
            op = named_node(named, message) or named
            if running is None:
                return _located(Diagnostic("error", message, file), op, source)
    if running is not None:
        # the pass's own words (they name the pass and the op their way), located at the op
        name = running.name
        if not message.startswith(f"{name}: "):
            message = f"{name}: {message}"
        if op is None:
            return Diagnostic("error", message, file)
        rest = message[len(name) + 2 :]
        if attached and f"'{op.name}'" not in rest and not rest.startswith("@"):
            message = f"{name}: {describe_op(op, source)}: {rest}"
        return _located(Diagnostic("error", message, file), op, source)
    prefix = ""
    if after is not None:
        prefix = f"the IR does not verify after pass '{after.name}': "
    inner = named_node(op, message) if op is not None and op.regions else None
    return op_diagnostic(op, message, source, file, prefix=prefix, at=inner)


def parse_mlir(ctx: Context, source: Source, allow_implicit_module: bool = True) -> ModuleOp:
    """The module of `source.text`, with its ops' positions recorded in `source.positions`."""
    parser = LocatingParser(ctx, source.text, source.name)
    source.positions = parser.op_positions
    return parser.parse_module(allow_implicit_module)
