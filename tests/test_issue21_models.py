"""The three PyTorch models of issue 21 (tests/models/, made by
`tests/models/export_issue21_models.py` in a torch venv of its own): a detection head ending in
NonMaxSuppression, a two-layer LSTM classifier with dynamic batch and sequence axes, and a
QDQ-quantised CNN from torch.ao. Each reproduces onnxruntime's outputs at graph level, after
`ge-compile` (the detector's NonMaxSuppression and everything after it in an unknown-shape
partition) and through `ge-atc` -> .om -> `ge-run`. Needs neither torch nor onnxruntime."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import onnx
import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, ModuleOp, TensorType

from gedialects.ascend import DynamicKernelOp, KernelOp, ModelOp
from gedialects.frontend.onnx import import_model
from gedialects.graph import (
    AscendAntiQuantV2Op,
    Conv2DOp,
    DynamicRNNOp,
    GraphOp,
    MatMulOp,
    NonMaxSuppressionV6Op,
    QuantizeOp,
)
from gedialects.interpreters.ascend import execute_model
from gedialects.interpreters.run import run
from tests.conftest import ROOT, run_tool
from tests.test_models import (
    ATOL,
    RTOL,
    assert_outputs_match,
    compiled,
    expected_of,
    inputs_of,
    pinned,
)

MODELS = ROOT / "tests" / "models"
CASES = {
    "detector": "detector",
    "detector_2": "detector",
    "lstm_classifier": "lstm_classifier",
    "lstm_classifier_b3_s4": "lstm_classifier",
    "qdq_cnn": "qdq_cnn",
}


def _imported(model: str) -> ModuleOp:
    return import_model(MODELS / f"{model}.onnx")


@cache
def _compiled(model: str) -> ModuleOp:
    """ge-compile on the model as exported, once per model (runs do not change it)."""
    return compiled(_imported(model))


def _graph(module: ModuleOp) -> GraphOp:
    (graph,) = module.ops
    assert isinstance(graph, GraphOp)
    return graph


def _model(module: ModuleOp) -> ModelOp:
    (model,) = module.ops
    assert isinstance(model, ModelOp)
    return model


def _kernels(module: ModuleOp) -> tuple[list[str], list[str]]:
    """The kernel names of the static tasks and of the dynamic (unknown-shape) tasks."""
    tasks = list(_model(module).tasks())
    static = [t.kernel.data for t in tasks if isinstance(t, KernelOp)]
    return static, [t.kernel.data for t in tasks if isinstance(t, DynamicKernelOp)]


def test_checked_in_models_are_small_and_complete() -> None:
    for model in set(CASES.values()):
        proto = onnx.load(str(MODELS / f"{model}.onnx"))
        onnx.checker.check_model(proto, full_check=True)
        assert (MODELS / f"{model}.onnx").stat().st_size < 64 << 10, model
        (opset,) = [o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")]
        assert opset == 17
    for case in CASES:
        for kind in ("inputs", "expected"):
            assert (MODELS / f"{case}.{kind}.npz").stat().st_size < 64 << 10, case


@pytest.mark.parametrize(
    ("model", "ops"),
    [
        ("detector", {Conv2DOp: 4, NonMaxSuppressionV6Op: 1}),
        ("lstm_classifier", {DynamicRNNOp: 2, MatMulOp: 1}),
        # 6 QuantizeLinear (the input; both Convs', the pool's, Flatten's and Gemm's outputs),
        # 12 DequantizeLinear (those six; the three weights and the three int32 biases)
        ("qdq_cnn", {Conv2DOp: 2, MatMulOp: 1, QuantizeOp: 6, AscendAntiQuantV2Op: 12}),
    ],
)
def test_models_import_to_the_ge_ops(model: str, ops: dict[type, int]) -> None:
    graph = _graph(_imported(model))
    for op_type, count in ops.items():
        assert sum(isinstance(op, op_type) for op in graph.body.walk()) == count, op_type


@pytest.mark.parametrize("case", sorted(CASES))
def test_graph_level_matches_onnxruntime(case: str) -> None:
    assert_outputs_match(run(_imported(CASES[case]), inputs_of(case)), expected_of(case))


@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_matches_onnxruntime(case: str) -> None:
    """ge-compile on the model as exported (the LSTM's `?` axes become dynamic tasks)."""
    model = _model(_compiled(CASES[case]))
    for seed in (None, 3):
        got = execute_model(model, inputs_of(case), schedule_seed=seed, check_uninitialized=True)
        assert_outputs_match(got.outputs, expected_of(case))


def test_detector_partitions_at_the_nms() -> None:
    """The backbone and heads have static shapes (static tasks); NonMaxSuppression's kept count
    is data-dependent, so it and the Gathers of the kept boxes and scores after it are one
    unknown-shape partition of dynamic tasks. The two cases keep 2 and 8 boxes: one model."""
    module = _compiled("detector")
    static, dynamic = _kernels(module)
    assert "NonMaxSuppressionV6" not in static and dynamic[0] == "NonMaxSuppressionV6"
    assert any("Conv2D" in k for k in static) and not any("Conv2D" in k for k in dynamic)
    assert "Sigmoid" in static and "GatherV2D" in dynamic
    engines = {t.kernel.data: t.engine.data for t in _model(module).tasks()
               if isinstance(t, KernelOp | DynamicKernelOp)}  # fmt: skip
    assert engines["NonMaxSuppressionV6"] == "DNN_VM_AICPU"  # GE places NMS on AI CPU
    kept = [expected_of(c)["selected"].shape[0] for c in ("detector", "detector_2")]
    assert kept == [2, 8]
    out = _graph(_imported("detector")).body.block.last_op
    assert out is not None
    shapes = [v.type.get_shape() for v in out.operands if isinstance(v.type, TensorType)]
    # [?, 3], [?, 4] (inference gives [?, ?]: the Reshape target is a Concat over a Shape of
    # the kept indices; the declared [?, 4] refines it, as onnxruntime merges it), [?]
    assert shapes == [(DYNAMIC_INDEX, 3), (DYNAMIC_INDEX, 4), (DYNAMIC_INDEX,)]
    # the compiled model's outputs keep it
    ret = [str(o.buffer.type) for o in _model(module).outputs()]
    assert ret == ["tensor<?x3xi64>", "tensor<?x4xf32>", "tensor<?xf32>"]


@pytest.mark.parametrize(("scale", "kept"), [(0.0, 0), (2.0, 15), (4.0, 20)])
def test_detector_keeps_what_the_scores_decide(scale: float, kept: int) -> None:
    """Other images through the one compiled model: a blank image scores every cell below the
    threshold (nothing kept: empty outputs), a brighter one keeps 15, the brightest the limit
    (5 per class and batch image: 20); each equal to the graph-level run."""
    model = _model(_compiled("detector"))
    image = inputs_of("detector")["image"] * np.float32(scale)
    got = execute_model(model, {"image": image}, check_uninitialized=True).outputs
    assert_outputs_match(got, run(_imported("detector"), {"image": image}))
    assert got["selected"].shape == (kept, 3)
    assert got["boxes"].shape == (kept, 4) and got["scores"].shape == (kept,)


def test_lstm_sequence_axis_is_dynamic() -> None:
    """dim_param `seq` (and `batch`) import as `?`; pinned to a case's shape the Shape chains
    that build the zero initial states fold and ge-compile makes only static tasks."""
    graph = _graph(_imported("lstm_classifier"))
    (arg,) = graph.body.block.args
    assert isinstance(arg.type, TensorType)
    assert arg.type.get_shape() == (DYNAMIC_INDEX, DYNAMIC_INDEX, 6)
    _, dynamic = _kernels(_compiled("lstm_classifier"))
    assert dynamic.count("DynamicRNN") == 2
    rnn = [t for t in _model(_compiled("lstm_classifier")).tasks()
           if isinstance(t, DynamicKernelOp) and t.kernel.data == "DynamicRNN"]  # fmt: skip
    assert {t.engine.data for t in rnn} == {"AIcoreEngine"}  # the recurrent ops on AI Core
    for case in ("lstm_classifier", "lstm_classifier_b3_s4"):
        proto = pinned(onnx.load(str(MODELS / "lstm_classifier.onnx")), inputs_of(case))
        module = compiled(import_model(proto))
        static, dynamic = _kernels(module)
        assert static.count("DynamicRNN") == 2 and not dynamic
        assert_outputs_match(run(module, inputs_of(case)), expected_of(case))


@pytest.mark.parametrize(("batch", "steps"), [(1, 1), (5, 12), (2, 6)])
def test_lstm_runs_other_sequence_lengths(batch: int, steps: int) -> None:
    """The one compiled (unpinned) model runs other batch sizes and sequence lengths as the
    graph does; the (2, 6) input is the 7-step case without its last step, whose logits
    differ from the case's: the last step's output depends on the whole sequence."""
    model = _model(_compiled("lstm_classifier"))
    if (batch, steps) == (2, 6):
        x = inputs_of("lstm_classifier")["tokens"][:, :6]
    else:
        x = np.random.default_rng(steps).standard_normal((batch, steps, 6)).astype(np.float32)
    want = run(_imported("lstm_classifier"), {"tokens": x})
    got = execute_model(model, {"tokens": x}, check_uninitialized=True).outputs
    assert_outputs_match(got, want)
    assert got["logits"].shape == (batch, 4)
    if steps == 6:
        full = expected_of("lstm_classifier")["logits"]
        assert np.abs(got["logits"] - full).max() > 1e-3


def test_qdq_cnn_rounds_to_the_quantisation_grid() -> None:
    """The logits are a DequantizeLinear's: multiples of its scale, as onnxruntime's are."""
    proto = onnx.load(str(MODELS / "qdq_cnn.onnx"))
    last = proto.graph.node[-1]
    assert last.op_type == "DequantizeLinear"
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in proto.graph.initializer}
    consts = {
        n.output[0]: onnx.numpy_helper.to_array(n.attribute[0].t)
        for n in proto.graph.node
        if n.op_type == "Constant"
    }
    scale = float({**inits, **consts}[last.input[1]])
    logits = run(_imported("qdq_cnn"), inputs_of("qdq_cnn"))["logits"]
    steps = logits / scale
    np.testing.assert_allclose(steps, np.round(steps), atol=1e-3)
    assert len(np.unique(np.round(steps))) > 3


@pytest.mark.parametrize("case", ["detector_2", "lstm_classifier_b3_s4", "qdq_cnn"])
def test_models_through_ge_atc(case: str, tmp_path: Path) -> None:
    """`ge-atc` (the LSTM without --input_shape: its dynamic axes stay dynamic) -> .om ->
    `ge-run --reference`, under two stream schedules with the uninitialised-memory check."""
    out = tmp_path / case
    done = run_tool(
        "ge-atc", f"--model={MODELS / CASES[case]}.onnx", "--framework=5", f"--output={out}"
    )
    assert done.returncode == 0, done.stderr
    for seed in ("0", "3"):
        result = run_tool(
            "ge-run", f"{out}.om", "--inputs", str(MODELS / f"{case}.inputs.npz"),
            "--reference", str(MODELS / f"{case}.expected.npz"), "-q",
            "--rtol", str(RTOL), "--atol", str(ATOL),
            "--schedule-seed", seed, "--check-uninitialized",
        )  # fmt: skip
        assert result.returncode == 0, f"{result.stdout}{result.stderr}"
        assert "MATCH: all" in result.stdout


def test_detector_through_the_tools(tmp_path: Path) -> None:
    """ge-import -> .mlir -> ge-opt -p ge-compile -> .mlir -> ge-run, to onnxruntime's numbers;
    the compiled text holds the NMS as a dynamic kernel."""
    graph_ir, ascend_ir = tmp_path / "det.mlir", tmp_path / "det.ascend.mlir"
    done = run_tool("ge-import", str(MODELS / "detector.onnx"), "-o", str(graph_ir))
    assert done.returncode == 0, done.stderr
    assert "graph.non_max_suppression_v6" in graph_ir.read_text()
    done = run_tool("ge-opt", str(graph_ir), "-p", "ge-compile", "-o", str(ascend_ir))
    assert done.returncode == 0, done.stderr
    assert 'ascend.dynamic_kernel "NonMaxSuppressionV6"' in ascend_ir.read_text()
    for ir in (graph_ir, ascend_ir):
        result = run_tool(
            "ge-run", str(ir), "--inputs", str(MODELS / "detector.inputs.npz"),
            "--reference", str(MODELS / "detector.expected.npz"), "-q",
            "--rtol", str(RTOL), "--atol", str(ATOL),
        )  # fmt: skip
        assert result.returncode == 0, f"{ir.name}: {result.stdout}{result.stderr}"
        assert "MATCH: all 3 outputs equal" in result.stdout
