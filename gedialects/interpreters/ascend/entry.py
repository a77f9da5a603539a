"""The Python entry of the ascend interpreter: `execute_model`, `run_model`, `configure`,
`last_stats` (hybrid gear routing and the multi-batch shape data included)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import (
    Interpreter,
)
from xdsl.ir import Operation

from gedialects.ascend import (
    ModelOp,
)
from gedialects.errors import GearMismatchError
from gedialects.interpreters.ascend.functions import OPTIONS, STATS, AscendFunctions, plan_for
from gedialects.interpreters.ascend.plan import AscendRuntimeError
from gedialects.interpreters.ascend.scheduler import Options, RunStats


@dataclass
class ModelRun:
    """The outputs of a run (by OutputOp name) and its statistics."""

    outputs: dict[str, np.ndarray]
    stats: RunStats


def configure(
    interpreter: Interpreter,
    *,
    schedule_seed: int | None = None,
    max_steps: int | None = None,
    check_uninitialized: bool = False,
    timing: bool = False,
    compiled: bool = True,
) -> None:
    """Scheduling and instrumentation options for models run through `interpreter.call_op`.

    `max_steps` None gives each model its step budget (STEP_MARGIN). `compiled` False
    dispatches every task through the interpreter instead of the compiled executor (the
    reference the executor is tested against)."""
    check_max_steps(max_steps)
    interpreter.set_data(
        AscendFunctions,
        OPTIONS,
        Options(schedule_seed, max_steps, check_uninitialized, timing, compiled),
    )


def check_max_steps(max_steps: int | None) -> None:
    """A `max_steps` must be a positive int (or None for the model's budget)."""
    if max_steps is not None and (
        isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1
    ):
        raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")


def last_stats(interpreter: Interpreter) -> RunStats | None:
    """Statistics of the last model run that finished on `interpreter`."""
    return interpreter.get_data(AscendFunctions, STATS, lambda: None)


def interpreter_for(model: ModelOp) -> Interpreter:
    top: Operation = model
    while (parent := top.parent_op()) is not None:
        top = parent
    interpreter = Interpreter(top if isinstance(top, ModuleOp) else ModuleOp([]))
    interpreter.register_implementations(AscendFunctions())
    return interpreter


def execute_model(
    model: ModelOp,
    inputs: Mapping[str, np.ndarray],
    *,
    schedule_seed: int | None = None,
    max_steps: int | None = None,
    interpreter: Interpreter | None = None,
    check_uninitialized: bool = False,
    timing: bool = False,
    compiled: bool = True,
) -> ModelRun:
    """Runs `model` on named inputs; returns its outputs by name and the run statistics.

    Pass an `interpreter` to reuse its cached per-model plan across runs. `check_uninitialized`
    fails any read of bytes nobody wrote or another buffer overwrote; `timing` adds the
    simulated timeline to the statistics. `max_steps` (default: the model's step budget,
    STEP_MARGIN) stops a label loop that never exits; `compiled` False runs the reference
    dispatch (see `configure`).
    """
    interpreter = interpreter or interpreter_for(model)
    model, inputs = _hybrid(model, interpreter, inputs)
    plan = plan_for(interpreter, model)
    names = [op.input_name.data for op in plan.input_ops]
    inputs = _with_shape_data(model, interpreter, inputs)
    missing = [n for n in names if n not in inputs]
    unknown = [n for n in inputs if n not in names]
    if missing or unknown:
        raise AscendRuntimeError(
            f"'ascend.model' @{model.sym_name.data} inputs are {names}; "
            f"missing {missing}, unknown {unknown}"
        )
    configure(
        interpreter,
        schedule_seed=schedule_seed,
        max_steps=max_steps,
        check_uninitialized=check_uninitialized,
        timing=timing,
        compiled=compiled,
    )
    results = interpreter.call_op(model, tuple(inputs[n] for n in names))
    stats = last_stats(interpreter)
    assert stats is not None
    outputs = {o.output_name.data: r for o, r in zip(plan.output_ops, results, strict=True)}
    return ModelRun(outputs, stats)


def _hybrid(
    model: ModelOp, interpreter: Interpreter, inputs: Mapping[str, np.ndarray]
) -> tuple[ModelOp, Mapping[str, np.ndarray]]:
    """The model that runs `inputs` and its inputs: a hybrid gear model's dynamic model for
    shapes of no gear (`gears.hybrid_route`, the rule `run()` follows too), else `model`."""
    from gedialects.interpreters.gears import HybridFallbackError, hybrid_route

    info = plan_for(interpreter, model).gears
    if info is None or any(n not in info.input_names for n in inputs):
        # No gears; or the caller gave the shape data (named the gear), or unknown names
        # that the input check reports.
        return model, inputs
    try:
        routed = hybrid_route(model, info, {n: np.asarray(v) for n, v in inputs.items()})
    except HybridFallbackError as e:
        raise AscendRuntimeError(f"'ascend.model' @{model.sym_name.data}: {e}") from None
    if routed is None:
        return model, inputs
    dynamic, args = routed
    if not isinstance(dynamic, ModelOp):
        return model, inputs
    return dynamic, dict(zip(dynamic.input_names, args, strict=True))


def _with_shape_data(
    model: ModelOp, interpreter: Interpreter, inputs: Mapping[str, np.ndarray]
) -> Mapping[str, np.ndarray]:
    """A multi-batch model's inputs with `ascend_mbatch_shape_data` filled from the input
    shapes when the caller left it out (GE's runtime appends it to the user's blobs)."""
    info = plan_for(interpreter, model).gears
    if info is None or info.shape_data_index is None:
        return inputs
    shape_name = model.inputs()[info.shape_data_index].input_name.data
    if shape_name in inputs or any(n not in inputs for n in info.input_names):
        return inputs
    ordered = tuple(np.asarray(inputs[n]) for n in info.input_names)
    try:
        args = info.bind(ordered)
    except GearMismatchError as e:
        raise AscendRuntimeError(f"'ascend.model' @{model.sym_name.data}: {e}") from None
    return {**inputs, shape_name: args[info.shape_data_index]}


def run_model(
    model: ModelOp,
    inputs: Mapping[str, np.ndarray],
    *,
    schedule_seed: int | None = None,
    max_steps: int | None = None,
    check_uninitialized: bool = False,
) -> dict[str, np.ndarray]:
    """Runs `model` on named inputs and returns its outputs by name (fresh arrays)."""
    return execute_model(
        model,
        inputs,
        schedule_seed=schedule_seed,
        max_steps=max_steps,
        check_uninitialized=check_uninitialized,
    ).outputs
