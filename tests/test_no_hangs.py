"""No hangs on bad text (issue 13 part 3): string literals in every parse entry point, and every
regular expression of the project against inputs that make backtracking patterns explode.

Time is CPU time of the calling thread (`time.thread_time`), so neither a loaded machine nor
threads an earlier test left spinning (onnxruntime's and BLAS's pools count in
`time.process_time`: a 10 kB regex match once measured 1.08 s there) make the bounds flaky;
subprocess runs get a wall-clock timeout instead (a regression hangs for hours).
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.parser import Parser
from xdsl.utils import mlir_lexer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind, StringLiteral

from gedialects import lexer_workaround, locations, make_context, multibatch
from gedialects.tools import diagnostics

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
MESSAGE = "End of file reached before closing string literal."
TEN_KB = 10_000
UNTERMINATED = 'builtin.module attributes {node_name = "' + "a" * TEN_KB + "\n"
"""A 10 kB `node_name` missing its closing quote; the literal starts at 1:40."""
SECOND = 1.0
"""The bound of every in-process check (CPU seconds)."""


class XdslLexer(MLIRLexer):
    """xDSL 0.74's lexer as shipped, with the backtracking pattern (for comparisons only)."""

    _unescaped_characters_regex = re.compile(lexer_workaround.XDSL_STRING_LITERAL)


@pytest.fixture(autouse=True)
def _workaround() -> None:
    make_context()  # installs it, as every entry point does


def cpu_seconds(action: Callable[[], object]) -> float:
    start = time.thread_time()
    action()
    return time.thread_time() - start


# --------------------------------------------------------------------------------------------
# The workaround: same language, same tokens, linear time
# --------------------------------------------------------------------------------------------


def test_replaced_pattern_is_xdsl_0_74s() -> None:
    source = inspect.getsource(mlir_lexer)
    assert f"r'{lexer_workaround.XDSL_STRING_LITERAL}'" in source
    assert lexer_workaround.installed()


def test_install_leaves_another_pattern_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    other = re.compile(r'"[^"]*"')
    monkeypatch.setattr(MLIRLexer, "_unescaped_characters_regex", other)
    assert not lexer_workaround.install()
    assert MLIRLexer._unescaped_characters_regex is other  # pyright: ignore[reportPrivateUsage]


# No surrogates: text read from a file (UTF-8) cannot hold them.
PLAIN = st.characters(blacklist_categories=("Cs",), blacklist_characters='"\\\n\v\f')
ESCAPE = st.sampled_from(["\\n", "\\t", "\\\\", '\\"']) | st.text(
    "0123456789abcdefABCDEF", min_size=2, max_size=2
).map(lambda digits: "\\" + digits)
BODY = st.lists(PLAIN | ESCAPE, max_size=40).map("".join)


def tokens(lexer_class: type[MLIRLexer], text: str) -> list[tuple[object, ...]]:
    lexer = lexer_class(Input(text, "<test>"))
    found: list[tuple[object, ...]] = []
    while True:
        try:
            token = lexer.lex()
        except ParseError as e:
            found.append(("error", e.msg, e.span.start, e.span.end))
            return found
        contents = None
        if token.kind in (MLIRTokenKind.STRING_LIT, MLIRTokenKind.BYTES_LIT):
            contents = StringLiteral.from_span(token.span).bytes_contents
        found.append((token.kind, token.span.start, token.span.end, contents))
        if token.kind == MLIRTokenKind.EOF:
            return found


@settings(max_examples=400, deadline=None)
@given(body=BODY, tail=st.sampled_from(["", " : i32", '"', '"x"', " @f", "\n}"]), at=st.booleans())
def test_linear_scan_lexes_valid_strings_as_xdsl_does(body: str, tail: str, at: bool) -> None:
    text = ("@" if at else "") + f'"{body}"{tail}'
    assert tokens(MLIRLexer, text) == tokens(XdslLexer, text)
    assert tokens(MLIRLexer, text)[0][0] in (
        MLIRTokenKind.STRING_LIT,
        MLIRTokenKind.BYTES_LIT,
        MLIRTokenKind.AT_IDENT,
    )


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet='a"\\nt0F\n\v\f\r x', max_size=14))
def test_linear_pattern_matches_exactly_what_xdsls_matches(text: str) -> None:
    # Short texts: the original pattern's backtracking stays cheap.
    original = re.compile(lexer_workaround.XDSL_STRING_LITERAL)
    literal = '"' + text
    mine = lexer_workaround.LINEAR_STRING_LITERAL.match(literal)
    theirs = original.match(literal)
    assert (mine and mine.span()) == (theirs and theirs.span())
    assert tokens(MLIRLexer, literal) == tokens(XdslLexer, literal)


@pytest.mark.parametrize(
    "body",
    [
        "a" * TEN_KB,
        "\\n" * (TEN_KB // 2),
        "\\4" * (TEN_KB // 2),
        "a\\41" * (TEN_KB // 4),
        "é" * TEN_KB,
    ],
    ids=["plain", "escapes", "half-hex", "mixed", "non-ascii"],
)
def test_linear_pattern_fails_fast_on_unterminated_literals(body: str) -> None:
    literal = '"' + body
    assert cpu_seconds(lambda: lexer_workaround.LINEAR_STRING_LITERAL.match(literal)) < 0.1
    assert lexer_workaround.LINEAR_STRING_LITERAL.match(literal) is None


# --------------------------------------------------------------------------------------------
# Every parse entry point
# --------------------------------------------------------------------------------------------


def _parser(path: Path) -> str:
    try:
        Parser(make_context(), path.read_text(), str(path)).parse_module()
    except ParseError as e:
        return f"{e.span.get_location()}: error: {e.msg}"
    raise AssertionError("parsed")


def _own_context(path: Path) -> str:
    from xdsl.dialects.builtin import Builtin

    from gedialects.graph import Graph

    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Graph)
    try:
        Parser(ctx, path.read_text(), str(path)).parse_module()
    except ParseError as e:
        return f"{e.span.get_location()}: error: {e.msg}"
    raise AssertionError("parsed")


def _tool(
    main: Callable[[list[str]], int], *args: str, code: int | None = 1
) -> Callable[[Path], str]:
    def run(path: Path) -> str:
        import io

        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            returned = main([*args, str(path)])
        assert code is None or returned == code, err.getvalue()
        return err.getvalue()

    return run


def _session(by_path: bool) -> Callable[[Path], str]:
    def run(path: Path) -> str:
        from gedialects.session import GraphError, Session

        with pytest.raises(GraphError) as e:
            Session().add_graph(1, str(path) if by_path else path.read_text())
        return str(e.value)

    return run


def _ge_opt() -> Callable[[list[str]], int]:
    from gedialects.tools.ge_opt import main

    return main


def _ge_run() -> Callable[[list[str]], int]:
    from gedialects.tools.ge_run import main

    return main


ENTRY_POINTS: dict[str, Callable[[Path], str]] = {
    "Parser(make_context())": _parser,
    "Parser(Context with Graph loaded)": _own_context,
    "ge-opt": _tool(_ge_opt()),
    "ge-opt --split-input-file": _tool(_ge_opt(), "--split-input-file"),
    "ge-opt -p ge-compile": _tool(_ge_opt(), "-p", "ge-compile"),
    "ge-run": _tool(_ge_run(), "--random-inputs", "0"),
    "Session.add_graph(text)": _session(by_path=False),
    "Session.add_graph(path)": _session(by_path=True),
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_unterminated_string_errors_in_milliseconds_in_every_entry_point(
    entry: str, tmp_path: Path
) -> None:
    path = tmp_path / "unterminated.mlir"
    # A closed chunk first: --split-input-file must report the second at its line in the file.
    path.write_text("builtin.module {}\n// -----\n" + UNTERMINATED)
    line = 3
    if "split" not in entry:
        path.write_text(UNTERMINATED)
        line = 1
    message: list[str] = []
    assert cpu_seconds(lambda: message.append(ENTRY_POINTS[entry](path))) < SECOND
    text = message[0]
    assert MESSAGE in text and "Traceback" not in text
    if "Session" in entry and "path" not in entry:
        assert f"<graph text>:{line}:40: cannot parse the IR" in text
    elif "Session" in entry:
        assert f"{path}:{line}:40: cannot parse the IR" in text
    else:
        assert text.strip() == f"{path}:{line}:40: error: {MESSAGE}"


def _cut_hex_literal() -> tuple[str, int, int]:
    """examples/conv_block.mlir cut 64 hex digits into its first `dense<"0x...">` weight."""
    text = (ROOT / "examples" / "conv_block.mlir").read_text()
    start = text.index('dense<"0x') + len("dense<")
    line = text.count("\n", 0, start) + 1
    column = start - text.rfind("\n", 0, start)
    return text[: start + 3 + 64], line, column


def test_truncated_hex_literal_does_not_hang(tmp_path: Path) -> None:
    text, line, column = _cut_hex_literal()
    path = tmp_path / "conv_block_cut.mlir"
    path.write_text(text)
    message: list[str] = []
    run = _tool(_ge_run(), "--random-inputs", "0")
    assert cpu_seconds(lambda: message.append(run(path))) < SECOND
    assert message[0].strip() == f"{path}:{line}:{column}: error: {MESSAGE}"


# --------------------------------------------------------------------------------------------
# The tools through files, as users run them
# --------------------------------------------------------------------------------------------


def _cli(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


@pytest.mark.parametrize(
    "tool",
    [["ge-opt"], ["ge-opt", "--split-input-file"], ["ge-run", "--random-inputs", "0"]],
    ids=["ge-opt", "ge-opt-split", "ge-run"],
)
def test_unterminated_string_cli_is_one_line_exit_1(tool: list[str], tmp_path: Path) -> None:
    path = tmp_path / "unterminated.mlir"
    path.write_text(UNTERMINATED)
    done = _cli([str(BIN / tool[0]), *tool[1:], str(path)])
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"{path}:1:40: error: {MESSAGE}"]


def test_truncated_hex_literal_cli_does_not_hang(tmp_path: Path) -> None:
    text, line, column = _cut_hex_literal()
    path = tmp_path / "conv_block_cut.mlir"
    path.write_text(text)
    done = _cli([str(BIN / "ge-run"), str(path), "--random-inputs", "0"])
    assert done.returncode == 1
    assert done.stderr.splitlines() == [f"{path}:{line}:{column}: error: {MESSAGE}"]


def test_stock_xdsl_opt_gets_the_workaround_through_our_universe(tmp_path: Path) -> None:
    path = tmp_path / "unterminated.mlir"
    path.write_text(UNTERMINATED)
    done = _cli([str(BIN / "xdsl-opt"), str(path)])
    assert done.returncode == 1
    assert MESSAGE in done.stderr  # xdsl-opt's own format: a traceback, but at once


@pytest.mark.parametrize(
    "code",
    [
        "import gedialects; gedialects.make_context()",
        "import gedialects; gedialects.register_all(__import__('xdsl.context').context.Context())",
        "import gedialects.graph",
        "import gedialects.ascend",
        "import gedialects.universe",
        "from gedialects.tools.ge_opt import GeOptMain; GeOptMain(args=[])",
    ],
    ids=["make_context", "register_all", "graph-dialect", "ascend-dialect", "universe", "ge-opt"],
)
def test_every_way_in_installs_the_workaround(code: str) -> None:
    check = "from gedialects.lexer_workaround import installed; print(installed())"
    before = f"from gedialects.lexer_workaround import installed; assert not installed(); {code}"
    done = _cli([sys.executable, "-c", f"{before}\n{check}"])
    assert done.stdout.strip() == "True", done.stderr


# --------------------------------------------------------------------------------------------
# Every regular expression of the project
# --------------------------------------------------------------------------------------------

RE_CALLS = {"compile", "match", "search", "fullmatch", "sub", "findall", "split", "finditer"}

USER_PATTERNS = {("graph/text.py", "rewritten")}
"""(file, variable) of the one `re` call on a pattern the user gives: RegexFullMatch's
`compile_regex`, which refuses the nested repetitions and the repeated alternations not
proven disjoint that backtrack exponentially before compiling
(`test_user_regex_with_nested_repetition_is_refused`)."""


def project_patterns() -> set[str]:
    """Every pattern literal given to `re.<call>` in the package (passes and tools included), and
    every regex terminal of the lark grammars (gear_options.py)."""
    found: set[str] = set()
    for folder in ("gedialects",):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            constants = {
                target.id: node.value.value
                for node in tree.body
                if isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
                for target in node.targets
                if isinstance(target, ast.Name)
            }
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "re"
                    and node.func.attr in RE_CALLS
                ):
                    first = node.args[0] if node.args else None
                    if (  # NAME.encode(): the bytes form of a named pattern
                        isinstance(first, ast.Call)
                        and isinstance(first.func, ast.Attribute)
                        and first.func.attr == "encode"
                    ):
                        first = first.func.value
                    if isinstance(first, ast.Name) and first.id in constants:
                        found.add(constants[first.id])
                        continue
                    rel = path.relative_to(ROOT / folder).as_posix()
                    if isinstance(first, ast.Name) and (rel, first.id) in USER_PATTERNS:
                        continue
                    assert isinstance(first, ast.Constant), f"{path}: non-literal pattern"
                    found.add(first.value)
    from gedialects.gear_options import _GRAMMARS  # pyright: ignore[reportPrivateUsage]

    for grammar in _GRAMMARS.values():
        found.update(re.findall(r":\s*/((?:[^/\\\n]|\\.)+)/", grammar))
    return found


def _use(pattern: str, how: str) -> Callable[[str], object]:
    compiled = re.compile(pattern, re.IGNORECASE | re.ASCII if "KMGT" in pattern else 0)
    return {
        "match": compiled.match,
        "fullmatch": compiled.fullmatch,
        "sub": lambda text: compiled.sub("_", text),
        "search": compiled.search,
        "finditer": lambda text: list(compiled.finditer(text)),
        "lark": compiled.match,  # lark's lexer matches a terminal at the current position
    }[how]


N = TEN_KB
AUDITED: dict[str, tuple[str, list[str]]] = {
    # pattern: (how the project uses it, inputs that would make a backtracking form explode)
    lexer_workaround.LINEAR_STRING_LITERAL.pattern: (
        "match",
        ['"' + "a" * N, '"' + "\\n" * (N // 2), '"' + "\\" * N, '"' + "a\\4" * (N // 3)],
    ),
    r"[^A-Za-z0-9_.$-]": ("sub", ["é" * N, "a-" * (N // 2)]),
    r"[A-Za-z_$.-][\w$.-]*": ("fullmatch", ["a" * N + "!", "." * N + " "]),
    r"([0-9]+)(?:\.([0-9]+))?\s*([KMGT]?)(?:I?B)?": (
        "fullmatch",
        ["1" * N + "x", "1." + "1" * N + "x", "1" + " " * N + "x", "1" * N + "IIB"],
    ),
    r"_expanded.*$": ("sub", ["_expanded" * (N // 9), ("_expanded" + "a" * 20 + "\n") * 300]),
    r"(%[\w#:]+(, %[\w#:]+)* = )?[a-z_]\w*\.[a-z_]\w*[ (]": (
        "match",
        ["%a, " * (N // 4), "%" + "a" * N, "%a, %a = " + "a" * N, "%a" + ", %a" * (N // 4)],
    ),
    r"[^\w\- ]": ("sub", ["!" * N]),
    r"[^; ][^;]*?(?=:[^:;]*(;|$))": (
        "lark",
        ["a" * N, "a:" * (N // 2), "a:b" * (N // 3) + ";", " " * N, ":" * N],
    ),
    r"-?[0-9]+": ("lark", ["-" * N, "1" * N + "a"]),
    r"[+-]?[0-9]+": ("fullmatch", ["1" * N + "x", "+" * N]),
    # Was `[0-9]+\.?[0-9]*`: n digits and a bad end took n**2 (10 kB: 3 s, 20 kB: 12 s).
    r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?": (
        "fullmatch",
        ["1" * N + "x", "1." + "1" * N + "x", "1e" + "1" * N + "x", "." * N],
    ),
    r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|//[^\n]*|[{}]': (
        "finditer",
        ['"' + "\\a" * (N // 2), '"' * N, '"' + "a" * N + "\n" + "{" * 100, "/" * N, "\\" * N],
    ),
    r"could not be broadcast together with shapes \(([0-9, ]*)\) \(([0-9, ]*)\)": (
        "search",
        [
            "could not be broadcast together with shapes (" + "1, " * (N // 3),
            "could not be broadcast together with shapes (1,) (" * (N // 50),
        ],
    ),
    r"[0-9]+": ("lark", ["1" * N + "a"]),
    # gedialects/fast_text.py: the canonical-text scanner (each tried at the cursor, with
    # xDSL's parser as the fallback when it does not match)
    r"[ \t\r\n]*": ("match", [" \t" * (N // 2) + "x"]),
    r"tensor<(?:\*x|(?:(?:[0-9]+|\?)x)*)[a-z][a-z0-9]*>": (
        "match",
        ["tensor<" + "1x" * (N // 2), "tensor<" + "1" * N, "tensor<" + "?x" * (N // 2) + "1"],
    ),
    r"(arena|dyn|var)\[(0|[1-9][0-9]{0,17})\] : ": (
        "match",
        ["arena[" + "1" * N, "dyn[0] " * N, "var[" + "0" * N],
    ),
    # gedialects/frontend/onnx/importer.py: onnx's checker message, which names user nodes
    r"\(op_type:(\w+)[^)]*\): \[ShapeInferenceError\] Inference error\(s\): \(op_type:": (
        "search",
        ["(op_type:a" * (N // 10), "(op_type:" + "a" * N, "(op_type:a): " * (N // 13)],
    ),
    r'"([ !#-\[\]-~]*)"': ("match", ['"' + "a" * N, '"' + " " * N + "\\"]),
    r"-?(?:0|[1-9][0-9]{0,17})(?![0-9a-zA-Z_$.])": ("match", ["1" * N, "-" * N]),
    r"%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*)(?![#a-zA-Z0-9_$.-])": (
        "match",
        ["%" + "a" * N + "#", "%" + "1" * N + "a", "%" + "-" * N + "#"],
    ),
    r"[a-zA-Z_][a-zA-Z0-9_$.]*": ("fullmatch", ["a" * N + "!"]),
    r"([a-zA-Z_][a-zA-Z0-9_$.]*) = ": ("match", ["a" * N + " =", "a = " * (N // 4)]),
    r"[ !#-\[\]-~]*": ("fullmatch", ["a" * N + "\n", " " * N + '"']),
    # gedialects/base.py, fast_text.py, exact_text.py: the one-expression op scanners
    '(?: (?P<ops>%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*)(?:, %(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*))*))?(?P<props>(?: [a-zA-Z_][a-zA-Z0-9_$.]* (?:\\[(?:-?(?:0|[1-9][0-9]{0,18})(?:, -?(?:0|[1-9][0-9]{0,18}))*)?\\]|-?(?:0|[1-9][0-9]{0,18})|true|false|"([ !#-\\[\\]-~]*)"))*)(?: \\{(?P<attrs>[a-zA-Z_][a-zA-Z0-9_$.]* = "([ !#-\\[\\]-~]*)"(?:, [a-zA-Z_][a-zA-Z0-9_$.]* = "([ !#-\\[\\]-~]*)")*)\\})? : \\((?P<ins>(?:tensor<(?:\\*x|(?:(?:[0-9]+|\\?)x)*)[a-z][a-z0-9]*>(?:, tensor<(?:\\*x|(?:(?:[0-9]+|\\?)x)*)[a-z][a-z0-9]*>)*)?)\\) -> (?P<outs>tensor<(?:\\*x|(?:(?:[0-9]+|\\?)x)*)[a-z][a-z0-9]*>|\\((?:tensor<(?:\\*x|(?:(?:[0-9]+|\\?)x)*)[a-z][a-z0-9]*>(?:, tensor<(?:\\*x|(?:(?:[0-9]+|\\?)x)*)[a-z][a-z0-9]*>)*)?\\))': (  # noqa: E501
        "match",
        [
            " %a" * (N // 3),
            " %a, " * (N // 5),
            " k [1, " * (N // 7),
            " k 1" * (N // 4),
            ' {k = "a"' + ', k = "a"' * (N // 12),
            " : (" + "tensor<1xf32>, " * (N // 16),
        ],
    ),
    ' ([a-zA-Z_][a-zA-Z0-9_$.]*) (?:\\[(?P<list>[-0-9, ]*)\\]|(?P<int>-?(?:0|[1-9][0-9]{0,18}))|(?P<bool>true|false)|(?P<str>"([ !#-\\[\\]-~]*)"))': (  # noqa: E501
        "finditer",
        [" k [" + "1, " * (N // 3), " k " * (N // 3)],
    ),
    '([a-zA-Z_][a-zA-Z0-9_$.]*) = ("([ !#-\\[\\]-~]*)")': (
        "finditer",
        ['a = "' * (N // 5), "a" * N],
    ),
    "%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*)": ("finditer", ["%" + "a" * N, "%-" * (N // 2)]),
    "((?:%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*), )*%(?:[0-9]+|[a-zA-Z_$.-][a-zA-Z0-9_$.-]*) = )?((?:graph|ascend|partition|multibatch)\\.[a-zA-Z_][a-zA-Z0-9_$.]*)(?![a-zA-Z0-9_$.])": (  # noqa: E501
        "match",
        ["%a, " * (N // 4) + "=", "%a = graph." + "a" * N],
    ),
    "(?P<int>-?(?:0|[1-9][0-9]{0,18})) : i64(?![a-zA-Z0-9_$.])|(?P<bool>true|false)(?![a-zA-Z0-9_$.])|array<i64(?:: (?P<items>-?(?:0|[1-9][0-9]{0,18})(?:, -?(?:0|[1-9][0-9]{0,18}))*))?>": (  # noqa: E501
        "match",
        ["array<i64: " + "1, " * (N // 3), "1" * N],
    ),
    "-?[0-9]+(?:\\.[0-9]*(?:[eE][+-]?[0-9]+)?)?": (
        "match",
        ["1" * N + ".e", "1." + "1" * N + "e-"],
    ),
    "[ \\t\\r\\n]*(?:(?P<percent>%(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*))|(?P<bare>[a-zA-Z_][a-zA-Z0-9_$.]*)|(?P<brace>\\}))": (  # noqa: E501
        "match",
        [" \n" * (N // 2) + "!", "%" + "a" * N],
    ),
    "[-+0-9.eE, \\[\\]]*": ("match", ["1.0, " * (N // 5) + "x"]),
    # gedialects/ascend.py: reads the ops' own TEXT_FORMAT constants, never user text
    r"\s*(?:`(?P<kw>\w+)`|\$(?P<var>\w+)|custom<(?P<custom>\w+)>\((?P<args>[$\w, ]+)\)|"
    r"\(`(?P<optkw>\w+)` \$(?P<optvar>\w+)\^\)\?|(?P<attrdict>attr-dict))": (
        "match",
        [" " * N + "`", "custom<" + "a" * N, "custom<a>(" + "$a, " * (N // 4), "(`" + "a" * N],
    ),
    # gedialects/locations.py and tools/diagnostics.py: op heads, messages, expected-* comments
    locations.RESULTS_HEAD.pattern: (
        "match",
        ["%a, " * (N // 4), "%" + "a" * N, "%a:1, " * (N // 6), "%a" + " " * N + "x"],
    ),
    locations.SYMBOL_IN_MESSAGE.pattern: ("finditer", ["@" + "a" * N, "@" * N]),
    locations.NAMED_NODE.pattern: ("finditer", ["'a.b' \"" + "a" * N, "'a." * (N // 3)]),
    diagnostics.EXPECTED.pattern: (
        "match",
        [
            "// expected-error " + "{{" * (N // 2),
            "// expected-error {{" + "}} " * (N // 3) + "x",
            "// expected-error" + " \t" * (N // 2) + "x",
        ],
    ),
    diagnostics.EXPECTED_WORD.pattern: ("finditer", ["//" * N, "// " * (N // 3)]),
    r"[ \t]+": ("sub", [" \t" * N]),
    multibatch._AFFINE.pattern: (
        "fullmatch",
        ["1" * N + "x", "s" + "1" * N + " * " + "1/" * (N // 2), "s1 * 2 + " + "1" * N + "/x"],
    ),
}


@pytest.mark.parametrize(
    "pattern",
    [r"(a+)+$", r"(\d*)*x", r"(?:[ab]+)*c", r"(x(a+)y)+", r"(a|a)*", r"(?:a|ab){1,}c"],
)
def test_user_regex_with_nested_repetition_is_refused(pattern: str) -> None:
    from gedialects.graph import compile_regex

    with pytest.raises(ValueError, match="exponential time in Python's backtracking re"):
        compile_regex(pattern)


def test_every_regular_expression_in_the_project_is_audited() -> None:
    """A new pattern must be added to AUDITED with its worst inputs (and pass the next test)."""
    assert project_patterns() == set(AUDITED)


@pytest.mark.parametrize(
    ("pattern", "text"),
    [(p, t) for p, (_, texts) in AUDITED.items() for t in texts],
    ids=lambda v: v[:24] if isinstance(v, str) else None,
)
def test_no_pattern_backtracks_catastrophically(pattern: str, text: str) -> None:
    use = _use(pattern, AUDITED[pattern][0])
    assert cpu_seconds(lambda: use(text)) < SECOND


# --------------------------------------------------------------------------------------------
# Option strings (atc options, pass options, Session options) of 10 kB
# --------------------------------------------------------------------------------------------

OPTION_TEXTS = [
    " " * N,  # before the grammar fix: n**2 (NAME was tried again after every ignored space)
    " " * (2 * N) + "x:1",
    "a" * N,
    "a:" * (N // 2),
    ":" * N,
    "x:" + "1," * (N // 2),
    "x:" + "1" * N + "a",
    "x:1;" * (N // 4) + '"',
    '"' + "a" * N,
    "1," * (N // 2) + ";",
    ";" * N,
]


@pytest.mark.parametrize("text", OPTION_TEXTS, ids=lambda t: repr(t[:8]))
def test_atc_option_parser_is_linear(text: str) -> None:
    from gedialects.gear_options import GearError, parse_gears, parse_input_shape

    def parse_all() -> None:
        for dynamic in (False, True):
            with contextlib.suppress(GearError):
                parse_input_shape(text, dynamic=dynamic)
        for option in ("dynamic_batch_size", "dynamic_image_size", "dynamic_dims"):
            with contextlib.suppress(GearError):
                parse_gears(option, text)

    parse_all()  # builds the lark parsers once
    assert cpu_seconds(parse_all) < SECOND


def test_number_option_of_10_kb_digits_fails_fast() -> None:
    import argparse

    from gedialects.tools.cli import ascii_float, ascii_int

    def parse() -> None:
        for check in (ascii_float, ascii_int):
            with pytest.raises(argparse.ArgumentTypeError):
                check("1" * (2 * N) + "x")  # ascii_float took 12 s before (n**2)

    assert cpu_seconds(parse) < SECOND


def test_input_shape_with_leading_spaces_is_linear() -> None:
    from gedialects.gear_options import GearError, parse_input_shape

    # 20 kB of spaces took 5.6 s when NAME could start with a space (quadratic).
    def parse() -> None:
        with pytest.raises(GearError, match="E10002"):
            parse_input_shape(" " * (2 * N), dynamic=False)

    assert cpu_seconds(parse) < SECOND
    assert parse_input_shape("  x:1; y :2", dynamic=False)[1].name == "y"


@pytest.mark.parametrize(
    "pipeline",
    [
        'ge-compile{input-shape="' + "a" * N,
        'ge-compile{input-shape="' + " " * N + '"}',
        'ge-compile{input-shape="' + "x:" * (N // 2) + '"}',
        "ge-compile{exclude-engines=" + "a," * (N // 2) + "}",
        'ge-sink-loop{iterations="' + "1" * N,
        "ge-compile[" + "a" * N,
        "ge-compile{" + "{" * N,
    ],
    ids=["unterminated", "spaces", "colons", "list", "number-string", "bracket", "braces"],
)
def test_pass_option_strings_of_10_kb_fail_fast(pipeline: str, tmp_path: Path) -> None:
    path = tmp_path / "graph.mlir"
    path.write_text(
        "graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  graph.net_output %x : "
        "tensor<2xf32>\n}\n"
    )
    message: list[str] = []
    run = _tool(_ge_opt(), "-p", pipeline, code=None)  # blank pins are no pins: exit 0
    assert cpu_seconds(lambda: message.append(run(path))) < SECOND
    assert len(message[0].strip().splitlines()) <= 1


@pytest.mark.parametrize(
    "options",
    [
        {"ge.inputShape": " " * N, "ge.dynamicBatchSize": "1,2"},
        {"ge.inputShape": "x:-1", "ge.dynamicBatchSize": "1," * (N // 2) + ";"},
        {"ge.streamMaxParallelNum": "AIcoreEngine:" * (N // 13)},
        {"ge.maxSteps": "1" * N + "x"},
    ],
    ids=["input-shape", "batch", "streams", "max-steps"],
)
def test_session_options_of_10_kb_fail_fast(options: dict[str, str]) -> None:
    from gedialects.session import GEError, Session

    text = (
        "graph.graph @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n  graph.net_output %x : "
        "tensor<?xf32>\n}\n"
    )

    def add() -> None:
        with pytest.raises(GEError):
            Session().add_graph(1, text, options)

    assert cpu_seconds(add) < SECOND
