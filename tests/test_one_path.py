"""Issue 13 part 5: instrumented runs take the route a plain run takes, hybrid fallback included.

A hybrid gear model (gears 1 and 4, fallback for any other batch) compiled through `ge-opt`
into a file, run through `ge-run` with every instrument flag on a gear batch and an off-gear
batch: the numbers are the plain run's (before the fix, every flag failed with E13025 off the
gears because `ge-run` called the model directly and skipped the hybrid route).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.ascend import ModelOp
from gedialects.interpreters.ascend import AscendRuntimeError, execute_model
from gedialects.interpreters.run import find_entry, run, run_entry
from gedialects.tools import ge_opt, ge_run

GRAPH = """\
graph.graph @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %w = graph.const dense<[1.0, -2.0, 3.0]> : tensor<3xf32>
  %y = graph.mul %x, %w : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %z = graph.relu %y : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %z : tensor<?x3xf32>
}
"""
EXPAND = 'ge-expand-multibatch{input-shape="x:-1,3" dynamic-batch-size="1,4" hybrid=true}'
FLAGS = {
    "plain": [],
    "check-uninitialized": ["--check-uninitialized"],
    "profile": ["--profile"],
    "trace": ["--trace", "{tmp}/trace.json"],
    "schedule-seed": ["--schedule-seed", "3"],
    "all": [
        "--check-uninitialized",
        "--profile",
        "--trace",
        "{tmp}/t.json",
        "--schedule-seed",
        "7",
    ],
}


def _expected(x: np.ndarray) -> np.ndarray:
    return np.maximum(x * np.array([1.0, -2.0, 3.0], np.float32), 0)


@pytest.fixture(scope="module")
def hybrid_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hybrid model as a user makes it: graph file -> ge-opt -> model file."""
    folder = tmp_path_factory.mktemp("hybrid")
    (folder / "graph.mlir").write_text(GRAPH)
    out = folder / "model.mlir"
    argv = [str(folder / "graph.mlir"), "-p", f"{EXPAND},ge-compile", "-o", str(out)]
    assert ge_opt.main(argv) == 0
    return out


def _parse(path: Path) -> ModuleOp:
    module = Parser(make_context(), path.read_text(), str(path)).parse_module()
    module.verify()
    return module


def _batch(n: int) -> np.ndarray:
    return np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)


@pytest.mark.parametrize("flag", sorted(FLAGS))
@pytest.mark.parametrize("batch", [2, 4], ids=["off-gear-hybrid", "on-gear"])
def test_instrumented_hybrid_run_takes_the_plain_path(
    hybrid_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, batch: int
) -> None:
    np.savez(tmp_path / "in.npz", x=_batch(batch))
    common = [str(hybrid_file), "--inputs", str(tmp_path / "in.npz"), "-q"]
    assert ge_run.main([*common, "-o", str(tmp_path / "plain.npz")]) == 0
    extra = [a.format(tmp=tmp_path) for a in FLAGS[flag]]
    assert ge_run.main([*common, *extra, "-o", str(tmp_path / "out.npz")]) == 0, (
        capsys.readouterr().err
    )
    with np.load(tmp_path / "plain.npz") as plain, np.load(tmp_path / "out.npz") as out:
        np.testing.assert_array_equal(out["output0"], plain["output0"])
        np.testing.assert_allclose(out["output0"], _expected(_batch(batch)), rtol=1e-6)
    printed = capsys.readouterr().out
    if "--profile" in extra:
        # The profile is of the model that ran: the fallback off the gears.
        ran = "@main_dynamic" if batch == 2 else "@main "
        assert f"profile {ran}" in printed
    if "--trace" in extra:
        assert Path(extra[extra.index("--trace") + 1]).stat().st_size > 0


def test_run_entry_reports_the_model_that_ran(hybrid_file: Path) -> None:
    module = _parse(hybrid_file)
    for batch, name in ((2, "main_dynamic"), (4, "main"), (1, "main")):
        plain = run(module, {"x": _batch(batch)})
        result = run_entry(
            module, {"x": _batch(batch)}, schedule_seed=5, check_uninitialized=True, timing=True
        )
        assert isinstance(result.ran, ModelOp) and result.ran.sym_name.data == name
        assert result.stats is not None and result.stats.timeline is not None
        np.testing.assert_array_equal(result.outputs["output0"], plain["output0"])


def test_execute_model_of_a_hybrid_model_takes_the_fallback(hybrid_file: Path) -> None:
    """The interpreter's own API follows the same rule (`gears.hybrid_route`)."""
    module = _parse(hybrid_file)
    model = find_entry(module)
    assert isinstance(model, ModelOp)
    for seed in (None, 1, 2):
        got = execute_model(model, {"x": _batch(3)}, schedule_seed=seed, check_uninitialized=True)
        np.testing.assert_allclose(got.outputs["output0"], _expected(_batch(3)), rtol=1e-6)
    # Shape data that names a gear the inputs are not is still refused (no silent routing).
    with pytest.raises(AscendRuntimeError, match=r"E13025|shape data"):
        execute_model(model, {"x": _batch(3), "ascend_mbatch_shape_data": np.array([4], np.int32)})


def test_run_passes_the_step_limit_to_the_model_that_runs(hybrid_file: Path) -> None:
    from gedialects.interpreters.run import RunError

    module = _parse(hybrid_file)
    for batch, name in ((2, "main_dynamic"), (4, "main")):
        with pytest.raises(RunError, match=rf"@{name} exceeded max_steps=1 "):
            run(module, {"x": _batch(batch)}, max_steps=1)
