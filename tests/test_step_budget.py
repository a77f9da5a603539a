"""No endless runs (issue 13 part 3): a model run stops after a step budget proportional to
the model (STEP_MARGIN x tasks x iterations_per_loop), naming the loop and the budget; its
per-step records stay small and are checked against the memory budget; the iteration count a
model may sink is bounded."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from test_plan_memory import EXAMPLE, inputs_of, parse
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, f32, i32, i64
from xdsl.utils.exceptions import PassFailedException

from gedialects import budget, make_context
from gedialects.ascend import (
    ITERATIONS_PER_LOOP,
    MAX_ITERATIONS_PER_LOOP,
    BufferAttr,
    KernelOp,
    LabelGotoOp,
    LabelSetOp,
    LabelSwitchByIndexOp,
    ModelOp,
    OutputOp,
    StreamActiveOp,
    StreamOp,
    WeightOp,
)
from gedialects.interpreters import ascend as interp
from gedialects.interpreters.ascend import (
    STEP_MARGIN,
    AscendRuntimeError,
    configure,
    execute_model,
    run_model,
)
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.passes.sink_loop import SinkLoopPass
from gedialects.tensors import dense_from_numpy

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
ENGINE = "AIcoreEngine"
HINT = (
    "(a loop that never exits?); raise the limit with ge-run --max-steps or the Session option "
    "ge.maxSteps"
)


def verified(model: ModelOp) -> ModelOp:
    ModuleOp([model]).verify()
    return model


def spin(elements: int = 4) -> ModelOp:
    """label 7 -> Relu -> goto 7: a label loop with no exit."""
    t = TensorType(f32, [elements])
    out = (elements * 4 + 511) // 512 * 512
    return verified(
        ModelOp(
            "spin",
            2 * out,
            0,
            [
                StreamOp(0, ENGINE),
                OutputOp("y", BufferAttr(out, t)),
                LabelSetOp(7, 0),
                KernelOp("Relu", "spin_relu", ENGINE, 0, [BufferAttr(0, t)], [BufferAttr(out, t)]),
                LabelGotoOp(7, 0),
            ],
        )
    )


def counter(trips: int, declared: int | None = None) -> ModelOp:
    """do { out += 1 } while (out < trips): 3 x trips + 1 steps over 4 tasks."""
    scalar = TensorType(i32, [])
    out = BufferAttr(512, scalar)
    labels = [1] + [0] * (trips - 1) + [1]
    model = ModelOp(
        "count",
        1024,
        512,
        [
            StreamOp(0, ENGINE),
            WeightOp(BufferAttr(0, scalar), dense_from_numpy(np.array(1, np.int32))),
            OutputOp("out", out),
            LabelSetOp(0, 0),
            KernelOp("Add", "inc", ENGINE, 0, [out, BufferAttr(0, scalar)], [out]),
            LabelSwitchByIndexOp(out, labels, 0),
            LabelSetOp(1, 0),
        ],
    )
    if declared is not None:
        model.attributes[ITERATIONS_PER_LOOP] = IntegerAttr(declared, i64)
    return verified(model)


# --------------------------------------------------------------------------------------------
# The step budget
# --------------------------------------------------------------------------------------------


def test_label_loop_without_exit_stops_with_step_budget() -> None:
    model = spin()
    start = time.thread_time()
    with pytest.raises(AscendRuntimeError) as e:
        run_model(model, {})
    assert time.thread_time() - start < 1.0
    assert str(e.value) == (
        f"'ascend.model' @spin exceeded its step budget of {STEP_MARGIN * 3} steps "
        f"({STEP_MARGIN} x 3 tasks x 1 iteration) in the label loop of stream 0 back to label 7 "
        + HINT
    )


def test_label_loop_with_a_1_mb_kernel_stops_within_seconds() -> None:
    # Ten million steps of it ran for hours before the budget.
    model = spin(elements=1 << 18)
    start = time.thread_time()
    with pytest.raises(AscendRuntimeError, match="exceeded its step budget of 48 steps"):
        run_model(model, {})
    assert time.thread_time() - start < 5.0


def test_loops_that_exit_run_within_their_budget() -> None:
    assert int(run_model(counter(3), {})["out"]) == 3  # 10 steps, budget 64
    # 301 steps, undeclared
    with pytest.raises(AscendRuntimeError, match=r"budget of 64 steps .* label 0"):
        run_model(counter(100), {})
    assert int(run_model(counter(100), {}, max_steps=301)["out"]) == 100
    with pytest.raises(AscendRuntimeError, match="exceeded max_steps=300 in the label loop"):
        run_model(counter(100), {}, max_steps=300)
    run = execute_model(counter(100, declared=100), {})
    assert int(run.outputs["out"]) == 100 and run.stats.steps == 301


def test_step_budget_uses_the_iterations_the_model_declares() -> None:
    module = parse(EXAMPLE)
    CompilePipelinePass(iterations_per_loop=40).apply(make_context(), module)
    model = next(op for op in module.walk() if isinstance(op, ModelOp))
    inputs = inputs_of(EXAMPLE, 4, 0)
    run = execute_model(model, inputs)
    tasks = len(list(model.tasks()))
    assert tasks * 40 > run.stats.steps > STEP_MARGIN * tasks
    model.attributes[ITERATIONS_PER_LOOP] = IntegerAttr(1, i64)  # a lie: the loop runs 40
    with pytest.raises(AscendRuntimeError) as e:
        execute_model(model, inputs)
    assert f"step budget of {STEP_MARGIN * tasks} steps ({STEP_MARGIN} x {tasks} tasks" in str(
        e.value
    )
    assert "in the label loop of stream" in str(e.value) and "back to label" in str(e.value)


def test_streams_that_restart_each_other_stop_with_step_budget() -> None:
    # The verifier refuses a second activation point; the interpreter stops it even unverified.
    model = ModelOp(
        "ping",
        512,
        0,
        [
            StreamOp(0, ENGINE),
            StreamOp(1, ENGINE),
            StreamOp(2, ENGINE),
            StreamActiveOp(1, 0),
            StreamActiveOp(2, 1),
            StreamActiveOp(1, 2),
        ],
    )
    ModuleOp([model])
    with pytest.raises(AscendRuntimeError) as e:
        run_model(model, {})
    assert str(e.value).startswith(
        f"'ascend.model' @ping exceeded its step budget of {STEP_MARGIN * 3} steps "
        f"({STEP_MARGIN} x 3 tasks x 1 iteration) at task 0 of stream "
    )


@pytest.mark.parametrize("value", [0, -1, 2.5, True, "9"])
def test_max_steps_must_be_a_positive_integer(value: object) -> None:
    with pytest.raises(ValueError, match="max_steps must be a positive integer"):
        run_model(spin(), {}, max_steps=value)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_steps must be a positive integer"):
        configure(interp.interpreter_for(spin()), max_steps=value)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# What a run keeps per step
# --------------------------------------------------------------------------------------------


def test_trace_takes_eight_bytes_per_step() -> None:
    stats = execute_model(counter(100), {}, max_steps=301).stats
    assert stats.codes.itemsize == 8 and len(stats.codes) == stats.steps == 301
    assert stats.trace[:4] == [(0, 0), (0, 1), (0, 2), (0, 0)]
    assert stats.trace[-1] == (0, 3)


@pytest.mark.parametrize("timing", [False, True], ids=["plain", "timed"])
def test_per_step_records_are_checked_against_the_memory_budget(
    timing: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 32 KiB holds the arena with its per-byte timing table (21 KiB), not 8192 steps of trace
    monkeypatch.setattr(interp.scheduler, "MEMORY_CHECK_STEPS", 8192)
    step = 8 + (interp.SPAN_BYTES if timing else 0)
    with budget.max_memory_set(32 << 10), pytest.raises(AscendRuntimeError) as e:
        execute_model(spin(), {}, max_steps=10**9, timing=timing)
    assert str(e.value) == (
        f"the trace of 'ascend.model' @spin needs {budget.format_size(8192 * step)}, over the "
        "memory limit of 32.0 KiB (raise it with --max-memory or GE_MAX_MEMORY) after 8192 steps "
        "(a loop that never exits?)"
    )


# --------------------------------------------------------------------------------------------
# iterations_per_loop
# --------------------------------------------------------------------------------------------


def test_iterations_per_loop_is_bounded() -> None:
    module = parse(EXAMPLE)
    before = str(module)
    with pytest.raises(PassFailedException) as e:
        CompilePipelinePass(iterations_per_loop=10**8).apply(make_context(), module)
    assert str(e.value) == (
        f"ge-compile: iterations-per-loop must be at most {MAX_ITERATIONS_PER_LOOP} (the "
        "interpreter runs every iteration; GE sinks the steps between host syncs), got 100000000"
    )
    assert str(module) == before, "refused before any pass ran"
    with pytest.raises(PassFailedException, match="ge-sink-loop: iterations must be at most"):
        SinkLoopPass(iterations=MAX_ITERATIONS_PER_LOOP + 1).apply(make_context(), module)
    with pytest.raises(
        PassFailedException, match="ge-compile: iterations-per-loop must be at least"
    ):
        CompilePipelinePass(iterations_per_loop=0).apply(make_context(), module)
    SinkLoopPass(iterations=MAX_ITERATIONS_PER_LOOP).apply(make_context(), ModuleOp([]))


@pytest.mark.parametrize("value", [0, MAX_ITERATIONS_PER_LOOP + 1])
def test_model_declaring_too_many_iterations_is_refused_by_the_interpreter(value: int) -> None:
    model = counter(3, declared=value)
    with pytest.raises(AscendRuntimeError) as e:
        run_model(model, {})
    assert str(e.value) == (
        f"'ascend.model' @count: iterations_per_loop must be an integer in "
        f"[1, {MAX_ITERATIONS_PER_LOOP}], got {value} : i64"
    )


def test_iterations_per_loop_is_bounded_on_the_command_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(BIN / "ge-opt"), "-p", "ge-compile{iterations-per-loop=100000000}"],
        input=EXAMPLE,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert len(done.stderr.splitlines()) == 1
    assert "iterations-per-loop must be at most 1000000" in done.stderr


# --------------------------------------------------------------------------------------------
# ge-run and the Session
# --------------------------------------------------------------------------------------------


def test_label_loop_without_exit_cli_is_one_line_exit_1() -> None:
    path = ROOT / "tests" / "lit" / "inputs" / "never-exiting-loop.mlir"
    for extra in ([], ["--max-steps", "5"], ["--check-uninitialized"]):
        done = subprocess.run(
            [str(BIN / "ge-run"), str(path), "--random-inputs", "0", *extra],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1
        limit = "max_steps=5" if extra[1:] == ["5"] else "its step budget of 48 steps"
        assert done.stderr.splitlines() == [
            f"error: 'ascend.model' @spin exceeded {limit}"
            + (" (16 x 3 tasks x 1 iteration)" if "budget" in limit else "")
            + " in the label loop of stream 0 back to label 7 "
            + HINT
        ]


GRAPH = """graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
"""


def test_session_option_max_steps_reaches_the_run() -> None:
    from gedialects.session import ExecutionError, Session

    x = np.ones(4, np.float32)
    session = Session({"ge.maxSteps": "1"})
    session.add_graph(1, GRAPH)
    with pytest.raises(ExecutionError, match="exceeded max_steps=1 at task 1 of stream"):
        session.run_graph(1, {"x": x})
    session.add_graph(2, GRAPH, {"ge.maxSteps": "100"})
    (y,) = session.run_graph(2, {"x": x}).values()
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("value", ["0", "-3", "x", "1.5", "\u0661", ""])
def test_session_option_max_steps_is_a_positive_integer(value: str) -> None:
    from gedialects.session import OptionError, Session

    with pytest.raises(OptionError, match=f"Value {value} for parameter ge.maxSteps is invalid"):
        Session({"ge.maxSteps": value})
