"""Functional control flow (graph.if / graph.while / graph.for): graph-level runs, bounds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gedialects.interpreters.run import RunError, run
from tests.conftest import parse, run_tool

COND_BODY = """
graph.graph @cond(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %x: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %y = graph.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %j, %y : tensor<i32>, tensor<2xf32>
}
graph.graph @stuck(%i: tensor<i32>, %x: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
  graph.net_output %i, %x : tensor<i32>, tensor<2xf32>
}
graph.graph @then(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @else(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.neg %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @fbody(%v: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %f = graph.cast %v dst_type f32 : (tensor<i32>) -> tensor<f32>
  %y = graph.add %x, %f : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
"""


def _main(body: str, inputs: str, outputs: str) -> str:
    return COND_BODY + f"graph.graph @main({inputs}) -> ({outputs}) {{\n{body}\n}}\n"


IF_WHILE = _main(
    """
  %a = graph.if %c, %x then_branch @then else_branch @else
      : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  %r, %y = graph.while %i, %a cond @cond body @body
      : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  graph.net_output %r, %y : tensor<i32>, tensor<2xf32>""",
    "%i: tensor<i32>, %x: tensor<2xf32>, %c: tensor<i1>",
    'tensor<i32> {node_name = "n"}, tensor<2xf32> {node_name = "w"}',
)


def _for(start: int, limit: int, delta: int) -> str:
    return _main(
        f"""
  %s = graph.const dense<{start}> : tensor<i32>
  %l = graph.const dense<{limit}> : tensor<i32>
  %d = graph.const dense<{delta}> : tensor<i32>
  %f = graph.for %s, %l, %d, %x body @fbody
      : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %f : tensor<2xf32>""",
        "%x: tensor<2xf32>",
        'tensor<2xf32> {node_name = "f"}',
    )


X = np.array([1.0, -2.0], np.float32)


@pytest.mark.parametrize(
    ("cond", "start", "expected"),
    [
        (True, 0, [8.0, 0.0]),  # relu, then 3 doublings
        (False, 0, [-8.0, 16.0]),  # neg, then 3 doublings
        (True, 5, [1.0, 0.0]),  # cond false at entry: the inputs are the outputs
    ],
)
def test_if_and_while_run_at_graph_level(cond: bool, start: int, expected: list[float]) -> None:
    out = run(
        parse(IF_WHILE), {"i": np.array(start, np.int32), "x": X, "c": np.array(cond)}, "main"
    )
    np.testing.assert_array_equal(out["w"], np.array(expected, np.float32))
    assert int(out["n"]) == max(start, 3)


@pytest.mark.parametrize(
    ("start", "limit", "delta", "added"),
    [(1, 7, 2, 1 + 3 + 5), (0, 0, 1, 0), (5, 0, -2, 5 + 3 + 1), (0, 3, 1, 0 + 1 + 2)],
)
def test_for_runs_ge_forpass_trip_count(start: int, limit: int, delta: int, added: int) -> None:
    out = run(parse(_for(start, limit, delta)), {"x": X}, "main")
    np.testing.assert_array_equal(out["f"], X + np.float32(added))


def test_cond_truthiness_is_ge_hybrid_executor_s() -> None:
    from gedialects.interpreters.control import truth

    assert truth(np.array(2, np.int32)) and not truth(np.array(0.0, np.float32))
    assert truth(np.zeros((2,), np.float32))  # non-scalar: has elements
    assert not truth(np.zeros((0,), np.float32))


def test_while_over_the_loop_bound_is_a_one_line_error() -> None:
    with pytest.raises(RunError, match=r"ran more than 2 iterations .*--max-loop-iterations"):
        run(
            parse(IF_WHILE),
            {"i": np.array(0, np.int32), "x": X, "c": np.array(True)},
            "main",
            max_loop_iterations=2,
        )


def test_for_with_zero_delta_stops_at_the_bound() -> None:
    with pytest.raises(RunError, match=r"'graph.for' .* ran more than 10 iterations"):
        run(parse(_for(0, 3, 0)), {"x": X}, "main", max_loop_iterations=10)


def test_non_terminating_while_without_progress_is_an_error_not_a_hang() -> None:
    text = IF_WHILE.replace("body @body", "body @stuck")
    with pytest.raises(RunError, match="makes no progress: iteration 0 gives back its"):
        run(parse(text), {"i": np.array(0, np.int32), "x": X, "c": np.array(True)}, "main")


def test_ge_run_runs_control_flow_and_refuses_a_runaway_loop(tmp_path: Path) -> None:
    src = tmp_path / "cf.mlir"
    src.write_text(IF_WHILE)
    np.savez(tmp_path / "in.npz", i=np.array(0, np.int32), x=X, c=np.array(False))
    ok = run_tool(
        "ge-run",
        str(src),
        "--entry",
        "main",
        "--inputs",
        str(tmp_path / "in.npz"),
        "-q",
        "-o",
        str(tmp_path / "out.npz"),
    )
    assert ok.returncode == 0, ok.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["w"], [-8.0, 16.0])
    bad = run_tool(
        "ge-run",
        str(src),
        "--entry",
        "main",
        "--inputs",
        str(tmp_path / "in.npz"),
        "--max-loop-iterations",
        "1",
    )
    assert bad.returncode == 1
    assert bad.stderr.count("\n") == 1 and "ran more than 1 iterations" in bad.stderr
    assert "Traceback" not in bad.stderr
    neg = run_tool("ge-run", str(src), "--entry", "main", "--max-loop-iterations", "-1")
    assert neg.returncode == 1 and "--max-loop-iterations must be" in neg.stderr


GROWING_WHILE = """
graph.graph @cond(%i: tensor<?xi32>) -> tensor<i1> {
  %c = graph.const dense<true> : tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<?xi32>) -> tensor<?xi32> {
  %j = graph.concat_d %i, %i concat_dim 0 : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  graph.net_output %j : tensor<?xi32>
}
graph.graph @main(%i: tensor<1xi32>) -> tensor<?xi32> {
  %r = graph.while %i cond @cond body @body : (tensor<1xi32>) -> tensor<?xi32>
  graph.net_output %r : tensor<?xi32>
}
"""


def test_while_doubling_its_carried_value_stops_at_the_memory_budget(tmp_path: Path) -> None:
    """make fuzz seed 20261202: a While concatenating its value with itself ran until numpy's
    MemoryError (1 GiB at iteration 28); the budget refuses the iteration whose values before
    and after it (held at once) outgrow the limit (seed 20261204: checking the values after an
    iteration alone let the peak reach 3x the limit)."""
    from gedialects import budget

    with budget.max_memory_set("1M"), pytest.raises(RunError, match=r"loop-carried values of"):
        run(parse(GROWING_WHILE), {"i": np.array([1], np.int32)}, "main")
    src = tmp_path / "grow.mlir"
    src.write_text(GROWING_WHILE)
    bad = run_tool("ge-run", str(src), "--random-inputs", "0", "--max-memory", "1M")
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1, bad.stderr
    want = "before and after iteration 17 needs 1.5 MiB, over the memory limit of 1.0 MiB"
    assert want in bad.stderr


@pytest.mark.parametrize("cond", [0.5, 0.0, float("nan"), -3.0])
def test_normalize_conds_keeps_the_branch_taken(cond: float) -> None:
    """GE's CondPass casts a float cond to int32 (0.5 -> 0, else); ge-normalize-conds keeps
    the interpreter's truthiness, so the numbers before and after the pass are the same."""
    from xdsl.passes import PassPipeline

    from gedialects import make_context
    from gedialects.passes.normalize_conds import NormalizeCondsPass

    text = IF_WHILE.replace("%c: tensor<i1>", "%c: tensor<f32>").replace(
        "(tensor<i1>, tensor<2xf32>) -> tensor<2xf32>",
        "(tensor<f32>, tensor<2xf32>) -> tensor<2xf32>",
    )
    inputs = {"i": np.array(0, np.int32), "x": X, "c": np.array(cond, np.float32)}
    module = parse(text)
    before = run(module, inputs, "main")
    PassPipeline((NormalizeCondsPass(),)).apply(make_context(), module)
    module.verify()
    assert "graph.logical_not" in str(module) and "graph.cast" in str(module)
    after = run(module, inputs, "main")
    np.testing.assert_array_equal(before["w"], after["w"])
    expected = [8.0, 0.0] if cond != 0.0 else [-8.0, 16.0]
    np.testing.assert_array_equal(after["w"], expected)
