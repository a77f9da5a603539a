"""The interpreter's instruments: cost model, simulated timeline, Chrome trace, debug mode."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_plan_memory import BENCH, EXAMPLE, inputs_of, lower
from xdsl.dialects.builtin import TensorType, f32, i32

from gedialects.ascend import (
    BufferAttr,
    EventOp,
    EventRecordOp,
    EventWaitOp,
    InputOp,
    KernelOp,
    LabelSetOp,
    LabelSwitchByIndexOp,
    ModelOp,
    OutputOp,
    StreamOp,
)
from gedialects.interpreters.ascend import AscendRuntimeError, execute_model
from gedialects.passes.assign_streams import assign_model
from gedialects.passes.plan_memory import plan_model
from gedialects.target.cost_model import (
    ENGINE_COSTS,
    EVENT_RECORD_US,
    EVENT_WAIT_US,
    CostModel,
)


def buf(offset: int, shape: list[int], element=f32) -> BufferAttr:
    return BufferAttr(offset, TensorType(element, shape))


def matmul(name: str, stream: int, a: int, b: int, out: int, n: int = 64) -> KernelOp:
    return KernelOp(
        "MatMul", name, "AIcoreEngine", stream, [buf(a, [n, n]), buf(b, [n, n])], [buf(out, [n, n])]
    )


def test_matmul_and_conv_flops_come_from_shapes() -> None:
    costs = CostModel()
    mm = KernelOp(
        "MatMul", "mm", "AIcoreEngine", 0, [buf(0, [8, 32]), buf(0, [32, 16])], [buf(0, [8, 16])]
    )
    assert costs.kernel_flops(mm) == 2 * 8 * 16 * 32
    conv = KernelOp(
        "Conv2D",
        "c",
        "AIcoreEngine",
        0,
        [buf(0, [1, 3, 8, 8]), buf(0, [4, 3, 3, 3])],
        [buf(0, [1, 4, 8, 8])],
    )
    assert costs.kernel_flops(conv) == 2 * (4 * 8 * 8) * (3 * 3 * 3)
    engine = ENGINE_COSTS["AIcoreEngine"]
    moved = 4 * (8 * 32 + 32 * 16 + 8 * 16)
    expected = engine.launch_us + max(
        2 * 8 * 16 * 32 / engine.flops_per_us, moved / engine.bytes_per_us
    )
    assert costs.duration(mm) == pytest.approx(expected)


def two_streams(with_event: bool) -> ModelOp:
    """Stream 1 computes t, stream 0 computes two independent products, then t @ t."""
    n = 64
    size = n * n * 4
    x, t, u, v, y = (i * size for i in range(5))
    sync = [EventRecordOp(0, 1), EventWaitOp(0, 0)] if with_event else []
    return ModelOp(
        "main",
        5 * size,
        0,
        [
            StreamOp(0, "AIcoreEngine"),
            StreamOp(1, "AIcoreEngine"),
            EventOp(0),
            InputOp("x", buf(x, [n, n])),
            OutputOp("y", buf(y, [n, n])),
            matmul("t", 1, x, x, t),
            *sync[:1],
            matmul("u", 0, x, x, u),
            matmul("v", 0, u, u, v),
            *sync[1:],
            matmul("y", 0, t, v, y),
        ],
    )


def test_streams_run_concurrently_and_waits_follow_records() -> None:
    model = two_streams(with_event=True)
    costs = CostModel()
    kernels = {
        k.node_name.data: costs.duration(k) for k in model.tasks() if isinstance(k, KernelOp)
    }
    x = np.eye(64, dtype=np.float32)
    timeline = execute_model(model, {"x": x}, timing=True).stats.timeline
    assert timeline is not None
    spans = {s.name: s for s in timeline.spans}
    assert spans["t"].start == 0 and spans["u"].start == 0  # two streams, same time
    assert spans["event_wait 0"].start >= spans["event_record 0"].end
    assert spans["y"].start == pytest.approx(
        max(kernels["u"] + kernels["v"], kernels["t"] + EVENT_RECORD_US) + EVENT_WAIT_US
    )
    assert timeline.makespan == pytest.approx(spans["y"].end)
    # Unlimited streams and free events: y follows the longer of its two input chains.
    assert timeline.critical_path == pytest.approx(kernels["u"] + kernels["v"] + kernels["y"])
    assert timeline.makespan >= timeline.critical_path


def test_engine_crossings_are_priced_in_the_tighter_bound() -> None:
    """x -> a (AI core) -> b (vector engine) -> y: the event between the engines' streams is
    on every assignment's path, so the crossing bound is the makespan exactly."""
    n = 64
    size = n * n * 4
    x, a, y = 0, size, 2 * size
    model = ModelOp(
        "main",
        3 * size,
        0,
        [
            StreamOp(0, "AIcoreEngine"),
            StreamOp(1, "VectorEngine"),
            EventOp(0),
            InputOp("x", buf(x, [n, n])),
            OutputOp("y", buf(y, [n, n])),
            matmul("a", 0, x, x, a),
            EventRecordOp(0, 0),
            EventWaitOp(0, 1),
            KernelOp("Relu", "b", "VectorEngine", 1, [buf(a, [n, n])], [buf(y, [n, n])]),
        ],
    )
    costs = CostModel()
    a_us, b_us = (costs.duration(k) for k in model.tasks() if isinstance(k, KernelOp))
    timeline = execute_model(model, {"x": np.eye(n, dtype=np.float32)}, timing=True).stats.timeline
    assert timeline is not None
    assert timeline.critical_path == pytest.approx(a_us + b_us)
    assert timeline.crossing_path == pytest.approx(a_us + EVENT_RECORD_US + EVENT_WAIT_US + b_us)
    assert timeline.makespan == pytest.approx(timeline.crossing_path)
    assert "with crossings" in timeline.profile()


@pytest.mark.parametrize("seed", range(3))
def test_both_bounds_hold_on_assigned_graphs(seed: int) -> None:
    text = BENCH.branchy_graph(seed, blocks=3)
    _, model = lower(text)
    assign_model(model)
    timeline = execute_model(model, inputs_of(text, 0), timing=True).stats.timeline
    assert timeline is not None
    assert timeline.critical_path <= timeline.crossing_path <= timeline.makespan
    # One stream runs both engines' kernels: no crossing is certain, the bounds coincide.
    _, single = lower(text)
    assign_model(single, max_streams=1)
    mixed = execute_model(single, inputs_of(text, 0), timing=True).stats.timeline
    assert mixed is not None
    assert mixed.crossing_path == mixed.critical_path <= mixed.makespan


def test_simulated_time_does_not_depend_on_the_schedule() -> None:
    text = BENCH.branchy_graph(3, blocks=3)
    _, model = lower(text)
    assign_model(model)
    plan_model(model)
    inputs = inputs_of(text, 0)
    runs = [execute_model(model, inputs, schedule_seed=s, timing=True) for s in (None, 1, 2, 3)]
    makespans = {r.stats.timeline.makespan for r in runs if r.stats.timeline}
    assert len(makespans) == 1


def test_more_streams_shorten_a_branchy_graph() -> None:
    text = BENCH.branchy_graph(6, blocks=4, case=False)
    inputs = inputs_of(text, 0)
    spans = {}
    for single in (True, False):
        _, model = lower(text)
        assign_model(model, single_stream=single)
        timeline = execute_model(model, inputs, timing=True).stats.timeline
        assert timeline is not None
        spans[single] = timeline
    one = spans[True]
    assert one.makespan == pytest.approx(sum(s.duration for s in one.spans))
    assert spans[False].makespan < one.makespan
    assert spans[False].critical_path == pytest.approx(one.critical_path)


def test_chrome_trace_has_one_track_per_stream(tmp_path: Path) -> None:
    _, model = lower(EXAMPLE)
    assign_model(model)
    plan_model(model)
    run = execute_model(model, inputs_of(EXAMPLE, 0), timing=True)
    timeline = run.stats.timeline
    assert timeline is not None
    path = tmp_path / "trace.json"
    timeline.write_chrome_trace(str(path))
    data = json.loads(path.read_text())
    events = data["traceEvents"]
    tracks = {e["tid"] for e in events if e["name"] == "thread_name"}
    assert tracks == {s.id.value.data for s in model.streams()}
    complete = [e for e in events if e["ph"] == "X"]
    assert len(complete) == run.stats.steps
    assert {e["tid"] for e in complete} <= tracks
    assert all(e["dur"] >= 0 and {"name", "ts", "pid", "tid"} <= set(e) for e in complete)
    profile = timeline.profile()
    assert "makespan" in profile and "critical path" in profile
    assert "engine AIcoreEngine" in profile and "stream 1 (AIcoreEngine)" in profile


def _label_model(index_written: bool) -> ModelOp:
    idx = buf(512, [], i32)
    ops = [
        StreamOp(0, "AIcoreEngine"),
        InputOp("x", buf(0, [4])),
        OutputOp("y", buf(1024, [4])),
    ]
    if index_written:
        ops.append(InputOp("i", idx))
    ops += [
        LabelSwitchByIndexOp(idx, [0], 0),
        LabelSetOp(0, 0),
        KernelOp("Relu", "r", "AIcoreEngine", 0, [buf(0, [4])], [buf(1024, [4])]),
    ]
    return ModelOp("main", 2048, 0, ops)


def test_debug_mode_checks_the_switch_index_and_the_outputs() -> None:
    x = np.ones(4, np.float32)
    with pytest.raises(AscendRuntimeError, match=r"label_switch_by_index.* reads arena\[512\]"):
        execute_model(_label_model(False), {"x": x}, check_uninitialized=True)
    run = execute_model(
        _label_model(True), {"x": x, "i": np.array(0, np.int32)}, check_uninitialized=True
    )
    np.testing.assert_array_equal(run.outputs["y"], x)
    unwritten = ModelOp(
        "main",
        2048,
        0,
        [StreamOp(0, "AIcoreEngine"), OutputOp("y", buf(1024, [4]))],
    )
    with pytest.raises(AscendRuntimeError, match=r"'ascend.output' \"y\" reads arena\[1024\]"):
        execute_model(unwritten, {}, check_uninitialized=True)
