"""String tensors (GE DT_STRING): `!graph.string`, `#graph.strings` constants, numpy unicode
arrays in the interpreter and in npz (never pickled objects), the ONNX importer's STRING
tensors, and the command-line tools on real string values."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from gedialects import make_context
from gedialects.frontend.onnx import OnnxImportError, import_model
from gedialects.graph import ConstOp
from gedialects.interpreters.run import RunError, run
from gedialects.strings import STRING, StringsAttr
from gedialects.tensors import const_from_numpy, numpy_from_dense
from tests.conftest import run_tool

AWKWARD = ['a"b\\', "é€\U0001f600", "", "x\x00y", "\x00", "tab\tnl\n\x7f", "\\00"]
"""Quotes, backslashes, non-ASCII (also beyond the BMP), empty, NULs, controls, an escape's
spelling."""


def _module_text(values: list[str]) -> str:
    attr = StringsAttr(values, TensorType(STRING, [len(values)]))
    const = ConstOp(attr)
    import io

    from xdsl.printer import Printer

    out = io.StringIO()
    Printer(stream=out).print_attribute(const.value)
    t = f"tensor<{len(values)}x!graph.string>"
    return (
        f"graph.graph @g() -> ({t}) {{\n  %c = graph.const {out.getvalue()}\n"
        f"  graph.net_output %c : {t}\n}}\n"
    )


def _parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def test_strings_round_trip_custom_generic_custom_exactly() -> None:
    module = _parse(_module_text(AWKWARD))
    module.verify()
    const = next(op for op in module.walk() if isinstance(op, ConstOp))
    assert isinstance(const.value, StringsAttr)
    assert const.value.strings == tuple(AWKWARD)
    custom = str(module)
    import io

    from xdsl.printer import Printer

    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    generic = _parse(out.getvalue())
    assert str(generic) == custom
    again = next(op for op in generic.walk() if isinstance(op, ConstOp))
    assert isinstance(again.value, StringsAttr) and again.value.strings == tuple(AWKWARD)


def test_numpy_bridge_is_unicode_and_splats_broadcast() -> None:
    array = np.array([["ab", "é"], ["", "x\x00y"]])
    attr = const_from_numpy(array)
    assert isinstance(attr, StringsAttr) and attr.type == TensorType(STRING, [2, 2])
    back = numpy_from_dense(attr)
    assert back.dtype.kind == "U" and back.tolist() == array.tolist()
    splat = numpy_from_dense(StringsAttr(["z"], TensorType(STRING, [3])))
    assert splat.tolist() == ["z", "z", "z"]


def test_lone_surrogate_is_refused() -> None:
    with pytest.raises(VerifyException, match="not valid Unicode"):
        StringsAttr(["\ud800"], TensorType(STRING, [1])).verify()


def _equal_model(strings: list[str]) -> onnx.ModelProto:
    data = [s.encode() for s in strings]
    const = helper.make_tensor("c", TensorProto.STRING, [len(strings)], data)  # pyright: ignore[reportArgumentType]
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["k"], value=const),
            helper.make_node("Equal", ["x", "k"], ["y"]),
        ],
        "eq",
        [helper.make_tensor_value_info("x", TensorProto.STRING, [len(strings)])],
        [
            helper.make_tensor_value_info("y", TensorProto.BOOL, [len(strings)]),
            helper.make_tensor_value_info("k", TensorProto.STRING, [len(strings)]),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


def test_import_string_constant_and_equal_run_on_unicode_arrays() -> None:
    module = import_model(_equal_model(AWKWARD[:4]))
    x = np.array(['a"b\\', "e", "", "x\x00y"])
    got = run(module, {"x": x})
    assert got["y"].tolist() == [True, False, True, True]
    assert got["k"].dtype.kind == "U" and got["k"].tolist() == AWKWARD[:4]
    with pytest.raises(RunError, match="has dtype float32"):
        run(module, {"x": np.zeros(4, np.float32)})


def test_string_initializer_that_is_not_utf8_is_refused() -> None:
    model = _equal_model(["a"])
    model.graph.node[0].attribute[0].t.string_data[0] = b"\xff"
    with pytest.raises(OnnxImportError, match="initializer 'c': 'utf-8' codec can't decode"):
        import_model(model)


def test_tools_carry_strings_through_files(tmp_path: Path) -> None:
    onnx.save(_equal_model(AWKWARD[:3]), tmp_path / "m.onnx")
    np.savez(tmp_path / "in.npz", x=np.array(['a"b\\', "é€\U0001f600", "no"]))
    done = run_tool("ge-import", "m.onnx", "-o", "m.mlir", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "#graph.strings<" in (tmp_path / "m.mlir").read_text()
    done = run_tool("ge-opt", "m.mlir", "-o", "m2.mlir", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = run_tool("ge-run", "m2.mlir", "--inputs", "in.npz", "-o", "out.npz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "out.npz", allow_pickle=False) as out:
        assert out["y"].tolist() == [True, True, False]
        assert out["k"].dtype.kind == "U" and out["k"].tolist() == AWKWARD[:3]


def test_object_arrays_in_npz_are_refused(tmp_path: Path) -> None:
    onnx.save(_equal_model(["a"]), tmp_path / "m.onnx")
    np.savez(tmp_path / "in.npz", x=np.array(["a"], dtype=object))
    assert run_tool("ge-import", "m.onnx", "-o", "m.mlir", cwd=tmp_path).returncode == 0
    done = run_tool("ge-run", "m.mlir", "--inputs", "in.npz", cwd=tmp_path)
    assert done.returncode == 1
    assert "object arrays are not supported" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# --- the string ops against onnxruntime ------------------------------------------------------

ort = pytest.importorskip("onnxruntime")

WORDS = ["Monday", "monday", "MONDAY", "tuesday", "", "a b", "x\ty", 'ab"c', "Été"]
"""ASCII case changes and non-ASCII text left alone by onnxruntime's "C" locale (the only one
this machine has) except for "Été", which is a stop word here."""


def _single(
    op: str,
    inputs: dict[str, tuple[int, list]],
    out: tuple[int, list | None],
    domain: str = "",
    **attrs: Any,
) -> onnx.ModelProto:
    node = helper.make_node(op, list(inputs), ["y"], domain=domain, **attrs)
    graph = helper.make_graph(
        [node],
        op.lower(),
        [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()],
        [helper.make_tensor_value_info("y", *out)],
    )
    opsets = [helper.make_opsetid("", 20)]
    if domain:
        opsets.append(helper.make_opsetid(domain, 4))
    return helper.make_model(graph, opset_imports=opsets, ir_version=9)


def _ort(model: onnx.ModelProto, feed: dict[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(
        None, {k: v.astype(object) if v.dtype.kind == "U" else v for k, v in feed.items()}
    )


def _same(ours: np.ndarray, theirs: np.ndarray) -> None:
    theirs = np.asarray(theirs)
    if theirs.dtype == object:
        theirs = np.array(theirs.tolist(), dtype=np.str_).reshape(theirs.shape)
    assert ours.shape == theirs.shape
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("action", ["NONE", "LOWER", "UPPER"])
@pytest.mark.parametrize("sensitive", [0, 1])
@pytest.mark.parametrize("rank2", [False, True])
def test_string_normalizer_matches_onnxruntime(action: str, sensitive: int, rank2: bool) -> None:
    x = np.array(WORDS)
    shape = [1, len(WORDS)] if rank2 else [len(WORDS)]
    x = x.reshape(shape)
    model = _single(
        "StringNormalizer",
        {"x": (TensorProto.STRING, shape)},
        (TensorProto.STRING, None),
        case_change_action=action,
        is_case_sensitive=sensitive,
        stopwords=["monday", "Été", ""],
        locale="C",
    )
    ours = run(import_model(model), {"x": x})["y"]
    _same(ours, _ort(model, {"x": x})[0])


def test_string_normalizer_removing_everything_leaves_one_empty_string() -> None:
    model = _single(
        "StringNormalizer",
        {"x": (TensorProto.STRING, [2])},
        (TensorProto.STRING, None),
        stopwords=["monday"],
        locale="C",
    )
    x = np.array(["Monday", "MONDAY"])
    ours = run(import_model(model), {"x": x})["y"]
    assert ours.tolist() == [""]
    _same(ours, _ort(model, {"x": x})[0])


CASE_WORDS = ["straße", "ﬁx", "İi", "ǅ", "Σσς", "été", "Été", "日本", "\U00010400\U00010428", "ÿ"]
"""Characters whose full case mapping changes the length (ß, ﬁ, İ), title case, final sigma,
accents, CJK, beyond the BMP."""


@pytest.mark.parametrize("action", ["LOWER", "UPPER"])
@pytest.mark.parametrize("stopwords", [["@"], ["STRASSE", "ÉTÉ", "İI"]])
def test_string_normalizer_c_locale_matches_onnxruntime(action: str, stopwords: list) -> None:
    model = _single(
        "StringNormalizer",
        {"x": (TensorProto.STRING, [len(CASE_WORDS)])},
        (TensorProto.STRING, None),
        case_change_action=action,
        stopwords=stopwords,
        locale="C",
    )
    x = np.array(CASE_WORDS)
    ours = run(import_model(model), {"x": x})["y"]
    _same(ours, _ort(model, {"x": x})[0])


def test_string_normalizer_other_locales_map_one_character_at_a_time() -> None:
    model = _single(
        "StringNormalizer",
        {"x": (TensorProto.STRING, [1, len(CASE_WORDS)])},
        (TensorProto.STRING, None),
        case_change_action="UPPER",
        stopwords=["ÉTÉ"],
        locale="en_US.UTF-8",
    )
    x = np.array([CASE_WORDS])
    assert run(import_model(model), {"x": x})["y"].tolist() == [
        ["STRAßE", "ﬁX", "İI", "Ǆ", "ΣΣΣ", "日本", "\U00010400\U00010400", "Ÿ"]
    ]
    model.graph.node[0].attribute[0].s = b"LOWER"
    lower = run(import_model(model), {"x": x})["y"].tolist()
    assert [len(w) for w in lower[0]] == [len(w) for w in CASE_WORDS if w.lower() != "été"]
    assert lower[0][:5] == ["straße", "ﬁx", "İi", "ǆ", "σσς"]


@pytest.mark.parametrize(
    "pattern",
    [r"www\.[\w.-]+\.\bcom\b", r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)", r"[^a-c]*\d+",
     r"(ab|c)*", r"\s?\S+", r".", r"[]a]+", ""],
)  # fmt: skip
def test_regex_full_match_matches_onnxruntime(pattern: str) -> None:
    x = np.array(["www.google.com", "a@gmail.com", "x99", "abcab", " é", "é", "]a]", "", "日"])
    model = _single(
        "RegexFullMatch", {"x": (TensorProto.STRING, [9])}, (TensorProto.BOOL, [9]), pattern=pattern
    )
    ours = run(import_model(model), {"x": x})["y"]
    assert ours.tolist() == _ort(model, {"x": x})[0].tolist()


@pytest.mark.parametrize(
    ("pattern", "why"),
    [(r"\p{Greek}+", "Unicode classes"), ("[[:alpha:]]+", "POSIX classes"),
     ("(?i)abc", "(?i) and (?U)"), (r"(a)\1", "back references"), ("a(?<=a)", "(?<= is not")],
)  # fmt: skip
def test_regex_python_cannot_express_is_refused(pattern: str, why: str) -> None:
    model = _single(
        "RegexFullMatch", {"x": (TensorProto.STRING, [1])}, (TensorProto.BOOL, [1]), pattern=pattern
    )
    with pytest.raises(OnnxImportError, match=re.escape(why)):
        import_model(model)


@pytest.mark.parametrize(
    "pattern",
    [r"\s", r"\S+", r"[\s]", r"[^\s]", r"[\s,]+", "a{,3}", "a$\n?", "(a$|b)\n?c?",
     "(ab|cd)+", "(a|b)*", "(?P<n>a|b)*"],
)  # fmt: skip
def test_regex_that_python_reads_otherwise_is_rewritten_as_re2(pattern: str) -> None:
    x = np.array(["a", "a{,3}", "aaa", "", "\v", " ", "a\n", "a\nc", "\t\v", "abcd", "b"])
    model = _single(
        "RegexFullMatch", {"x": (TensorProto.STRING, [11])}, (TensorProto.BOOL, [11]),
        pattern=pattern,
    )  # fmt: skip
    ours = run(import_model(model), {"x": x})["y"]
    assert ours.tolist() == _ort(model, {"x": x})[0].tolist()


@pytest.mark.parametrize(
    ("pattern", "why"),
    [("(?x)a b", "(?x) flag is Python syntax"), ("(?a)a", "(?a) flag is Python syntax"),
     (r"\u00e9", "\\u escapes are Python syntax"), (r"\U000000e9", "\\U escapes"),
     (r"\N{DASH}", "\\N escapes"), (r"[\Sa]", "\\S inside a class"),
     ("(?m)a$", "$ with the m flag"), ("(a|a)*", "not all starting with distinct literals"),
     ("(a|ab)+", "distinct literals"), ("((a|a))*", "distinct literals"),
     ("(?:.|b){2,}", "distinct literals"), ("(a?|b)*", "distinct literals")],
)  # fmt: skip
def test_regex_python_only_or_backtracking_is_refused(pattern: str, why: str) -> None:
    model = _single(
        "RegexFullMatch", {"x": (TensorProto.STRING, [1])}, (TensorProto.BOOL, [1]), pattern=pattern
    )
    with pytest.raises(OnnxImportError, match=re.escape(why)):
        import_model(model)


def test_regex_refusal_through_ge_import_is_one_line(tmp_path: Path) -> None:
    model = _single(
        "RegexFullMatch", {"x": (TensorProto.STRING, [1])}, (TensorProto.BOOL, [1]), pattern=r"\pL"
    )
    onnx.save(model, tmp_path / "m.onnx")
    done = run_tool("ge-import", "m.onnx", "-o", "m.mlir", cwd=tmp_path)
    assert done.returncode == 1
    assert "Unicode classes (\\p) differ between RE2 and Python" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("a", "b"),
    [(["ab", "", "日"], ["c", "d", ""]), (["cat", "é"], ["s"]), ([["x"], ["y"]], ["1", "2", "3"])],
)
def test_string_concat_matches_onnxruntime(a: list, b: list) -> None:
    xa, xb = np.array(a), np.array(b)
    model = _single(
        "StringConcat",
        {"a": (TensorProto.STRING, list(xa.shape)), "b": (TensorProto.STRING, list(xb.shape))},
        (TensorProto.STRING, None),
    )
    ours = run(import_model(model), {"a": xa, "b": xb})["y"]
    _same(ours, _ort(model, {"a": xa, "b": xb})[0])


def _split_model(shape: list[int], **attrs: Any) -> onnx.ModelProto:
    node = helper.make_node("StringSplit", ["x"], ["y", "z"], **attrs)
    graph = helper.make_graph(
        [node],
        "split",
        [helper.make_tensor_value_info("x", TensorProto.STRING, shape)],
        [
            helper.make_tensor_value_info("y", TensorProto.STRING, None),
            helper.make_tensor_value_info("z", TensorProto.INT64, shape),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=9)


SPLIT_TEXT = ["", " ", "a  b ", " a\tb\nc\x0bd\x0ce\x1cf\x85g\xa0h\u3000i", "a,,b,", ",",
              "abcab", "aaa", "é, 日本,,x", "x\x00y z"]  # fmt: skip
"""Empty and all-whitespace strings, Unicode whitespace (tab to ideographic space), runs of
delimiters, a delimiter at either end, overlapping multi-character delimiters, a NUL."""


@pytest.mark.parametrize(
    "attrs",
    [{}, {"delimiter": ""}, {"delimiter": ","}, {"delimiter": ", "}, {"delimiter": "aa"},
     {"maxsplit": 0}, {"maxsplit": 1}, {"delimiter": ",", "maxsplit": 1},
     {"delimiter": ",", "maxsplit": -1}, {"maxsplit": 20}],
)  # fmt: skip
@pytest.mark.parametrize("shape", [[10], [2, 5], [5, 1, 2]])
def test_string_split_matches_onnx_reference(attrs: dict, shape: list[int]) -> None:
    from onnx.reference import ReferenceEvaluator

    model = _split_model(shape, **attrs)
    x = np.array(SPLIT_TEXT).reshape(shape)
    got = run(import_model(model), {"x": x})
    want_y, want_z = ReferenceEvaluator(model).run(None, {"x": x})
    _same(got["y"], np.asarray(want_y))
    assert got["z"].dtype == np.int64 and got["z"].tolist() == np.asarray(want_z).tolist()


def test_string_split_of_nothing_has_an_empty_padded_dim() -> None:
    model = _split_model([0, 3], delimiter=",")
    got = run(import_model(model), {"x": np.zeros((0, 3), dtype="<U1")})
    assert got["y"].shape == (0, 3, 0) and got["z"].shape == (0, 3)
    got = run(import_model(_split_model([2])), {"x": np.array([" ", "\t\n"])})
    assert got["y"].shape == (2, 0) and got["z"].tolist() == [0, 0]


@pytest.mark.parametrize(
    "attrs", [{}, {"delimiter": "-"}, {"delimiter": "ab", "maxsplit": 1}, {"maxsplit": 1}]
)
def test_string_split_matches_onnxruntime(attrs: dict) -> None:
    # Where onnxruntime agrees with ONNX's reference: it splits on " " only (no tabs or
    # Unicode spaces), counts 0 substrings of "" with a delimiter, and strips the trailing
    # spaces of the last substring of a maxsplit whitespace split (see docs/onnx.md).
    x = np.array([["a b  c", " x", "abab-ab"], ["-é-", "日本 語", "q"]])
    model = _split_model([2, 3], **attrs)
    ours = run(import_model(model), {"x": x})
    y, z = _ort(model, {"x": x})
    _same(ours["y"], y)
    assert ours["z"].tolist() == z.tolist()


def test_string_split_through_the_tools(tmp_path: Path) -> None:
    onnx.save(_split_model([3], delimiter=";", maxsplit=2), tmp_path / "m.onnx")
    np.savez(tmp_path / "in.npz", x=np.array(["a;b;c;d", 'é;"\\', ""]))
    assert run_tool("ge-import", "m.onnx", "-o", "m.mlir", cwd=tmp_path).returncode == 0
    assert (
        'graph.string_split_padded %x delimiter ";" maxsplit 2' in (tmp_path / "m.mlir").read_text()
    )
    done = run_tool("ge-opt", "m.mlir", "-p", "ge-place-engines", "-o", "p.mlir", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert '_engine_name = "DNN_VM_AICPU"' in (tmp_path / "p.mlir").read_text()
    done = run_tool("ge-run", "p.mlir", "--inputs", "in.npz", "-o", "out.npz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "out.npz", allow_pickle=False) as out:
        assert out["y"].tolist() == [["a", "b", "c;d"], ["é", '"\\', ""], ["", "", ""]]
        assert out["z"].tolist() == [3, 2, 1]
    done = run_tool("ge-opt", "m.mlir", "-p", "ge-compile", cwd=tmp_path)
    assert done.returncode == 1
    assert "is a string tensor (tensor<3x!graph.string>)" in done.stderr


LABEL_CASES = [
    ({"keys_strings": ["a", "b", "é"], "values_int64s": [5, 6, 7], "default_int64": 42},
     np.array(["a", "é", "z", "", "b"]), TensorProto.INT64),
    ({"keys_int64s": [3, 1, 2], "values_strings": ["three", "one", "two"]},
     np.array([[1, 9], [3, 2]], np.int64), TensorProto.STRING),
    ({"keys_floats": [0.5, float("nan"), -1.0], "values_floats": [1.0, 2.0, 3.0],
      "default_float": 9.0},
     np.array([0.5, np.nan, 7.0, -1.0], np.float32), TensorProto.FLOAT),
    ({"keys_strings": ["x", "y"], "values_strings": ["1", "2"], "default_string": "?"},
     np.array(["y", "q", "x"]), TensorProto.STRING),
]  # fmt: skip


@pytest.mark.parametrize(("attrs", "x", "out"), LABEL_CASES)
def test_label_encoder_matches_onnxruntime(attrs: dict, x: np.ndarray, out: int) -> None:
    elem = {"U": TensorProto.STRING, "i": TensorProto.INT64, "f": TensorProto.FLOAT}[x.dtype.kind]
    model = _single(
        "LabelEncoder",
        {"x": (elem, list(x.shape))},
        (out, list(x.shape)),
        domain="ai.onnx.ml",
        **attrs,
    )
    ours = run(import_model(model), {"x": x})["y"]
    theirs = _ort(model, {"x": x})[0]
    if ours.dtype.kind == "f":
        np.testing.assert_array_equal(ours, theirs)
    else:
        _same(ours, theirs)


def test_string_ops_through_the_tools(tmp_path: Path) -> None:
    model = _single(
        "StringNormalizer",
        {"x": (TensorProto.STRING, [4])},
        (TensorProto.STRING, None),
        case_change_action="UPPER",
        stopwords=["b"],
    )
    onnx.save(model, tmp_path / "m.onnx")
    np.savez(tmp_path / "in.npz", x=np.array(["a", "B", 'é"\\', "b"]))
    assert run_tool("ge-import", "m.onnx", "-o", "m.mlir", cwd=tmp_path).returncode == 0
    done = run_tool("ge-opt", "m.mlir", "-p", "ge-place-engines", "-o", "p.mlir", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert '_engine_name = "DNN_VM_AICPU"' in (tmp_path / "p.mlir").read_text()
    done = run_tool("ge-run", "p.mlir", "--inputs", "in.npz", "-o", "out.npz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "out.npz", allow_pickle=False) as out:
        assert out["y"].tolist() == ["A", 'é"\\']  # the C locale changes ASCII only
    done = run_tool("ge-opt", "m.mlir", "-p", "ge-compile", cwd=tmp_path)
    assert done.returncode == 1
    assert "is a string tensor (tensor<4x!graph.string>)" in done.stderr


def _cast_model(src: int, dst: int, n: int) -> onnx.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["y"], to=dst)],
        "cast",
        [helper.make_tensor_value_info("x", src, [n])],
        [helper.make_tensor_value_info("y", dst, [n])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


CASTS = [
    (TensorProto.FLOAT, TensorProto.STRING, np.array([0.1, 1.5, np.inf, np.nan, 1e-7], np.float32)),
    (TensorProto.DOUBLE, TensorProto.STRING, np.array([0.1, -2.0, 1e300], np.float64)),
    (TensorProto.INT32, TensorProto.STRING, np.array([1, -2, 2**31 - 1], np.int32)),
    (TensorProto.BOOL, TensorProto.STRING, np.array([True, False])),
    (TensorProto.STRING, TensorProto.FLOAT, np.array(["0.1", "1e-5", " 2", "-INF", "NaN", "1E8"])),
    (TensorProto.STRING, TensorProto.INT64, np.array(["1", "-7", "+3", "9007199254740993"])),
]  # fmt: skip


@pytest.mark.parametrize(("src", "dst", "x"), CASTS)
def test_cast_to_and_from_strings_matches_onnx_reference(src: int, dst: int, x: np.ndarray) -> None:
    from onnx.reference import ReferenceEvaluator

    model = _cast_model(src, dst, x.size)
    ours = run(import_model(model), {"x": x})["y"]
    want = np.asarray(next(iter(ReferenceEvaluator(model).run(None, {"x": x}))))
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(ours, want)
    else:
        assert ours.dtype.kind == want.dtype.kind and ours.tolist() == want.tolist()


def test_cast_of_text_that_is_no_number_is_a_one_line_error() -> None:
    module = import_model(_cast_model(TensorProto.STRING, TensorProto.FLOAT, 2))
    with pytest.raises(RunError, match="Cast: could not convert string to float"):
        run(module, {"x": np.array(["1", "one"])})
    module = import_model(_cast_model(TensorProto.STRING, TensorProto.BOOL, 1))
    with pytest.raises(RunError, match="strings do not cast to bool"):
        run(module, {"x": np.array(["1"])})


@pytest.mark.parametrize(
    ("dst", "text"),
    [(TensorProto.INT8, "300"), (TensorProto.UINT8, "-1"),
     (TensorProto.INT64, "99999999999999999999")],
)  # fmt: skip
def test_cast_of_text_out_of_range_is_a_one_line_error(tmp_path: Path, dst: int, text: str) -> None:
    model = _cast_model(TensorProto.STRING, dst, 2)
    with pytest.raises(RunError, match=re.escape(f"Cast: '{text}' is out of")):
        run(import_model(model), {"x": np.array(["1", text])})
    onnx.save(model, tmp_path / "m.onnx")
    np.savez(tmp_path / "in.npz", x=np.array(["1", text]))
    assert run_tool("ge-import", "m.onnx", "-o", "m.mlir", cwd=tmp_path).returncode == 0
    done = run_tool("ge-run", "m.mlir", "--inputs", "in.npz", "-o", "out.npz", cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert f"'{text}' is out of" in done.stderr


def _label_tensor_model(values: np.ndarray, keys: np.ndarray | None = None) -> onnx.ModelProto:
    from onnx import numpy_helper

    keys = np.arange(1, values.size + 1, dtype=np.int64) if keys is None else keys
    elem = helper.np_dtype_to_tensor_dtype(values.dtype)
    node = helper.make_node(
        "LabelEncoder",
        ["x"],
        ["y"],
        domain="ai.onnx.ml",
        keys_tensor=numpy_helper.from_array(keys),
        values_tensor=numpy_helper.from_array(values),
    )
    kx = helper.np_dtype_to_tensor_dtype(keys.dtype)
    graph = helper.make_graph(
        [node],
        "label",
        [helper.make_tensor_value_info("x", kx, [3])],
        [helper.make_tensor_value_info("y", elem, [3])],
    )
    opsets = [helper.make_opsetid("", 20), helper.make_opsetid("ai.onnx.ml", 4)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=9)


@pytest.mark.parametrize(
    "dtype", [np.int64, np.int32, np.int16, np.float64, np.float32]
)  # LabelEncoder-4's value types but strings
def test_label_encoder_default_without_default_tensor_is_onnx_s(dtype: type) -> None:
    model = _label_tensor_model(np.array([5, 6], dtype))
    x = np.array([1, 7, 2], np.int64)
    ours = run(import_model(model), {"x": x})["y"]
    assert ours.dtype == dtype
    assert ours.tolist() == ([5, -1, 6] if ours.dtype.kind == "i" else [5.0, 0.0, 6.0])
    if ours.dtype.kind == "f":
        assert np.signbit(ours).tolist() == [False, True, False]
    if dtype in (np.int64, np.float64, np.float32):  # the value types onnxruntime implements
        theirs = _ort(model, {"x": x})[0]
        assert theirs.tolist() == ours.tolist()
        assert np.signbit(theirs).tolist() == np.signbit(ours).tolist()


@pytest.mark.parametrize(
    ("attrs", "x"),
    [({"keys_strings": ["a", "b", "a"], "values_int64s": [1, 2, 3]}, np.array(["a", "b", "c"])),
     ({"keys_int64s": [7, 7, 8, 7], "values_strings": ["x", "y", "z", "w"]},
      np.array([7, 8, 9], np.int64)),
     ({"keys_floats": [0.5, float("nan"), 0.5, float("nan")],
       "values_floats": [1.0, 2.0, 3.0, 4.0]}, np.array([0.5, np.nan, 1.0], np.float32))],
)  # fmt: skip
def test_label_encoder_repeated_keys_first_wins_as_onnxruntime(attrs: dict, x: np.ndarray) -> None:
    elem = {"U": TensorProto.STRING, "i": TensorProto.INT64, "f": TensorProto.FLOAT}[x.dtype.kind]
    out = next(TensorProto.STRING if k.endswith("strings") else
               TensorProto.INT64 if k.endswith("int64s") else TensorProto.FLOAT
               for k in attrs if k.startswith("values"))  # fmt: skip
    model = _single("LabelEncoder", {"x": (elem, [3])}, (out, [3]), domain="ai.onnx.ml", **attrs)
    ours = run(import_model(model), {"x": x})["y"]
    theirs = _ort(model, {"x": x})[0]
    if ours.dtype.kind == "f":
        np.testing.assert_array_equal(ours, theirs)
    else:
        _same(ours, theirs)
    keys = next(v for k, v in attrs.items() if k.startswith("keys"))
    values = next(v for k, v in attrs.items() if k.startswith("values"))
    assert ours.tolist()[0] == values[keys.index(x[0].item())]  # the first entry of x[0]'s key
