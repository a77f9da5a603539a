"""GetNext sink (issue 19 part 2): a GetNext feeds the root from a queue of input sets, the
gear is found on the device by GetDynamicDims over the real input shapes, and the outputs
take the shapes the hidden last output names; numbers against onnxruntime and between the
graph and task levels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType

from gedialects import make_context
from gedialects.ascend import ModelOp
from gedialects.errors import GearMismatchError, InputError
from gedialects.interpreters.ascend import run_model
from gedialects.interpreters.gears import GearInfo
from gedialects.interpreters.getnext import InputQueue, feeding
from gedialects.interpreters.run import RunError, find_entry, run_entry, signature
from gedialects.multibatch import GET_DYNAMIC_DIMS_NAME
from gedialects.passes.getnext import SinkInputsPass
from gedialects.passes.multibatch.expand import MultibatchExpandPass
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.session import Session
from tests.conftest import parse

MODELS = Path(__file__).resolve().parent / "models"

GRAPH = """
graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}, %y: tensor<?xf32> {node_name = "y"})
    -> (tensor<?x3xf32> {node_name = "r"}, tensor<?xf32> {node_name = "s"},
        tensor<?xf32> {node_name = "yout"}) {
  %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %axes = graph.const dense<[1]> : tensor<1xi64> {node_name = "axes"}
  %m = graph.reduce_sum %r, %axes : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  %s = graph.add %m, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %r, %s, %y : tensor<?x3xf32>, tensor<?xf32>, tensor<?xf32>
}
"""
GEARS = {"input_shape": "x:-1,3;y:-1", "dynamic_dims": "1,1;4,4;2,2"}


def _set(batch: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.standard_normal((batch, 3)).astype(np.float32),
        "y": rng.standard_normal(batch).astype(np.float32),
    }


def _want(inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    r = np.maximum(inputs["x"], 0)
    return {"r": r, "s": r.sum(axis=1) + inputs["y"], "yout": inputs["y"]}


def _assert_same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert list(got) == list(want)
    for name, value in want.items():
        assert got[name].shape == value.shape, name
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def _fed(compiled: bool, **options: object) -> ModuleOp:
    module = parse(GRAPH)
    ctx = make_context()
    SinkInputsPass().apply(ctx, module)
    if compiled:
        CompilePipelinePass(**options).apply(ctx, module)  # type: ignore[arg-type]
    else:
        MultibatchExpandPass(**options).apply(ctx, module)  # type: ignore[arg-type]
    module.verify()
    return module


@pytest.fixture(scope="module")
def graph_level() -> ModuleOp:
    return _fed(False, **GEARS)


@pytest.fixture(scope="module")
def task_level() -> ModuleOp:
    return _fed(True, **GEARS)


@pytest.mark.parametrize("level", ["graph_level", "task_level"])
def test_a_queue_of_gears_runs_each_set_at_its_gear(
    level: str, request: pytest.FixtureRequest
) -> None:
    module: ModuleOp = request.getfixturevalue(level)
    sets = [_set(4, 0), _set(1, 1), _set(2, 2), _set(4, 3)]
    result = run_entry(module, sets[0], queue=sets[1:], check_uninitialized=level == "task_level")
    assert result.pulled == 4 and len(result.launches) == 4
    for got, given in zip(result.launches, sets, strict=True):
        _assert_same(got, _want(given))
    assert result.outputs is result.launches[-1]


def test_signature_takes_the_getnext_inputs_and_hides_the_dims_output(
    task_level: ModuleOp,
) -> None:
    model = find_entry(task_level)
    assert isinstance(model, ModelOp) and not model.inputs()
    sig = signature(model)
    assert sig.input_names == ("x", "y") and sig.getnext == 2
    assert sig.output_names == ("r", "s", "yout")
    assert model.output_names[-1] == GET_DYNAMIC_DIMS_NAME
    info = GearInfo.find_model(model)
    assert info is not None and info.getnext and info.shape_data_index is None
    assert info.input_names == ("x", "y")


def test_getdynamicdims_reads_the_real_shapes_on_the_device(task_level: ModuleOp) -> None:
    """The hidden last output is what GetDynamicDims read off the GetNext's shape buffers
    (GE's AssembleListenerOutput reads it back); the data buffers are sized for the largest
    gear and are kept apart from every feature tensor (the model verifies at load)."""
    model = find_entry(task_level)
    assert isinstance(model, ModelOp)
    task = next(t for t in model.tasks() if t.effects().kernel == "GetNext")
    outs = [b.type for b in task.effects().outs]
    assert outs == [
        TensorType(outs[0].element_type, [4, 3]),
        TensorType(outs[1].element_type, [4]),
        TensorType(outs[2].element_type, [2]),
        TensorType(outs[3].element_type, [1]),
    ]
    for batch, gear in ((1, (1, 1)), (4, (4, 4)), (2, (2, 2))):
        with feeding(InputQueue([_set(batch, batch)])) as queue:
            outputs = run_model(model, {}, check_uninitialized=True)
        assert queue.pulled == 1
        assert tuple(outputs[GET_DYNAMIC_DIMS_NAME].tolist()) == gear
        assert outputs["r"].shape == (batch, 3)


def test_sink_loop_iterations_pull_one_set_each() -> None:
    module = _fed(True, iterations_per_loop=2, **GEARS)
    sets = [_set(4, 0), _set(1, 1), _set(2, 2), _set(1, 3)]
    result = run_entry(module, sets[0], queue=sets[1:], check_uninitialized=True)
    assert result.pulled == 4 and len(result.launches) == 2
    _assert_same(result.launches[0], _want(sets[1]))  # the last iteration's outputs
    _assert_same(result.launches[1], _want(sets[3]))
    with pytest.raises(RunError, match="end of sequence: the input queue is empty after 3"):
        run_entry(module, sets[0], queue=sets[1:3])


def test_getnext_without_gears_pulls_static_sets() -> None:
    module = parse(GRAPH.replace("?x3", "2x3").replace("?xf32", "2xf32"))
    ctx = make_context()
    SinkInputsPass().apply(ctx, module)
    CompilePipelinePass().apply(ctx, module)
    sets = [_set(2, 5), _set(2, 6), _set(2, 7)]
    result = run_entry(module, sets[0], queue=sets[1:])
    for got, given in zip(result.launches, sets, strict=True):
        _assert_same(got, _want(given))


def test_queue_errors(task_level: ModuleOp) -> None:
    with pytest.raises(RunError, match=r"missing input 'y'"):
        run_entry(task_level, _set(4, 0), queue=[{"x": _set(1, 1)["x"]}])
    bad = _set(1, 1) | {"x": np.ones((1, 3), np.float64)}
    with pytest.raises(RunError, match="input 'x' has dtype float64"):
        run_entry(task_level, _set(4, 0), queue=[bad])
    with pytest.raises(RunError, match="E13025"):
        run_entry(task_level, _set(3, 0))
    plain = parse(GRAPH)
    with pytest.raises(RunError, match="is not fed by a GetNext: it takes one input set, 2"):
        run_entry(plain, _set(4, 0), queue=[_set(4, 1)])


# --- the Session: ge.dynamicNodeType=0 --------------------------------------------------------

TRANSFORMER = MODELS / "transformer.onnx"
TRANSFORMER_OPTIONS = {
    "ge.inputShape": "tokens:-1,-1,32",
    "ge.dynamicDims": "1,5;3,5;2,7",
    "ge.dynamicNodeType": "0",
}


def _ort(path: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, inputs), strict=True))


def _tokens(batch: int, seq: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"tokens": rng.standard_normal((batch, seq, 32)).astype(np.float32)}


def test_session_queue_of_gears_matches_onnxruntime() -> None:
    session = Session()
    session.add_graph(0, TRANSFORMER, TRANSFORMER_OPTIONS)
    assert "ge-sink-inputs" in session.stages(0)
    assert session.input_names(0) == ("tokens",)
    sets = [_tokens(3, 5, 0), _tokens(1, 5, 1), _tokens(2, 7, 2), _tokens(3, 5, 3)]
    outputs = session.run_queue(0, sets)
    assert len(outputs) == len(sets)
    for got, given in zip(outputs, sets, strict=True):
        want = _ort(TRANSFORMER, given)["encoded"]
        assert got["encoded"].shape == want.shape
        np.testing.assert_allclose(got["encoded"], want, rtol=1e-4, atol=1e-4)
    one = session.run_graph(0, sets[2])["encoded"]
    np.testing.assert_array_equal(one, outputs[2]["encoded"])
    with pytest.raises(GearMismatchError, match="E13025"):
        session.run_queue(0, [sets[0], _tokens(2, 5, 4)])


def test_session_queue_needs_a_getnext_graph() -> None:
    session = Session()
    session.add_graph(0, TRANSFORMER, TRANSFORMER_OPTIONS | {"ge.dynamicNodeType": "1"})
    with pytest.raises(InputError, match="2 input sets given: only a graph fed by a GetNext"):
        session.run_queue(0, [_tokens(1, 5, 0), _tokens(3, 5, 1)])


def test_session_getnext_and_hybrid_mode_is_no_hybrid_mode() -> None:
    session = Session()
    session.add_graph(0, TRANSFORMER, TRANSFORMER_OPTIONS | {"ge.compileHybridMode": "1"})
    (note,) = session.notes(0)
    assert note.endswith("ge.dynamicNodeType is '0', not '1'")
    out = session.run_queue(0, [_tokens(1, 5, 0)])
    assert out[0]["encoded"].shape == (1, 5, 32)


def test_session_describes_a_getnext_graph() -> None:
    session = Session()
    session.add_graph(
        0,
        GRAPH,
        {"ge.inputShape": "x:-1,3;y:-1", "ge.dynamicDims": "1,1;4,4;2,2"}
        | {"ge.dynamicNodeType": "0"},
    )
    assert [(a.name, a.shape) for a in session.get_inputs(0)] == [("x", (None, 3)), ("y", (None,))]
    assert [(a.name, a.shape) for a in session.get_outputs(0)] == [
        ("r", (None, 3)),
        ("s", (None,)),
        ("yout", (None,)),
    ]
    assert session.gear_count(0) == 3
    assert session.gear_dims(0)[1] == {"x": (4, 3), "y": (4,)}
