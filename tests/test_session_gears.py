"""Gears in the Session as GE has them (issue 19 part 1): `ge.dynamicNodeType`, hybrid mode
exactly under GE's four conditions with its two graphs compiled on two workers, and the
GeExecutor setters SetDynamicBatchSize / SetDynamicImageSize / SetDynamicDims with GE's codes."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gedialects.base import symbol_name
from gedialects.errors import DynamicInputError, GearMismatchError, GraphError, OptionError
from gedialects.interpreters.gears import GearInfo
from gedialects.multibatch import HYBRID_GRAPH
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.runtime import compile as runtime_compile
from gedialects.session import Session

# The graph of the gears seed (section 2): inputs data, label and mask.
SEED_GRAPH = """
graph.graph @main(%data: tensor<1x?x40x?xf32> {node_name = "data"},
                  %label: tensor<1x?xf32> {node_name = "label"},
                  %mask: tensor<?x?xf32> {node_name = "mask"})
    -> (tensor<1x?x40x?xf32> {node_name = "act"}, tensor<1x?xf32> {node_name = "neg"},
        tensor<?x?xf32> {node_name = "sq"}) {
  %a = graph.relu %data : (tensor<1x?x40x?xf32>) -> tensor<1x?x40x?xf32>
  %n = graph.neg %label : (tensor<1x?xf32>) -> tensor<1x?xf32>
  %s = graph.mul %mask, %mask : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  graph.net_output %a, %n, %s : tensor<1x?x40x?xf32>, tensor<1x?xf32>, tensor<?x?xf32>
}
"""

SEED_OPTIONS = {  # section 2.2 of the seed, as written
    "ge.inputShape": "data:1,-1,40,-1;label:1,-1;mask:-1,-1",
    "ge.dynamicDims": "20,20,1,1;40,40,2,2;80,60,4,4",
    "ge.dynamicNodeType": "1",
    "ge.compileHybridMode": "1",
}
HYBRID = SEED_OPTIONS | {"ge.inputShape": "data:1,1,40,-1;label:1,-1;mask:-1,-1"}  # section 2.1


def _inputs(
    data: tuple[int, ...], label: tuple[int, ...], mask: tuple[int, ...], seed: int = 0
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = {"data": data, "label": label, "mask": mask}
    return {n: rng.standard_normal(s).astype(np.float32) for n, s in shapes.items()}


def _want(inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {
        "act": np.maximum(inputs["data"], 0),
        "neg": -inputs["label"],
        "sq": inputs["mask"] * inputs["mask"],
    }


def _assert_same(got: Mapping[str, np.ndarray], want: Mapping[str, np.ndarray]) -> None:
    assert list(got) == list(want)
    for name, value in want.items():
        assert got[name].shape == value.shape, name
        np.testing.assert_allclose(got[name], value, rtol=1e-6, err_msg=name)


def test_seed_session_options_are_known_and_checked_as_ge_checks_them() -> None:
    """Section 2.2 as written: ge.dynamicNodeType is known now; its ge.inputShape has five
    -1 dims for gears of four values, which GE's own check refuses (E10003)."""
    session = Session()
    with pytest.raises(OptionError, match=r"^E10003: .*consistent with the number of -1") as e:
        session.add_graph(1, SEED_GRAPH, SEED_OPTIONS)
    assert e.value.code == "E10003"
    assert "unknown" not in str(e.value)


def test_seed_session_example_runs_in_hybrid_mode() -> None:
    session = Session()
    session.add_graph(1, SEED_GRAPH, HYBRID)
    assert session.notes(1) == ()
    entry = session.module(1)
    models = [symbol_name(op) for op in entry.ops]
    assert models == ["main_dynamic", "main"]
    assert HYBRID_GRAPH in list(entry.ops)[1].attributes
    stages = session.stages(1)
    assert "ge-plan-memory (dynamic graph)" in stages
    assert "ge-expand-multibatch (dynamic graph)" not in stages
    info = session.gear_info(1)
    assert info is not None and info.gears == ((20, 20, 1, 1), (40, 40, 2, 2), (80, 60, 4, 4))
    for shapes in (((1, 1, 40, 20), (1, 20), (1, 1)), ((1, 1, 40, 80), (1, 60), (4, 4))):
        inputs = _inputs(*shapes)
        _assert_same(session.run_graph(1, inputs), _want(inputs))
    off = _inputs((1, 1, 40, 7), (1, 3), (5, 2), seed=1)  # no gear: the dynamic graph runs it
    _assert_same(session.run_graph(1, off), _want(off))


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"ge.dynamicNodeType": None}, "ge.dynamicNodeType is unset, not '1'"),
        ({"ge.dynamicNodeType": "0"}, "ge.dynamicNodeType is '0', not '1'"),
        (
            {"ge.dynamicDims": None, "ge.inputShape": "data:1,1,40,20;label:1,20;mask:-1,1"}
            | {"ge.dynamicBatchSize": "1,4"},
            "ge.dynamicDims is empty (ge.dynamicBatchSize is given; hybrid mode takes only "
            "ge.dynamicDims)",
        ),
    ],
)
def test_no_hybrid_mode_unless_ges_four_conditions_hold(
    change: dict[str, str | None], reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    options = {k: v for k, v in (HYBRID | change).items() if v is not None}
    session = Session()
    session.add_graph(1, SEED_GRAPH, options)
    with caplog.at_level(logging.WARNING, logger="gedialects.runtime.compile"):
        notes = session.notes(1)
    assert len(notes) == 1 and notes[0].endswith(reason), notes
    assert notes[0].startswith("note: ge.compileHybridMode=1 is ignored, no hybrid mode")
    assert [r.getMessage() for r in caplog.records] == list(notes)
    assert [symbol_name(op) for op in session.module(1).ops] == ["main"]
    off = _inputs((1, 1, 40, 20), (1, 20), (3, 1))  # batch 3 / dims [20,20,3,1]: no gear
    with pytest.raises(GearMismatchError, match="E13025"):
        session.run_graph(1, off)


def test_no_note_without_compile_hybrid_mode() -> None:
    session = Session()
    session.add_graph(1, SEED_GRAPH, {k: v for k, v in HYBRID.items() if "Hybrid" not in k})
    assert session.notes(1) == ()


@pytest.mark.parametrize("value", ["2", "", "01", "GetNext"])
def test_dynamic_node_type_takes_0_or_1(value: str) -> None:
    with pytest.raises(OptionError, match=r"^E10001: Value .* ge.dynamicNodeType is invalid"):
        Session({"ge.dynamicNodeType": value})


def test_hybrid_graphs_compile_concurrently_on_two_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both compiles are in flight at once: each waits at a barrier the other must reach."""
    barrier = threading.Barrier(2, timeout=60)
    threads: list[str] = []
    real = runtime_compile.run_stages

    def run_stages(
        module: ModuleOp, stages: Sequence[ModulePass], printed: dict[str, str] | None
    ) -> None:
        threads.append(threading.current_thread().name)
        barrier.wait()  # BrokenBarrierError (a failed compile) if the other never comes
        real(module, stages, printed)

    monkeypatch.setattr(runtime_compile, "run_stages", run_stages)
    session = Session()
    session.add_graph(1, SEED_GRAPH, HYBRID)
    session.compile_graph(1)
    assert len(threads) == 2 and len(set(threads)) == 2
    assert all(name.startswith("ge-hybrid") for name in threads)


@pytest.mark.parametrize(
    ("fail", "message"),
    [
        ({"gear": "boom", "dynamic": "boom"}, "^boom$"),
        (
            {"gear": "gear broke", "dynamic": "dyn broke"},
            r"^gear broke \(the dynamic graph of "
            r"hybrid mode failed too: dyn broke\)$",
        ),
        ({"dynamic": "dyn broke"}, "^the dynamic graph of hybrid mode: dyn broke$"),
        ({"gear": "gear broke"}, "^gear broke$"),
    ],
)
def test_hybrid_compile_errors_are_reported_once(
    fail: dict[str, str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = runtime_compile.run_stages

    def run_stages(
        module: ModuleOp, stages: Sequence[CompilePipelinePass], printed: dict[str, str] | None
    ) -> None:
        gear = stages[0].gears
        text = fail.get("gear" if gear else "dynamic")
        if text is not None:
            raise GraphError(text)
        real(module, stages, printed)

    monkeypatch.setattr(runtime_compile, "run_stages", run_stages)
    session = Session()
    session.add_graph(1, SEED_GRAPH, HYBRID)
    with pytest.raises(GraphError, match=message):
        session.compile_graph(1)
    with pytest.raises(GraphError, match=message):  # nothing half-compiled was kept
        session.compile_graph(1)


# --- GeExecutor::SetDynamicBatchSize / SetDynamicImageSize / SetDynamicDims --------------------

BATCH = """
graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}) -> (tensor<?x3xf32> {node_name = "y"}) {
  %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %r : tensor<?x3xf32>
}
"""
IMAGE = """
graph.graph @main(%x: tensor<1x3x?x?xf32> {node_name = "x"})
    -> (tensor<1x3x?x?xf32> {node_name = "y"}) {
  %r = graph.relu %x : (tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32>
  graph.net_output %r : tensor<1x3x?x?xf32>
}
"""


def _info(graph: str, options: dict[str, str]) -> GearInfo:
    session = Session()
    session.add_graph(0, graph, options)
    info = session.gear_info(0)
    assert info is not None
    return info


def test_set_dynamic_batch_size_checks_as_ge() -> None:
    info = _info(BATCH, {"ge.inputShape": "x:-1,3", "ge.dynamicBatchSize": "1,4,8"})
    assert info.set_dynamic_batch_size(4) == 1
    assert info.set_dynamic_batch_size(8, length=8) == 2
    assert info.set_dynamic_batch_size(1, length=4) == 0
    with pytest.raises(DynamicInputError, match=r"^145012: .*Dynamic input size \[3\] is less "):
        info.set_dynamic_batch_size(4, length=3)
    with pytest.raises(DynamicInputError, match=r"^145013: .*Dynamic batch 2 can not match") as e:
        info.set_dynamic_batch_size(2)
    assert e.value.code == "145013"
    image = _info(IMAGE, {"ge.inputShape": "x:1,3,-1,-1", "ge.dynamicImageSize": "4,4;8,6"})
    with pytest.raises(DynamicInputError, match=r"^145013: .*batch param num is 1, current"):
        image.set_dynamic_batch_size(4)


def test_set_dynamic_image_size_checks_as_ge() -> None:
    info = _info(IMAGE, {"ge.inputShape": "x:1,3,-1,-1", "ge.dynamicImageSize": "4,4;8,6"})
    assert info.set_dynamic_image_size(8, 6) == 1
    with pytest.raises(DynamicInputError, match=r"^145012: .*\[7\] is less than \[8\]"):
        info.set_dynamic_image_size(8, 6, length=7)
    with pytest.raises(DynamicInputError, match=r"^145013: .*\(6,8\) can not match"):
        info.set_dynamic_image_size(6, 8)
    batch = _info(BATCH, {"ge.inputShape": "x:-1,3", "ge.dynamicBatchSize": "1,4"})
    with pytest.raises(DynamicInputError, match=r"^145013: .*resolution param num is 2"):
        batch.set_dynamic_image_size(1, 4)


def test_set_dynamic_dims_takes_all_dims_as_ge() -> None:
    info = _info(SEED_GRAPH, {k: v for k, v in HYBRID.items() if "Hybrid" not in k})
    #                      data          label  mask
    assert info.set_dynamic_dims([1, 1, 40, 40, 1, 40, 2, 2]) == 1
    assert info.set_dynamic_dims([1, 1, 40, 80, 1, 60, 4, 4], length=16) == 2
    with pytest.raises(
        DynamicInputError,
        match=r"^145012: .*size \[4\] is not equal with all "
        r"data dims size \[8\]",
    ):
        info.set_dynamic_dims([20, 20, 1, 1])
    with pytest.raises(DynamicInputError, match=r"^145012: .*index:2 value:41 should be 40"):
        info.set_dynamic_dims([1, 1, 41, 40, 1, 40, 2, 2])
    with pytest.raises(DynamicInputError, match=r"^145013: .*\[40,40,2,3\] can not match"):
        info.set_dynamic_dims([1, 1, 40, 40, 1, 40, 2, 3])
    with pytest.raises(DynamicInputError, match=r"^145012: .*\[15\] is less than \[16\]"):
        info.set_dynamic_dims([1, 1, 40, 40, 1, 40, 2, 2], length=15)
