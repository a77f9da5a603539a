"""The fast text paths (`gedialects.fast_text`, `FastSyntax`, `NodeSyntax`) change no byte.

Three references: main's printer before the change (digests recorded in
`tests/data/text_corpus_main.json` by `tests/text_corpus.py`), the ordinary xDSL paths in
this process (`fast_text.disabled()`: the declarative parser and printer of the same format
strings, the printer's own type and dictionary printing), and the round trip through the
generic form.
"""

from __future__ import annotations

import json
import sys

import pytest
from xdsl.dialects.builtin import TensorType, f32
from xdsl.utils.exceptions import ParseError

from gedialects import budget, fast_text
from gedialects.ascend import BufferAttr, KernelOp, ModelOp
from tests.text_corpus import ROOT, chunks, digest, parse, printed, record

CORPUS = [(key, text) for key, text in chunks()]
CORPUS_BUDGET = "256M"
"""The corpus is read under this memory limit: the budget tests' input
tests/lit/inputs/huge-splat.mlir (a 1.5 GiB splat) is then the same one-line error on both
paths (`test_chunks_over_the_budget_fail_alike_on_both_paths`) instead of 1.5 GiB and
minutes per parse in every pytest worker; every other chunk needs far less."""


def _parsed() -> list[tuple[str, str, object]]:
    out = []
    with budget.max_memory_set(CORPUS_BUDGET):
        for key, text in CORPUS:
            try:
                out.append((key, text, parse(text)))
            except Exception:  # chunks that do not parse are covered by the digest test
                continue
    return out


PARSED = _parsed()


def test_prints_match_mains_printer_on_the_corpus() -> None:
    """Every lit input and example recorded from main parses (or fails) as with main's code
    and prints the same bytes, custom and generic. Chunks are keyed by their text: a chunk
    added or edited since the recording is not compared (rerun tests/text_corpus.py)."""
    want = json.loads((ROOT / "tests" / "data" / "text_corpus_main.json").read_text())
    with budget.max_memory_set(CORPUS_BUDGET):
        got = record()
    common = got.keys() & want.keys()
    assert len(common) >= 500, f"only {len(common)} chunks recorded: rerun tests/text_corpus.py"
    differ = [key for key in common if got[key] != want[key]]
    names = {digest(text): key for key, text in CORPUS}
    assert not differ, (
        f"{len(differ)} chunks print unlike main's printer: {[names[k] for k in differ[:5]]}"
    )


def test_corpus_is_large_and_has_every_fast_op() -> None:
    names = {op.name for _, _, module in PARSED for op in module.walk()}  # type: ignore[attr-defined]
    fast = {
        "ascend.kernel", "ascend.dynamic_kernel", "ascend.event", "ascend.stream",
        "ascend.input", "ascend.output", "ascend.weight", "ascend.event_record",
        "ascend.event_wait", "ascend.label_set", "ascend.label_goto", "ascend.end_graph",
        "ascend.memcpy_async", "ascend.stream_active", "graph.matmul", "partition.end",
        "partition.place_holder", "multibatch.map_index",
    }  # fmt: skip
    assert fast <= names, fast - names
    assert len(PARSED) > 400


@pytest.mark.parametrize("key", [key for key, _, _ in PARSED])
def test_fast_paths_match_xdsl_paths(key: str) -> None:
    """Parsed and printed with and without the fast paths: same op (generic print), same text."""
    text = dict(CORPUS)[key]
    with budget.max_memory_set(CORPUS_BUDGET):
        fast = parse(text)
        with fast_text.disabled():
            slow = parse(text)
    with fast_text.disabled():
        slow_custom = printed(slow)
    assert printed(fast, generic=True) == printed(slow, generic=True)
    assert printed(fast) == slow_custom


def test_chunks_over_the_budget_fail_alike_on_both_paths() -> None:
    """The chunks `CORPUS_BUDGET` keeps out of PARSED: same exception and message either way."""
    over = 0
    for key, text in CORPUS:
        with budget.max_memory_set(CORPUS_BUDGET):
            try:
                parse(text, key)
            except budget.MemoryBudgetError as fast:
                over += 1
                with fast_text.disabled(), pytest.raises(budget.MemoryBudgetError) as slow:
                    parse(text, key)
                assert type(fast) is type(slow.value) and str(fast) == str(slow.value), key
            except Exception:  # other parse errors: the digest test and MALFORMED below
                continue
    assert over >= 1, "tests/lit/inputs/huge-splat.mlir should be over the corpus budget"


def _verifies(module: object) -> bool:
    try:
        module.verify()  # type: ignore[attr-defined]
    except Exception:  # invalid IR (the verifier tests) need not survive the generic form
        return False
    return True


@pytest.mark.parametrize("key", [key for key, _, m in PARSED if _verifies(m)])
def test_custom_generic_custom_round_trip(key: str) -> None:
    module = dict((k, m) for k, _, m in PARSED)[key]
    custom = printed(module)
    with budget.max_memory_set(CORPUS_BUDGET):
        assert printed(parse(printed(module, generic=True))) == custom
        assert printed(parse(custom)) == custom


def test_bench_model_round_trips_at_both_levels() -> None:
    """The issue 14 bench graph (all fast ops at volume): graph level and after ge-compile,
    the fast and the xDSL paths give the same text, which reads back to itself."""
    pytest.importorskip("onnx")
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import bench_scale
    finally:
        sys.path.remove(str(ROOT / "bench"))
    from gedialects import make_context
    from gedialects.frontend.onnx import import_model
    from gedialects.passes.pipelines import CompilePipelinePass

    module = import_model(bench_scale.scale_model(16 * 50))  # type: ignore[arg-type]
    graph_text = printed(module)
    CompilePipelinePass().apply(make_context(), module)
    ascend_text = printed(module)
    assert "ascend.dynamic_kernel" in ascend_text and "ascend.event_wait" in ascend_text
    for text in (graph_text, ascend_text):
        with fast_text.disabled():
            slow = printed(parse(text))
        fast = parse(text)
        assert printed(fast) == slow == text
        assert printed(parse(printed(fast, generic=True))) == text


def test_types_and_buffers_are_interned() -> None:
    text = """ascend.model @m arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.kernel "Relu" "a" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
  ascend.kernel "Relu" "b" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>)
}"""  # noqa: E501
    module = parse(text)
    (model,) = module.ops  # type: ignore[attr-defined]
    assert isinstance(model, ModelOp)
    a, b = (op for op in model.body.block.ops if isinstance(op, KernelOp))
    assert a.inputs.data[0] is b.inputs.data[0]
    assert a.inputs.data[0].type is a.outputs.data[0].type
    assert a.inputs.data[0] == BufferAttr(0, TensorType(f32, [4]))


@pytest.mark.parametrize(
    "op",
    [
        # spellings the scanner leaves to the declarative parser: same op either way
        'ascend.kernel "Re\\22lu" "a" engine "AIcoreEngine" stream 0 ins() outs()',
        'ascend.kernel "Relu" "a" // a comment\n engine "AIcoreEngine" stream 0 ins() outs()',
        'ascend.kernel "Relu" "a" engine "AIcoreEngine" stream 0x0 ins() outs()',
        'ascend.kernel "Relu" "a" engine "AIcoreEngine" stream 0\n'
        "    ins(arena[0] : tensor<4xf32>)\n    outs(arena[512]:tensor<4xf32>)",
        'ascend.kernel "Relu" "a" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) '
        'outs(arena[512] : tensor<4xf32>) attrs {alpha = 1.0 : f32} {_note = "x"}',
        'ascend.input "x" dyn[0] : tensor<?x4xf32>',
        "ascend.weight arena[0] = dense<[1.0, 2.0]> : tensor<2xf32> {k = 1 : i64}",
        "ascend.memcpy_async stream 0 arena[0] : tensor<4xi8> to arena[4] : tensor<4xi8>",
        "ascend.event_record 0 stream 0 {a}",
        'ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins() outs() {kernel = "x"}',
        # kernel parameters: the scanned kinds, and kinds left to the attribute parser
        'ascend.kernel "T" "t" engine "AIcoreEngine" stream 0 ins() outs() attrs {perm = '
        'array<i64: 1, 0>, axis = -1 : i64, keep = true, mode = "x", e = array<i64>}',
        'ascend.kernel "T" "t" engine "AIcoreEngine" stream 0 ins() outs() attrs {}',
        'ascend.kernel "T" "t" engine "AIcoreEngine" stream 0 ins() outs() attrs '
        "{a = 9223372036854775808 : i64}",
        'ascend.kernel "T" "t" engine "AIcoreEngine" stream 0 ins() outs() attrs {a = 1 : i32}',
        'ascend.kernel "T" "t" engine "AIcoreEngine" stream 0 ins() outs() attrs {"a b" = 1}',
        'ascend.kernel "T" "t" engine "AIcoreEngine" stream 0 ins() outs() attrs {a = [1, 2]}',
        'ascend.kernel "T" "t" engine "AIcoreEngine" stream 0 ins() outs() {n = "x", m = 1}',
        'ascend.kernel "T" "t" engine "AIcoreEngine" stream 0 ins() outs() loc(unknown)',
        '%0 = "test.op"() : () -> i32\n  ascend.stream 1 engine "AIcoreEngine"',
        '"ascend.event"() <{id = 7 : i64}> : () -> ()',
        "// a comment\n  ascend.event 8",
        "ascend.event 9 // a comment",
    ],
)
def test_other_spellings_parse_as_before(op: str) -> None:
    text = (
        "ascend.model @m arena_size 1024 weight_size 64 {\n"
        '  ascend.stream 0 engine "AIcoreEngine"\n  ascend.event 0\n  ' + op + "\n}"
    )
    with fast_text.disabled():
        want = printed(parse(text), generic=True)
        want_custom = printed(parse(text))
    assert printed(parse(text), generic=True) == want
    assert printed(parse(text)) == want_custom


MALFORMED = [
    'ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>',
    'ascend.kernel "Relu" "r" engine "AIcoreEngine" stream ins() outs()',
    'ascend.kernel "Relu" "r" "AIcoreEngine" stream 0 ins() outs()',
    'ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(dyn[0] : tensor<?xf32>) outs()',
    'ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins() outs() {kernel = "x"} 3',
    'ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins() outs() attrs 3',
    'ascend.dynamic_kernel "A" "a" engine "E" stream 0 ins() outs(arena[0] : tensor<4xf32>)',
    'ascend.input "x" arena[-16] : tensor<4xf32>',
    'ascend.input "x" arena[0] : tensor<?xf32>',
    'ascend.output "y" arena[0] : i32',
    "ascend.weight arena[0] = 1.0 : f32",
    "ascend.weight arena[0] dense<1.0> : tensor<f32>",
    "ascend.event_record 0 stream",
    "ascend.event_wait stream 0",
    "ascend.stream 1 engine AIcoreEngine",
    "ascend.memcpy_async stream 0 arena[0] : tensor<4xf32> arena[16] : tensor<4xf32>",
    "ascend.stream_active 1",
    "ascend.end_graph 0",
    # kernel parameters the scan reads, but not as a valid op: the attribute parser reports
    'ascend.kernel "T" "t" engine "E" stream 0 ins() outs() attrs {a = 1 : i64, a = 2 : i64}',
    'ascend.kernel "T" "t" engine "E" stream 0 ins() outs() attrs {a = array<i64: 1, 2}',
    'ascend.kernel "T" "t" engine "E" stream 0 ins() outs() attrs 3 : i64',
    # op heads the block-body loop reads: the same errors as xDSL's parse_operation
    '%a = ascend.kernel "T" "t" engine "E" stream 0 ins() outs()',
    "ascend.foo 1",
    "ascend.event 1 loc(",
]


@pytest.mark.parametrize("op", MALFORMED)
def test_malformed_ascend_ops_report_as_the_declarative_format(op: str) -> None:
    """Same exception, message and file:line:col with and without the fast paths."""
    text = f"ascend.model @m arena_size 1024 weight_size 64 {{\n  {op}\n}}"
    with fast_text.disabled(), pytest.raises(Exception) as slow:
        parse(text, "bad.mlir")
    with pytest.raises(Exception) as fast:
        parse(text, "bad.mlir")
    assert type(fast.value) is type(slow.value)
    assert str(fast.value) == str(slow.value)
    if isinstance(fast.value, ParseError):  # the rest are VerifyExceptions, as before
        assert str(fast.value).startswith(("bad.mlir:2:", "bad.mlir:3:"))


@pytest.mark.parametrize(
    "op",
    [
        "%y = graph.relu %x {node_name = } : (tensor<2xf32>) -> tensor<2xf32>",
        '%y = graph.relu %x {node_name = "a", node_name = "b"} : (tensor<2xf32>) -> tensor<2xf32>',
        "%y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32",
        "%y = graph.relu %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>",
        "%y = graph.relu %x : (tensor<2xf32>) tensor<2xf32>",
        "%y = graph.relu %x : (tensor<2xfoo>) -> tensor<2xf32>",
        # the one-expression node scan and the block-body loop leave these to the parser
        "%y = graph.relu %x nope 1 : (tensor<2xf32>) -> tensor<2xf32>",
        "%y = graph.concat_d %x concat_dim 9223372036854775808 : (tensor<2xf32>) -> tensor<2xf32>",
        "%y = graph.relu %x, %x : (tensor<2xf32>) -> tensor<2xf32>",
        "%y = graph.relu %x : (tensor<2xf32>) -> tensor<2xi32>",
        "%y, %w = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>",
        "%x = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>",
        "%y = graph.nope %x : (tensor<2xf32>) -> tensor<2xf32>",
        "%y:2 = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>",
        "%y = graph.relu %x#1 : (tensor<2xf32>) -> tensor<2xf32>",
        '%y = graph.relu %x {node_name = "a"} : (tensor<2xf32>) -> tensor<2xf32> loc(',
        "%y = graph.const dense<[1.0, 2.0]> : tensor<2xf32> {node_name = }",
        "%y = graph.const dense<[1.0, 2.0]> : tensor<3xf32>",
    ],
)
def test_malformed_node_syntax_reports_as_before(op: str) -> None:
    text = (
        "graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  "
        + op
        + "\n  graph.net_output %y : tensor<2xf32>\n}"
    )
    with fast_text.disabled(), pytest.raises(Exception) as slow:
        parse(text, "bad.mlir")
    with pytest.raises(Exception) as fast:
        parse(text, "bad.mlir")
    assert type(fast.value) is type(slow.value)
    assert str(fast.value) == str(slow.value)
    assert str(fast.value).startswith(("bad.mlir:2:", "bad.mlir:3:"))


def _parse_error_lines(text: str) -> tuple[str, str]:
    """(file:line:col, message) of the ParseError `text` raises."""
    with pytest.raises(ParseError) as info:
        parse(text, "bad.mlir")
    lines = [ln.strip() for ln in str(info.value).splitlines() if ln.strip()]
    return lines[0], lines[-1]


@pytest.mark.parametrize(
    ("prop", "value"),
    [
        ("strides [1, 1, -9223372036854775809, 1]", "-9223372036854775809"),
        ("strides [9223372036854775808, 1, 1, 1]", "9223372036854775808"),
        ("strides [1, 1, 1, 18446744073709551615]", "18446744073709551615"),
        ("groups -9223372036854775809", "-9223372036854775809"),
    ],
)
def test_i64_property_out_of_range_is_a_parse_error(prop: str, value: str) -> None:
    """Beyond GE's int64_t (xDSL's signless i64 would wrap [2**63, 2**64)): file:line:col,
    with and without the fast scanner."""
    line = f'  %y = graph.conv2d %x, %w {prop} data_format "NHWC" : ({X}, {W}) -> {Y}'
    text = f"graph.graph @main(%x: {X}, %w: {W}) -> {Y} {{\n{line}\n  graph.net_output %y : {Y}\n}}"
    where = f"bad.mlir:2:{line.index(value) + 1}"
    expected = (where, f"value {value} out of range for i64")
    assert _parse_error_lines(text) == expected
    with fast_text.disabled():
        assert _parse_error_lines(text) == expected


def test_f32_property_out_of_range_is_a_parse_error() -> None:
    """Fuzz seed 20261209: an f32 property beyond f32's largest value was an internal
    OverflowError when packed; it is a parse error at the value, with and without the fast
    scanner."""
    t, r = "tensor<1x2x4x4xf32>", "tensor<1x2x2x2xf32>"
    line = (
        f"  %y = graph.lp_pool %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] p 1.0e+39 : ({t}) -> {r}"
    )
    text = f"graph.graph @main(%x: {t}) -> {r} {{\n{line}\n  graph.net_output %y : {r}\n}}"
    expected = (f"bad.mlir:2:{line.index('1.0e+39') + 1}", "value 1e+39 out of range for f32")
    assert _parse_error_lines(text) == expected
    with fast_text.disabled():
        assert _parse_error_lines(text) == expected


X, W, Y = "tensor<1x4x4x1xf32>", "tensor<1x1x1x2xf32>", "tensor<1x4x4x2xf32>"


def test_i64_label_out_of_range_is_a_parse_error() -> None:
    line = "  ascend.label_switch_by_index arena[0] : tensor<i32> labels [1, 9223372036854775808]"
    text = (
        "ascend.model @main arena_size 64 weight_size 0 {\n"
        f'  ascend.stream 0 engine "AIcoreEngine"\n{line} stream 0\n}}'
    )
    assert _parse_error_lines(text) == (
        f"bad.mlir:3:{line.index('922') + 1}",
        "value 9223372036854775808 out of range for i64",
    )


def test_intern_tables_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_text, "CACHE_LIMIT", 4)
    for n in range(1, 20):
        text = f'ascend.model @m arena_size 1024 weight_size 0 {{\n  ascend.input "x" arena[{n}] : tensor<{n}xi8>\n}}'  # noqa: E501
        parse(text)
    assert len(fast_text._types) <= 4 and len(fast_text._buffers) <= 4


def test_dense_type_constraint_is_built_once() -> None:
    """The xDSL 0.74 work-around: the dense literal's type check reuses one constraint
    (xDSL's own `base` builds a new one per call, about 1.5 ms each)."""
    from xdsl.dialects.builtin import (
        AnyFloat,
        ComplexType,
        IndexType,
        IntegerType,
        RankedStructure,
    )
    from xdsl.irdl import base
    from xdsl.parser import attribute_parser

    expr = RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType]
    assert base(expr) is not base(expr)  # what the work-around is for
    assert attribute_parser.base(expr) is attribute_parser.base(expr)
    m = parse(
        "graph.graph @g() -> tensor<2xf32> {\n  %c = graph.const dense<[1.0, 2.0]> : "
        "tensor<2xf32>\n  graph.net_output %c : tensor<2xf32>\n}"
    )
    assert digest(printed(m))


@pytest.mark.parametrize(
    "op",
    [
        # node syntax spellings the one-expression scan leaves to the step-by-step parser
        "%y = graph.relu  %x : (tensor<2xf32>) -> tensor<2xf32>",
        "%y = graph.relu %x\n      : (tensor<2xf32>) -> tensor<2xf32>",
        '%y = graph.relu %x {node_name = "a\\22b"} : (tensor<2xf32>) -> tensor<2xf32>',
        '%y = graph.relu %x {node_name = "a", k = 1 : i64} : (tensor<2xf32>) -> tensor<2xf32>',
        "%y = graph.leaky_relu %x negative_slope 0.5 : (tensor<2xf32>) -> tensor<2xf32>",
        "%y = graph.transpose %x perm [] : (tensor<2xf32>) -> tensor<2xf32>",
        "%y = graph.transpose %x perm [1, 0] perm [0, 1] : (tensor<2xf32>) -> tensor<2xf32>",
        "%y = graph.relu %x : (tensor<2xf32>) -> (tensor<2xf32>)",
        "%y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32> loc(unknown)",
        "%y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32> // comment",
        '%y = "graph.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>',
        "%y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>\n  %z = graph.relu %y : "
        "(tensor<2xf32>) -> tensor<2xf32>\n  %u = graph.add %y, %z : (tensor<2xf32>, "
        "tensor<2xf32>) -> tensor<2xf32>\n  %c:2 = graph.split_v %u, %s, %a num_split 2 : ("
        "tensor<2xf32>, tensor<2xi64>, tensor<i64>) -> (tensor<1xf32>, tensor<1xf32>)",
    ],
)
def test_other_node_spellings_parse_as_before(op: str) -> None:
    """Same op (generic form) and same custom print with and without the fast paths."""
    text = (
        "graph.graph @main(%x: tensor<2xf32>, %s: tensor<2xi64>, %a: tensor<i64>) -> "
        "tensor<2xf32> {\n  " + op + "\n  graph.net_output %y : tensor<2xf32>\n}"
    )
    with fast_text.disabled():
        want = printed(parse(text), generic=True)
        want_custom = printed(parse(text))
    assert printed(parse(text), generic=True) == want
    assert printed(parse(text)) == want_custom


def test_block_body_fast_path_is_scoped_to_our_containers() -> None:
    """`fast_block_bodies` sets the loop on the one parser while our op reads its region, and
    no module-level xDSL parsing is changed: a builtin.module of other dialects' ops parses
    through xDSL's own `_parse_block_body`, and the attribute is gone after the parse."""
    from xdsl.parser import Parser

    from gedialects import make_context

    text = (
        "graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  graph.net_output %x : tensor<2xf32>\n}"
    )
    parser = Parser(make_context(), text)
    parser.parse_module()
    assert "_parse_block_body" not in vars(parser)
    assert Parser._parse_block_body is not fast_text.parse_block_body


def test_block_body_loop_takes_our_ops_and_leaves_others(monkeypatch: pytest.MonkeyPatch) -> None:
    """Our ops' heads are read by the loop (no xDSL parse_operation for them); any other op
    is parse_operation's, as before."""
    from xdsl.parser import Parser

    seen: list[str] = []
    original = Parser.parse_operation

    def spy(self: Parser) -> object:
        seen.append(self._current_token.text)  # pyright: ignore[reportPrivateUsage]
        return original(self)

    monkeypatch.setattr(Parser, "parse_operation", spy)
    text = (
        "ascend.model @m arena_size 64 weight_size 0 {\n"
        '  ascend.stream 0 engine "AIcoreEngine"\n  ascend.event 0\n'
        '  "ascend.event"() <{id = 1 : i64}> : () -> ()\n}'
    )
    parse(text)
    assert seen == ["ascend.model", '"ascend.event"'], seen


def test_fast_lex_gives_xdsls_tokens_on_the_corpus() -> None:
    """`fast_text.lex` against `MLIRLexer.lex` from every token start of every corpus chunk
    (and from each blank before one): same kind, span and position after."""
    from xdsl.utils.lexer import Input
    from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

    checked = 0
    for key, text in CORPUS[::3]:
        source = Input(text, key)
        walker = MLIRLexer(source)
        starts: list[int] = []
        try:
            while (token := walker.lex()).kind != MLIRTokenKind.EOF:
                starts += [token.span.start, max(token.span.start - 1, 0)]
        except ParseError:
            pass
        for pos in starts:
            a, b = MLIRLexer(source), MLIRLexer(source)
            a.pos = b.pos = pos
            try:
                want = a.lex()
            except ParseError:
                continue
            got = fast_text.lex(b)
            assert (got.kind, got.span.start, got.span.end, b.pos) == (
                want.kind, want.span.start, want.span.end, a.pos,
            ), (key, pos)  # fmt: skip
            checked += 1
    assert checked > 10000
