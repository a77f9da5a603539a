"""The conventions every tool shares (issue 16.5): `-` is stdin and `-o -` stdout, `-t` offers
only targets that work, `ge-run` reads `.onnx`, a reader that goes away (`| head`) ends the
tool quietly, Chrome trace slices on one stream never overlap, and `ge-import` names every
unsupported op of a model in one message. Run through the installed tools, as users run them."""

from __future__ import annotations

import io
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from gedialects.interpreters.timeline import TaskSpan, Timeline
from tests.conftest import BIN, ROOT

MODELS = ROOT / "tests" / "models"

GRAPH = """graph.graph @g(%x: tensor<4xf32>) -> (tensor<4xf32> {node_name = "y"}) {
  %r = graph.relu %x {node_name = "r"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
"""


def tool(*args: str, stdin: bytes = b"", cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("GE_DEBUG", None)
    return subprocess.run(
        [str(BIN / args[0]), *args[1:]],
        input=stdin,
        capture_output=True,
        cwd=cwd or ROOT,
        env=env,
        timeout=120,
    )


def ok(result: subprocess.CompletedProcess) -> bytes:
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout


# -- stdin and stdout -----------------------------------------------------------------------


def test_ge_opt_dash_reads_stdin_and_dash_o_writes_stdout(tmp_path: Path) -> None:
    out = ok(tool("ge-opt", "-", "-o", "-", stdin=GRAPH.encode(), cwd=tmp_path))
    assert b"graph.relu %x" in out
    assert not (tmp_path / "-").exists()  # was a file named `-`
    bad = tool("ge-opt", "-", stdin=b"graph.graph @g(", cwd=tmp_path)
    assert bad.returncode == 1
    assert bad.stderr.decode().startswith("<stdin>:1:"), bad.stderr


def test_ge_opt_tells_onnx_and_binary_ir_on_stdin_by_their_first_bytes(tmp_path: Path) -> None:
    onnx_bytes = (MODELS / "mlp.onnx").read_bytes()
    imported = ok(tool("ge-opt", "-", stdin=onnx_bytes))
    assert imported == ok(tool("ge-opt", str(MODELS / "mlp.onnx")))
    binary = tmp_path / "g.gebc"
    ok(tool("ge-opt", "-", "-o", str(binary), stdin=GRAPH.encode()))
    assert b"graph.relu %x" in ok(tool("ge-opt", "-", stdin=binary.read_bytes()))


def test_ge_opt_stdin_chain_to_ge_run(tmp_path: Path) -> None:
    compiled = ok(tool("ge-opt", "-", "-p", "ge-compile", stdin=GRAPH.encode()))
    run = ok(tool("ge-run", "-", "--random-inputs", "0", stdin=compiled))
    assert run.decode().startswith("y: float32[4]")


def test_ge_import_dash_reads_the_model_from_stdin() -> None:
    data = (MODELS / "mlp.onnx").read_bytes()
    piped = ok(tool("ge-import", "-", "-o", "-", stdin=data))
    named = ok(tool("ge-import", str(MODELS / "mlp.onnx")))
    assert piped == named
    bad = tool("ge-import", "-", stdin=b"\x08\x07garbage")
    assert bad.returncode == 1
    assert bad.stderr.decode().startswith("error: '<stdin>' is not an ONNX model"), bad.stderr


def test_ge_atc_reads_stdin_and_writes_the_om_to_stdout(tmp_path: Path) -> None:
    data = (MODELS / "mlp.onnx").read_bytes()
    om = ok(tool("ge-atc", "--model=-", "--output=-", "--emit=om", stdin=data, cwd=tmp_path))
    assert os.listdir(tmp_path) == []
    ref = MODELS / "mlp.expected.npz"
    inputs = MODELS / "mlp.inputs.npz"
    run = ok(tool("ge-run", "-", "--inputs", str(inputs), "--reference", str(ref), stdin=om))
    assert b"MATCH: all 1 outputs equal" in run
    text = ok(tool("ge-atc", "--model=-", "--output=-", "--emit=mlir", stdin=data, cwd=tmp_path))
    assert text.startswith(b"builtin.module {\n  ascend.model @")
    both = tool("ge-atc", "--model=-", "--output=-", stdin=data, cwd=tmp_path)
    assert both.returncode == 1
    assert both.stderr.decode() == (
        "error: --output=- writes one file to stdout: give --emit=om or --emit=mlir with it "
        "(see 'ge-atc --help')\n"
    )
    assert os.listdir(tmp_path) == []


def test_ge_run_writes_npz_to_stdout_and_its_words_to_stderr(tmp_path: Path) -> None:
    model = tmp_path / "g.mlir"
    model.write_text(GRAPH)
    result = tool("ge-run", str(model), "--random-inputs", "0", "-o", "-", cwd=tmp_path)
    with np.load(io.BytesIO(ok(result))) as data:
        assert data.files == ["y"]
        assert (data["y"] >= 0).all()
    assert result.stderr.decode().startswith("y: float32[4]")
    assert not (tmp_path / "-.npz").exists()
    both = tool("ge-run", str(model), "--random-inputs", "0", "-o", "-", "--trace", "-")
    assert both.returncode == 1
    assert "both write to stdout" in both.stderr.decode()


# -- ge-run reads ONNX ------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["mlp", "cnn"])
def test_ge_run_reads_onnx_models(case: str) -> None:
    args = ["--inputs", str(MODELS / f"{case}.inputs.npz")]
    args += ["--reference", str(MODELS / f"{case}.expected.npz"), "--atol", "1e-4"]
    by_name = ok(tool("ge-run", str(MODELS / f"{case}.onnx"), *args))
    assert b"MATCH" in by_name
    piped = ok(tool("ge-run", "-", *args, stdin=(MODELS / f"{case}.onnx").read_bytes()))
    assert piped == by_name


def test_ge_run_onnx_errors_are_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"\x08\x07not a model")
    result = tool("ge-run", str(broken), "--random-inputs", "0")
    assert result.returncode == 1
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: '{broken}' is not an ONNX model")


# -- -t: only targets that work ---------------------------------------------------------------


def test_ge_opt_offers_only_working_targets() -> None:
    for target in ("llvm", "riscv-asm", "x86-asm"):
        result = tool("ge-opt", "-", "-t", target, stdin=GRAPH.encode())
        assert result.returncode == 1
        assert result.stderr.decode() == (
            f"error: argument -t/--target: invalid choice: '{target}' (choose from mlir, dot) "
            "(see 'ge-opt --help')\n"
        )
    dot = ok(tool("ge-opt", "-", "-t", "dot", stdin=GRAPH.encode()))
    assert dot.startswith(b"digraph module {") and b'label="Relu\\nr\\n4xf32"' in dot


# -- broken pipes -------------------------------------------------------------------------------


def _read_a_little_then_close(*args: str, stdin: bytes = b"") -> tuple[int, bytes]:
    env = dict(os.environ)
    env.pop("GE_DEBUG", None)
    proc = subprocess.Popen(
        [str(BIN / args[0]), *args[1:]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    proc.stdout.read(16)
    proc.stdout.close()  # as `| head -c 16` does
    err = proc.stderr.read()
    return proc.wait(timeout=120), err


def _long_graph(n: int) -> str:
    lines = ["graph.graph @g(%x: tensor<4xf32>) -> tensor<4xf32> {"]
    prev = "%x"
    for i in range(n):
        lines.append(f"  %r{i} = graph.relu {prev} : (tensor<4xf32>) -> tensor<4xf32>")
        prev = f"%r{i}"
    lines += [f"  graph.net_output {prev} : tensor<4xf32>", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "args",
    [
        ("ge-opt", "-", "--split-input-file"),
        ("ge-opt", "-", "-p", "ge-fold-identity,cse", "--print-between-passes"),
        ("ge-opt", "-", "-t", "dot"),
    ],
    ids=["split-input-file", "print-between-passes", "dot"],
)
def test_broken_pipe_ends_quietly(args: tuple[str, ...]) -> None:
    chunk = _long_graph(3000)
    text = "\n// -----\n".join([chunk] * 4) if "--split-input-file" in args else chunk
    code, err = _read_a_little_then_close(*args, stdin=text.encode())
    assert err == b"", err.decode()  # was `error: [Errno 32] Broken pipe`
    assert code in (0, 1)


def test_broken_pipe_of_ge_import_ends_quietly() -> None:
    code, err = _read_a_little_then_close(
        "ge-import", "-", stdin=(MODELS / "transformer.onnx").read_bytes()
    )
    assert err == b"", err.decode()
    assert code in (0, 1)


# -- Chrome trace -------------------------------------------------------------------------------


def _slices_overlapping(trace: dict) -> list[tuple[dict, dict]]:
    """Pairs of complete events on one track where the first ends after the next starts, in
    integer nanoseconds (as Perfetto reads microsecond floats)."""
    tracks: dict[int, list[dict]] = {}
    for event in trace["traceEvents"]:
        if event["ph"] == "X":
            tracks.setdefault(event["tid"], []).append(event)
    bad = []
    for events in tracks.values():
        events.sort(key=lambda e: e["ts"])
        for a, b in itertools.pairwise(events):
            if round(a["ts"] * 1000) + round(a["dur"] * 1000) > round(b["ts"] * 1000):
                bad.append((a, b))
    return bad


def test_trace_rounds_ends_not_durations_so_slices_never_overlap() -> None:
    # start 0.0006 and duration 1.0006 rounded apart gave ts 0.001 + dur 1.001 = 1.002, past
    # the next slice's ts 1.001 (its start 1.0012 rounded).
    first = TaskSpan(0, 0, "a", "Relu", "AIcoreEngine", 0.0006, 1.0006)
    second = TaskSpan(0, 1, "b", "Relu", "AIcoreEngine", first.end, 1.0)
    trace = Timeline("m", {0: "AIcoreEngine"}, [first, second]).chrome_trace()
    assert _slices_overlapping(trace) == []
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [(e["ts"], e["dur"]) for e in slices] == [(0.001, 1.0), (1.001, 1.0)]


def test_chrome_trace_of_a_compiled_model_has_no_overlapping_slices(tmp_path: Path) -> None:
    # mlp's trace had one slice overlapping the next on its stream by 0.001 us.
    om = tmp_path / "mlp.om"
    ok(tool("ge-atc", f"--model={MODELS / 'mlp.onnx'}", f"--output={om}", "--emit=om"))
    trace_path = tmp_path / "trace.json"
    inputs = str(MODELS / "mlp.inputs.npz")
    ok(tool("ge-run", str(om), "--inputs", inputs, "--trace", str(trace_path), "-q"))
    trace = json.loads(trace_path.read_text())
    slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(slices) >= 5
    assert _slices_overlapping(trace) == []
    piped = json.loads(ok(tool("ge-run", str(om), "--inputs", inputs, "--trace", "-", "-q")))
    assert piped == trace


# -- ge-import names every unsupported op ---------------------------------------------------


def _unsupported(name: str, output: str) -> onnx.NodeProto:
    """Bernoulli (opset 15): random draws, which the importer does not convert."""
    return helper.make_node("Bernoulli", ["x"], [output], name=name)


def test_ge_import_lists_every_unsupported_op_in_one_message(tmp_path: Path) -> None:
    nodes = [
        _unsupported("t1", "a"),
        _unsupported("t2", "b"),
        _unsupported("", "c"),
        helper.make_node("Swizzle", ["x"], ["d"], domain="com.example"),
        helper.make_node("Identity", ["x"], ["e"], name="fine"),
    ]
    graph = helper.make_graph(
        nodes,
        "net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info(v, TensorProto.FLOAT, None) for v in "abcd"]
        + [helper.make_tensor_value_info("e", TensorProto.FLOAT, [4])],
    )
    opsets = [helper.make_opsetid("", 20), helper.make_opsetid("com.example", 1)]
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=opsets), path)
    result = tool("ge-import", str(path))
    assert result.returncode == 1
    assert result.stderr.decode() == (
        f"error: '{path}': 4 nodes use unsupported ONNX 2 op types (opset 20): "
        "Bernoulli (3 nodes 't1', 't2', 'Bernoulli_0'); "
        "com.example::Swizzle (node 'Swizzle_1')\n"
    )
    assert result.stdout == b""


def test_unsupported_ops_inside_subgraphs_are_listed_too() -> None:
    from gedialects.frontend.onnx.importer import unsupported_nodes

    body = helper.make_graph(
        [_unsupported("inner", "y")], "then", [], [helper.make_tensor_value_info("y", 1, None)]
    )
    node = helper.make_node("If", ["cond"], ["z"], name="branch", then_branch=body)
    graph = helper.make_graph([node, _unsupported("outer", "w")], "g", [], [])
    assert unsupported_nodes(graph) == {"Bernoulli": ["branch/then_branch/inner", "outer"]}


def test_unnamed_unsupported_nodes_of_two_branches_are_told_apart_by_their_path() -> None:
    """Both branches' unnamed node is `Bernoulli_0` in its own graph: the listing said
    `(2 nodes 'SequenceConstruct_0', 'SequenceConstruct_0')`."""
    from gedialects.frontend.onnx.importer import unsupported_nodes

    def branch(name: str) -> onnx.GraphProto:
        out = helper.make_tensor_value_info("y", 1, None)
        return helper.make_graph([_unsupported("", "y")], name, [], [out])

    node = helper.make_node(
        "If", ["cond"], ["z"], then_branch=branch("then"), else_branch=branch("else")
    )
    graph = helper.make_graph([node], "g", [], [])
    assert unsupported_nodes(graph) == {
        "Bernoulli": [
            "If_0/else_branch/Bernoulli_0",
            "If_0/then_branch/Bernoulli_0",
        ]
    }


LEFT_AT_EXIT = """
import atexit, gc, sys
atexit.register(lambda: print(gc.get_freeze_count(), file=sys.stderr))  # runs after the tool's
from gedialects.tools import ge_import
frozen = gc.get_freeze_count()
code = ge_import.main([sys.argv[1], "-o", sys.argv[2]])
assert gc.get_freeze_count() == frozen, "frozen before the exit"
sys.exit(code)
"""


def test_a_tool_leaves_its_heap_to_the_os_at_exit_only(tmp_path: Path) -> None:
    """`cli.leave_heap_at_exit`: the interpreter's last collection walked and freed every op
    of the module (10 s of ge-atc at 100k nodes); at exit everything is frozen out of its
    reach, and not before (the tests call the tools in-process), and the output is whole."""
    out = tmp_path / "cnn.mlir"
    done = subprocess.run(
        [sys.executable, "-c", LEFT_AT_EXIT, str(MODELS / "cnn.onnx"), str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stderr.split()[-1]) > 10_000, done.stderr
    text = out.read_text()
    assert text.startswith("builtin.module") and text.endswith("}\n"), text[-200:]
