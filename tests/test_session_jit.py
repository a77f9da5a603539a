"""gedialects.Session in JIT mode (`ge.jit=1`): slice by slice with the real shapes, cached."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gedialects.interpreters.run import run
from gedialects.session import (
    ExecutionError,
    GraphError,
    InputError,
    JitStats,
    OptionError,
    Session,
    load_graph,
)
from tests.conftest import ROOT
from tests.test_session import GATHER, _npz, _ort

MODELS = ROOT / "tests" / "models"
NONZERO = MODELS / "nonzero.onnx"
TRANSFORMER = MODELS / "transformer.onnx"
JIT = {"ge.jit": "1"}

CHAIN = """
graph.graph @main(%x: tensor<8xf32> {node_name = "x"}) -> (tensor<?x2xi64> {node_name = "y"}) {
  %c = graph.const dense<0.0> : tensor<f32>
  %g = graph.greater %x, %c : (tensor<8xf32>, tensor<f32>) -> tensor<8xi1>
  %n = graph.non_zero %g transpose true : (tensor<8xi1>) -> tensor<?x1xi64>
  %f = graph.cast %n dst_type f32 : (tensor<?x1xi64>) -> tensor<?x1xf32>
  %s = graph.sub %f, %c : (tensor<?x1xf32>, tensor<f32>) -> tensor<?x1xf32>
  %h = graph.greater %s, %c : (tensor<?x1xf32>, tensor<f32>) -> tensor<?x1xi1>
  %y = graph.non_zero %h transpose true : (tensor<?x1xi1>) -> tensor<?x2xi64>
  graph.net_output %y : tensor<?x2xi64>
}
"""
"""Two data-dependent nodes in a row, unnamed ops (the session names them for slicing)."""

CALLS = """
graph.graph @main(%x: tensor<?xf32> {node_name = "x"}) -> (tensor<?xf32> {node_name = "y"}) {
  %r = partition.partitioned_call @helper(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %y = graph.add %r, %x {node_name = "sum"} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %y : tensor<?xf32>
}
graph.graph @helper(%a: tensor<?xf32>) -> tensor<?xf32> {
  %r = graph.relu %a {node_name = "inner"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %r : tensor<?xf32>
}
"""


def _whole(graph: Path | str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The whole-graph interpreter on the imported graph: what every JIT run must equal."""
    return run(load_graph(graph), inputs)


def _assert_equal(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert list(got) == list(want)
    for name, value in want.items():
        assert got[name].shape == value.shape and got[name].dtype == value.dtype, name
        np.testing.assert_array_equal(got[name], value, err_msg=name)


def _non_const_nodes(session: Session, graph_id: int) -> list[str]:
    consts = ("/Constant", "Const")
    return [
        node
        for info in session.jit_slices(graph_id)
        for node in info.nodes
        if not node.startswith(consts)
    ]


# --- the data-dependent model -----------------------------------------------------------------


def test_nonzero_model_equals_the_interpreter_and_onnxruntime() -> None:
    inputs, expected = _npz("nonzero.inputs.npz"), _npz("nonzero.expected.npz")
    session = Session(JIT)
    session.add_graph(0, NONZERO)
    out = session.run_graph(0, inputs)
    _assert_equal(out, _whole(NONZERO, inputs))
    for name, want in expected.items():
        np.testing.assert_allclose(out[name], want, rtol=1e-5, atol=1e-6)
    for name, want in _ort(NONZERO, inputs).items():
        np.testing.assert_allclose(out[name], want, rtol=1e-5, atol=1e-6)
    assert session.level(0) == "jit"
    assert list(session.stages(0)) == ["import", "ge-infer-shapes", "ge-verify-graph"]
    slices = session.jit_slices(0)
    stats = session.jit_stats(0)
    assert stats == JitStats(runs=1, compiled=len(slices), hits=0, last_slices=len(slices))
    assert [info.step for info in slices] == list(range(len(slices)))
    assert [info.last for info in slices] == [False] * (len(slices) - 1) + [True]
    # every node runs in exactly one slice; the data-dependent ones end a slice
    nodes = _non_const_nodes(session, 0)
    graph_nodes = [
        "/Greater", "/NonZero", "/Transpose", "/GatherND", "/Mul", "/NonZero_1",
        "/Transpose_1", "/ReduceSum", "/Reshape",
    ]  # fmt: skip
    assert sorted(nodes) == sorted(graph_nodes)
    for info in slices:
        has_nonzero = any(n.startswith("/NonZero") for n in info.nodes)
        assert info.level == "ascend" or has_nonzero, info
        if has_nonzero:
            assert not info.last and "/Transpose" not in info.nodes
    # each slice after the first was compiled for the actual shapes its producer gave
    count = int(out["indices"].shape[0])
    assert any((2, count) in [shape for _, shape, _ in info.inputs] for info in slices)


def test_second_run_hits_the_cache_and_new_shapes_compile_new_slices() -> None:
    inputs = _npz("nonzero.inputs.npz")
    session = Session()
    session.add_graph(3, NONZERO, JIT)
    first = session.run_graph(3, inputs)
    before = session.jit_stats(3)
    again = session.run_graph(3, inputs)
    after = session.jit_stats(3)
    _assert_equal(again, first)
    assert after.compiled == before.compiled  # nothing compiled
    assert after.hits == before.compiled == after.last_slices
    assert after.runs == 2
    # same input shape, another number of nonzeros: only the slice after NonZero is new
    x = inputs["x"].copy()
    x[x > 0.25] = 0.0
    x[0, :3] = 1.0
    third = session.run_graph(3, {"x": x})
    assert third["indices"].shape == (3, 2) != first["indices"].shape
    _assert_equal(third, _whole(NONZERO, {"x": x}))
    stats = session.jit_stats(3)
    assert stats.compiled == before.compiled + 1
    assert stats.hits == after.hits + stats.last_slices - 1
    assert len(session.jit_slices(3)) == stats.compiled
    # and that shape is cached in turn
    session.run_graph(3, {"x": x})
    assert session.jit_stats(3).compiled == stats.compiled


def test_positional_and_onnxruntime_style_calls() -> None:
    inputs = _npz("nonzero.inputs.npz")
    session = Session(JIT)
    session.add_graph(0, NONZERO)
    indices, total = session.run(["indices", "total"], inputs)
    by_position = session.run_graph(0, [inputs["x"]])
    np.testing.assert_array_equal(indices, by_position["indices"])
    np.testing.assert_array_equal(total, by_position["total"])
    assert session.jit_stats(0).hits == session.jit_stats(0).compiled


# --- dynamic axes -----------------------------------------------------------------------------


def test_transformer_at_two_sequence_lengths() -> None:
    inputs, expected = _npz("transformer.inputs.npz"), _npz("transformer.expected.npz")
    tokens = inputs["tokens"]
    session = Session(JIT)
    session.add_graph(0, TRANSFORMER)
    out = session.run_graph(0, inputs)
    np.testing.assert_allclose(out["encoded"], expected["encoded"], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(
        out["encoded"], _whole(TRANSFORMER, inputs)["encoded"], rtol=1e-5, atol=1e-5
    )
    # after shape inference with the real shapes the whole graph is static: one ascend slice
    (only,) = session.jit_slices(0)
    assert only.level == "ascend" and only.last and only.inputs[0][1] == tokens.shape
    shorter = {"tokens": np.random.default_rng(3).standard_normal((2, 5, 32)).astype(np.float32)}
    assert shorter["tokens"].shape[1] != tokens.shape[1]
    out5 = session.run_graph(0, shorter)
    np.testing.assert_allclose(
        out5["encoded"], _whole(TRANSFORMER, shorter)["encoded"], rtol=1e-5, atol=1e-5
    )
    np.testing.assert_allclose(
        out5["encoded"], _ort(TRANSFORMER, shorter)["encoded"], rtol=1e-4, atol=1e-4
    )
    assert session.jit_stats(0) == JitStats(runs=2, compiled=2, hits=0, last_slices=1)
    session.run_graph(0, inputs)
    assert session.jit_stats(0) == JitStats(runs=3, compiled=2, hits=1, last_slices=1)
    assert sorted(info.inputs[0][1] for info in session.jit_slices(0)) == [
        (2, 5, 32),
        tokens.shape,
    ]


def test_input_shape_option_pins_dims_in_jit_mode() -> None:
    session = Session(JIT)
    session.add_graph(0, TRANSFORMER, {"ge.inputShape": "tokens:-1,5,32"})
    three = _npz("transformer_b3_s5.inputs.npz")
    out = session.run_graph(0, three)
    np.testing.assert_allclose(
        out["encoded"], _npz("transformer_b3_s5.expected.npz")["encoded"], atol=1e-4
    )
    with pytest.raises(InputError, match=r"input 'tokens' has shape \[3,8,32\].*\[\?,5,32\]"):
        session.run_graph(0, {"tokens": np.zeros((3, 8, 32), np.float32)})


# --- slicing rules ----------------------------------------------------------------------------


def test_breakpoints_join_the_slice_with_dynamic_kernels() -> None:
    """GE's rule: a breakpoint runs in the slice of the inferred nodes before it, compiled to
    the ascend level as a dynamic kernel; its output shapes are known for the next slice."""
    inputs = _npz("nonzero.inputs.npz")
    session = Session(JIT)
    session.add_graph(0, NONZERO)
    _assert_equal(session.run_graph(0, inputs), _whole(NONZERO, inputs))
    first, second = session.jit_slices(0)
    assert first.nodes == ("/Constant", "/Greater", "/NonZero", "/NonZero_1")
    assert first.level == second.level == "ascend" and second.last


@pytest.mark.parametrize("values", [[1, -2, 3, 0, 5, -1, 2, 4], [-1] * 8, [2] * 8])
def test_chained_data_dependent_nodes_each_step_makes_progress(values: list[int]) -> None:
    """NonZero -> Cast -> Sub -> Greater -> NonZero: every data-dependent node is a breakpoint;
    no slice is empty and the chain ends (also with no nonzero at all)."""
    session = Session(JIT)
    session.add_graph(0, CHAIN)
    x = np.array(values, dtype=np.float32)
    _assert_equal(session.run_graph(0, {"x": x}), _whole(CHAIN, {"x": x}))
    slices = session.jit_slices(0)
    nodes = _non_const_nodes(session, 0)
    assert len(nodes) == len(set(nodes)) == 6  # each op once, though none was named
    assert all(info.nodes for info in slices) and len(slices) <= 6
    assert session.jit_stats(0).last_slices == len(slices)


def test_called_graphs_go_with_their_slice() -> None:
    session = Session(JIT)
    session.add_graph(0, CALLS)
    x = np.array([-1.0, 2.0, -3.0], dtype=np.float32)
    np.testing.assert_array_equal(session.run_graph(0, {"x": x})["y"], np.maximum(x, 0) + x)
    (only,) = session.jit_slices(0)
    assert only.level == "ascend"
    y4 = session.run_graph(0, {"x": np.ones(4, np.float32)})["y"]
    np.testing.assert_array_equal(y4, np.full(4, 2.0, np.float32))


def test_remove_graph_drops_the_cache() -> None:
    inputs = _npz("nonzero.inputs.npz")
    session = Session(JIT)
    session.add_graph(0, NONZERO)
    session.run_graph(0, inputs)
    session.remove_graph(0)
    session.add_graph(0, NONZERO)
    assert session.jit_stats(0) == JitStats()
    session.run_graph(0, inputs)
    assert session.jit_stats(0).hits == 0


# --- errors -----------------------------------------------------------------------------------


def test_input_errors_in_jit_mode() -> None:
    session = Session(JIT)
    session.add_graph(0, NONZERO)
    session.add_graph(1, TRANSFORMER)
    x = _npz("nonzero.inputs.npz")["x"]
    cases = [
        (0, {"x": x, "z": x}, "unknown input 'z' for @main_graph"),
        (0, {}, "missing input 'x'"),
        (0, {"x": x.astype(np.float64)}, "input 'x' has dtype float64.*expects float32"),
        (0, {"x": x[:3]}, r"input 'x' has shape \[3,6\], @main_graph expects \[4,6\]"),
        (0, {"x": x.tolist()}, "input 'x' is a list; pass a numpy array"),
        (0, [x, x], "2 positional inputs given, the graph takes 1 \\(x\\)"),
        (1, {"tokens": np.zeros((2, 5), np.float32)}, r"has shape \[2,5\].*\[\?,\?,32\]"),
        (1, {"tokens": np.zeros((2, 5, 16), np.float32)}, r"has shape \[2,5,16\]"),
    ]
    for graph_id, inputs, message in cases:
        with pytest.raises(InputError, match=message):
            session.run_graph(graph_id, inputs)  # type: ignore[arg-type]
    assert session.jit_stats(0) == JitStats() == session.jit_stats(1)  # nothing ran


def test_execution_error_in_a_slice() -> None:
    session = Session(JIT)
    session.add_graph(0, GATHER)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(
        session.run_graph(0, {"x": x, "i": np.array([3, 1], np.int32)})["y"], [3, 1]
    )
    with pytest.raises(ExecutionError):
        session.run_graph(0, {"x": x, "i": np.array([7, 0], np.int32)})


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (
            {"ge.inputShape": "image:-1,3,16,16", "ge.dynamicBatchSize": "1,4"},
            r"gears \(ge\.dynamicBatchSize\)",
        ),
        (
            {"ge.inputShape": "image:2,3,-1,-1", "ge.dynamicImageSize": "16,16;32,32"},
            r"gears \(ge\.dynamicImageSize\)",
        ),
        ({"ge.compileHybridMode": "1"}, "ge.compileHybridMode"),
    ],
)
def test_jit_with_gears_or_hybrid_mode_is_refused(options: dict[str, str], reason: str) -> None:
    with pytest.raises(OptionError, match=rf"^E10003: .*ge\.jit is invalid.*{reason}") as e:
        Session(JIT).add_graph(0, MODELS / "cnn.onnx", options)
    assert e.value.code == "E10003"
    with pytest.raises(OptionError, match="E10003"):  # a graph option turns it on too
        Session(options).add_graph(0, MODELS / "cnn.onnx", JIT)


def test_bad_jit_value_and_non_jit_graph() -> None:
    with pytest.raises(OptionError, match=r"^E10001: Value yes for parameter ge\.jit.*0 or 1"):
        Session({"ge.jit": "yes"})
    session = Session({"ge.jit": "0"})
    session.add_graph(0, NONZERO)
    with pytest.raises(GraphError, match="graph 0 does not run in JIT mode"):
        session.jit_stats(0)
    with pytest.raises(GraphError, match="does not run in JIT mode"):
        session.jit_slices(0)
    assert session.level(0) == "ascend"
