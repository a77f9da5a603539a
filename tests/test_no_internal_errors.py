"""Issue 13 part 6: each input that ended in an internal error gets a message naming what and
where, through the tools and the files where users meet them; one usage-error convention
for the four tools (`tools/cli.py`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gedialects.session import GraphError, OptionError, Session
from gedialects.tools import cli, ge_atc, ge_import, ge_opt, ge_run

ROOT = Path(__file__).resolve().parent.parent
CNN = ROOT / "tests" / "models" / "cnn.onnx"
needs_cnn = pytest.mark.skipif(not CNN.exists(), reason="tests/models/cnn.onnx is not exported")


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    """The single stderr line of a failed run (no traceback, no usage text)."""
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err, err
    return err.strip()


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# --------------------------------------------------------------------------------------------
# partitioned_call cycles in the interpreter
# --------------------------------------------------------------------------------------------

CYCLE = """\
graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = partition.partitioned_call @a(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
graph.graph @a(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = partition.partitioned_call @b(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
graph.graph @b(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = partition.partitioned_call @a(%x) : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
"""


def test_partitioned_call_cycle_is_bounded_without_the_verifier() -> None:
    """The verifier reports the cycle (helper "verify"); a caller that skips verification
    still gets a one-line error naming the cycle, not a RecursionError."""
    from xdsl.parser import Parser

    from gedialects import make_context
    from gedialects.interpreters.run import RunError, run

    module = Parser(make_context(), CYCLE, "cycle.mlir").parse_module()
    with pytest.raises(RunError, match=r"cycle of calls @a -> @b -> @a"):
        run(module, {"x": np.ones(2, np.float32)})


# --------------------------------------------------------------------------------------------
# Nesting
# --------------------------------------------------------------------------------------------


def test_nested_modules_3000_deep_is_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "deep.mlir", "builtin.module {\n" * 3000 + "}\n" * 3000)
    limit = "nested more than 64 levels deep (gedialects' nesting limit)"
    assert ge_opt.main([str(path)]) == 1
    assert _one_error(capsys).startswith(f"{path}:65:16: error: regions or attribute")
    assert ge_run.main([str(path)]) == 1
    assert limit in _one_error(capsys)
    with pytest.raises(GraphError, match=limit.replace("(", r"\(").replace(")", r"\)")):
        Session().add_graph(0, path.read_text())
    # 64 levels still parse (the limit is not below what the parser can take).
    ok = _write(tmp_path, "ok.mlir", "builtin.module {\n" * 64 + "}\n" * 64)
    assert ge_opt.main([str(ok), "-o", str(tmp_path / "out.mlir")]) == 0


def test_nesting_check_skips_strings_and_comments() -> None:
    from gedialects.nesting import nesting_error

    braces = "{" * 100
    text = f'// {braces}\n"{braces}"\n"unterminated {braces}\n' + "builtin.module {}\n"
    assert nesting_error(text, "x") is None
    assert nesting_error(text.encode(), "x") is None
    assert nesting_error("{" * 65, "x") == (64, nesting_error("{" * 65, "x")[1])  # type: ignore[index]


# --------------------------------------------------------------------------------------------
# Gears that cannot be read, hybrid fallbacks that do not fit
# --------------------------------------------------------------------------------------------


def test_multibatch_ops_example_under_ge_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lit = ROOT / "tests" / "lit" / "dialects" / "multibatch" / "ops.mlir"
    first = _write(tmp_path, "ops.mlir", lit.read_text().split("// -----")[0])
    assert ge_run.main([str(first), "--random-inputs", "0"]) == 1
    assert _one_error(capsys) == (
        "error: cannot run the gears of @root: no ascend_mbatch_shape_data input and no "
        "multibatch.get_dynamic_dims feed the gear lookup"
    )


HYBRID_GRAPH = """\
graph.graph @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %y = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %y : tensor<?x3xf32>
}
"""
EXPAND = 'ge-expand-multibatch{input-shape="x:-1,3" dynamic-batch-size="1,4" hybrid=true}'


@pytest.mark.parametrize("level", ["graph", "ascend"])
def test_hybrid_fallback_extra_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: str
) -> None:
    """A hand-edited hybrid model whose fallback takes an input the root does not have."""
    source = _write(tmp_path, "g.mlir", HYBRID_GRAPH)
    passes = EXPAND if level == "graph" else f"{EXPAND},ge-compile"
    out = tmp_path / "hybrid.mlir"
    assert ge_opt.main([str(source), "-p", passes, "-o", str(out)]) == 0
    text = out.read_text()
    if level == "graph":
        old = "graph.graph @main_dynamic(%x: tensor<?x3xf32>)"
        new = "graph.graph @main_dynamic(%x: tensor<?x3xf32>, %extra: tensor<3xf32>)"
    else:
        old = '    ascend.input "x" dyn[0] : tensor<?x3xf32>\n'
        new = old + '    ascend.input "extra" dyn[5] : tensor<3xf32>\n'
    assert old in text
    edited = _write(tmp_path, "edited.mlir", text.replace(old, new, 1))
    np.savez(tmp_path / "in.npz", x=np.ones((2, 3), np.float32))
    assert ge_run.main([str(edited), "--inputs", str(tmp_path / "in.npz")]) == 1
    assert _one_error(capsys) == (
        "error: hybrid fallback @main_dynamic of @main takes input 'extra', which @main does "
        "not have (its inputs: x)"
    )
    # On a gear the static branches run; the fallback is not consulted.
    np.savez(tmp_path / "gear.npz", x=np.ones((4, 3), np.float32))
    assert ge_run.main([str(edited), "--inputs", str(tmp_path / "gear.npz"), "-q"]) == 0


# --------------------------------------------------------------------------------------------
# Element types and shapes met at run time
# --------------------------------------------------------------------------------------------

BF16_CONST = """\
graph.graph @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = graph.const dense<[1.0, 2.0, 3.0]> : tensor<3xbf16>
  %y = graph.cast %c dst_type f32 : (tensor<3xbf16>) -> tensor<3xf32>
  %z = graph.add %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  graph.net_output %z : tensor<3xf32>
}
"""
BF16_INPUT = """\
graph.graph @main(%x: tensor<3xbf16>) -> tensor<3xbf16> {
  %y = graph.relu %x : (tensor<3xbf16>) -> tensor<3xbf16>
  graph.net_output %y : tensor<3xbf16>
}
"""


def test_bf16_is_unsupported_with_op_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    const = _write(tmp_path, "const.mlir", BF16_CONST)
    assert ge_run.main([str(const), "--random-inputs", "0"]) == 1
    assert _one_error(capsys) == (
        "error: unsupported element type bf16 in op 'graph.const' (%c) in @main"
    )
    model = tmp_path / "const.asc.mlir"
    assert ge_opt.main([str(const), "-p", "ge-compile", "-o", str(model)]) == 0
    assert ge_run.main([str(model), "--random-inputs", "0"]) == 1
    # the Cast of a 3-element Const moves to host CPU (HostcpuEngineUpdatePass), so the
    # dynamic-shape partition makes it a dynamic task
    assert _one_error(capsys) == (
        "error: 'ascend.dynamic_kernel' \"Cast_0\": unsupported element type bf16"
    )
    given = _write(tmp_path, "input.mlir", BF16_INPUT)
    assert ge_run.main([str(given), "--random-inputs", "0"]) == 1
    assert _one_error(capsys) == (
        "error: input 'x': unsupported element type bf16 (tensor<3xbf16>)"
    )


def test_complex_is_unsupported_with_op_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = BF16_CONST.replace("bf16", "complex<f32>").replace(
        "dense<[1.0, 2.0, 3.0]>", "dense<[(1.0, 0.0), (2.0, 0.0), (3.0, 0.0)]>"
    )
    path = _write(tmp_path, "complex.mlir", text)
    assert ge_run.main([str(path), "--random-inputs", "0"]) == 1
    assert "unsupported element type complex<f32> in op 'graph.const' (%c)" in _one_error(capsys)


BROADCAST = """\
graph.graph @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = graph.add %x, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %z : tensor<?xf32>
}
"""


def test_runtime_broadcast_mismatch_names_op(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = _write(tmp_path, "add.mlir", BROADCAST)
    np.savez(tmp_path / "in.npz", x=np.ones(3, np.float32), y=np.ones(4, np.float32))
    inputs = ["--inputs", str(tmp_path / "in.npz")]
    assert ge_run.main([str(graph), *inputs]) == 1
    assert _one_error(capsys) == "error: broadcast of [3] and [4] in op 'graph.add' (%z) in @main"
    model = tmp_path / "add.asc.mlir"
    assert ge_opt.main([str(graph), "-p", "ge-compile", "-o", str(model)]) == 0
    assert ge_run.main([str(model), *inputs]) == 1
    assert _one_error(capsys) == (
        "error: 'ascend.dynamic_kernel' \"Add_0\" (Add): broadcast of [3] and [4]"
    )


# --------------------------------------------------------------------------------------------
# Option values
# --------------------------------------------------------------------------------------------


@needs_cnn
@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            "--dynamic_batch_size=1,99999999999999999999",
            "E10001: Value 99999999999999999999 for parameter --dynamic_batch_size is invalid. "
            "Reason: value out of range for i64 in option --dynamic_batch_size",
        ),
        (
            "--dynamic_batch_size=1,9999999999",
            "Reason: value out of range for i32 in option --dynamic_batch_size (at most "
            "2147483647)",
        ),
        (
            "--dynamic_image_size=16,16;16,99999999999999999999",
            "value out of range for i64 in option --dynamic_image_size",
        ),
    ],
)
def test_gear_value_beyond_i64(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, message: str
) -> None:
    shape = "image:-1,3,16,16" if "batch" in option else "image:2,3,-1,-1"
    argv = [f"--model={CNN}", f"--output={tmp_path / 'm'}", f"--input_shape={shape}", option]
    assert ge_atc.main(argv) == 1
    assert message in _one_error(capsys)
    assert list(tmp_path.iterdir()) == []


def test_shape_value_beyond_i64(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    graph = _write(tmp_path, "add.mlir", BROADCAST)
    pipeline = 'ge-infer-shapes{input-shape="x:99999999999999999999;y:3"}'
    assert ge_opt.main([str(graph), "-p", pipeline]) == 1
    assert "value out of range for i64 in option input-shape" in _one_error(capsys)
    with pytest.raises(OptionError, match="out of range for i64"):
        Session({"ge.inputShape": "x:99999999999999999999"})


ARABIC_ONE = "\u0661"


@needs_cnn
def test_arabic_indic_digits_are_rejected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`int("\u0661")` is 1 in Python: every option parser reads ASCII digits only."""
    base = [f"--model={CNN}", f"--output={tmp_path / 'm'}"]
    assert ge_atc.main([*base, f"--input_shape=image:{ARABIC_ONE},3,16,16"]) == 1
    assert f"input-shape dim '{ARABIC_ONE}' of 'image' is not an integer" in _one_error(capsys)
    gears = ["--input_shape=image:-1,3,16,16", "--dynamic_batch_size=1,4"]
    assert ge_atc.main([*base, f"--input_shape=image:-1,{ARABIC_ONE},16,16", gears[1]]) == 1
    assert f"It is not a digit ('{ARABIC_ONE}')" in _one_error(capsys)
    assert ge_atc.main([*base, gears[0], f"--dynamic_batch_size=1,{ARABIC_ONE}"]) == 1
    assert "E10003" in _one_error(capsys)
    assert list(tmp_path.iterdir()) == []
    graph = _write(tmp_path, "add.mlir", BROADCAST)
    assert ge_run.main([str(graph), "--random-inputs", ARABIC_ONE]) == 1
    assert "(ASCII digits only)" in _one_error(capsys)
    assert ge_run.main([str(graph), "--schedule-seed", ARABIC_ONE]) == 1
    assert "(ASCII digits only)" in _one_error(capsys)
    assert ge_run.main([str(graph), "--rtol", f"{ARABIC_ONE}.5"]) == 1
    assert "(ASCII digits only)" in _one_error(capsys)
    for options in (
        {"ge.inputShape": f"image:{ARABIC_ONE},3,16,16"},
        {"ge.exec.static_model_ops_lower_limit": ARABIC_ONE},
        {"ge.streamMaxParallelNum": f"AIcoreEngine:{ARABIC_ONE}"},
        {"ge.inputShape": "image:-1,3,16,16", "ge.dynamicBatchSize": f"1,{ARABIC_ONE}"},
    ):
        with pytest.raises(OptionError):
            Session(options).add_graph(0, CNN)


@pytest.mark.parametrize("options", [[("ge.jit", "1")], "ge.jit=1", 3, {1: "2"}])
def test_session_options_not_a_mapping(options: object) -> None:
    with pytest.raises(OptionError, match="option"):
        Session(options)  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="option"):
        Session().add_graph(0, BROADCAST, options)  # type: ignore[arg-type]


def test_cli_number_types() -> None:
    import argparse

    assert cli.ascii_int("-12") == -12 and cli.seed("0") == 0 and cli.ascii_float("1e-3") == 1e-3
    for bad in (ARABIC_ONE, "1_000", " 3", "", "+", "0x10"):
        with pytest.raises(argparse.ArgumentTypeError):
            cli.ascii_int(bad)
    for bad in (f"{ARABIC_ONE}.5", "inf", "nan", "1_0.0", "."):
        with pytest.raises(argparse.ArgumentTypeError):
            cli.ascii_float(bad)


# --------------------------------------------------------------------------------------------
# Output paths
# --------------------------------------------------------------------------------------------


@needs_cnn
def test_output_into_unwritable_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder that cannot be created or written (here: under a regular file, which stops
    root too): `cannot write OUT: reason`, exit 1, one line."""
    blocker = _write(tmp_path, "file", "")
    graph = _write(tmp_path, "add.mlir", BROADCAST.replace("?", "3"))
    bad = blocker / "sub" / "out"
    assert ge_run.main([str(graph), "--random-inputs", "0", "-q", "-o", str(bad)]) == 1
    assert _one_error(capsys).startswith(f"error: cannot write {bad}.npz: ")
    assert ge_opt.main([str(graph), "-o", str(bad)]) == 1
    assert f"cannot write {bad}: Not a directory" in _one_error(capsys)
    assert ge_import.main([str(CNN), "-o", str(bad)]) == 1
    assert _one_error(capsys) == f"error: cannot write {bad}: Not a directory"
    assert ge_atc.main([f"--model={CNN}", f"--output={bad}"]) == 1  # writes OUT.om first
    assert _one_error(capsys) == f"error: cannot write {bad}.om: Not a directory"
    assert ge_atc.main([f"--model={CNN}", f"--output={bad}", "--emit=mlir"]) == 1
    assert _one_error(capsys) == f"error: cannot write {bad}.mlir: Not a directory"


@needs_cnn
def test_output_path_empty_or_folder_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = _write(tmp_path, "add.mlir", BROADCAST.replace("?", "3"))
    folder = tmp_path / "out"
    folder.mkdir()
    before = sorted(p.name for p in tmp_path.rglob("*"))
    run = [str(graph), "--random-inputs", "0", "-q"]
    for argv, message in [
        ([*run, "-o", ""], "-o/--output: empty output path"),
        ([*run, "-o", str(folder)], f"-o/--output: '{folder}' is a folder"),
        ([*run, "-o", f"{tmp_path}/new/"], "is a folder"),
        ([*run, "--trace", str(folder)], "--trace: "),
    ]:
        assert ge_run.main(argv) == 1
        assert message in _one_error(capsys)
    assert ge_opt.main([str(graph), "-o", str(folder)]) == 1
    assert "-o/--output-file: " in _one_error(capsys)
    assert ge_import.main([str(CNN), "-o", ""]) == 1
    assert "empty output path" in _one_error(capsys)
    assert ge_import.main([str(CNN), "-o", str(folder)]) == 1
    assert "is a folder" in _one_error(capsys)
    for output in ("", f"{folder}/", f"{folder}/.mlir", "."):
        assert ge_atc.main([f"--model={CNN}", f"--output={output}"]) == 1
        assert "--output: " in _one_error(capsys)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert not Path(".mlir").exists()


def test_ge_opt_failed_pass_leaves_the_output_file_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """xDSL opens `-o FILE` before the passes run: a failed pass left an empty file behind (and
    truncated an earlier good one). The output is written only after every pass succeeded."""
    graph = _write(tmp_path, "add.mlir", BROADCAST.replace("?", "3"))
    out = tmp_path / "out.mlir"
    assert ge_opt.main([str(graph), "-p", "ge-compile{iterations-per-loop=0}", "-o", str(out)]) == 1
    assert "iterations-per-loop must be at least 1" in _one_error(capsys)
    assert not out.exists()
    assert ge_opt.main([str(graph), "-p", "ge-compile", "-o", str(out)]) == 0
    good = out.read_text(encoding="utf-8")
    assert "ascend.model" in good
    assert ge_opt.main([str(graph), "-p", "ge-compile{iterations-per-loop=0}", "-o", str(out)]) == 1
    _one_error(capsys)
    assert out.read_text(encoding="utf-8") == good


def test_random_inputs_negative_seed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    graph = _write(tmp_path, "add.mlir", BROADCAST.replace("?", "3"))
    assert ge_run.main([str(graph), "--random-inputs", "-1"]) == 1
    assert _one_error(capsys) == (
        "error: argument --random-inputs: invalid seed -1 (seeds are integers >= 0) "
        "(see 'ge-run --help')"
    )


# --------------------------------------------------------------------------------------------
# Usage errors: one line naming the flag, a pointer to --help, exit 1, in all four tools
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["ge-opt", "ge-run", "ge-import", "ge-atc"])
def test_usage_errors_are_one_line_exit_1(tool: str, tmp_path: Path) -> None:
    """Through the installed commands (argparse used to print seven lines and exit 2)."""
    module = "gedialects.tools." + tool.replace("-", "_")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = {"ge-import": ["m.onnx"], "ge-atc": ["--model=m.onnx", "--output=o"]}.get(tool, [])
    done = subprocess.run(
        [sys.executable, "-m", module, *args, "--no-such-flag=1"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert done.stderr == (
        f"error: unrecognized arguments: --no-such-flag=1 (see '{tool} --help')\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("main", "argv", "flag"),
    [
        (ge_run.main, ["f.mlir", "--random-inputs"], "argument --random-inputs: expected one"),
        (ge_run.main, ["f.mlir", "--rtol", "x"], "argument --rtol: invalid number 'x'"),
        (ge_import.main, [], "the following arguments are required: model"),
        (ge_atc.main, ["--output=o"], "the following arguments are required: --model"),
        (ge_atc.main, ["--model=m", "--output=o", "--hybrid=maybe"], "argument --hybrid"),
        (ge_opt.main, ["--split-input-file=3"], "argument --split-input-file"),
    ],
)
def test_usage_errors_name_the_flag(
    capsys: pytest.CaptureFixture[str], main: object, argv: list[str], flag: str
) -> None:
    assert main(argv) == 1  # type: ignore[operator]
    line = _one_error(capsys)
    assert line.startswith(f"error: {flag}") and line.endswith("--help')"), line
