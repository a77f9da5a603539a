"""The compiled executor of an ascend model: the model decoded once into flat per-stream step
lists, the steps bound once to numpy views of one arena `bytearray`, then run in a tight loop.

Decoding (`Program.of`, once per model and interpreter) resolves what a task does from its
type's binder (`BINDERS`, next to the `@impl` of the type in `functions`): a kernel task gets its
kernel function, attributes, result types and the static shapes and dtypes of its buffers,
checked once; a label task its target index; an event task its event. Binding (`Program.take`)
creates the numpy views of the task's buffers in the arena, once per arena: a run zeroes the
arena and writes the weights and inputs, as a fresh one would hold, and reuses every view.
Tasks still read and write only the arena, at the offsets of the memory plan.

A task whose type has no binder, whose `@impl` on the interpreter is not `AscendFunctions`' own
(another `InterpreterFunctions` overrides it), or that needs a per-run decision (dynamic
buffers placed at run time, outputs the memory budget must see, a label no stream sets) runs its
`@impl` directly, with the run state bound as before: the same semantics, its own speed.

The instruments are options of this engine: `check_uninitialized` wraps each bound step in the
byte-ownership checks of its reads and writes (`memory.MemoryCheck`), a `schedule_seed` or
`timing` runs the step-by-step scheduler (a random runnable stream per step, the timeline's
clock after each step), and the default deterministic schedule runs each stream's steps in a
burst until it blocks on an event, ends, or records an event or starts a stream that a lower
stream may be waiting for (the lowest runnable stream then runs next, as each step would pick).
"""

from __future__ import annotations

import random
from array import array as code_array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar, cast

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions
from xdsl.utils.exceptions import InterpretationError

from gedialects.ascend import ModelOp, TaskOp
from gedialects.interpreters.ascend.memory import MemoryCheck, RunState
from gedialects.interpreters.ascend.plan import AscendRuntimeError, Plan, Slot, slot_name
from gedialects.interpreters.ascend.timing import Clock

PLAIN = 0
"""`fn()` does the task (a kernel, a copy)."""
NOP = 1
RECORD = 2
"""`arg` is the event it records."""
WAIT = 3
"""`arg` is the event it consumes (the scheduler runs it once the event is recorded)."""
GOTO = 4
"""`arg` is the task index the stream continues at."""
SWITCH = 5
"""`fn()` returns the task index the stream continues at."""
ACTIVATE = 6
"""`arg` is the index of the stream it starts."""
END = 7
IMPL = 8
"""`fn()` runs the task's `@impl` with the run state bound (it sets `RunState`'s fields)."""

Step = tuple[Callable[[], Any] | None, int, int, int]
"""(fn, kind, arg, trace code `stream index << 32 | task index`)."""

ByteRange = tuple[int, int, str]
"""(offset, nbytes, name as `check_uninitialized` reports it)."""

CAUGHT = (ValueError, TypeError, ArithmeticError, IndexError)
"""What a kernel raises that is the input's fault: the task fails with a one-line error."""


@dataclass
class Decoded:
    """A task as the executor runs it: how to bind it to an arena and what it touches."""

    kind: int
    arg: int = -1
    bind: Callable[[np.ndarray], Callable[[], Any]] | None = None
    """The arena as uint8 -> the step's function (PLAIN, SWITCH; IMPL's ignores the arena)."""
    ranges: Callable[[], tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]] | None = None
    """The planned bytes it reads and writes, checked and tagged by `check_uninitialized`
    around PLAIN/SWITCH steps (IMPL steps do their own checks); a function because naming a
    buffer prints its type, which only a checked run needs."""


@dataclass
class BindContext:
    """What a binder may use: the plan, the task's stream index and how to fall back."""

    plan: Plan
    stream: int
    interpreter: Interpreter

    def impl(self, task: TaskOp) -> Decoded:
        """The task run by its `@impl` (see the module docstring)."""
        return impl_step(self.interpreter, task)


Binder = Callable[[TaskOp, BindContext], Decoded]
T = TypeVar("T", bound=TaskOp)

BINDERS: dict[type[TaskOp], Binder] = {}
"""Task op type -> its binder (registered by `functions` with `@binds`)."""


def binds(op_type: type[T]) -> Callable[[Callable[[T, BindContext], Decoded]], Any]:
    """Registers the decorated function as the binder of task type `op_type`."""

    def register(fn: Callable[[T, BindContext], Decoded]) -> Callable[[T, BindContext], Decoded]:
        BINDERS[op_type] = cast(Binder, fn)
        return fn

    return register


def _own_impl(interpreter: Interpreter, task: TaskOp) -> tuple[Any, Any] | None:
    """(functions object, impl) registered on `interpreter` for the task's type, or None.

    xDSL 0.74 keeps the table private; reading it is how the executor can tell that a task
    type's `@impl` is still the one its binder compiles (nobody overrode it)."""
    table = interpreter._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
    return table.get(type(task))


def impl_step(interpreter: Interpreter, task: TaskOp) -> Decoded:
    found = _own_impl(interpreter, task)
    if found is None:

        def missing() -> None:
            raise InterpretationError(f"Could not find interpretation function for op {task.name}")

        return Decoded(IMPL, bind=lambda _: missing)
    ft, fn = found

    def bind(_: np.ndarray) -> Callable[[], Any]:
        return lambda: fn(ft, interpreter, task, ())

    return Decoded(IMPL, bind=bind)


def decode(task: TaskOp, context: BindContext, own: type[InterpreterFunctions]) -> Decoded:
    """The task's `Decoded`: its binder's, when `own` (AscendFunctions) runs its type."""
    binder = BINDERS.get(type(task))
    found = _own_impl(context.interpreter, task)
    if binder is None or found is None or not isinstance(found[0], own):
        return context.impl(task)
    return binder(task, context)


@dataclass
class Arena:
    """One arena and the steps bound to it; reused run after run (one run at a time)."""

    data: bytearray
    steps: list[list[Step]]
    memory: MemoryCheck | None = None
    """The run's byte ownership, when it checks uninitialised memory (steps wrapped)."""


@dataclass
class Program:
    """A model decoded once: per stream, its tasks as `Decoded`."""

    model: ModelOp
    plan: Plan
    decoded: tuple[tuple[Decoded, ...], ...]
    spare: list[Arena] = field(default_factory=list)
    """Arenas no run holds now (a run takes one, or binds a new one, and gives it back)."""
    capacity: int = 0
    """The bytes a new arena gets: room above the plan for the dynamic heap (the most a run
    used so far, at least the planned size or 1 MiB), so that it rarely has to be bound
    again in the middle of a run."""

    @staticmethod
    def of(
        model: ModelOp, plan: Plan, interpreter: Interpreter, own: type[InterpreterFunctions]
    ) -> Program:
        decoded = tuple(
            tuple(decode(task, BindContext(plan, i, interpreter), own) for task in tasks)
            for i, tasks in enumerate(plan.tasks)
        )
        room = max(plan.arena_top, 1 << 20) if plan.dynamic else 0
        return Program(model, plan, decoded, capacity=plan.arena_top + room)

    def steps(self, arena: bytearray, memory: MemoryCheck | None) -> list[list[Step]]:
        u8 = np.frombuffer(arena, np.uint8)
        result: list[list[Step]] = []
        for i, decoded in enumerate(self.decoded):
            steps: list[Step] = []
            for pc, d in enumerate(decoded):
                fn = d.bind(u8) if d.bind is not None else None
                if memory is not None and fn is not None and d.ranges is not None:
                    fn = _checked(fn, d.ranges(), memory, self.plan.tasks[i][pc])
                steps.append((fn, d.kind, d.arg, i << 32 | pc))
            result.append(steps)
        return result

    def take(self, size: int, memory: MemoryCheck | None) -> Arena:
        """An arena of at least `size` bytes, zeroed, with its steps bound."""
        arena = self.spare.pop() if self.spare else None
        if arena is None or len(arena.data) < max(size, self.capacity):
            data = bytearray(max(size, self.capacity))
            arena = Arena(data, self.steps(data, memory), memory)
            return arena
        np.frombuffer(arena.data, np.uint8)[:size] = 0
        if memory is not None or arena.memory is not None:
            arena.steps = self.steps(arena.data, memory)
            arena.memory = memory
        return arena

    def give_back(self, arena: Arena, used: int) -> None:
        self.capacity = max(self.capacity, used)
        if arena.memory is not None:  # the next run most likely checks nothing
            arena.steps = self.steps(arena.data, None)
            arena.memory = None
        self.spare.append(arena)

    def grow(self, arena: Arena, state: RunState, size: int) -> None:
        """The run's dynamic heap needs `size` bytes: zero the bytes it adds, within the arena
        or in a larger one that the steps are bound to again (in place: the loops see it)."""
        if size <= len(arena.data):
            np.frombuffer(arena.data, np.uint8)[state.size : size] = 0
            return
        data = bytearray(max(size, 2 * len(arena.data)))
        data[: state.size] = memoryview(arena.data)[: state.size]
        arena.data = state.arena = data
        for old, new in zip(arena.steps, self.steps(data, arena.memory), strict=True):
            old[:] = new


def _checked(
    fn: Callable[[], Any],
    ranges: tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]],
    memory: MemoryCheck,
    task: TaskOp,
) -> Callable[[], Any]:
    """`fn` between the `check_uninitialized` checks of its reads and tags of its writes."""
    reads, writes = ranges
    what = task.describe()

    def step() -> Any:
        for offset, nbytes, name in reads:
            error = memory.read(offset, nbytes, name, what)
            if error is not None:
                raise error
        result = fn()
        for offset, nbytes, name in writes:
            memory.write(offset, nbytes, name, what)
        return result

    return step


def slot_range(slot: Slot) -> ByteRange:
    return (slot.offset, slot.nbytes, slot_name(slot))


def view(u8: np.ndarray, slot: Slot, writeable: bool) -> np.ndarray:
    """The slot's bytes as an array of its dtype and shape (inputs read-only: kernels must not
    write them)."""
    array = u8[slot.offset : slot.offset + slot.nbytes].view(slot.dtype).reshape(slot.shape)
    array.flags.writeable = writeable
    return array


def overlaps(a: Sequence[Slot], b: Sequence[Slot]) -> bool:
    return any(
        x.offset < y.offset + y.nbytes and y.offset < x.offset + x.nbytes for x in a for y in b
    )


def raise_as_xdsl(interpreter: Interpreter, task: TaskOp, error: Exception) -> NoReturn:
    """An unexpected error of a task, raised as xDSL's interpreter raises it from `run_op`
    (listeners told the task ran, the error attached to the task): the same message and
    `failing_op` as the step-by-step dispatch gives."""
    for listener in interpreter.listeners:
        listener.will_interpret_op(task, ())
    task.emit_error("Error while interpreting op", error)


@dataclass
class Loop:
    """What a scheduler loop needs besides the steps (see `scheduler.execute`)."""

    model: ModelOp
    plan: Plan
    state: RunState
    arena: Arena
    max_steps: int
    rng: random.Random | None
    clock: Clock | None
    check_records: Callable[[int], None]
    """Called every MEMORY_CHECK_STEPS steps with the step count."""
    over_budget: Callable[[tuple[int, int] | None, int, int], AscendRuntimeError]
    """(last jump back, stream, task index) -> the step budget error."""
    activate: Callable[[TaskOp, int, list[int], list[int]], None]
    check_every: int
    executed: list[int] = field(default_factory=list)
    codes: code_array = field(default_factory=lambda: code_array("q"))


def _deadlock(model: ModelOp, plan: Plan, live: list[int], pcs: list[int]) -> AscendRuntimeError:
    waits, ids = plan.waits, plan.stream_ids
    blocked = ", ".join(f"stream {ids[i]} waits on event {waits[i][pcs[i]]}" for i in live)
    return AscendRuntimeError(f"'ascend.model' @{model.sym_name.data} deadlocks: {blocked}")


def _impl(state: RunState, fn: Callable[[], Any], i: int) -> tuple[int, bool, int]:
    """Runs an IMPL step; its (jump, ended, activate)."""
    state.stream, state.jump, state.ended = i, -1, False
    fn()
    if state.error is not None:
        raise state.error
    activate, state.activate = state.activate, -1
    return state.jump, state.ended, activate


def run_loop(loop: Loop, interpreter: Interpreter) -> None:
    """Runs the streams to completion (the policy of `scheduler`'s module docstring), filling
    `loop.executed` and `loop.codes`; task errors raised as the step-by-step dispatch does."""
    plan = loop.plan
    count = len(plan.tasks)
    pcs = [0] * count
    loop.executed = [0] * count
    live = [i for i in range(count) if plan.tasks[i] and i not in plan.activated]
    where = [0, 0]
    try:
        if loop.rng is None and loop.clock is None:
            _burst(loop, live, pcs, where)
        else:
            _stepwise(loop, live, pcs, where)
    except AscendRuntimeError:
        raise
    except Exception as e:
        task = plan.tasks[where[0]][where[1]]
        raise_as_xdsl(interpreter, task, e)


def _stepwise(loop: Loop, live: list[int], pcs: list[int], where: list[int]) -> None:
    """One step per pick: a random runnable stream (`rng`), or the lowest, then the clock."""
    plan, state, rng, clock = loop.plan, loop.state, loop.rng, loop.clock
    steps, waits, events, tasks = loop.arena.steps, plan.waits, state.events, plan.tasks
    record = loop.codes.append
    executed = loop.executed
    checkpoint = loop.check_every
    max_steps = loop.max_steps
    repeat: tuple[int, int] | None = None
    n = 0
    while live:
        runnable = [i for i in live if waits[i][pcs[i]] < 0 or waits[i][pcs[i]] in events]
        if not runnable:
            raise _deadlock(loop.model, plan, live, pcs)
        i = runnable[0] if rng is None else rng.choice(runnable)
        if n >= checkpoint:
            checkpoint += loop.check_every
            loop.check_records(n)
        if n >= max_steps:
            raise loop.over_budget(repeat, i, pcs[i])
        pc = pcs[i]
        where[0], where[1] = i, pc
        fn, kind, arg, code = steps[i][pc]
        record(code)
        n += 1
        executed[i] += 1
        jump, ended, activate = -1, False, -1
        if kind == PLAIN:
            fn()  # pyright: ignore[reportOptionalCall]
        elif kind == WAIT:
            events.remove(arg)
        elif kind == RECORD:
            events.add(arg)
        elif kind == GOTO:
            jump = arg
        elif kind == SWITCH:
            jump = fn()  # pyright: ignore[reportOptionalCall]
        elif kind == ACTIVATE:
            activate = arg
        elif kind == END:
            ended = True
        elif kind == IMPL:
            jump, ended, activate = _impl(state, fn, i)  # pyright: ignore[reportArgumentType]
        if clock is not None:
            clock.step(i, pc, tasks[i][pc], state)
        if activate >= 0:
            loop.activate(tasks[i][pc], activate, live, pcs)
        if jump >= 0:
            if jump <= pc:
                repeat = (i, jump)
            pc = jump
        else:
            pc += 1
        pcs[i] = pc
        if ended or pc >= len(tasks[i]):
            live.remove(i)


def _burst(loop: Loop, live: list[int], pcs: list[int], where: list[int]) -> None:
    """The default schedule: the lowest runnable stream runs until it blocks, ends, or may
    have let a lower stream run (it recorded an event, it started a stream)."""
    plan, state = loop.plan, loop.state
    all_steps, waits, events, tasks = loop.arena.steps, plan.waits, loop.state.events, plan.tasks
    record = loop.codes.append
    executed = loop.executed
    checkpoint = loop.check_every
    max_steps = loop.max_steps
    limit = min(checkpoint, max_steps)
    repeat: tuple[int, int] | None = None
    n = 0
    while live:
        for i in live:
            w = waits[i][pcs[i]]
            if w < 0 or w in events:
                break
        else:
            raise _deadlock(loop.model, plan, live, pcs)
        steps = all_steps[i]
        wait = waits[i]
        pc = pcs[i]
        end = len(steps)
        start = n
        while True:
            if n >= limit:
                if n >= checkpoint:
                    checkpoint += loop.check_every
                    loop.check_records(n)
                if n >= max_steps:
                    where[0], where[1] = i, pc
                    raise loop.over_budget(repeat, i, pc)
                limit = min(checkpoint, max_steps)
            fn, kind, arg, code = steps[pc]
            record(code)
            n += 1
            if kind == PLAIN:
                where[0], where[1] = i, pc
                fn()  # pyright: ignore[reportOptionalCall]
                pc += 1
            elif kind == WAIT:
                events.remove(arg)
                pc += 1
            elif kind == RECORD:
                events.add(arg)
                pc += 1
                if live[0] != i and pc < end:
                    break  # a lower stream may wait for it
            elif kind == NOP:
                pc += 1
            elif kind == GOTO:
                if arg <= pc:
                    repeat = (i, arg)
                pc = arg
            elif kind == SWITCH:
                where[0], where[1] = i, pc
                jump = fn()  # pyright: ignore[reportOptionalCall]
                if jump <= pc:
                    repeat = (i, jump)
                pc = jump
            elif kind == END:
                pc = end
            else:
                where[0], where[1] = i, pc
                if kind == IMPL:
                    jump, ended, activate = _impl(state, fn, i)  # pyright: ignore[reportArgumentType]
                else:
                    jump, ended, activate = -1, False, arg
                if activate >= 0:
                    loop.activate(tasks[i][pc], activate, live, pcs)
                if jump >= 0:
                    if jump <= pc:
                        repeat = (i, jump)
                    pc = jump
                else:
                    pc += 1
                if ended:
                    pc = end
                if activate >= 0 and pc < end:
                    break  # the stream it started may come first
            if pc >= end:
                break
            w = wait[pc]
            if w >= 0 and w not in events:
                break
        executed[i] += n - start
        pcs[i] = pc
        if pc >= end:
            live.remove(i)
