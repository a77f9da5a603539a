"""PyTorch-exported models (tests/models/, made by `make models`) reproduce onnxruntime's outputs
after import, at graph level and after `ge-compile` at the ascend level, through the Python API
and through `ge-import` / `ge-opt` / `ge-run`. Needs neither torch nor onnxruntime: the models,
their inputs and onnxruntime's outputs are checked in."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import onnx
import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType
from xdsl.utils.exceptions import PassFailedException

from gedialects import make_context
from gedialects.frontend.onnx import import_model
from gedialects.graph import GraphOp
from gedialects.interpreters.run import run
from passes.pipelines import CompilePipelinePass
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


@pytest.mark.parametrize("case", sorted(c for c, m in CASES.items() if m not in DATA_DEPENDENT))
def test_ascend_level_matches_onnxruntime(case: str) -> None:
    inputs = inputs_of(case)
    got = run(compiled(static_module(CASES[case], inputs)), inputs)
    assert_outputs_match(got, expected_of(case))


def test_dynamic_model_needs_pinned_shapes_for_ge_compile() -> None:
    with pytest.raises(PassFailedException, match=r"non-static type tensor<\?x\?x32xf32>"):
        compiled(imported("transformer"))


def test_data_dependent_model_is_refused_by_ge_compile() -> None:
    """NonZero's output size depends on the data: no static task plan exists for it."""
    with pytest.raises(PassFailedException) as info:
        compiled(imported("nonzero"))
    assert str(info.value) == (
        "ge-convert-graph-to-ascend: 'graph.non_zero' (/NonZero) has non-static type "
        "tensor<2x?xi64>; task generation needs static shapes"
    )


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


def test_ge_opt_names_the_data_dependent_node() -> None:
    result = run_tool("ge-opt", str(MODELS / "nonzero.onnx"), "-p", "ge-compile")
    assert result.returncode == 1
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"{MODELS / 'nonzero.onnx'}: error: ge-convert-graph-to-ascend: ")
    assert "'graph.non_zero' (/NonZero)" in line
