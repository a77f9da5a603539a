"""ge-atc and the task level of gear models: lowering, run time, hybrid mode, memory, CLI."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto
from onnx import helper as h
from onnx import numpy_helper as nh
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from gedialects import make_context
from gedialects.ascend import KernelOp, MemcpyAsyncOp, ModelOp
from gedialects.errors import GraphError
from gedialects.frontend.onnx import import_model
from gedialects.graph import GraphOp
from gedialects.interpreters.ascend import AscendRuntimeError, execute_model
from gedialects.interpreters.gears import GearInfo
from gedialects.interpreters.run import RunError, find_entry, run, signature
from gedialects.passes.multibatch.expand import MultibatchExpandPass
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.runtime import compile as runtime_compile
from gedialects.tools import ge_atc, ge_run

MODELS = Path(__file__).parent / "models"
CNN = MODELS / "cnn.onnx"
needs_cnn = pytest.mark.skipif(not CNN.exists(), reason="tests/models/cnn.onnx is not exported")


def _parse(path: Path) -> ModuleOp:
    module = Parser(make_context(), path.read_text(), str(path)).parse_module()
    module.verify()
    return module


def _model(module: ModuleOp) -> ModelOp:
    (model,) = [op for op in module.ops if isinstance(op, ModelOp)]
    return model


def _compile(module: ModuleOp, **options: object) -> tuple[ModuleOp, ModuleOp]:
    """(expanded graph-level module, compiled module)."""
    ctx = make_context()
    MultibatchExpandPass(**options).apply(ctx, module)  # type: ignore[arg-type]
    graph_level = module.clone()
    CompilePipelinePass().apply(ctx, module)
    module.verify()
    return graph_level, module


def _per_sample(original: ModuleOp, image: np.ndarray) -> np.ndarray:
    """The original CNN is fixed at batch 2: run each sample paired with itself, keep one."""
    rows = [
        run(original, {"image": np.concatenate([image[i : i + 1]] * 2)})["logits"][:1]
        for i in range(len(image))
    ]
    return np.concatenate(rows)


def _image(n: int) -> np.ndarray:
    return np.random.default_rng(n).standard_normal((n, 3, 16, 16)).astype(np.float32)


# --------------------------------------------------------------------------------------------
# ge-atc on the exported CNN
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def atc_cnn(tmp_path_factory: pytest.TempPathFactory) -> tuple[ModuleOp, ModuleOp, ModuleOp]:
    """(original graph, compiled gear model, compiled hybrid model), both through the CLI."""
    if not CNN.exists():
        pytest.skip("tests/models/cnn.onnx is not exported")
    out = tmp_path_factory.mktemp("atc")
    common = [f"--model={CNN}", "--input_shape=image:-1,3,16,16", "--dynamic_batch_size=1,4,8"]
    assert ge_atc.main([*common, f"--output={out / 'cnn'}", "--framework=5"]) == 0
    assert ge_atc.main([*common, f"--output={out / 'hybrid.mlir'}", "--hybrid"]) == 0
    return import_model(CNN), _parse(out / "cnn.mlir"), _parse(out / "hybrid.mlir")


def test_cnn_batch_is_fixed_in_the_model() -> None:
    if not CNN.exists():
        pytest.skip("tests/models/cnn.onnx is not exported")
    (graph,) = import_model(CNN).ops
    assert isinstance(graph, GraphOp)
    assert graph.function_type.inputs.data[0].get_shape() == (2, 3, 16, 16)


def test_atc_writes_a_self_contained_model(atc_cnn: tuple[ModuleOp, ModuleOp, ModuleOp]) -> None:
    _, compiled, _ = atc_cnn
    assert [op.name for op in compiled.ops] == ["ascend.model"]
    model = _model(compiled)
    assert model.weights(), "weights travel in the file"
    image = model.inputs()[0]
    assert image.buffer.type.get_shape() == (8, 3, 16, 16)  # the largest gear
    assert model.outputs()[0].buffer.type.get_shape() == (8, 10)
    info = GearInfo.find_model(model)
    assert info is not None and info.gears == ((1,), (4,), (8,))
    assert info.output_dims_of(1) == {"logits": (4, 10)}


@needs_cnn
@pytest.mark.parametrize("n", [1, 4, 8])
def test_atc_cnn_runs_every_gear(atc_cnn: tuple[ModuleOp, ModuleOp, ModuleOp], n: int) -> None:
    original, compiled, _ = atc_cnn
    image = _image(n)
    got = run(compiled, {"image": image})["logits"]
    assert got.shape == (n, 10)
    np.testing.assert_allclose(got, _per_sample(original, image), rtol=1e-5, atol=1e-5)


@needs_cnn
def test_atc_cnn_matches_onnxruntime(atc_cnn: tuple[ModuleOp, ModuleOp, ModuleOp]) -> None:
    """The stored batch-2 input twice is a batch-4 gear: onnxruntime's output twice."""
    _, compiled, _ = atc_cnn
    with np.load(MODELS / "cnn.inputs.npz") as inputs, np.load(MODELS / "cnn.expected.npz") as ref:
        image, logits = inputs["image"], ref["logits"]
    got = run(compiled, {"image": np.concatenate([image, image])})["logits"]
    np.testing.assert_allclose(got, np.concatenate([logits, logits]), rtol=1e-4, atol=1e-5)


@needs_cnn
def test_atc_cnn_batch_three_is_e13025(atc_cnn: tuple[ModuleOp, ModuleOp, ModuleOp]) -> None:
    _, compiled, _ = atc_cnn
    with pytest.raises(RunError) as e:
        run(compiled, {"image": _image(3)})
    assert str(e.value) == (
        "E13025: Input tensor is invalid. Reason: The input tensor dimension [3] "
        "(image:[3,3,16,16]) is not in the dynamic dimension list [[1], [4], [8]] configured "
        "by --dynamic_batch_size."
    )
    # The interpreter's own API refuses it the same way (no silent truncation).
    with pytest.raises(AscendRuntimeError, match="E13025"):
        execute_model(_model(compiled), {"image": _image(3)})


@needs_cnn
@pytest.mark.parametrize("n", [1, 3, 4, 5, 8])
def test_atc_hybrid_runs_other_shapes_dynamically(
    atc_cnn: tuple[ModuleOp, ModuleOp, ModuleOp], n: int
) -> None:
    original, _, hybrid = atc_cnn
    names = [(op.name, op.sym_name.data) for op in hybrid.ops]
    # The dynamic graph is a model too: its unknown-shape partitions run as dynamic tasks.
    assert names == [("ascend.model", "main_graph_dynamic"), ("ascend.model", "main_graph")]
    dynamic = hybrid.ops.first
    assert any(t.name == "ascend.dynamic_kernel" for t in dynamic.body.block.ops)
    image = _image(n)
    got = run(hybrid, {"image": image})["logits"]
    assert got.shape == (n, 10)
    np.testing.assert_allclose(got, _per_sample(original, image), rtol=1e-5, atol=1e-5)


@needs_cnn
def test_hybrid_routes_gears_to_the_model(atc_cnn: tuple[ModuleOp, ModuleOp, ModuleOp]) -> None:
    _, _, hybrid = atc_cnn
    sig = signature(find_entry(hybrid))
    assert sig.route is not None
    (four,) = (_image(4),)
    assert sig.route((four,)) is None  # a gear: the static model runs it
    target, args = sig.route((_image(3),)) or (None, ())
    assert isinstance(target, ModelOp) and target.sym_name.data == "main_graph_dynamic"
    assert args[0].shape == (3, 3, 16, 16)


@needs_cnn
def test_atc_hybrid_compiles_both_graphs_concurrently(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ge-atc --hybrid` compiles as the Session does (GE's two-thread pool): the gear graph
    and the dynamic graph each wait at a barrier the other must reach; one compile each."""
    barrier = threading.Barrier(2, timeout=60)
    seen: list[tuple[str, bool]] = []
    real = runtime_compile.run_stages

    def run_stages(
        module: ModuleOp, stages: Sequence[CompilePipelinePass], printed: dict[str, str] | None
    ) -> None:
        seen.append((threading.current_thread().name, stages[0].gears))
        barrier.wait()
        real(module, stages, printed)

    monkeypatch.setattr(runtime_compile, "run_stages", run_stages)
    common = [f"--model={CNN}", "--input_shape=image:-1,3,16,16", "--dynamic_batch_size=1,4"]
    assert ge_atc.main([*common, f"--output={tmp_path / 'h.mlir'}", "--hybrid"]) == 0
    assert sorted(gears for _, gears in seen) == [False, True]
    assert len({name for name, _ in seen}) == 2
    assert all(name.startswith("ge-hybrid") for name, _ in seen)
    hybrid = _parse(tmp_path / "h.mlir")
    models = [op.sym_name.data for op in hybrid.ops if isinstance(op, ModelOp)]
    assert models == ["main_graph_dynamic", "main_graph"] and len(hybrid.ops) == 2


@needs_cnn
def test_atc_hybrid_reports_a_failure_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def run_stages(
        module: ModuleOp, stages: Sequence[CompilePipelinePass], printed: dict[str, str] | None
    ) -> None:
        raise GraphError("gear broke" if stages[0].gears else "dyn broke")

    monkeypatch.setattr(runtime_compile, "run_stages", run_stages)
    common = [f"--model={CNN}", "--input_shape=image:-1,3,16,16", "--dynamic_batch_size=1,4"]
    assert ge_atc.main([*common, f"--output={tmp_path / 'h'}", "--hybrid"]) == 1
    assert capsys.readouterr().err == (
        "error: gear broke (the dynamic graph of hybrid mode failed too: dyn broke)\n"
    )
    assert list(tmp_path.iterdir()) == []


@needs_cnn
def test_ge_run_loads_the_atc_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], atc_cnn: tuple[ModuleOp, ModuleOp, ModuleOp]
) -> None:
    common = [f"--model={CNN}", "--input_shape=image:-1,3,16,16", "--dynamic_batch_size=1,4,8"]
    assert ge_atc.main([*common, f"--output={tmp_path / 'm'}"]) == 0
    np.savez(tmp_path / "in.npz", image=_image(4))
    assert ge_run.main([str(tmp_path / "m.mlir"), "--inputs", str(tmp_path / "in.npz")]) == 0
    assert "logits: float32[4, 10]" in capsys.readouterr().out
    np.savez(tmp_path / "bad.npz", image=_image(3))
    assert ge_run.main([str(tmp_path / "m.mlir"), "--inputs", str(tmp_path / "bad.npz")]) == 1
    assert "E13025" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# CLI errors: one line, exit 1, nothing written
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--dynamic_batch_size=4"], "error: ge-expand-multibatch: E10035"),
        (["--dynamic_batch_size=1,4", "--framework=3"], "error: --framework=3 (TensorFlow)"),
        (["--hybrid"], "error: --hybrid needs gears"),
        (["--dynamic_batch_size=1,4", "--dynamic_dims=1;2"], "error: ge-expand-multibatch: E10009"),
        (["--dynamic_batch_size=1,a"], "error: ge-expand-multibatch: E10003"),
        (["--bogus=1"], "error: unrecognized arguments: --bogus=1"),
    ],
)
def test_atc_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    if not CNN.exists():
        pytest.skip("tests/models/cnn.onnx is not exported")
    out = tmp_path / "m"
    argv = [f"--model={CNN}", f"--output={out}", "--input_shape=image:-1,3,16,16", *extra]
    assert ge_atc.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(message), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_atc_missing_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ge_atc.main([f"--model={tmp_path / 'no.onnx'}", f"--output={tmp_path / 'm'}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
    assert ge_atc.main([f"--output={tmp_path / 'm'}"]) == 1
    assert capsys.readouterr().err == (
        "error: the following arguments are required: --model (see 'ge-atc --help')\n"
    )


def test_atc_soc_version_is_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _tiny_onnx(tmp_path, ["N", 2, 4, 4])
    argv = [f"--model={path}", f"--output={tmp_path / 'm'}", "--input_shape=x:2,2,4,4"]
    assert ge_atc.main([*argv, "--soc_version=Ascend310"]) == 0
    assert capsys.readouterr().err.startswith("note: --soc_version=Ascend310 is ignored")
    module = _parse(tmp_path / "m.mlir")
    x = np.random.default_rng(0).standard_normal((2, 2, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(run(module, {"x": x})["y"], np.maximum(x * 0.5, 0), rtol=1e-6)


# --------------------------------------------------------------------------------------------
# Lowering of image-size and dims gears, memory, debug mode
# --------------------------------------------------------------------------------------------


def _tiny_onnx(folder: Path, dims: list[object], second: bool = False) -> Path:
    """y = relu(x * 0.5) [+ reduce-sum of z over its last axis, keepdims, broadcast]."""
    nodes = [h.make_node("Mul", ["x", "w"], ["xw"]), h.make_node("Relu", ["xw"], ["y"])]
    inputs = [h.make_tensor_value_info("x", TensorProto.FLOAT, dims)]
    outputs = [h.make_tensor_value_info("y", TensorProto.FLOAT, dims)]
    if second:
        nodes.append(h.make_node("ReduceSum", ["z", "axes"], ["s"], keepdims=0))
        inputs.append(h.make_tensor_value_info("z", TensorProto.FLOAT, [2, "L"]))
        outputs.append(h.make_tensor_value_info("s", TensorProto.FLOAT, [2]))
    inits = [nh.from_array(np.array(0.5, np.float32), "w"), nh.from_array(np.array([1]), "axes")]
    graph = h.make_graph(nodes, "tiny", inputs, outputs, inits)
    path = folder / "tiny.onnx"
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]), path)
    return path


def _check_gears(graph_level: ModuleOp, compiled: ModuleOp, shapes: list[dict]) -> None:
    model = _model(compiled)
    rng = np.random.default_rng(7)
    for shape in shapes:
        inputs = {k: rng.standard_normal(v).astype(np.float32) for k, v in shape.items()}
        want = run(graph_level, inputs)
        got = run(compiled, inputs)
        for name, value in want.items():
            assert got[name].shape == value.shape
            np.testing.assert_allclose(got[name], value, rtol=1e-6)
        # Debug mode: every read is of bytes written through the same buffer, under several
        # schedules; the shape data is filled by the runtime when left out.
        for seed in (None, 1, 2):
            run_ = execute_model(model, inputs, schedule_seed=seed, check_uninitialized=True)
            for name, value in want.items():
                np.testing.assert_allclose(run_.outputs[name], value, rtol=1e-6)


def test_image_size_gears_lower_to_views(tmp_path: Path) -> None:
    module = import_model(_tiny_onnx(tmp_path, [1, 2, "H", "W"]))
    graph_level, compiled = _compile(
        module, input_shape="x:1,2,-1,-1", dynamic_image_size="4,4;2,6;3,3"
    )
    model = _model(compiled)
    (x, _) = model.inputs()
    assert x.buffer.type.get_shape() == (1, 2, 4, 4)  # 4x4 has the most elements
    offsets = {b.offset_value for t in model.tasks() if isinstance(t, KernelOp) for b in t.inputs}
    assert x.buffer.offset_value in offsets  # the branches read the input buffer in place
    copies = [t for t in model.tasks() if isinstance(t, MemcpyAsyncOp)]
    out = model.outputs()[0].buffer
    assert sorted(c.dst.type.get_shape() for c in copies) == [
        (1, 2, 2, 6),
        (1, 2, 3, 3),
        out.type.get_shape(),
    ]
    assert {c.dst.offset_value for c in copies} == {out.offset_value}
    _check_gears(
        graph_level, compiled, [{"x": (1, 2, 4, 4)}, {"x": (1, 2, 2, 6)}, {"x": (1, 2, 3, 3)}]
    )


def test_dims_gears_on_two_inputs(tmp_path: Path) -> None:
    module = import_model(_tiny_onnx(tmp_path, ["N", 3], second=True))
    graph_level, compiled = _compile(
        module, input_shape="x:-1,3;z:2,-1", dynamic_dims="1,5;4,2;2,2"
    )
    shapes = [{"x": (n, 3), "z": (2, m)} for n, m in ((1, 5), (4, 2), (2, 2))]
    _check_gears(graph_level, compiled, shapes)
    with pytest.raises(RunError, match=r"E13025: .* \[4,5\] .*--dynamic_dims"):
        run(compiled, {"x": np.zeros((4, 3), np.float32), "z": np.zeros((2, 5), np.float32)})


def test_shape_data_must_name_the_gear(tmp_path: Path) -> None:
    module = import_model(_tiny_onnx(tmp_path, ["N", 3]))
    _, compiled = _compile(module, input_shape="x:-1,3", dynamic_batch_size="1,2")
    x = np.zeros((2, 3), np.float32)
    wrong = {"x": x, "ascend_mbatch_shape_data": np.array([1], np.int32)}
    with pytest.raises(AscendRuntimeError, match=r"shape data \[1\] does not name .* \[2\]"):
        execute_model(_model(compiled), wrong)


@needs_cnn
def test_gear_arena_is_close_to_the_largest_gear() -> None:
    """Branches overlay and weights are stored once: N gears cost the largest gear."""
    graph_level, compiled = _compile(
        import_model(CNN), input_shape="image:-1,3,16,16", dynamic_batch_size="1,2,4,8"
    )
    singles = []
    for branch in [g for g in graph_level.ops if isinstance(g, GraphOp)][1:]:
        alone = ModuleOp([branch.clone()])
        CompilePipelinePass().apply(make_context(), alone)
        singles.append(_model(alone).arena_size.value.data)
    assert _model(compiled).arena_size.value.data <= 1.05 * max(singles)


def test_gear_buffer_read_outside_the_case_is_refused(tmp_path: Path) -> None:
    module = import_model(_tiny_onnx(tmp_path, ["N", 3]))
    with pytest.raises(Exception, match="reads a buffer sized for the largest gear"):
        _compile(module, input_shape="x:-1,3", dynamic_batch_size="1,2", get_dynamic_dims=True)


# --------------------------------------------------------------------------------------------
# Verifier of the gear attributes
# --------------------------------------------------------------------------------------------


def _tiny_model(tmp_path: Path) -> ModelOp:
    module = import_model(_tiny_onnx(tmp_path, ["N", 3]))
    _, compiled = _compile(module, input_shape="x:-1,3", dynamic_batch_size="1,2")
    return _model(compiled)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("0,1,1,3", 'entry "0,1,1,3" is not "<gear>,<output index>,<dims>" for one of its 1'),
        ("0,0,x", 'entry "0,0,x" is not'),
        ("1,0,3,3", 'entry "1,0,3,3" does not fit the buffer'),
    ],
)
def test_verifier_checks_dynamic_output_dims(tmp_path: Path, entry: str, message: str) -> None:
    from xdsl.dialects.builtin import ArrayAttr, StringAttr

    model = _tiny_model(tmp_path)
    model.attributes["_dynamic_output_dims"] = ArrayAttr([StringAttr(entry)])
    with pytest.raises(VerifyException, match=message):
        model.verify()


def test_verifier_checks_max_input_dims(tmp_path: Path) -> None:
    from gedialects.base import int_array

    model = _tiny_model(tmp_path)
    model.inputs()[0].attributes["_mbatch_max_input_dims"] = int_array([4, 3])
    with pytest.raises(
        VerifyException, match=r"has _mbatch_max_input_dims \[4, 3\] but its buffer"
    ):
        model.verify()


def test_atc_compiles_a_data_dependent_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No gear options: NonZero's partition becomes dynamic tasks in the offline model."""
    out = tmp_path / "nz"
    assert ge_atc.main([f"--model={MODELS / 'nonzero.onnx'}", f"--output={out}"]) == 0
    text = (tmp_path / "nz.mlir").read_text()
    assert 'ascend.dynamic_kernel "NonZero"' in text
    args = [str(tmp_path / "nz.mlir"), "--inputs", str(MODELS / "nonzero.inputs.npz")]
    reference = ["--reference", str(MODELS / "nonzero.expected.npz")]
    assert ge_run.main([*args, *reference, "-q"]) == 0
    assert "MATCH: all 3 outputs equal" in capsys.readouterr().out
