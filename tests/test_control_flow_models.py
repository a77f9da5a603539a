"""The three PyTorch control-flow models of issue 17 (tests/models/, made by
`tests/models/export_control_flow_models.py` in a torch venv of its own) reproduce onnxruntime's
outputs at graph level, in memory and through `ge-import` -> .mlir -> `ge-opt` -> .mlir ->
`ge-run`. Needs neither torch nor onnxruntime: the models, inputs and outputs are checked in."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gedialects.frontend.onnx import import_model
from gedialects.graph import GraphOp
from gedialects.graph.control import IfOp, WhileOp
from gedialects.interpreters.run import run
from tests.conftest import ROOT, run_tool
from tests.test_models import ATOL, RTOL, assert_outputs_match, expected_of, inputs_of

MODELS = ROOT / "tests" / "models"
CASES = {
    "branch_then": "branch",
    "branch_else": "branch",
    "rnn_loop": "rnn_loop",
    "rnn_loop_b3_t2": "rnn_loop",
    "cumulative": "cumulative",
    "cumulative_t8": "cumulative",
}
# what each model's control flow imports as (the ONNX If, Loop and Scan)
CONTROL = {"branch": IfOp, "rnn_loop": WhileOp, "cumulative": WhileOp}


def test_checked_in_control_flow_models_are_small_and_complete() -> None:
    for model in CONTROL:
        assert (MODELS / f"{model}.onnx").stat().st_size < 16 << 10, model
    for case in CASES:
        assert (MODELS / f"{case}.inputs.npz").is_file(), case
        assert (MODELS / f"{case}.expected.npz").is_file(), case


@pytest.mark.parametrize("model", sorted(CONTROL))
def test_control_flow_model_imports_as_functional_control_flow(model: str) -> None:
    module = import_model(MODELS / f"{model}.onnx")
    main = next(op for op in module.ops if isinstance(op, GraphOp))  # the model's graph
    ops = [op for op in main.body.block.ops if isinstance(op, IfOp | WhileOp)]
    assert len(ops) == 1 and isinstance(ops[0], CONTROL[model])


@pytest.mark.parametrize("case", sorted(CASES))
def test_control_flow_model_matches_onnxruntime_at_graph_level(case: str) -> None:
    got = run(import_model(MODELS / f"{CASES[case]}.onnx"), inputs_of(case))
    assert_outputs_match(got, expected_of(case))


def test_branch_cases_take_both_branches() -> None:
    """The two branch cases differ in the sign of `x.sum()`: each takes another branch."""
    assert inputs_of("branch_then")["x"].sum() > 0 > inputs_of("branch_else")["x"].sum()


def test_rnn_loop_trip_count_follows_the_input() -> None:
    """The trip count is `x.size(0)`: feeding fewer steps gives the state after fewer steps
    (the first step of the 6-step case against the 1-step run of its first slice)."""
    module = import_model(MODELS / "rnn_loop.onnx")
    inputs = inputs_of("rnn_loop")
    one = run(module, {"x": inputs["x"][:1], "h0": inputs["h0"]})["h"]
    two = run(module, {"x": inputs["x"][1:2], "h0": one})["h"]
    both = run(module, {"x": inputs["x"][:2], "h0": inputs["h0"]})["h"]
    np.testing.assert_allclose(both, two, rtol=1e-6)
    empty = run(module, {"x": inputs["x"][:0], "h0": inputs["h0"]})["h"]
    np.testing.assert_array_equal(empty, inputs["h0"])  # zero iterations: h0 itself


@pytest.mark.parametrize("case", ["branch_else", "rnn_loop_b3_t2", "cumulative_t8"])
def test_control_flow_model_through_the_tools(case: str, tmp_path: Path) -> None:
    """ge-import -> .mlir -> ge-opt (shape inference, cond normalisation, folding) -> .mlir
    -> ge-run --reference, to onnxruntime's numbers."""
    graph_ir, opt_ir = tmp_path / "g.mlir", tmp_path / "o.mlir"
    onnx_path = MODELS / f"{CASES[case]}.onnx"
    done = run_tool("ge-import", str(onnx_path), "-o", str(graph_ir))
    assert done.returncode == 0, done.stderr
    passes = "ge-infer-shapes,ge-normalize-conds,ge-fold-constants"
    done = run_tool("ge-opt", str(graph_ir), "-p", passes, "-o", str(opt_ir))
    assert done.returncode == 0, done.stderr
    for ir in (graph_ir, opt_ir):
        result = run_tool(
            "ge-run", str(ir), "--inputs", str(MODELS / f"{case}.inputs.npz"),
            "--reference", str(MODELS / f"{case}.expected.npz"), "-q",
            "--rtol", str(RTOL), "--atol", str(ATOL),
        )  # fmt: skip
        assert result.returncode == 0, f"{ir.name}: {result.stdout}{result.stderr}"
        assert "MATCH: all" in result.stdout
    text = opt_ir.read_text()
    assert ("graph.while" in text) == (CASES[case] != "branch")
    assert "_parent_node_index" in text


STATIC_SHAPES = {
    "branch_else": "x:2,4",
    "rnn_loop_b3_t2": "x:2,3,3;h0:3,5",
    "cumulative": "x:5,2,3;init:2,3",
}


@pytest.mark.parametrize("case", sorted(STATIC_SHAPES))
def test_control_flow_model_through_ge_atc_with_static_shapes(case: str, tmp_path: Path) -> None:
    """`ge-atc --input_shape` pins every input, then the .om runs to onnxruntime's numbers.
    The Scan model's accumulator starts as an empty [0, 0, 3] constant that the body
    concatenates only from the second iteration on, so shape inference cannot start its loop
    from the operand types alone: it starts again from the body's declared [?, ?, 3] (it
    stopped with "inputs differ in dim 1: [0, 2]")."""
    out = tmp_path / case
    done = run_tool(
        "ge-atc", f"--model={MODELS / CASES[case]}.onnx", "--framework=5", f"--output={out}",
        f"--input_shape={STATIC_SHAPES[case]}",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for seed in ("0", "3"):  # random stream schedules: the loop's body runs on streams it starts
        result = run_tool(
            "ge-run", f"{out}.om", "--inputs", str(MODELS / f"{case}.inputs.npz"),
            "--reference", str(MODELS / f"{case}.expected.npz"), "-q",
            "--rtol", str(RTOL), "--atol", str(ATOL),
            "--schedule-seed", seed, "--check-uninitialized",
        )  # fmt: skip
        assert result.returncode == 0, f"{result.stdout}{result.stderr}"
        assert "MATCH: all" in result.stdout
