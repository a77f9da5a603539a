"""ascend.stream_active in the interpreter: a stream it names is idle until it runs, then runs its
task list once; numbers, timing, critical path and errors of a case whose branches activate
streams of their own (GE's CaseOpLabelMaker)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from gedialects.ascend import ModelOp
from gedialects.interpreters.ascend import AscendRuntimeError, ModelRun, execute_model
from gedialects.target.cost_model import CONTROL_US, CostModel
from tests.conftest import parse

X = np.array([-2.0, -1.0, 1.0, 2.0], np.float32)
F = "tensor<4xf32>"


def kernel(kind: str, name: str, stream: int, ins: list[int], out: int, t: str = F) -> str:
    """One `ascend.kernel` line on the AI core reading and writing `t` buffers."""
    args = ", ".join(f"arena[{o}] : {t}" for o in ins)
    return (
        f'ascend.kernel "{kind}" "{name}" engine "AIcoreEngine" stream {stream} ins({args}) '
        f"outs(arena[{out}] : {t})"
    )


def case_text(helpers: tuple[int, int] = (1, 2)) -> str:
    """A two-branch case on stream 0; branch b runs half of its body on stream helpers[b],
    started by a `stream_active` (none when the helper is stream 0 itself)."""
    s1, s2 = helpers

    def active(stream: int) -> str:
        return f"ascend.stream_active {stream} stream 0" if stream else ""

    streams = "\n".join(f'ascend.stream {s} engine "AIcoreEngine"' for s in sorted({0, s1, s2}))
    return f"""
ascend.model @case arena_size 4096 weight_size 0 {{
  {streams}
  ascend.event 0
  ascend.event 1
  ascend.event 2
  ascend.event 3
  ascend.input "x" arena[0] : {F}
  ascend.input "branch" arena[512] : tensor<i32>
  ascend.output "y" arena[1024] : {F}
  {kernel("Relu", "p", 0, [0], 1536)}
  ascend.label_switch_by_index arena[512] : tensor<i32> labels [1, 2] stream 0
  ascend.label_set 1 stream 0
  {active(s1)}
  {kernel("Abs", "a", s1, [0], 2048)}
  {kernel("Neg", "n", 0, [1536], 2560)}
  ascend.event_record 0 stream 0
  ascend.event_wait 0 stream {s1}
  {kernel("Add", "c0", s1, [2048, 2560], 3072)}
  ascend.event_record 1 stream {s1}
  ascend.event_wait 1 stream 0
  ascend.label_goto 3 stream 0
  ascend.label_set 2 stream 0
  {active(s2)}
  {kernel("Mul", "m", s2, [0, 0], 2048)}
  {kernel("Add", "q", 0, [1536, 1536], 2560)}
  ascend.event_record 2 stream 0
  ascend.event_wait 2 stream {s2}
  {kernel("Sub", "c1", s2, [2048, 2560], 3072)}
  ascend.event_record 3 stream {s2}
  ascend.event_wait 3 stream 0
  ascend.label_goto 3 stream 0
  ascend.label_set 3 stream 0
  {kernel("Mul", "y", 0, [3072, 0], 1024)}
}}
"""


def model_of(text: str) -> ModelOp:
    module: ModuleOp = parse(text)
    return next(op for op in module.walk() if isinstance(op, ModelOp))


def expected(index: int) -> np.ndarray:
    p = np.maximum(X, 0)
    c = np.abs(X) - p if index == 0 else X * X - (p + p)
    return c * X


def run_case(model: ModelOp, index: int, **options: object) -> ModelRun:
    return execute_model(model, {"x": X, "branch": np.array(index, np.int32)}, **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("index", [0, 1])
def test_each_branch_gives_its_numbers_under_every_schedule(index: int) -> None:
    model = model_of(case_text())
    for seed in (None, *range(6)):
        run = run_case(model, index, schedule_seed=seed, check_uninitialized=True, timing=True)
        np.testing.assert_array_equal(run.outputs["y"], expected(index))
        # The stream of the branch not taken never runs: no deadlock, no task.
        assert run.stats.tasks_per_stream[2 - index] == 0
        assert run.stats.tasks_per_stream[1 + index] == 4


def test_activated_stream_starts_after_its_activation_and_runs_beside_stream_zero() -> None:
    run = run_case(model_of(case_text()), 1, timing=True)
    serial = run_case(model_of(case_text((0, 0))), 1, timing=True)
    np.testing.assert_array_equal(serial.outputs["y"], run.outputs["y"])
    timeline, one = run.stats.timeline, serial.stats.timeline
    assert timeline is not None and one is not None
    spans = {s.name: s for s in timeline.spans}
    activation = spans["stream_active 2"]
    assert activation.category == "stream_active" and activation.stream == 0
    assert activation.duration == CONTROL_US
    assert spans["m"].stream == 2 and spans["m"].start == pytest.approx(activation.end)
    # "m" on stream 2 overlaps "q" on stream 0: the branch ends sooner than on one stream.
    assert spans["m"].start < spans["q"].end and spans["q"].start < spans["m"].end
    assert timeline.makespan < one.makespan
    # Overlapping "m" with "q" saves one kernel; the stream_active costs one control task.
    saved = spans["m"].duration - activation.duration
    assert one.makespan - timeline.makespan == pytest.approx(saved)
    # Same data dependencies: the same critical path, which bounds the makespan.
    assert timeline.critical_path == pytest.approx(one.critical_path)
    assert 0 < timeline.critical_path <= timeline.makespan


ACTIVATED_ONLY = f"""
ascend.model @alone arena_size 1024 weight_size 0 {{
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stream_active 1 stream 0
  {kernel("Relu", "r", 1, [0], 512)}
}}
"""


def test_critical_path_of_an_activated_stream_counts_its_activation() -> None:
    """ "r" reads only an input, yet it cannot start before the stream_active that starts its
    stream: the critical path is the activation plus the kernel."""
    model = model_of(ACTIVATED_ONLY)
    run = execute_model(model, {"x": X}, timing=True)
    np.testing.assert_array_equal(run.outputs["y"], np.maximum(X, 0))
    timeline = run.stats.timeline
    assert timeline is not None
    kernel = CostModel().duration(list(model.tasks())[1])
    assert timeline.critical_path == pytest.approx(CONTROL_US + kernel)
    assert timeline.makespan == pytest.approx(CONTROL_US + kernel)


I32 = "tensor<i32>"
LOOP = f"""
ascend.model @loop arena_size 1024 weight_size 64 {{
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.event 0
  ascend.weight arena[0] = dense<1> : tensor<i32>
  ascend.input "count" arena[64] : tensor<i32>
  ascend.output "count_out" arena[64] : tensor<i32>
  ascend.output "double" arena[128] : tensor<i32>
  ascend.label_set 0 stream 0
  ascend.stream_active 1 stream 0
  {kernel("Add", "double", 1, [64, 64], 128, I32)}
  ascend.event_record 0 stream 1
  ascend.event_wait 0 stream 0
  {kernel("Add", "inc", 0, [64, 0], 64, I32)}
  ascend.label_switch_by_index arena[64] : tensor<i32> labels [1, 0, 0, 1] stream 0
  ascend.label_set 1 stream 0
}}
"""


def test_a_finished_stream_is_activated_again_in_every_iteration_of_a_label_loop() -> None:
    model = model_of(LOOP)
    for seed in (None, *range(6)):
        run = execute_model(
            model,
            {"count": np.array(0, np.int32)},
            schedule_seed=seed,
            check_uninitialized=True,
            timing=True,
        )
        assert int(run.outputs["count_out"]) == 3
        assert int(run.outputs["double"]) == 4  # 2 * count of the last iteration
        assert run.stats.tasks_per_stream[1] == 3 * 2
        timeline = run.stats.timeline
        assert timeline is not None and timeline.critical_path <= timeline.makespan


def test_activating_a_running_stream_is_an_error() -> None:
    # Without the join (record on 1, wait on 0), stream 0 loops back and activates stream 1
    # again while it has not run its task yet (the default schedule runs stream 0 first).
    text = LOOP.replace("  ascend.event_record 0 stream 1\n  ascend.event_wait 0 stream 0\n", "")
    with pytest.raises(AscendRuntimeError) as info:
        execute_model(model_of(text), {"count": np.array(0, np.int32)})
    assert str(info.value) == (
        "'ascend.stream_active' on stream 0 activates stream 1, which is still running "
        "(at its task 0 of 1)"
    )


def test_a_deadlock_inside_an_activated_stream_is_reported() -> None:
    # Stream 1 waits on a record that stream 0 makes only after waiting on stream 1; stream 2
    # is activated after that point and never runs, so it is not among the blocked streams.
    text = f"""
    ascend.model @stuck arena_size 1024 weight_size 0 {{
      ascend.stream 0 engine "AIcoreEngine"
      ascend.stream 1 engine "AIcoreEngine"
      ascend.stream 2 engine "AIcoreEngine"
      ascend.event 0
      ascend.event 1
      ascend.input "x" arena[0] : tensor<4xf32>
      ascend.output "y" arena[512] : tensor<4xf32>
      ascend.stream_active 1 stream 0
      ascend.event_wait 0 stream 1
      ascend.event_record 1 stream 1
      ascend.event_wait 1 stream 0
      ascend.stream_active 2 stream 0
      ascend.event_record 0 stream 0
      {kernel("Relu", "r", 2, [0], 512)}
    }}
    """
    for seed in (None, 1, 2):
        with pytest.raises(AscendRuntimeError) as info:
            execute_model(model_of(text), {"x": X}, schedule_seed=seed)
        assert str(info.value) == (
            "'ascend.model' @stuck deadlocks: stream 0 waits on event 1, stream 1 waits on event 0"
        )


def test_a_stream_named_by_a_stream_active_that_never_runs_is_idle_not_deadlocked() -> None:
    # Branch 0 of the case never reaches `stream_active 2`: stream 2 stays idle, the run ends.
    run = run_case(model_of(case_text()), 0, timing=True)
    assert run.stats.tasks_per_stream == {0: 10, 1: 4, 2: 0}
    timeline = run.stats.timeline
    assert timeline is not None
    assert not [s for s in timeline.spans if s.stream == 2]
