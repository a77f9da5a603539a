"""TreeEnsemble (ai.onnx.ml opset 5): random ensembles of every node mode, aggregate and post
transform against onnxruntime (and onnx's reference, which has no post transform), through
the importer, the graph interpreter, ge-compile and the command-line tools."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import f32
from xdsl.utils.test_value import create_ssa_value

from gedialects import make_context
from gedialects.frontend.onnx import OnnxImportError, import_model
from gedialects.graph import (
    AGGREGATE_FUNCTIONS,
    MEMBER,
    POST_TRANSFORMS,
    TreeEnsembleOp,
    tensor_of,
)
from gedialects.interpreters.run import run
from gedialects.passes.pipelines import CompilePipelinePass
from tests.conftest import run_tool

ort = pytest.importorskip("onnxruntime")

FEATURES = 4


def _random_ensemble(rng: np.random.Generator, trees: int, targets: int) -> dict[str, list]:
    """Full binary trees of depth 1-3 over every mode, some MEMBER nodes with sets, missing
    values tracked on some nodes; one leaf array shared by all trees."""
    attrs: dict[str, list] = {k: [] for k in (
        "featureids", "modes", "splits", "true", "false", "trueleafs", "falseleafs",
        "tracks", "roots", "targets", "weights", "members")}  # fmt: skip

    def leaf() -> int:
        attrs["targets"].append(int(rng.integers(targets)))
        attrs["weights"].append(float(np.float32(rng.normal())))
        return len(attrs["targets"]) - 1

    def branch(depth: int) -> int:
        i = len(attrs["modes"])
        mode = int(rng.integers(MEMBER + 1))
        attrs["modes"].append(mode)
        attrs["featureids"].append(int(rng.integers(FEATURES)))
        attrs["splits"].append(float(np.float32(rng.choice([-0.5, 0.0, 0.25, 1.0]))))
        attrs["tracks"].append(int(rng.integers(2)))
        if mode == MEMBER:
            attrs["members"] += [*[1.0, 2.0, 3.0][: int(rng.integers(1, 4))], np.nan]
        for side in ("true", "false"):
            attrs[side].append(0)
            attrs[f"{side}leafs"].append(0)
        for side in ("true", "false"):
            if depth == 1 or rng.random() < 0.3:
                attrs[side][i], attrs[f"{side}leafs"][i] = leaf(), 1
            else:
                attrs[side][i] = branch(depth - 1)
        return i

    for _ in range(trees):
        attrs["roots"].append(branch(int(rng.integers(1, 4))))
    return attrs


def _model(
    attrs: dict[str, list], targets: int, aggregate: int, post: int, rows: int | None = None
) -> onnx.ModelProto:
    def tensor(values: object, name: str, dtype: type = np.float32) -> onnx.TensorProto:
        return numpy_helper.from_array(np.asarray(values, dtype), name)

    extra = {}
    if attrs["members"]:
        extra["membership_values"] = tensor(attrs["members"], "members")
    node = helper.make_node(
        "TreeEnsemble", ["X"], ["Y"], domain="ai.onnx.ml",
        n_targets=targets, aggregate_function=aggregate, post_transform=post,
        nodes_featureids=attrs["featureids"],
        nodes_modes=tensor(attrs["modes"], "modes", np.uint8),
        nodes_splits=tensor(attrs["splits"], "splits"),
        nodes_truenodeids=attrs["true"], nodes_falsenodeids=attrs["false"],
        nodes_trueleafs=attrs["trueleafs"], nodes_falseleafs=attrs["falseleafs"],
        nodes_missing_value_tracks_true=attrs["tracks"],
        leaf_targetids=attrs["targets"], leaf_weights=tensor(attrs["weights"], "weights"),
        tree_roots=attrs["roots"], **extra,
    )  # fmt: skip
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [rows, FEATURES])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [rows, targets])
    graph = helper.make_graph([node], "trees", [x], [y])
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", 5)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=10)


def _features(rng: np.random.Generator, rows: int = 64) -> np.ndarray:
    """Values on the splits and the set members too, and some NaNs (missing values)."""
    x = rng.choice([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 2.0, 3.0], (rows, FEATURES))
    x[rng.random(x.shape) < 0.1] = np.nan
    return x.astype(np.float32)


@pytest.mark.parametrize("aggregate", range(len(AGGREGATE_FUNCTIONS)))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_ensembles_match_onnxruntime_and_the_reference(aggregate: int, seed: int) -> None:
    rng = np.random.default_rng(seed * 10 + aggregate)
    targets = int(rng.integers(1, 4))
    model = _model(_random_ensemble(rng, int(rng.integers(1, 6)), targets), targets, aggregate, 0)
    x = _features(rng)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"X": x})[0]
    reference = ReferenceEvaluator(model).run(None, {"X": x})[0]
    got = run(import_model(model), {"X": x})["Y"]
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    if AGGREGATE_FUNCTIONS[aggregate] in ("SUM", "AVERAGE"):  # see the kernel's docstring
        np.testing.assert_allclose(got, reference, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("post", range(1, len(POST_TRANSFORMS)))
def test_post_transforms_other_than_none_are_refused_with_their_name(post: int) -> None:
    model = _model(_random_ensemble(np.random.default_rng(post), 2, 2), 2, 1, post)
    with pytest.raises(OnnxImportError, match=f"post_transform {POST_TRANSFORMS[post]} is not"):
        import_model(model)


def test_compiled_ensemble_runs_on_ai_cpu_with_the_graph_numbers() -> None:
    rng = np.random.default_rng(7)
    model = _model(_random_ensemble(rng, 8, 2), 2, 0, 0, rows=16)
    x = _features(rng, 16)
    module = import_model(model)
    graph_level = run(module.clone(), {"X": x})["Y"]
    CompilePipelinePass().apply(make_context(), module)
    text = str(module)
    assert 'ascend.kernel "TreeEnsemble"' in text and 'engine "DNN_VM_AICPU"' in text
    np.testing.assert_array_equal(run(module, {"X": x})["Y"], graph_level)


def test_ensemble_through_the_tools(tmp_path: Path) -> None:
    """import -> .mlir -> ge-opt -> .mlir -> ge-run: splits and weights cross the text."""
    rng = np.random.default_rng(11)
    model = _model(_random_ensemble(rng, 5, 2), 2, 1, 0, rows=8)
    onnx.save(model, tmp_path / "trees.onnx")
    x = _features(rng, 8)
    np.savez(tmp_path / "in.npz", X=x)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"X": x})[0]
    np.savez(tmp_path / "ref.npz", Y=expected)
    for argv in (
        ("ge-import", "trees.onnx", "-o", "g.mlir"),
        ("ge-opt", "g.mlir", "-p", "ge-compile", "-o", "a.mlir"),
        ("ge-run", "g.mlir", "--inputs", "in.npz", "--reference", "ref.npz"),
        ("ge-run", "a.mlir", "--inputs", "in.npz", "--reference", "ref.npz"),
    ):
        done = run_tool(*argv, cwd=tmp_path)
        assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("true", 5, "true branch"),
        ("featureids", 9, "nodes_featureids out of range (x has 4 features)"),
        ("roots", 7, "tree_roots must be node indexes"),
        ("targets", 3, "leaf_targetids must be in [0, n_targets = 1)"),
    ],
)
def test_malformed_ensembles_are_import_errors(key: str, value: int, message: str) -> None:
    attrs = _random_ensemble(np.random.default_rng(3), 1, 1)
    column = attrs[key]
    assert isinstance(column, list)
    column[0] = value
    with pytest.raises(OnnxImportError, match=re.escape(message)):
        import_model(_model(attrs, 1, 1, 0))


def test_a_cycle_is_refused_before_any_run() -> None:
    properties = {
        "n_targets": 1, "nodes_featureids": [0, 0], "nodes_modes": [0, 0],
        "nodes_splits": [0.0, 0.0], "nodes_truenodeids": [1, 0], "nodes_falsenodeids": [0, 0],
        "nodes_trueleafs": [0, 0], "nodes_falseleafs": [1, 1], "leaf_targetids": [0],
        "leaf_weights": [1.0], "tree_roots": [0],
    }  # fmt: skip
    with pytest.raises(ValueError, match="cycle"):
        TreeEnsembleOp(create_ssa_value(tensor_of(f32, (2, 2))), **properties)  # type: ignore[arg-type]
