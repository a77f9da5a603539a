"""Issue 16 part 4: `-v`/`-q` and logging in every tool and the Session, progress bars on a
terminal only, atc's start and success lines."""

from __future__ import annotations

import fcntl
import io
import logging
import os
import pty
import re
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

import pytest

from gedialects import progress
from gedialects.tools import ge_atc, ge_import, ge_opt, ge_run

ROOT = Path(__file__).resolve().parents[1]
MLP = ROOT / "tests" / "models" / "mlp.onnx"
CONV = ROOT / "examples" / "conv_block.mlir"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
TOOL_TIMEOUT = 300


@pytest.fixture(autouse=True)
def _restore_output() -> object:
    """The tools configure the `gedialects` logger and the progress switch per run; leave
    both as a fresh process has them."""
    logger = logging.getLogger("gedialects")
    handlers, level = list(logger.handlers), logger.level
    yield
    for handler in list(logger.handlers):
        if handler not in handlers:
            logger.removeHandler(handler)
    logger.setLevel(level)
    progress.enable(False)


# --------------------------------------------------------------------------------------------
# -v / -q and the logging levels
# --------------------------------------------------------------------------------------------


def test_ge_opt_is_silent_by_default_and_verbose_logs_each_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "m.mlir")
    assert ge_opt.main([str(CONV), "-p", "ge-compile", "-o", out]) == 0
    assert capsys.readouterr().err == ""
    assert ge_opt.main([str(CONV), "-p", "ge-compile", "-o", out, "-v"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"ge-opt: info: parsed {CONV} in ")
    ran = [line.split()[3] for line in err if line.startswith("ge-opt: info: ran ")]
    from gedialects.passes.pipelines import CompilePipelinePass

    assert ran == [p.name for p in CompilePipelinePass().passes() if p.name != "ge-sink-loop"]
    assert all(line.endswith(" s") for line in err)


def test_double_verbose_names_the_logger(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "m.mlir")
    assert ge_opt.main([str(CONV), "-p", "ge-infer-shapes", "-o", out, "-vv"]) == 0
    err = capsys.readouterr().err
    assert "ge-opt: info: gedialects.passes.pipelines: ran ge-infer-shapes in " in err


def test_ge_run_debug_lists_the_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [str(CONV), "--random-inputs", "0"]
    assert ge_run.main([*argv, "-v"]) == 0
    err = capsys.readouterr().err
    assert "ge-run: info: ran @" in err and "debug" not in err
    assert ge_run.main([*argv, "-vv"]) == 0
    err = capsys.readouterr().err
    assert "ge-run: debug: gedialects.tools.ge_run: input '" in err


def test_quiet_prints_only_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "m.mlir")
    assert ge_opt.main([str(CONV), "-p", "ge-compile", "-o", out, "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    assert ge_import.main([str(MLP), "-q", "-o", str(tmp_path / "i.mlir")]) == 0
    assert capsys.readouterr() == ("", "")
    # ge-run's -q also drops the output summary, as before; the verdict stays
    assert ge_run.main([str(CONV), "--random-inputs", "0", "-q"]) == 0
    assert capsys.readouterr() == ("", "")
    assert ge_opt.main([str(tmp_path / "missing.mlir"), "-q"]) == 1
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("main", [ge_opt.main, ge_run.main, ge_import.main, ge_atc.main])
def test_quiet_and_verbose_together_is_a_usage_error(
    main: object, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = {ge_atc.main: [f"--model={MLP}", "--output=o"], ge_import.main: [str(MLP)]}
    assert callable(main)
    assert main([*argv.get(main, [str(CONV)]), "-q", "-v"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: -q/--quiet and -v/--verbose contradict each other")
    assert err.count("\n") == 1


def test_ge_opt_version_keeps_its_long_spelling(capsys: pytest.CaptureFixture[str]) -> None:
    """xdsl-opt spells --version `-v` too; in ge-opt `-v` is --verbose, as in every tool."""
    with pytest.raises(SystemExit):
        ge_opt.main(["--version"])
    assert capsys.readouterr().out.startswith("ge-opt (gedialects) built on xdsl")


def test_session_logs_through_the_gedialects_logger(caplog: pytest.LogCaptureFixture) -> None:
    import numpy as np

    from gedialects import Session

    session = Session()
    with caplog.at_level(logging.DEBUG, logger="gedialects"):
        session.add_graph(1, str(MLP))
        session.run_graph(1, dict(np.load(ROOT / "tests" / "models" / "mlp.inputs.npz")))
    by_logger = {(r.name, r.levelname, r.getMessage().split(" in ")[0]) for r in caplog.records}
    assert ("gedialects.session", "INFO", "graph 1: added") in by_logger
    assert ("gedialects.session", "INFO", "graph 1: compiled") in by_logger
    assert ("gedialects.session", "DEBUG", "graph 1: ran") in by_logger
    assert ("gedialects.passes.pipelines", "INFO", "ran ge-plan-memory") in by_logger
    assert any(r.name == "gedialects.frontend.onnx.importer" for r in caplog.records)
    assert any(r.name == "gedialects.interpreters.run" for r in caplog.records)


def test_a_library_user_gets_no_log_output_unless_asked() -> None:
    """The package's NullHandler: without one, Python's last-resort handler prints warnings
    of an unconfigured library on stderr."""
    code = (
        "import logging, gedialects; "
        "logging.getLogger('gedialects.session').warning('not for the user')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=60
    )
    assert done.returncode == 0 and done.stderr == ""


# --------------------------------------------------------------------------------------------
# ge-atc's start and success lines (GE api/atc/main_impl.cc)
# --------------------------------------------------------------------------------------------


def test_ge_atc_prints_atc_start_and_success_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ge_atc.main([f"--model={MLP}", f"--output={tmp_path / 'm'}"]) == 0
    assert capsys.readouterr() == (
        "ATC start working now, please wait for a moment.\n"
        "ATC run success, welcome to the next use.\n",
        "",
    )
    assert ge_atc.main([f"--model={MLP}", f"--output={tmp_path / 'q'}", "-q"]) == 0
    assert capsys.readouterr() == ("", "")


def test_ge_atc_lines_go_to_stderr_when_the_model_goes_to_stdout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--output=-` makes stdout the model: atc's lines move to stderr, as ge-run's words do."""
    assert ge_atc.main([f"--model={MLP}", "--output=-", "--emit=mlir"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("builtin.module {") and "ATC" not in out
    assert err == (
        "ATC start working now, please wait for a moment.\n"
        "ATC run success, welcome to the next use.\n"
    )


def test_failed_ge_atc_prints_no_success_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ge_atc.main([f"--model={tmp_path / 'no.onnx'}", f"--output={tmp_path / 'm'}"]) == 1
    out, err = capsys.readouterr()
    assert out == "ATC start working now, please wait for a moment.\n"
    assert err.startswith("error: ") and err.count("\n") == 1


# --------------------------------------------------------------------------------------------
# Progress bars: on a terminal only, after the delay, never with -q
# --------------------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _wait_drawn(bar: progress.Task) -> bool:
    deadline = time.monotonic() + 20
    while not bar.drawn and time.monotonic() < deadline:
        time.sleep(0.01)
    return bar.drawn


def test_a_task_draws_on_a_terminal_after_the_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("GE_PROGRESS_DELAY", "0")
    progress.enable()
    with progress.task("importing m.onnx", total=4, unit="nodes") as bar:
        assert _wait_drawn(bar)
        bar.advance(4)
        with progress.task("nested") as inner:  # one bar at a time
            time.sleep(0.05)
    assert not inner.drawn
    assert "importing m.onnx" in terminal.getvalue()


def test_a_short_task_draws_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.delenv("GE_PROGRESS_DELAY", raising=False)
    progress.enable()
    with progress.task("compiling", total=3) as bar:
        bar.step("ge-infer-shapes")
        bar.advance(3)
    time.sleep(0.1)
    assert not bar.drawn and terminal.getvalue() == ""


def test_no_bar_when_disabled_or_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GE_PROGRESS_DELAY", "0")
    for stream, on in ((io.StringIO(), True), (_Terminal(), False)):
        monkeypatch.setattr(sys, "stderr", stream)
        progress.enable(on)
        with progress.task("running @main") as bar:
            time.sleep(0.2)
        assert not bar.drawn and stream.getvalue() == ""


@pytest.mark.parametrize(("text", "seconds"), [("0.5", 0.5), ("", 2.0), ("x", 2.0), ("-1", 2.0)])
def test_progress_delay_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, text: str, seconds: float
) -> None:
    monkeypatch.setenv("GE_PROGRESS_DELAY", text)
    assert progress.delay() == seconds


def _stderr_on_a_pty(argv: list[str], delay: str = "0") -> tuple[int, str, bytes]:
    """Runs a tool with stderr on a pseudo-terminal: exit code, stdout, what the terminal got."""
    master, slave = pty.openpty()
    # a terminal of 160 columns (a new pty has none: rich would assume 80 and cut the text)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 160, 0, 0))
    with tempfile.TemporaryFile() as stdout:  # a pipe could fill while the terminal is read
        proc = subprocess.Popen(
            argv, stdout=stdout, stderr=slave, env={**ENV, "GE_PROGRESS_DELAY": delay}
        )
        os.close(slave)
        screen = bytearray()
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            screen += data
        os.close(master)
        code = proc.wait(timeout=TOOL_TIMEOUT)
        stdout.seek(0)
        return code, stdout.read().decode(), bytes(screen)


def _plain(screen: bytes) -> str:
    """The terminal's text without its escape sequences (colours, cursor moves)."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.decode(errors="replace"))


def _atc(tmp_path: Path, *extra: str) -> list[str]:
    module = [sys.executable, "-m", "gedialects.tools.ge_atc"]
    return [*module, f"--model={MLP}", f"--output={tmp_path / 'm'}", *extra]


def test_ge_atc_draws_a_compile_bar_on_a_terminal(tmp_path: Path) -> None:
    code, out, screen = _stderr_on_a_pty(_atc(tmp_path))
    assert code == 0 and out.endswith("ATC run success, welcome to the next use.\n")
    text = _plain(screen)
    assert "compiling: ge-" in text and re.search(r"\d+/\d+ passes", text)
    assert "━" in text  # rich's bar


def test_ge_atc_draws_nothing_with_quiet_on_a_terminal(tmp_path: Path) -> None:
    code, out, screen = _stderr_on_a_pty(_atc(tmp_path, "-q"))
    assert code == 0 and out == "" and screen == b""


def test_short_work_draws_nothing_on_a_terminal(tmp_path: Path) -> None:
    """Work shorter than the delay (30 s here, so that a loaded machine cannot make the MLP's
    compile long enough) leaves the terminal untouched."""
    code, _, screen = _stderr_on_a_pty(_atc(tmp_path), delay="30")
    assert code == 0 and screen == b""


def test_ge_atc_draws_nothing_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    done = subprocess.run(
        _atc(tmp_path),
        capture_output=True,
        text=True,
        env={**ENV, "GE_PROGRESS_DELAY": "0"},
        timeout=TOOL_TIMEOUT,
    )
    assert done.returncode == 0 and done.stderr == ""


def test_ge_opt_start_up_does_not_import_rich() -> None:
    code = (
        "import sys, gedialects.tools.ge_opt as m; sys.argv = ['ge-opt', sys.argv[1]]; "
        "rc = m.main([sys.argv[1], '-p', 'ge-infer-shapes']); "
        "print(rc, 'rich' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(CONV)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=TOOL_TIMEOUT,
    )
    assert done.stdout.splitlines()[-1] == "0 False", done.stderr


def test_every_tool_counts_verbose_and_takes_quiet() -> None:
    """One definition of -v/-q (cli.add_verbosity) in every tool's parser."""
    atc = [f"--model={MLP}", "--output=o"]
    for parser, argv in (
        (ge_run._parser(), [str(CONV)]),
        (ge_import._parser(), [str(MLP)]),
        (ge_atc._parser(), atc),
    ):
        assert parser.parse_args([*argv, "-vv"]).verbose == 2
        assert parser.parse_args([*argv, "--verbose"]).verbose == 1
        assert parser.parse_args([*argv, "--quiet"]).quiet
    assert ge_opt.GeOptMain(args=[str(CONV), "-vv"]).args.verbose == 2
    assert ge_opt.GeOptMain(args=[str(CONV), "--quiet"]).args.quiet


def test_ge_import_draws_a_bar_over_the_nodes_on_a_terminal(tmp_path: Path) -> None:
    import onnx
    from onnx import TensorProto
    from onnx import helper as h

    count = 3000
    nodes = [h.make_node("Relu", [f"v{i}"], [f"v{i + 1}"]) for i in range(count)]
    graph = h.make_graph(
        nodes,
        "chain",
        [h.make_tensor_value_info("v0", TensorProto.FLOAT, [4])],
        [h.make_tensor_value_info(f"v{count}", TensorProto.FLOAT, [4])],
    )
    path = tmp_path / "chain.onnx"
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]), path)
    argv = [sys.executable, "-m", "gedialects.tools.ge_import", str(path)]
    code, out, screen = _stderr_on_a_pty([*argv, "-o", str(tmp_path / "c.mlir")])
    assert code == 0 and out == ""
    text = _plain(screen)
    assert "importing chain.onnx" in text and f"/{count} nodes" in text


def test_stdout_stays_stdout_while_a_bar_is_shown(tmp_path: Path) -> None:
    """rich's bar redirects stdout into its console on stderr unless told not to: the IR
    `--print-between-passes` prints while the bar is up must reach stdout whole."""
    argv = [sys.executable, "-m", "gedialects.tools.ge_opt", str(CONV), "-p", "ge-compile"]
    code, out, screen = _stderr_on_a_pty([*argv, "--print-between-passes"])
    assert code == 0
    from gedialects.passes.pipelines import CompilePipelinePass

    assert out.count("IR after ") == len(CompilePipelinePass().passes()) - 1
    assert "IR after" not in _plain(screen) and "running passes" in _plain(screen)
