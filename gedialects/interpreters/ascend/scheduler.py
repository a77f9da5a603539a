"""The scheduler of an ascend model run: loads weights and inputs, runs the streams' task lists
(each in program order, events and `stream_active` between them, a step budget against loops
that never exit) and reads the outputs; the run statistics."""

from __future__ import annotations

import bisect
import math
import random
from array import array as code_array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interpreter import (
    Interpreter,
)

from gedialects import budget
from gedialects.ascend import (
    BufferAttr,
    ModelOp,
    TaskOp,
)
from gedialects.errors import GearMismatchError
from gedialects.interpreters.ascend.compiled import Arena, Loop, Program, run_loop
from gedialects.interpreters.ascend.memory import (
    DynamicHeap,
    MemoryCheck,
    RunState,
    bytes_per_arena_byte,
)
from gedialects.interpreters.ascend.plan import (
    AscendRuntimeError,
    DynRef,
    Plan,
    Slot,
    slot_name,
)
from gedialects.interpreters.ascend.timing import Clock
from gedialects.interpreters.timeline import Timeline
from gedialects.interpreters.variables import VariableStore, store_of, uninitialised


@dataclass
class RunStats:
    """What a run executed, for schedulers, profilers and tests."""

    tasks_per_stream: dict[int, int]
    """Stream id -> number of tasks it executed (label loops count every iteration)."""
    codes: code_array = field(default_factory=lambda: code_array("q"))
    """One 8-byte code per executed step, `stream index << 32 | task index` (a list of tuples
    took ten times the memory: 620 MB for ten million steps)."""
    stream_ids: tuple[int, ...] = ()
    timeline: Timeline | None = None
    """The simulated timeline, when the run was timed."""
    dynamic_peak: int = 0
    """The most bytes dynamic buffers held at once (aligned blocks), 0 for a static model."""

    @property
    def trace(self) -> list[tuple[int, int]]:
        """The executed (stream id, task index within the stream) pairs, in execution order."""
        ids = self.stream_ids
        return [(ids[code >> 32], code & _PC_MASK) for code in self.codes]

    @property
    def steps(self) -> int:
        return len(self.codes)


_PC_MASK = (1 << 32) - 1


MEMORY_CHECK_STEPS = 1 << 16
"""Every this many steps a run checks what its per-step records (trace codes, timeline spans)
hold against the memory budget, so that a raised step budget cannot exhaust memory first."""


SPAN_BYTES = 200
"""About what one timeline span costs (a `TaskSpan` and its share of the list)."""


@dataclass
class Options:
    schedule_seed: int | None = None
    max_steps: int | None = None
    """None: the model's step budget (STEP_MARGIN)."""
    check_uninitialized: bool = False
    timing: bool = False
    compiled: bool = True
    """False: every task dispatched through the interpreter (the reference of the executor)."""


def _check_input(name: str, slot: Slot | DynRef, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """`value` as an array of `shape` (the buffer's shape, or its gear's shape)."""
    array = np.asarray(value)
    if isinstance(slot, DynRef):
        if array.dtype != slot.dtype or not slot.conforms(array.shape):
            raise AscendRuntimeError(
                f"input '{name}': expected {slot.type} ({slot.dtype}), got {array.dtype} array "
                f"of shape {array.shape}"
            )
        return array
    if array.dtype != slot.dtype or array.shape != shape or array.nbytes > slot.nbytes:
        raise AscendRuntimeError(
            f"input '{name}': expected {slot.describe()}, got {array.dtype} array of shape "
            f"{array.shape}"
        )
    return array


def execute(
    interpreter: Interpreter,
    model: ModelOp,
    plan: Plan,
    args: Sequence[Any],
    options: Options,
    bind: Callable[[RunState | None], RunState | None],
    program: Program | None = None,
) -> tuple[tuple[np.ndarray, ...], RunStats]:
    """One run: weights and inputs in, the streams run with `state` bound for the impls
    (`bind` makes a run state current and returns the one it replaces), outputs out.

    With a `program` the compiled executor runs the steps (`compiled`) in an arena it reuses;
    without, each task is dispatched through the interpreter (`run_op`), as a reference."""
    size = plan.memory_size
    tables = [
        *(["the writer of each byte (check-uninitialized)"] * options.check_uninitialized),
        *(["the ready time of each byte (timing)"] * options.timing),
    ]
    budget.check(
        size * bytes_per_arena_byte(options.check_uninitialized, options.timing),
        f"'ascend.model' @{model.sym_name.data}: its arena (arena_size "
        f"{model.arena_size.value.data}"
        + (f", variables {size - plan.var_base} B" if plan.variables else "")
        + ")"
        + (f" with {' and '.join(tables)}" if tables else ""),
    )
    gear, shapes = _select_gear(model, plan, args)
    memory = MemoryCheck(size) if options.check_uninitialized else None
    if memory is not None and plan.gears is not None and plan.gears.getnext:
        for task in model.tasks():
            effects = task.effects()
            if effects.kernel == "GetNext":
                for buffer in effects.outs:
                    if isinstance(buffer, BufferAttr):
                        text = f"{buffer} : {buffer.type}"
                        memory.allow_views(buffer.offset_value, buffer.nbytes, text)
    held = program.take(size, memory) if program is not None else None
    arena = held.data if held is not None else bytearray(size)
    state = RunState(plan, arena, heap=DynamicHeap(plan.arena_top), memory=memory, size=size)
    if program is not None and held is not None:
        state.grow = lambda top: program.grow(held, state, top)
    store = store_of(interpreter)
    try:
        _load(model, plan, state, args, shapes)
        _load_variables(model, plan, state, store)
        previous = bind(state)
        try:
            if program is not None and held is not None:
                stats = _run_compiled(interpreter, model, state, options, held)
            else:
                stats = _schedule(interpreter, model, state, options)
        finally:
            bind(previous)
        outputs = _outputs(model, plan, state, gear)
        _store_variables(plan, state, store)
    finally:
        if program is not None and held is not None:
            program.give_back(held, state.size)
    stats.dynamic_peak = state.heap.peak if state.heap is not None else 0
    return outputs, stats


def _load(
    model: ModelOp,
    plan: Plan,
    state: RunState,
    args: Sequence[Any],
    shapes: list[tuple[int, ...]],
) -> None:
    """Weights and inputs into the (zero) arena, tagged when checking uninitialised memory."""
    arena, memory = state.arena, state.memory
    for offset, data in plan.weights:
        arena[offset : offset + len(data)] = data
    if memory is not None:
        for weight in plan.weight_ops:
            buffer = weight.buffer
            text = f"{buffer} : {buffer.type}"
            memory.write(buffer.offset_value, buffer.nbytes, text, weight.describe())
    for (name, slot), value, shape, op in zip(
        plan.inputs, args, shapes, plan.input_ops, strict=True
    ):
        array = _check_input(name, slot, value, shape)
        if isinstance(slot, DynRef):
            error = state.place(slot, array, op.describe())
            if error is not None:
                raise error
            continue
        arena[slot.offset : slot.offset + array.nbytes] = np.ascontiguousarray(array).tobytes()
        if memory is not None:
            memory.write(slot.offset, _nbytes(slot, shape), slot_name(slot), op.describe())


def _load_variables(model: ModelOp, plan: Plan, state: RunState, store: VariableStore) -> None:
    """The session's value of each variable into the variable region (entered from the
    declaration's initial value the first time the session meets it). A variable without a
    value is an error unless the model assigns it first; its bytes then stay unwritten, so
    the uninitialised-memory check catches a task that reads them all the same."""
    arena, memory = state.arena, state.memory
    for decl, slot in plan.variables:
        name = decl.variable
        if name not in store and decl.value is None:
            if decl.assigned_first is None:
                raise AscendRuntimeError(
                    uninitialised(name, f"'ascend.model' @{model.sym_name.data}")
                )
            continue
        ttype = slot.type
        assert isinstance(ttype, TensorType)  # a variable's buffer is static (verified)
        array = store.read(name, ttype, decl.value, f"'ascend.model' @{model.sym_name.data}")
        arena[slot.offset : slot.offset + slot.nbytes] = np.ascontiguousarray(array).tobytes()
        if memory is not None:
            memory.write(
                slot.offset, slot.nbytes, slot_name(slot, var_base=plan.var_base), decl.describe()
            )


def _store_variables(plan: Plan, state: RunState, store: VariableStore) -> None:
    """What the run left in the variable region is each variable's value for the next."""
    for decl, slot in plan.variables:
        if decl.variable in store or decl.assigned_first is not None:
            store.write(decl.variable, np.array(slot.view(state.arena)))


def _outputs(
    model: ModelOp, plan: Plan, state: RunState, gear: int | None
) -> tuple[np.ndarray, ...]:
    """Copies of the outputs, with the selected gear's dims (checked when checking memory)."""
    slots: list[Slot] = []
    for (_, ref), op in zip(plan.outputs, plan.output_ops, strict=True):
        found = state.resolve(ref, op.describe())
        if isinstance(found, AscendRuntimeError):
            raise found
        slots.append(found)
    out_shapes = [slot.shape for slot in slots]
    if plan.gears is not None and plan.gears.getnext and slots:
        # GetNext sink (GE's AssembleListenerOutput): the gear is the GetDynamicDims output,
        # the hidden last output, read back after the run
        hidden = slots[-1]
        dims = np.frombuffer(state.arena, hidden.dtype, math.prod(hidden.shape), hidden.offset)
        gear = plan.gears.config.gear_of([int(v) for v in dims])
        if gear is None:
            raise AscendRuntimeError(
                f"'ascend.model' @{model.sym_name.data}: E13025: the dims "
                f"{[int(v) for v in dims]} GetDynamicDims read are no gear of the model"
            )
    if plan.gears is not None and gear is not None:
        dims = plan.gears.output_dims_of(gear)
        # a gear's -1 dim (a branch with data-dependent ops): the dynamic buffer's own shape
        out_shapes = [
            slot.shape if -1 in dims.get(name, (-1,)) else dims[name]
            for (name, _), slot in zip(plan.outputs, slots, strict=True)
        ]
    if state.memory is not None:
        for (_, ref), slot, op, shape in zip(
            plan.outputs, slots, plan.output_ops, out_shapes, strict=True
        ):
            name = slot_name(slot, ref.slot if isinstance(ref, DynRef) else None)
            error = state.memory.read(slot.offset, _nbytes(slot, shape), name, op.describe())
            if error is not None:
                raise error
    return tuple(
        np.frombuffer(state.arena, slot.dtype, math.prod(shape), slot.offset).reshape(shape).copy()
        for slot, shape in zip(slots, out_shapes, strict=True)
    )


def _run_compiled(
    interpreter: Interpreter, model: ModelOp, state: RunState, options: Options, held: Arena
) -> RunStats:
    """The compiled executor's loop (`compiled.run_loop`) under the options' instruments."""
    plan = state.plan
    clock = Clock(model, plan, state.size) if options.timing else None
    step_bytes = 8 + (SPAN_BYTES if clock is not None else 0)
    loop = Loop(
        model,
        plan,
        state,
        held,
        options.max_steps if options.max_steps is not None else plan.step_budget,
        random.Random(options.schedule_seed) if options.schedule_seed is not None else None,
        clock,
        lambda steps: _check_records(model, steps, step_bytes),
        lambda repeat, i, pc: _over_budget(model, plan, options, loop.max_steps, repeat, i, pc),
        lambda task, target, live, pcs: _activate(task, target, live, pcs, plan),
        MEMORY_CHECK_STEPS,
    )
    run_loop(loop, interpreter)
    stats = RunStats(
        dict(zip(plan.stream_ids, loop.executed, strict=True)), loop.codes, plan.stream_ids
    )
    if clock is not None:
        stats.timeline = clock.finish()
    return stats


def _nbytes(slot: Slot, shape: tuple[int, ...]) -> int:
    return math.prod(shape) * slot.dtype.itemsize


def _select_gear(
    model: ModelOp, plan: Plan, args: Sequence[Any]
) -> tuple[int | None, list[tuple[int, ...]]]:
    """The gear of the inputs (E13025 when none) and the shape each input is written with.

    Every input is written packed at the start of its buffer (GE copies the user blob into the
    largest gear's buffer); the shape data, when given, must name the inputs' gear."""
    shapes = [tuple(np.shape(a)) for a in args]
    info = plan.gears
    if info is None or info.getnext:  # GetNext sink: the device finds the gear (`_outputs`)
        return None, [
            slot.shape if isinstance(slot, Slot) else shape
            for (_, slot), shape in zip(plan.inputs, shapes, strict=True)
        ]
    names = [name for name, _ in plan.inputs]
    user = {
        n: s
        for i, (n, s) in enumerate(zip(names, shapes, strict=True))
        if i != info.shape_data_index
    }
    try:
        gear = info.select(user)
    except GearMismatchError as e:
        raise AscendRuntimeError(f"'ascend.model' @{model.sym_name.data}: {e}") from None
    if info.shape_data_index is not None:
        given = tuple(int(v) for v in np.asarray(args[info.shape_data_index]).reshape(-1))
        if given != info.gears[gear]:
            raise AscendRuntimeError(
                f"'ascend.model' @{model.sym_name.data}: shape data {list(given)} does not "
                f"name the gear of the inputs {list(info.gears[gear])}"
            )
    return gear, shapes


def _schedule(
    interpreter: Interpreter, model: ModelOp, state: RunState, options: Options
) -> RunStats:
    """Runs the streams to completion; see the module docstring for the policy."""
    plan = state.plan
    tasks, waits, events = plan.tasks, plan.waits, state.events
    count = len(tasks)
    pcs = [0] * count
    activated = plan.activated
    live = [i for i in range(count) if tasks[i] and i not in activated]
    rng = random.Random(options.schedule_seed) if options.schedule_seed is not None else None
    executed = [0] * count
    codes = code_array("q")
    record = codes.append
    max_steps = options.max_steps if options.max_steps is not None else plan.step_budget
    stream_ids = plan.stream_ids
    clock = Clock(model, plan, state.size) if options.timing else None
    step_bytes = codes.itemsize + (SPAN_BYTES if clock is not None else 0)
    checkpoint = MEMORY_CHECK_STEPS
    repeat: tuple[int, int] | None = None
    """The last jump back: (stream index, task index it went back to)."""
    while live:
        runnable = [i for i in live if waits[i][pcs[i]] < 0 or waits[i][pcs[i]] in events]
        if not runnable:
            blocked = ", ".join(
                f"stream {stream_ids[i]} waits on event {waits[i][pcs[i]]}" for i in live
            )
            raise AscendRuntimeError(f"'ascend.model' @{model.sym_name.data} deadlocks: {blocked}")
        i = runnable[0] if rng is None else rng.choice(runnable)
        steps = len(codes)
        if steps >= checkpoint:
            checkpoint += MEMORY_CHECK_STEPS
            _check_records(model, steps, step_bytes)
        if steps >= max_steps:
            raise _over_budget(model, plan, options, max_steps, repeat, i, pcs[i])
        pc = pcs[i]
        record(i << 32 | pc)
        executed[i] += 1
        state.stream, state.jump, state.ended = i, -1, False
        interpreter.run_op(tasks[i][pc], ())
        if state.error is not None:
            raise state.error
        if clock is not None:
            clock.step(i, pc, tasks[i][pc], state)
        if state.activate >= 0:
            _activate(tasks[i][pc], state.activate, live, pcs, plan)
            state.activate = -1
        if state.jump >= 0:
            if state.jump <= pc:
                repeat = (i, state.jump)
            pc = state.jump
        else:
            pc += 1
        pcs[i] = pc
        if state.ended or pc >= len(tasks[i]):
            live.remove(i)
    stats = RunStats(dict(zip(stream_ids, executed, strict=True)), codes, stream_ids)
    if clock is not None:
        stats.timeline = clock.finish()
    return stats


def _check_records(model: ModelOp, steps: int, step_bytes: int) -> None:
    """The run's per-step records against the memory budget (see MEMORY_CHECK_STEPS)."""
    try:
        budget.check(steps * step_bytes, f"the trace of 'ascend.model' @{model.sym_name.data}")
    except budget.MemoryBudgetError as e:
        raise AscendRuntimeError(f"{e} after {steps} steps (a loop that never exits?)") from None


def _over_budget(
    model: ModelOp,
    plan: Plan,
    options: Options,
    max_steps: int,
    repeat: tuple[int, int] | None,
    stream: int,
    pc: int,
) -> AscendRuntimeError:
    """The one-line error of a run that used up its step budget, naming the loop."""
    ids = plan.stream_ids
    if repeat is None:  # no jump back: streams an unverified model restarts in a cycle
        where = f"at task {pc} of stream {ids[stream]} ({plan.tasks[stream][pc].describe()})"
    else:
        target = plan.tasks[repeat[0]][repeat[1]]
        label = next(iter(target.effects().labels), None)
        what = f"label {label}" if label is not None else f"task {repeat[1]}"
        where = f"in the label loop of stream {ids[repeat[0]]} back to {what}"
    if options.max_steps is None:
        limit = f"its step budget of {max_steps} steps ({plan.budget_reason()})"
    else:
        limit = f"max_steps={max_steps}"
    return AscendRuntimeError(
        f"'ascend.model' @{model.sym_name.data} exceeded {limit} {where} (a loop that never "
        "exits?); raise the limit with ge-run --max-steps or the Session option ge.maxSteps"
    )


def _activate(task: TaskOp, target: int, live: list[int], pcs: list[int], plan: Plan) -> None:
    """Starts stream `target` at its first task (`live` stays sorted: the default schedule
    still picks the lowest stream id)."""
    tasks = plan.tasks
    if target in live:
        raise AscendRuntimeError(
            f"{task.describe()} activates stream {plan.stream_ids[target]}, which is still "
            f"running (at its task {pcs[target]} of {len(tasks[target])})"
        )
    pcs[target] = 0
    if tasks[target]:
        bisect.insort(live, target)
