"""PyTorch-exported models (tests/models/, made by `make models`) reproduce onnxruntime's outputs
after import, at graph level and after `ge-compile` at the ascend level, through the Python API
and through `ge-import` / `ge-opt` / `ge-run`. Needs neither torch nor onnxruntime: the models,
their inputs and onnxruntime's outputs are checked in."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import onnx
import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType

from gedialects import make_context
from gedialects.ascend import DynamicKernelOp, ModelOp
from gedialects.frontend.onnx import import_model
from gedialects.graph import GraphOp
from gedialects.interpreters.ascend import execute_model
from gedialects.interpreters.run import run
from gedialects.passes.pipelines import CompilePipelinePass
from tests.conftest import ROOT, run_tool

MODELS = ROOT / "tests" / "models"
# case (an inputs/expected pair) -> the model it runs
CASES = {
    "cnn": "cnn",
    "mlp": "mlp",
    "transformer": "transformer",
    "transformer_b3_s5": "transformer",
    "nonzero": "nonzero",
    "mobilenet_block": "mobilenet_block",
}
# the opsets the export script uses: the importer sees more than one opset's conventions
OPSETS = {"cnn": 17, "mlp": 13, "transformer": 17, "nonzero": 17, "mobilenet_block": 11}
DYNAMIC = {"transformer"}  # exported with dynamic batch and sequence axes
DATA_DEPENDENT = {"nonzero"}  # output shapes depend on the input values
# onnxruntime and the numpy kernels differ by a few float32 ulps (2.4e-7 at most here), also
# through the transformer's softmax and LayerNormalization, so one tolerance fits all models
RTOL, ATOL = 1e-4, 1e-5


def npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def inputs_of(case: str) -> dict[str, np.ndarray]:
    return npz(MODELS / f"{case}.inputs.npz")


def expected_of(case: str) -> dict[str, np.ndarray]:
    return npz(MODELS / f"{case}.expected.npz")


@cache
def proto_of(model: str) -> onnx.ModelProto:
    return onnx.load(str(MODELS / f"{model}.onnx"))


def pinned(proto: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> onnx.ModelProto:
    """A copy whose graph inputs have the static shapes of `inputs` (as atc's --input_shape)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(proto)
    for vi in copy.graph.input:
        dims = vi.type.tensor_type.shape.dim
        assert len(dims) == inputs[vi.name].ndim, f"input '{vi.name}' has another rank"
        for dim, size in zip(dims, inputs[vi.name].shape, strict=True):
            dim.Clear()
            dim.dim_value = size
    return copy


def assert_outputs_match(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert sorted(got) == sorted(want)
    for name, ref in want.items():
        out = got[name]
        assert out.dtype == ref.dtype, f"'{name}': dtype {out.dtype}, expected {ref.dtype}"
        assert out.shape == ref.shape, f"'{name}': shape {out.shape}, expected {ref.shape}"
        if np.issubdtype(ref.dtype, np.floating):
            np.testing.assert_allclose(out, ref, rtol=RTOL, atol=ATOL, err_msg=name)
        else:
            np.testing.assert_array_equal(out, ref, err_msg=name)


def compiled(module: ModuleOp) -> ModuleOp:
    lowered = module.clone()
    CompilePipelinePass().apply(make_context(), lowered)
    lowered.verify()
    return lowered


@cache
def imported(model: str) -> ModuleOp:
    return import_model(MODELS / f"{model}.onnx")


def static_module(model: str, inputs: dict[str, np.ndarray]) -> ModuleOp:
    """The model imported with static input shapes, which ge-compile needs."""
    if model in DYNAMIC:
        return import_model(pinned(proto_of(model), inputs))
    return imported(model)


def test_checked_in_models_are_small_and_complete() -> None:
    sizes = {m: (MODELS / f"{m}.onnx").stat().st_size for m in OPSETS}
    assert max(sizes.values()) < 1 << 20, sizes
    assert sum(sizes.values()) < 3 << 20, sizes
    for case in CASES:
        assert (MODELS / f"{case}.inputs.npz").is_file(), case
        assert (MODELS / f"{case}.expected.npz").is_file(), case
    assert set(CASES.values()) == set(OPSETS)


@pytest.mark.parametrize("model", sorted(OPSETS))
def test_model_signature_follows_the_onnx_file(model: str) -> None:
    proto = proto_of(model)
    (opset,) = [o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")]
    assert opset == OPSETS[model]
    (graph,) = imported(model).ops
    assert isinstance(graph, GraphOp)
    assert graph.input_names == tuple(vi.name for vi in proto.graph.input)
    assert graph.output_names == tuple(vi.name for vi in proto.graph.output)


def test_dynamic_axes_import_as_unknown_dims() -> None:
    (graph,) = imported("transformer").ops
    assert isinstance(graph, GraphOp)
    (arg,) = graph.body.block.args
    assert isinstance(arg.type, TensorType)
    assert arg.type.get_shape() == (DYNAMIC_INDEX, DYNAMIC_INDEX, 32)
    (pinned_graph,) = import_model(pinned(proto_of("transformer"), inputs_of("transformer"))).ops
    assert isinstance(pinned_graph, GraphOp)
    # the Shape -> Gather -> Concat -> Reshape chains fold once the input shape is known
    static = [
        r.type
        for op in pinned_graph.body.walk()
        for r in op.results
        if isinstance(r.type, TensorType)
    ]
    assert static and all(DYNAMIC_INDEX not in t.get_shape() for t in static)


@pytest.mark.parametrize("case", sorted(CASES))
def test_graph_level_matches_onnxruntime(case: str) -> None:
    got = run(imported(CASES[case]), inputs_of(case))
    assert_outputs_match(got, expected_of(case))


@pytest.mark.parametrize("case", sorted(CASES))
def test_ascend_level_matches_onnxruntime(case: str) -> None:
    inputs = inputs_of(case)
    got = run(compiled(static_module(CASES[case], inputs)), inputs)
    assert_outputs_match(got, expected_of(case))


def _dynamic_kernels(module: ModuleOp) -> list[str]:
    (model,) = module.ops
    assert isinstance(model, ModelOp)
    return [t.kernel.data for t in model.tasks() if isinstance(t, DynamicKernelOp)]


@pytest.mark.parametrize("case", ["transformer", "transformer_b3_s5"])
def test_dynamic_axes_compile_to_dynamic_tasks(case: str) -> None:
    """Without pinned shapes the whole transformer is one unknown-shape graph: one model of
    dynamic tasks runs every batch and sequence length."""
    module = compiled(imported("transformer"))
    assert any("MatMul" in k for k in _dynamic_kernels(module))
    (model,) = module.ops
    run_ = execute_model(model, inputs_of(case), check_uninitialized=True, timing=True)
    assert_outputs_match(run_.outputs, expected_of(case))
    assert run_.stats.dynamic_peak > 0 and run_.stats.timeline is not None


def test_data_dependent_model_compiles_to_known_and_dynamic_tasks() -> None:
    """NonZero's output size depends on the data: ge-compile partitions the graph and the
    unknown-shape partition (NonZero and everything after it) becomes dynamic tasks."""
    module = compiled(imported("nonzero"))
    assert _dynamic_kernels(module)[:3] == ["Greater", "NonZero", "Transpose"]
    (model,) = module.ops
    inputs = inputs_of("nonzero")
    for seed in (None, 1, 2):
        got = execute_model(model, inputs, schedule_seed=seed, check_uninitialized=True)
        assert_outputs_match(got.outputs, expected_of("nonzero"))
    # Another input: another number of selected elements, the same model.
    x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6)
    got = execute_model(model, {"x": x}).outputs
    np.testing.assert_array_equal(got["indices"], np.argwhere(x > 0.25))
    np.testing.assert_allclose(got["picked"], x[x > 0.25] * 2, rtol=1e-6)


def test_command_lines_reproduce_onnxruntime(tmp_path: Path) -> None:
    graph_ir, ascend_ir = tmp_path / "cnn.mlir", tmp_path / "cnn.ascend.mlir"
    inputs, expected = MODELS / "cnn.inputs.npz", MODELS / "cnn.expected.npz"
    imported_ = run_tool("ge-import", str(MODELS / "cnn.onnx"), "-o", str(graph_ir))
    assert imported_.returncode == 0, imported_.stderr
    assert "graph.conv2d" in graph_ir.read_text()
    lowered = run_tool("ge-opt", str(MODELS / "cnn.onnx"), "-p", "ge-compile", "-o", str(ascend_ir))
    assert lowered.returncode == 0, lowered.stderr
    assert "ascend.model" in ascend_ir.read_text()
    for ir in (graph_ir, ascend_ir):
        result = run_tool(
            "ge-run", str(ir), "--inputs", str(inputs), "--reference", str(expected), "-q",
            "--rtol", str(RTOL), "--atol", str(ATOL),
        )  # fmt: skip
        assert result.returncode == 0, f"{ir.name}: {result.stdout}{result.stderr}"
        assert "MATCH: all 1 outputs equal" in result.stdout


def test_ge_run_reference_catches_a_wrong_output(tmp_path: Path) -> None:
    graph_ir, wrong = tmp_path / "mlp.mlir", tmp_path / "wrong.npz"
    assert run_tool("ge-import", str(MODELS / "mlp.onnx"), "-o", str(graph_ir)).returncode == 0
    scores = expected_of("mlp")["scores"].copy()
    scores[0, 0] += 1e-2
    np.savez(wrong, scores=scores)
    result = run_tool(
        "ge-run", str(graph_ir), "--inputs", str(MODELS / "mlp.inputs.npz"),
        "--reference", str(wrong), "-q",
    )  # fmt: skip
    assert result.returncode == 1
    assert "scores" in result.stdout + result.stderr


def test_data_dependent_model_from_the_command_line(tmp_path: Path) -> None:
    out, trace = tmp_path / "nonzero.mlir", tmp_path / "trace.json"
    lowered = run_tool("ge-opt", str(MODELS / "nonzero.onnx"), "-p", "ge-compile", "-o", str(out))
    assert lowered.returncode == 0, lowered.stderr
    assert 'ascend.dynamic_kernel "NonZero"' in out.read_text()
    result = run_tool(
        "ge-run", str(out), "--inputs", str(MODELS / "nonzero.inputs.npz"), "-q",
        "--reference", str(MODELS / "nonzero.expected.npz"), "--check-uninitialized",
        "--trace", str(trace),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "MATCH: all 3 outputs equal" in result.stdout
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("name") == "/NonZero" for e in events)
