"""ge-sink-loop: N iterations on the device give the numbers of one, cost N times the tasks of
one plus the loop overhead, and keep the memory and event plans correct under any schedule."""

from __future__ import annotations

import numpy as np
import pytest
from test_plan_memory import BENCH, EXAMPLE, inputs_of, lower, parse, reference
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import PassFailedException

from gedialects import make_context
from gedialects.ascend import EndGraphOp, KernelOp, ModelOp, StreamActiveOp
from gedialects.interpreters.ascend import RunStats, execute_model
from gedialects.interpreters.kernels import KernelError, run_kernel
from gedialects.passes.assign_streams import assign_model
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.passes.plan_memory import plan_model
from gedialects.passes.sink_loop import ITERATIONS_ATTR, SinkLoopPass, loop_overhead, sink_model

GRAPHS = [("example", EXAMPLE)] + [
    (f"branchy{s}", BENCH.branchy_graph(s, blocks=3)) for s in range(3)
]


def compiled(text: str, iterations: int = 1) -> tuple[ModuleOp, ModelOp]:
    module = parse(text)
    CompilePipelinePass(iterations_per_loop=iterations).apply(make_context(), module)
    module.verify()
    return module, next(op for op in module.walk() if isinstance(op, ModelOp))


def activated_streams(model: ModelOp) -> set[int]:
    return {t.active_stream.value.data for t in model.tasks() if isinstance(t, StreamActiveOp)}


def looping_streams(model: ModelOp) -> int:
    """Streams that get the loop's labels and switch: those no `stream_active` starts."""
    return len({t.stream.value.data for t in model.tasks()} - activated_streams(model))


def executed_kernels(model: ModelOp, stats: RunStats) -> int:
    by_stream = {
        sid: [t for t in model.tasks() if t.stream.value.data == sid]
        for sid in stats.tasks_per_stream
    }
    return sum(isinstance(by_stream[sid][pc], KernelOp) for sid, pc in stats.trace)


@pytest.mark.parametrize(("name", "text"), GRAPHS, ids=[g[0] for g in GRAPHS])
def test_sunk_model_gives_the_numbers_of_one_iteration_under_any_schedule(
    name: str, text: str
) -> None:
    _, once = compiled(text)
    _, sunk = compiled(text, 3)
    assert sunk.attributes[ITERATIONS_ATTR].value.data == 3  # type: ignore[attr-defined]
    for index in (0, 2) if "branchy" in name else (0,):
        inputs = inputs_of(text, 4, index)
        want = reference(text, inputs)
        base = execute_model(once, inputs).outputs
        for seed in (None, 1, 2, 3):
            got = execute_model(sunk, inputs, schedule_seed=seed, check_uninitialized=True).outputs
            assert got.keys() == want.keys()
            for key in want:
                np.testing.assert_array_equal(got[key], base[key])
                np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("name", "text"), GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("iterations", [1, 2, 5])
def test_executed_tasks_are_n_iterations_plus_the_loop_overhead(
    name: str, text: str, iterations: int
) -> None:
    _, once = compiled(text)
    module, sunk = compiled(text)
    SinkLoopPass(iterations=iterations).apply(make_context(), module)
    inputs = inputs_of(text, 1, 1)
    single = execute_model(once, inputs).stats
    looped = execute_model(sunk, inputs, schedule_seed=iterations).stats
    streams = looping_streams(once)
    activated = activated_streams(once)
    ends = sum(
        isinstance(t, EndGraphOp) and t.stream.value.data not in activated for t in once.tasks()
    )
    # Per iteration: head label and switch on every looping stream (streams a stream_active
    # starts get none: they run their tasks once per activation); AssignAdd, Less, Cast; a done and
    # a go event (record + wait each) per stream besides the control one. Once: the counter
    # reset and one exit label per stream; end_graph runs once, after the loop.
    per_iteration = 2 * streams + 3 + 4 * (streams - 1)
    once_only = 1 + streams
    assert loop_overhead(streams) == (per_iteration, once_only)
    work = single.steps - ends
    assert looped.steps == iterations * (work + per_iteration) + once_only + ends
    kernels = executed_kernels(once, single)
    loop_kernels = executed_kernels(sunk, looped) - iterations * kernels
    assert loop_kernels == 3 * iterations  # AssignAdd, Less, Cast per iteration


def test_loop_kernel_tasks_count_and_compare() -> None:
    from xdsl.dialects.builtin import TensorType, i1, i64

    counter = np.array(4, np.int64)
    (added,) = run_kernel("AssignAdd", [counter, np.array(1, np.int64)], {}, [TensorType(i64, [])])
    assert added.dtype == np.int64 and int(added) == 5
    (less,) = run_kernel("Less", [added, np.array(5, np.int64)], {}, [TensorType(i1, [])])
    assert not bool(less)
    with pytest.raises(KernelError, match="does not broadcast"):
        run_kernel("AssignAdd", [counter, np.ones(3, np.int64)], {}, [TensorType(i64, [])])


def test_timeline_counts_every_iteration() -> None:
    _, once = compiled(EXAMPLE)
    _, sunk = compiled(EXAMPLE, 4)
    inputs = inputs_of(EXAMPLE, 0)
    one = execute_model(once, inputs, timing=True).stats.timeline
    four = execute_model(sunk, inputs, timing=True).stats.timeline
    assert one is not None and four is not None
    work = {s.category for s in one.spans if s.category[0].isupper()}
    for category in work:
        count = sum(s.category == category for s in one.spans)
        assert sum(s.category == category for s in four.spans) == 4 * count
    assert four.makespan > 4 * (one.makespan * 0.9)


def test_sinking_before_planning_is_correct_but_reuses_nothing_inside_the_loop() -> None:
    """The documented order is plan, then sink; the other order stays correct because
    ge-plan-memory keeps tensors of a loop span apart (conservative liveness)."""
    text = BENCH.branchy_graph(1, blocks=3)
    _, after = compiled(text, 3)
    _, before = lower(text)
    assign_model(before)
    sink_model(before, 3)
    stats = plan_model(before)
    before.verify()
    assert stats.features == stats.no_reuse  # every tensor of the loop keeps its own block
    assert before.arena_size.value.data > after.arena_size.value.data
    inputs = inputs_of(text, 2, 1)
    want = reference(text, inputs)
    for seed in (None, 5):
        got = execute_model(before, inputs, schedule_seed=seed, check_uninitialized=True)
        for key in want:
            np.testing.assert_allclose(got.outputs[key], want[key], rtol=1e-4, atol=1e-5)


def test_barrier_is_needed_a_stream_running_ahead_breaks_the_numbers() -> None:
    """Without the go event, stream 1 would start iteration k+1 while the control stream still
    reads its iteration-k results: removing the go wait must make some schedule fail."""
    from gedialects.ascend import EventWaitOp
    from gedialects.interpreters.ascend import AscendRuntimeError

    _, sunk = compiled(EXAMPLE, 3)
    go = max(e.id.value.data for e in sunk.events())
    wait = next(t for t in sunk.tasks() if isinstance(t, EventWaitOp) and t.event.value.data == go)
    record = next(
        t for t in sunk.tasks() if t.name == "ascend.event_record" and t.event.value.data == go
    )
    wait.detach()
    record.detach()
    inputs = inputs_of(EXAMPLE, 0)
    base = execute_model(compiled(EXAMPLE)[1], inputs).outputs
    failures = 0
    for seed in range(30):
        try:
            got = execute_model(sunk, inputs, schedule_seed=seed, check_uninitialized=True)
        except AscendRuntimeError:
            failures += 1
            continue
        if any(not np.array_equal(got.outputs[k], base[k]) for k in base):
            failures += 1
    assert failures > 0


def test_refusals() -> None:
    _, model = compiled(EXAMPLE, 2)
    with pytest.raises(PassFailedException, match="is sunk already"):
        sink_model(model, 2)
    with pytest.raises(PassFailedException, match="iterations must be at least 1"):
        SinkLoopPass(iterations=0).apply(make_context(), ModuleOp([]))


def test_a_case_whose_branches_activate_streams_sinks_with_the_numbers_of_one_iteration() -> None:
    """Activated streams do not loop: no head, exit, barrier or switch of their own; the
    branch's stream_active inside the loop starts them again in every iteration."""
    from test_stream_active import X, case_text, model_of

    once = model_of(case_text())
    sunk = model_of(case_text())
    layout = sink_model(sunk, 3)
    sunk.verify()
    activated = [t for t in sunk.tasks() if t.stream.value.data in (1, 2)]
    assert [t.name for t in activated] == [t.name for t in once.tasks() if t.stream.value.data]
    assert looping_streams(sunk) == 1
    for index in (0, 1):
        inputs = {"x": X, "branch": np.array(index, np.int32)}
        want = execute_model(once, inputs).outputs
        for seed in (None, *range(6)):
            run = execute_model(
                sunk, inputs, schedule_seed=seed, check_uninitialized=True, timing=True
            )
            np.testing.assert_array_equal(run.outputs["y"], want["y"])
            assert run.stats.tasks_per_stream[1 + index] == 3 * 4  # activated once per iteration
            assert run.stats.tasks_per_stream[2 - index] == 0
            timeline = run.stats.timeline
            assert timeline is not None and 0 < timeline.critical_path <= timeline.makespan
    assert layout.shift > 0


def test_activated_stream_refusals() -> None:
    from test_stream_active import case_text, model_of

    # Without branch 0's join, stream 1 could still run when iteration k+1 starts it again.
    text = case_text().replace("  ascend.event_record 1 stream 1\n", "")
    text = text.replace("  ascend.event_wait 1 stream 0\n", "")
    model = model_of(text)
    with pytest.raises(PassFailedException, match=r"activated stream 1 ends with 'ascend\.kernel'"):
        sink_model(model, 2)
    cycle = model_of(
        """
        ascend.model @cycle arena_size 64 weight_size 0 {
          ascend.stream 0 engine "AIcoreEngine"
          ascend.stream 1 engine "AIcoreEngine"
          ascend.stream_active 1 stream 0
          ascend.stream_active 0 stream 1
        }
        """
    )
    with pytest.raises(PassFailedException, match="activates every stream it declares"):
        sink_model(cycle, 2)
