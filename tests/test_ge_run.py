"""ge-run: named inputs and outputs, the reference check, and one-line errors for bad input."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gedialects.tools.ge_run import main as ge_run
from tests.conftest import EXAMPLES, run_tool

ADD = """
graph.graph @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32> {node_name = "sum"}) {
  %s = graph.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  graph.net_output %s : tensor<2x3xf32>
}
"""


@pytest.fixture
def add_file(tmp_path: Path) -> Path:
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    return path


def _inputs(tmp_path: Path, **arrays: np.ndarray) -> Path:
    path = tmp_path / "in.npz"
    np.savez(path, **arrays)
    return path


def _error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip("\n").splitlines()
    if len(lines) == 3 and lines[2].strip() == "^":  # a located error: source line and caret
        lines = lines[:1]
    assert len(lines) == 1, err
    return lines[0]


def test_runs_and_writes_named_outputs(add_file: Path, tmp_path: Path) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = np.array([10, 20, 30], dtype=np.float32)
    out = tmp_path / "out.npz"
    assert (
        ge_run([str(add_file), "--inputs", str(_inputs(tmp_path, x=x, y=y)), "-o", str(out)]) == 0
    )
    with np.load(out) as data:
        assert data.files == ["sum"]
        np.testing.assert_array_equal(data["sum"], x + y)


def test_single_input_files_and_reference(add_file: Path, tmp_path: Path, capsys) -> None:
    x = np.ones((2, 3), np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", np.full(3, 2, np.float32))
    ref = tmp_path / "ref.npz"
    np.savez(ref, sum=np.full((2, 3), 3, np.float32))
    args = [str(add_file), "--input", f"x={tmp_path / 'x.npy'}", "--input"]
    assert ge_run([*args, f"y={tmp_path / 'y.npy'}", "--reference", str(ref)]) == 0
    assert "MATCH" in capsys.readouterr().out
    np.savez(ref, sum=np.full((2, 3), 4, np.float32))
    assert ge_run([*args, f"y={tmp_path / 'y.npy'}", "--reference", str(ref)]) == 1
    assert "MISMATCH" in capsys.readouterr().out


def test_random_inputs_are_reproducible(add_file: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert ge_run([str(add_file), "--random-inputs", "7", "-q", "-o", str(a)]) == 0
    assert ge_run([str(add_file), "--random-inputs", "7", "-q", "-o", str(b)]) == 0
    with np.load(a) as da, np.load(b) as db:
        np.testing.assert_array_equal(da["sum"], db["sum"])


@pytest.mark.parametrize(
    ("arrays", "message"),
    [
        ({"x": np.zeros((2, 3), np.float32)}, "error: missing input 'y' (tensor<3xf32>)"),
        (
            {"x": np.zeros((3, 2), np.float32), "y": np.zeros(3, np.float32)},
            "error: input 'x' has shape [3,2], @main expects [2,3]",
        ),
        (
            {"x": np.zeros((2, 3), np.float64), "y": np.zeros(3, np.float32)},
            "error: input 'x' has dtype float64, @main expects float32",
        ),
        (
            {"x": np.zeros((2, 3), np.float32), "y": np.zeros(3, np.float32), "z": np.zeros(1)},
            "error: unknown input 'z' for @main (its inputs are: x, y)",
        ),
    ],
)
def test_bad_inputs_are_one_line_errors(add_file, tmp_path, capsys, arrays, message) -> None:
    assert ge_run([str(add_file), "--inputs", str(_inputs(tmp_path, **arrays))]) == 1
    assert _error_line(capsys).startswith(message)


def test_bad_files_are_one_line_errors(add_file: Path, tmp_path: Path, capsys) -> None:
    assert ge_run([str(tmp_path / "missing.mlir")]) == 1
    assert "No such file" in _error_line(capsys)
    broken = tmp_path / "broken.mlir"
    broken.write_text(ADD.replace("graph.add", "graph.addd"))
    assert ge_run([str(broken), "--random-inputs", "0"]) == 1
    assert _error_line(capsys).startswith(f"{broken}:3:")
    assert ge_run([str(add_file), "--inputs", str(tmp_path / "nope.npz")]) == 1
    assert "cannot read" in _error_line(capsys)
    assert ge_run([str(add_file), "--input", "x"]) == 1
    assert "--input expects NAME=FILE.npy" in _error_line(capsys)
    invalid = tmp_path / "invalid.mlir"
    invalid.write_text(ADD.replace("-> (tensor<2x3xf32> {", "-> (tensor<2x4xf32> {"))
    assert ge_run([str(invalid), "--random-inputs", "0"]) == 1
    assert f"{invalid}:4:3: error: 'graph.net_output' op types" in _error_line(capsys)


def test_entry_selection(tmp_path: Path, capsys) -> None:
    two = tmp_path / "two.mlir"
    two.write_text(ADD + ADD.replace("@main", "@other"))
    assert ge_run([str(two), "--random-inputs", "0"]) == 1
    assert "several entry points (main, other)" in _error_line(capsys)
    assert ge_run([str(two), "--random-inputs", "0", "--entry", "other", "-q"]) == 0
    assert ge_run([str(two), "--random-inputs", "0", "--entry", "nope"]) == 1
    assert "no graph or model named 'nope'" in _error_line(capsys)


def test_console_script_has_no_traceback(add_file: Path, tmp_path: Path) -> None:
    bad = _inputs(tmp_path, x=np.zeros((2, 3), np.float32))
    result = run_tool("ge-run", str(add_file), "--inputs", str(bad))
    assert result.returncode == 1
    assert result.stderr.strip() == ("error: missing input 'y' (tensor<3xf32>) for @main; given: x")


def test_example_runs() -> None:
    result = run_tool("ge-run", str(EXAMPLES / "conv_block.mlir"), "--random-inputs", "0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("logits: float32[1, 10]")


def test_reference_of_string_outputs_is_compared_as_text(tmp_path: Path) -> None:
    """Fuzz finding (seed 20261212): `--reference` compared string outputs with np.allclose, an
    internal error; now equal text matches whatever the widths, and a difference is one line
    naming the count and the first string."""
    graph = tmp_path / "g.mlir"
    graph.write_text(
        "graph.graph @g(%x: tensor<3x!graph.string>, %s: tensor<1x!graph.string>)"
        " -> tensor<3x!graph.string> {\n"
        "  %j = graph.string_join %x, %s : (tensor<3x!graph.string>, tensor<1x!graph.string>)"
        " -> tensor<3x!graph.string>\n"
        "  graph.net_output %j : tensor<3x!graph.string>\n}\n"
    )
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=np.array(["a", "bc", ""]), s=np.array(["-"]))
    good, bad = tmp_path / "good.npz", tmp_path / "bad.npz"
    np.savez(good, output0=np.array(["a-", "bc-", "-"], dtype="<U12"))
    np.savez(bad, output0=np.array(["a-", "bc+", "-"]))
    ok = run_tool("ge-run", str(graph), "--inputs", str(inputs), "--reference", str(good))
    assert ok.returncode == 0 and "MATCH" in ok.stdout, ok.stderr
    no = run_tool("ge-run", str(graph), "--inputs", str(inputs), "--reference", str(bad))
    assert no.returncode == 1 and "Traceback" not in no.stderr + no.stdout
    assert "'output0' differs: 1 of 3 strings, first at [1]: 'bc-', expected 'bc+'" in (
        no.stdout + no.stderr
    )


def test_collector_is_restored_after_a_run(add_file: Path, tmp_path: Path) -> None:
    """ge-run pauses and freezes the cyclic GC for its module; an in-process caller gets it
    back as it was, after a run and after an error."""
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    assert ge_run([str(add_file), "--random-inputs", "0", "-q"]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    assert ge_run([str(tmp_path / "missing.mlir")]) == 1
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_help_does_not_import_the_interpreters() -> None:
    """`ge-run --help` names ge-run's user errors without importing the interpreter (and the
    graph dialect under it) that defines RunError."""
    code = (
        "import contextlib, io, sys\n"
        "from gedialects.tools.ge_run import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('gedialects.interpreters')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
