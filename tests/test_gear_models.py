"""Gears over models with subgraphs and with data-dependent ops, to onnxruntime's numbers at every
gear (issue 17's last item, issue 19 part 5).

- `ge-expand-multibatch` clones every subgraph the root reaches per gear (GE's
  MultiBatchClonePass copies the graph with its subgraphs), so the three control-flow models
  (If, Loop, Scan) compile with gears; rnn_loop's batch is dim 1 (`--dynamic_dims`).
- A gear branch with a data-dependent op (NonZero) is partitioned into static and dynamic parts:
  its static parts stay static tasks with their gear's shapes; GE's refusal ("Multi-batch not
  support middle dynamic shape") is `--static_branches`.

Inputs and onnxruntime's outputs per gear are checked in (`tests/models/export_gear_models.py`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.utils.exceptions import VerifyException

from gedialects import make_context
from gedialects.ascend import DynamicKernelOp, KernelOp, MemcpyAsyncOp, ModelOp
from gedialects.base import BATCH_LABEL
from gedialects.frontend.onnx import import_model
from gedialects.interpreters.run import run
from gedialects.passes.pipelines import CompilePipelinePass
from tests.conftest import ROOT, run_tool
from tests.test_models import assert_outputs_match, expected_of, inputs_of

MODELS = ROOT / "tests" / "models"

# model -> (ge-atc gear flags, gear count)
CONTROL_FLOW = {
    "branch": (["--input_shape=x:-1,4", "--dynamic_batch_size=1,2,4"], 3),
    "rnn_loop": (["--input_shape=x:-1,-1,3;h0:-1,5", "--dynamic_dims=6,2,2;2,3,3;1,1,1"], 3),
    "cumulative": (["--input_shape=x:-1,2,3;init:2,3", "--dynamic_dims=5;8;2"], 3),
}
NONZERO = ["--input_shape=x:-1,8", "--dynamic_batch_size=1,4,8"]


def _options(flags: list[str]) -> dict[str, str]:
    """`--input_shape=...` flags as `CompilePipelinePass` keywords."""
    return dict(f.removeprefix("--").split("=", 1) for f in flags)


def _compiled(model: str, flags: list[str]) -> ModuleOp:
    module = import_model(MODELS / f"{model}.onnx")
    options = _options(flags)
    CompilePipelinePass(
        input_shape=options["input_shape"],
        dynamic_batch_size=options.get("dynamic_batch_size", ""),
        dynamic_dims=options.get("dynamic_dims", ""),
    ).apply(make_context(), module)
    return module


def test_branch_gears_take_both_branches() -> None:
    """The checked-in gears of the If model differ in the sign of `x.sum()`."""
    sums = [inputs_of(f"gear_branch_{k}")["x"].sum() for k in range(3)]
    assert sums[0] > 0 > sums[1] and sums[2] > 0


@pytest.mark.parametrize("model", sorted(CONTROL_FLOW))
def test_control_flow_model_with_gears_matches_onnxruntime_at_every_gear(model: str) -> None:
    """Compiled (ascend level) with a Case over per-gear copies of the subgraphs."""
    flags, count = CONTROL_FLOW[model]
    module = _compiled(model, flags)
    assert any(isinstance(op, ModelOp) for op in module.ops)
    for k in range(count):
        assert_outputs_match(
            run(module, inputs_of(f"gear_{model}_{k}")), expected_of(f"gear_{model}_{k}")
        )


@pytest.mark.parametrize("model", sorted(CONTROL_FLOW))
def test_control_flow_model_with_gears_through_ge_atc_and_ge_run(
    model: str, tmp_path: Path
) -> None:
    """ge-atc model.onnx (gear flags) -> OUT.mlir -> ge-run --reference at each gear."""
    flags, count = CONTROL_FLOW[model]
    out = tmp_path / model
    done = run_tool(
        "ge-atc",
        f"--model={MODELS / f'{model}.onnx'}",
        f"--output={out}",
        "--emit=mlir",
        "-q",
        *flags,
    )
    assert done.returncode == 0, done.stderr
    for k in range(count):
        case = MODELS / f"gear_{model}_{k}"
        ran = run_tool(
            "ge-run", f"{out}.mlir", "--inputs", f"{case}.inputs.npz",
            "--reference", f"{case}.expected.npz", "--rtol", "1e-4", "--atol", "1e-5",
        )  # fmt: skip
        assert ran.returncode == 0 and "MATCH: all" in ran.stdout, ran.stdout + ran.stderr


def test_scan_model_with_dynamic_batch_size_through_ge_atc(tmp_path: Path) -> None:
    """The Scan model's gears are its step axis, dim 0: `--dynamic_batch_size` gives the same
    gears as `--dynamic_dims` (a Case over per-gear Whiles), to onnxruntime's numbers."""
    out = tmp_path / "cumulative"
    done = run_tool(
        "ge-atc", f"--model={MODELS / 'cumulative.onnx'}", f"--output={out}", "--emit=mlir", "-q",
        "--input_shape=x:-1,2,3;init:2,3", "--dynamic_batch_size=5,8,2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for k in range(3):
        case = MODELS / f"gear_cumulative_{k}"
        ran = run_tool(
            "ge-run", f"{out}.mlir", "--inputs", f"{case}.inputs.npz",
            "--reference", f"{case}.expected.npz", "--rtol", "1e-4", "--atol", "1e-5",
        )  # fmt: skip
        assert ran.returncode == 0 and "MATCH: all" in ran.stdout, ran.stdout + ran.stderr


def test_rnn_loop_batch_on_dim_1_needs_dynamic_dims(tmp_path: Path) -> None:
    """rnn_loop's batch is dim 1 of x: GE's --dynamic_batch_size takes only dim 0 (E10018),
    which is why its gears are `--dynamic_dims`; one line, exit 1."""
    done = run_tool(
        "ge-atc", f"--model={MODELS / 'rnn_loop.onnx'}", f"--output={tmp_path / 'r'}", "-q",
        "--input_shape=x:2,-1,3;h0:-1,5", "--dynamic_batch_size=3,1",
    )  # fmt: skip
    assert done.returncode == 1
    assert "E10018" in done.stderr and done.stderr.strip().count("\n") == 0, done.stderr


# ---- data-dependent ops in the gear branches ----------------------------------------------------


@pytest.fixture(scope="module")
def nonzero_model() -> ModuleOp:
    return _compiled("gear_nonzero", NONZERO)


@pytest.mark.parametrize("batch", [1, 4, 8])
def test_nonzero_model_with_gears_matches_onnxruntime_at_every_gear(
    nonzero_model: ModuleOp, batch: int
) -> None:
    got = run(nonzero_model, inputs_of(f"gear_nonzero_b{batch}"))
    assert_outputs_match(got, expected_of(f"gear_nonzero_b{batch}"))


def test_nonzero_gear_branches_keep_static_tasks_per_gear(nonzero_model: ModuleOp) -> None:
    """Each branch is partitioned: its MatMul before the NonZero is a static kernel with the
    gear's own shape, the NonZero a dynamic one; one dynamic output buffer is written by one
    copy per gear, each labelled with its branch."""
    (model,) = [op for op in nonzero_model.ops if isinstance(op, ModelOp)]
    tasks = list(model.body.block.ops)
    shapes = {
        op.effects().ins[0].type.get_shape()
        for op in tasks
        if isinstance(op, KernelOp) and op.node_name.data.startswith("matmul_ascend_mbatch_batch_")
    }
    assert shapes == {(1, 8), (4, 8), (8, 8)}, shapes
    assert any(isinstance(op, DynamicKernelOp) and op.kernel.data == "NonZero" for op in tasks)
    labels = [
        op.attributes[BATCH_LABEL]
        for op in tasks
        if isinstance(op, MemcpyAsyncOp) and BATCH_LABEL in op.attributes
    ]
    assert labels == [StringAttr(f"Batch_{i}") for i in range(3)]


def test_dynamic_output_written_twice_by_one_gear_is_refused(nonzero_model: ModuleOp) -> None:
    """The verifier allows several writers of a dynamic buffer only when they are copies of
    distinct gear branches."""
    module = nonzero_model.clone()
    (model,) = [op for op in module.ops if isinstance(op, ModelOp)]
    copies = [
        op
        for op in model.body.block.ops
        if isinstance(op, MemcpyAsyncOp) and BATCH_LABEL in op.attributes
    ]
    copies[1].attributes[BATCH_LABEL] = copies[0].attributes[BATCH_LABEL]
    with pytest.raises(VerifyException, match="already written by"):
        module.verify()
    del copies[1].attributes[BATCH_LABEL]
    with pytest.raises(VerifyException, match="already written by"):
        module.verify()


def test_nonzero_model_through_ge_atc_off_gear_and_hybrid(tmp_path: Path) -> None:
    """ge-atc -> ge-run at every gear; batch 3 is no gear (E13025, exit 1), and runs the
    dynamic graph with --hybrid."""
    onnx_path = MODELS / "gear_nonzero.onnx"
    for hybrid in ([], ["--hybrid"]):
        out = tmp_path / f"nz{len(hybrid)}"
        done = run_tool(
            "ge-atc",
            f"--model={onnx_path}",
            f"--output={out}",
            "--emit=mlir",
            "-q",
            *NONZERO,
            *hybrid,
        )
        assert done.returncode == 0, done.stderr
        for batch in (1, 4, 8, 3):
            case = MODELS / f"gear_nonzero_b{batch}"
            ran = run_tool(
                "ge-run", f"{out}.mlir", "--inputs", f"{case}.inputs.npz",
                "--reference", f"{case}.expected.npz", "--rtol", "1e-4", "--atol", "1e-5",
            )  # fmt: skip
            if batch == 3 and not hybrid:
                assert ran.returncode == 1 and ran.stderr.startswith("error: E13025: "), ran.stderr
                assert len(ran.stderr.splitlines()) == 1
            else:
                assert ran.returncode == 0 and "MATCH: all" in ran.stdout, ran.stdout + ran.stderr


def test_static_branches_keeps_ges_refusal(tmp_path: Path) -> None:
    done = run_tool(
        "ge-atc", f"--model={MODELS / 'gear_nonzero.onnx'}", f"--output={tmp_path / 'nz'}",
        "--emit=mlir", *NONZERO, "--static_branches",
    )  # fmt: skip
    assert done.returncode == 1
    (line,) = [x for x in done.stderr.splitlines() if x.startswith("error:")]
    assert "'graph.non_zero' (nonzero_ascend_mbatch_batch_0) in @Batch_0" in line
    assert "Multi-batch not support middle dynamic shape" in line
    assert not (tmp_path / "nz.mlir").exists()


def test_dynamic_output_dims_minus_one_needs_a_dynamic_buffer(nonzero_model: ModuleOp) -> None:
    """GE's -1 in `_dynamic_output_dims` is accepted for an output the runtime places; on a
    static output buffer it is an error naming the entry."""
    module = nonzero_model.clone()
    (model,) = [op for op in module.ops if isinstance(op, ModelOp)]
    entries = model.attributes["_dynamic_output_dims"]
    assert isinstance(entries, ArrayAttr)
    texts = [e.data for e in entries.data if isinstance(e, StringAttr)]
    assert "0,0,-1" in texts and "0,2,1,4" in texts  # picked: [-1]; z: [1, 4] at gear 0
    model.attributes["_dynamic_output_dims"] = ArrayAttr([StringAttr("0,2,-1,4")])
    with pytest.raises(VerifyException, match=r'entry "0,2,-1,4" is not'):
        module.verify()
    assert len(texts) == 9  # 3 outputs at 3 gears
