"""Interpreter of the `ascend` dialect: runs a static model's task lists on a byte arena.

A run allocates a zeroed `bytearray(arena_size)`, copies the weights and inputs in, executes the
tasks and copies the outputs out. Tasks see memory only through arena offsets, so the run
checks the memory plan and the event plan: an overlapping buffer or a missing event changes
the results (under some schedule) instead of being hidden by SSA values.

Each stream runs its tasks in program order with its own program counter. The scheduler
repeatedly picks a stream that can make progress and runs its next task: by default the lowest
stream id (deterministic), with a `schedule_seed` a random runnable stream per step, which
exposes missing synchronisation. `event_wait` blocks until the event is recorded and then
consumes it. A stream some `stream_active` names is idle until that task runs; then it runs its
task list once from the start and is idle again (activating it while it runs is an error). When
no running stream can progress, the run reports a deadlock; idle streams never block it.

Two opt-in instruments: `check_uninitialized` tags every arena byte with the buffer range that
last wrote it (weights and inputs at load), and fails a task that reads a byte nobody wrote, or
one last written through a different buffer (two live buffers overlap: a memory planning bug),
naming the task and the buffers. `timing` simulates time with `cost_model` and returns a
`timeline.Timeline` (Chrome trace, profile, critical path) in `RunStats.timeline`.

Dynamic buffers (`dyn[k]`, the values of unknown-shape partitions) are placed when they are
written: above the planned arena, best fit among the blocks freed so far or else at a growing
top (GE's hybrid executor allocates at run time too), and freed once every task that reads them
ran. `RunStats.dynamic_peak` is the most bytes they held at once. A value that reaches a
planned buffer or a dynamic buffer whose type fixes a dim must have that shape, or the run
fails naming the task.

Tasks are dispatched through xDSL's interpreter (`@impl(KernelOp)` ...); the state of the
current run is kept in the interpreter's data for `AscendFunctions` and reached by the impls.
"""

from __future__ import annotations

import bisect
import math
import random
from array import array as code_array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    impl_callable,
    register_impls,
)
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from gedialects import budget
from gedialects.ascend import (
    ITERATIONS_PER_LOOP,
    MAX_ITERATIONS_PER_LOOP,
    BufferAttr,
    DeclarationOp,
    DynamicKernelOp,
    DynBufferAttr,
    EndGraphOp,
    EventRecordOp,
    EventWaitOp,
    KernelOp,
    LabelGotoOp,
    LabelSetOp,
    LabelSwitchByIndexOp,
    MemcpyAsyncOp,
    ModelOp,
    StreamActiveOp,
    TaskEffects,
    TaskOp,
)
from gedialects.base import RTS_ENGINE, element_count, int_array_values
from gedialects.errors import GearMismatchError
from gedialects.interpreters.gears import GearInfo
from gedialects.interpreters.kernels import known_failure, run_kernel
from gedialects.interpreters.timeline import TaskSpan, Timeline
from gedialects.target.cost_model import SYNC_US, CostModel, kernel_flops
from gedialects.tensors import UnsupportedDtypeError, numpy_dtype, numpy_from_dense


class AscendRuntimeError(InterpretationError):
    """A model run failed: bad inputs, a kernel error, a deadlock, a bad label index."""


# --------------------------------------------------------------------------------------------
# Per-model plan (computed once per model and interpreter)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Slot:
    """A buffer resolved for numpy: where, what dtype, how many elements, which shape."""

    offset: int
    nbytes: int
    dtype: np.dtype
    count: int
    shape: tuple[int, ...]
    type: TensorType

    def view(self, arena: bytearray) -> np.ndarray:
        """A read-only array over the arena bytes (kernels must not write their inputs)."""
        array = np.frombuffer(arena, self.dtype, self.count, self.offset).reshape(self.shape)
        array.flags.writeable = False
        return array

    def describe(self) -> str:
        return f"{self.type} ({self.dtype}, shape {self.shape})"


@dataclass(frozen=True)
class _DynRef:
    """A dynamic buffer: its slot and the dims every value in it must have (-1: any)."""

    slot: int
    dtype: np.dtype
    dims: tuple[int, ...]
    type: TensorType

    def conforms(self, shape: tuple[int, ...]) -> bool:
        return len(shape) == len(self.dims) and all(
            d < 0 or d == n for d, n in zip(self.dims, shape, strict=True)
        )

    def describe(self) -> str:
        return f"dyn[{self.slot}] : {self.type}"


class _Slots:
    """Resolves buffers to slots, each distinct type object once (`get_shape` is slow)."""

    def __init__(self) -> None:
        self.types: dict[int, tuple[TensorType, tuple[int, ...], np.dtype, int]] = {}

    def any(
        self, buffer: BufferAttr | DynBufferAttr, owner: DeclarationOp | TaskOp
    ) -> _Slot | _DynRef:
        if isinstance(buffer, BufferAttr):
            return self(buffer, owner)
        return self.dyn(buffer, owner)

    def dyn(self, buffer: DynBufferAttr, owner: DeclarationOp | TaskOp) -> _DynRef:
        ttype, shape, dtype, _ = self._info(buffer.type, owner)
        return _DynRef(buffer.slot.data, dtype, shape, ttype)

    def _info(
        self, ttype: TensorType, owner: DeclarationOp | TaskOp
    ) -> tuple[TensorType, tuple[int, ...], np.dtype, int]:
        info = self.types.get(id(ttype))
        if info is None:
            try:
                dtype = numpy_dtype(ttype.element_type)
            except UnsupportedDtypeError as e:
                raise AscendRuntimeError(
                    f"{owner.describe()}: unsupported element type {e.element_type}"
                ) from None
            shape = ttype.get_shape()
            count = element_count(shape)
            info = self.types[id(ttype)] = (ttype, shape, dtype, count)
        return info

    def __call__(self, buffer: BufferAttr, owner: DeclarationOp | TaskOp) -> _Slot:
        ttype, shape, dtype, count = self._info(buffer.type, owner)
        return _Slot(buffer.offset.data, count * dtype.itemsize, dtype, count, shape, ttype)


@dataclass(frozen=True)
class _KernelTask:
    """The buffers of a task that touches planned buffers only, resolved."""

    inputs: tuple[_Slot, ...]
    outputs: tuple[_Slot, ...]
    result_types: tuple[TensorType, ...]


@dataclass(frozen=True)
class _DynamicKernelTask:
    """The buffers of a task that touches a dynamic buffer, resolved."""

    inputs: tuple[_Slot | _DynRef, ...]
    outputs: tuple[_Slot | _DynRef, ...]
    result_types: tuple[TensorType, ...]
    reads: tuple[int, ...]
    """The distinct dynamic slots it reads (each counts once towards freeing)."""


@dataclass
class _Plan:
    """Everything about a model that does not change between runs."""

    stream_ids: tuple[int, ...]
    tasks: tuple[tuple[TaskOp, ...], ...]
    """Per stream (in `stream_ids` order), its tasks in program order."""
    waits: tuple[tuple[int, ...], ...]
    """Per stream and task: the event an `event_wait` needs, -1 for other tasks."""
    labels: tuple[dict[int, int], ...]
    """Per stream: label id -> index of its `label_set` in the stream's task list."""
    activates: dict[TaskOp, int]
    """Each `stream_active` -> the index of the stream it starts."""
    activated: frozenset[int]
    """Indices of the streams some `stream_active` names: idle at model start."""
    weights: tuple[tuple[int, bytes], ...]
    inputs: tuple[tuple[str, _Slot | _DynRef], ...]
    outputs: tuple[tuple[str, _Slot | _DynRef], ...]
    kernels: dict[TaskOp, _KernelTask]
    """The tasks with buffers, all planned: their buffers (`TaskEffects.ins` / `outs`)."""
    dynamic: dict[TaskOp, _DynamicKernelTask] = field(default_factory=dict)
    """The tasks that touch a dynamic buffer: their buffers."""
    readers: dict[int, int] = field(default_factory=dict)
    """Dynamic slot -> how many tasks read it: it is freed when that many have run."""
    kept: frozenset[int] = frozenset()
    """Dynamic slots that are model outputs: never freed during the run."""
    arena_top: int = 0
    """Where dynamic buffers start: the arena size rounded up to the alignment."""
    engines: dict[int, str] = field(default_factory=dict)
    """Stream id -> the engine it was declared for."""
    costs: CostModel = field(default_factory=CostModel)
    gears: GearInfo | None = None
    """A multi-batch model's gears: inputs of any gear go into the largest gear's buffers,
    outputs come out with the selected gear's `_dynamic_output_dims`."""
    iterations: int = 1
    """The iterations the model declares (`iterations_per_loop`, 1 if it sank none)."""

    @property
    def task_count(self) -> int:
        return sum(len(t) for t in self.tasks)

    @property
    def step_budget(self) -> int:
        """The default `max_steps`: STEP_MARGIN x tasks x iterations (see STEP_MARGIN)."""
        return STEP_MARGIN * max(self.task_count, 1) * self.iterations

    def budget_reason(self) -> str:
        count = self.task_count
        return (
            f"{STEP_MARGIN} x {count} task{'s' * (count != 1)} x {self.iterations} "
            f"iteration{'s' * (self.iterations != 1)}"
        )

    @staticmethod
    def of(model: ModelOp) -> _Plan:
        slot = _Slots()
        stream_ids = tuple(sorted(s.id.value.data for s in model.streams()))
        position = {sid: i for i, sid in enumerate(stream_ids)}
        tasks: list[list[TaskOp]] = [[] for _ in stream_ids]
        for task in model.tasks():
            stream = task.stream.value.data
            if stream not in position:
                raise AscendRuntimeError(f"{task.describe()}: stream {stream} is not declared")
            tasks[position[stream]].append(task)
        effects = {t: t.effects() for stream_tasks in tasks for t in stream_tasks}
        labels = [
            {label: pc for pc, t in enumerate(stream_tasks) for label in effects[t].labels}
            for stream_tasks in tasks
        ]
        activates: dict[TaskOp, int] = {}
        for t, e in effects.items():
            _at_most_one(t, e.activates, "activates", "streams")
            _at_most_one(t, e.waits, "waits on", "events")
            for target in e.activates:
                if target not in position:
                    raise AscendRuntimeError(f"{t.describe()} activates undeclared stream {target}")
                activates[t] = position[target]
        kernels: dict[TaskOp, _KernelTask] = {}
        dynamic: dict[TaskOp, _DynamicKernelTask] = {}
        readers: dict[int, int] = {}
        for t, e in effects.items():
            if not (e.ins or e.outs):
                continue
            result_types = tuple(b.type for b in e.outs)
            if not (e.dyn_reads or e.dyn_writes):
                kernels[t] = _KernelTask(
                    tuple(slot(b, t) for b in e.reads),
                    tuple(slot(b, t) for b in e.writes),
                    result_types,
                )
                continue
            reads = tuple(dict.fromkeys(e.dyn_reads))
            dynamic[t] = _DynamicKernelTask(
                tuple(slot.any(b, t) for b in e.ins),
                tuple(slot.any(b, t) for b in e.outs),
                result_types,
                reads,
            )
            for r in reads:
                readers[r] = readers.get(r, 0) + 1
        weights = []
        for weight in model.weights():
            data = np.ascontiguousarray(numpy_from_dense(weight.value)).tobytes()
            weights.append((weight.buffer.offset_value, data))
        return _Plan(
            stream_ids=stream_ids,
            tasks=tuple(tuple(t) for t in tasks),
            waits=tuple(tuple(next(iter(effects[t].waits), -1) for t in ts) for ts in tasks),
            labels=tuple(labels),
            activates=activates,
            activated=frozenset(activates.values()),
            weights=tuple(weights),
            inputs=tuple((i.input_name.data, slot.any(i.buffer, i)) for i in model.inputs()),
            outputs=tuple((o.output_name.data, slot.any(o.buffer, o)) for o in model.outputs()),
            kernels=kernels,
            dynamic=dynamic,
            readers=readers,
            kept=frozenset(
                o.buffer.slot.data for o in model.outputs() if isinstance(o.buffer, DynBufferAttr)
            ),
            arena_top=_align(model.arena_size.value.data),
            engines={s.id.value.data: s.engine.data for s in model.streams()},
            gears=_gears(model),
            iterations=_iterations(model),
        )

    def control_spans(self) -> tuple[tuple[int, ...], ...]:
        """Per stream and task: the id of the label span holding it, -1 outside any."""
        result = []
        next_id = 0
        for tasks, labels in zip(self.tasks, self.labels, strict=True):
            ranges = []
            for pc, t in enumerate(tasks):
                effects = t.effects()
                if effects.labels:
                    ranges.append((pc, pc))
                for label in effects.jumps:
                    if label in labels:
                        ranges.append((min(pc, labels[label]), max(pc, labels[label])))
            ids = [-1] * len(tasks)
            ranges.sort()
            end = -1
            for lo, hi in ranges:
                if lo > end:
                    next_id += 1
                end = max(end, hi)
                for pc in range(lo, hi + 1):
                    ids[pc] = next_id - 1
            result.append(tuple(ids))
        return tuple(result)


# --------------------------------------------------------------------------------------------
# Run state and statistics
# --------------------------------------------------------------------------------------------


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


@dataclass
class ModelRun:
    """The outputs of a run (by OutputOp name) and its statistics."""

    outputs: dict[str, np.ndarray]
    stats: RunStats


@dataclass
class _RunState:
    """Mutable state of one run, shared by the scheduler and the task impls."""

    plan: _Plan
    arena: bytearray
    events: set[int] = field(default_factory=set)
    stream: int = 0
    """Index (into `plan.stream_ids`) of the stream whose task is running."""
    jump: int = -1
    """Set by a label task: the task index where the stream continues."""
    ended: bool = False
    """Set by `end_graph`: the running stream is finished."""
    activate: int = -1
    """Set by `stream_active`: the index of the stream to start; the scheduler resets it."""
    error: AscendRuntimeError | None = None
    """Set by a task that failed; the scheduler raises it. Raising inside an impl would make
    xDSL attach a dump of the whole module (weights included) to the error."""
    memory: _MemoryCheck | None = None
    """Byte ownership, in `check_uninitialized` mode."""
    dyn: dict[int, _Slot] = field(default_factory=dict)
    """Dynamic slot -> where its current value lies and its shape."""
    pending: dict[int, int] = field(default_factory=dict)
    """Dynamic slot -> readers that have not run yet."""
    heap: _DynamicHeap | None = None

    def place(self, ref: _DynRef, array: np.ndarray, writer: str) -> AscendRuntimeError | None:
        """Stores `array` as the value of `ref`'s slot, at an offset chosen now."""
        shape = tuple(array.shape)
        if not ref.conforms(shape):
            return AscendRuntimeError(
                f"{writer} produced shape {shape} for {ref.describe()}, whose static dims "
                "it must have"
            )
        data = np.ascontiguousarray(array, dtype=ref.dtype)
        heap = self.heap
        assert heap is not None
        old = self.dyn.pop(ref.slot, None)
        if old is not None:  # written again (a sunk loop): the old value is dead
            heap.release(old.offset, old.nbytes)
        offset = heap.allocate(data.nbytes)
        if heap.top > len(self.arena):
            budget.check(
                heap.top * _bytes_per_arena_byte(self.memory is not None, False),
                f"{writer}: the dynamic heap, placing {ref.describe()} of shape {list(shape)} "
                f"({data.nbytes} bytes) at arena[{offset}]",
            )
            self.arena.extend(bytes(heap.top - len(self.arena)))
            if self.memory is not None:
                self.memory.grow(len(self.arena))
        self.arena[offset : offset + data.nbytes] = data.tobytes()
        slot = _Slot(offset, data.nbytes, ref.dtype, data.size, shape, ref.type)
        self.dyn[ref.slot] = slot
        self.pending[ref.slot] = self.plan.readers.get(ref.slot, 0)
        if self.memory is not None:
            self.memory.write(offset, data.nbytes, _name(slot, ref.slot), writer)
        return None

    def resolve(self, ref: _Slot | _DynRef, reader: str) -> _Slot | AscendRuntimeError:
        if isinstance(ref, _Slot):
            return ref
        found = self.dyn.get(ref.slot)
        if found is None:
            return AscendRuntimeError(f"{reader} reads {ref.describe()}, which holds no value")
        return found

    def consumed(self, slots: Sequence[int]) -> None:
        """`slots` were read by one more task: free those no later task reads."""
        for s in slots:
            left = self.pending.get(s, 0) - 1
            self.pending[s] = left
            if left == 0 and s not in self.plan.kept and s in self.dyn:
                found = self.dyn.pop(s)
                assert self.heap is not None
                self.heap.release(found.offset, found.nbytes)


DYNAMIC_ALIGNMENT = 512
"""Dynamic buffers are aligned like planned ones (GE's 512 bytes)."""


def _bytes_per_arena_byte(check_uninitialized: bool, timing: bool) -> int:
    """Host bytes a run holds per arena byte: the arena, `_MemoryCheck`'s int32 owner per
    byte, and the timing's two `_Bound`s (a float64 ready time and an int16 engine per byte)."""
    return 1 + 4 * check_uninitialized + 20 * timing


def _align(n: int) -> int:
    return (n + DYNAMIC_ALIGNMENT - 1) // DYNAMIC_ALIGNMENT * DYNAMIC_ALIGNMENT


class _DynamicHeap:
    """Run-time placement of dynamic buffers above the planned arena: best fit among the freed
    blocks (coalesced), else a new block at the top."""

    def __init__(self, base: int) -> None:
        self.base = self.top = base
        self.free: list[tuple[int, int]] = []
        """Free blocks (offset, size) below `top`, sorted by offset, never adjacent."""
        self.used = 0
        self.peak = 0

    def allocate(self, nbytes: int) -> int:
        size = _align(max(nbytes, 1))
        best = -1
        for i, (_, free) in enumerate(self.free):
            if free >= size and (best < 0 or free < self.free[best][1]):
                best = i
        if best >= 0:
            offset, free = self.free[best]
            if free > size:
                self.free[best] = (offset + size, free - size)
            else:
                del self.free[best]
        else:
            offset = self.top
            self.top += size
        self.used += size
        self.peak = max(self.peak, self.used)
        return offset

    def release(self, offset: int, nbytes: int) -> None:
        size = _align(max(nbytes, 1))
        self.used -= size
        i = bisect.bisect(self.free, (offset, size))
        if i < len(self.free) and self.free[i][0] == offset + size:
            size += self.free.pop(i)[1]
        if i > 0 and sum(self.free[i - 1]) == offset:
            offset, size = self.free[i - 1][0], self.free[i - 1][1] + size
            del self.free[i - 1]
            i -= 1
        if offset + size == self.top:
            self.top = offset
        else:
            self.free.insert(i, (offset, size))


class _MemoryCheck:
    """Which buffer range last wrote each arena byte (-1: never written)."""

    def __init__(self, size: int) -> None:
        self.owner = np.full(size, -1, np.int32)
        self.ids: dict[tuple[int, int], int] = {}
        self.names: list[str] = []
        self.writers: list[str] = []

    def grow(self, size: int) -> None:
        extra = size - len(self.owner)
        if extra > 0:
            self.owner = np.concatenate([self.owner, np.full(extra, -1, np.int32)])

    def range_id(self, offset: int, nbytes: int, name: str) -> int:
        key = (offset, nbytes)
        rid = self.ids.get(key)
        if rid is None:
            rid = self.ids[key] = len(self.names)
            self.names.append(name)
            self.writers.append("")
        return rid

    def write(self, offset: int, nbytes: int, name: str, writer: str) -> None:
        rid = self.range_id(offset, nbytes, name)
        self.writers[rid] = writer
        self.owner[offset : offset + nbytes] = rid

    def read(self, offset: int, nbytes: int, name: str, reader: str) -> AscendRuntimeError | None:
        if nbytes == 0:
            return None
        rid = self.range_id(offset, nbytes, name)
        owners = self.owner[offset : offset + nbytes]
        bad = np.flatnonzero(owners != rid)
        if not bad.size:
            return None
        first = int(bad[0])
        other = int(owners[first])
        run = np.flatnonzero(owners[first:] != other)
        stop = first + (int(run[0]) if run.size else nbytes - first)
        where = f"bytes [{offset + first}, {offset + stop})"
        if other < 0:
            return AscendRuntimeError(
                f"{reader} reads {name}, but {where} were never written (uninitialised memory)"
            )
        return AscendRuntimeError(
            f"{reader} reads {name}, but {where} were last written through "
            f"{self.names[other]} by {self.writers[other]}: two live buffers overlap "
            "(a memory planning bug)"
        )


STEP_MARGIN = 16
"""The default step budget of a run is STEP_MARGIN x the model's tasks x the iterations it
declares (`iterations_per_loop`). A model `ge-compile` builds runs each task at most once per
iteration (case branches jump forward, a `stream_active` restarts its stream once per
iteration), so it never needs more than tasks x iterations steps; the margin leaves room for
hand-written label loops that declare no count (a do-while of three trips over four tasks
takes ten steps). A loop that never exits stops after the budget instead of running for hours;
`max_steps` (`ge-run --max-steps`, Session option `ge.maxSteps`) sets another limit."""

MEMORY_CHECK_STEPS = 1 << 16
"""Every this many steps a run checks what its per-step records (trace codes, timeline spans)
hold against the memory budget, so that a raised step budget cannot exhaust memory first."""

SPAN_BYTES = 200
"""About what one timeline span costs (a `TaskSpan` and its share of the list)."""


@dataclass
class _Options:
    schedule_seed: int | None = None
    max_steps: int | None = None
    """None: the model's step budget (STEP_MARGIN)."""
    check_uninitialized: bool = False
    timing: bool = False


_STATE = "run"
_OPTIONS = "options"
_PLANS = "plans"
_STATS = "last_stats"


def _no_run() -> _RunState:
    raise AscendRuntimeError("ascend tasks can only run inside a model run")


def _state(interpreter: Interpreter) -> _RunState:
    return interpreter.get_data(AscendFunctions, _STATE, _no_run)


def run_state(interpreter: Interpreter) -> _RunState:
    """The state of the model run in progress, for the `@impl` of a task type defined
    elsewhere: its arena, `plan.kernels[op]` / `plan.dynamic[op]` (the task's buffers, read
    from its effects), `memory` (the check_uninitialized tags) and `error` to fail the run."""
    return _state(interpreter)


def configure(
    interpreter: Interpreter,
    *,
    schedule_seed: int | None = None,
    max_steps: int | None = None,
    check_uninitialized: bool = False,
    timing: bool = False,
) -> None:
    """Scheduling and instrumentation options for models run through `interpreter.call_op`.

    `max_steps` None gives each model its step budget (STEP_MARGIN)."""
    check_max_steps(max_steps)
    interpreter.set_data(
        AscendFunctions,
        _OPTIONS,
        _Options(schedule_seed, max_steps, check_uninitialized, timing),
    )


def check_max_steps(max_steps: int | None) -> None:
    """A `max_steps` must be a positive int (or None for the model's budget)."""
    if max_steps is not None and (
        isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1
    ):
        raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")


def last_stats(interpreter: Interpreter) -> RunStats | None:
    """Statistics of the last model run that finished on `interpreter`."""
    return interpreter.get_data(AscendFunctions, _STATS, lambda: None)


# --------------------------------------------------------------------------------------------
# Interpreter functions
# --------------------------------------------------------------------------------------------


@register_impls
class AscendFunctions(InterpreterFunctions):
    """Task semantics; `@impl_callable(ModelOp)` is the whole model run."""

    @impl_callable(ModelOp)
    def call_model(self, interpreter: Interpreter, op: ModelOp, args: PythonValues) -> PythonValues:
        options = interpreter.get_data(AscendFunctions, _OPTIONS, _Options)
        plan = _plan(interpreter, op)
        if len(args) != len(plan.inputs):
            raise AscendRuntimeError(
                f"'ascend.model' @{op.sym_name.data} takes {len(plan.inputs)} inputs, "
                f"got {len(args)}"
            )
        outputs, stats = _execute(interpreter, op, plan, args, options)
        interpreter.set_data(AscendFunctions, _STATS, stats)
        return outputs

    @impl(KernelOp)
    def run_kernel(self, interpreter: Interpreter, op: KernelOp, args: PythonValues) -> tuple:
        state = _state(interpreter)
        spec = state.plan.kernels[op]
        arena = state.arena
        memory = state.memory
        if memory is not None:
            for slot in spec.inputs:
                state.error = memory.read(slot.offset, slot.nbytes, _name(slot), op.describe())
                if state.error is not None:
                    return ()
        inputs = [slot.view(arena) for slot in spec.inputs]
        try:
            results = run_kernel(op.kernel.data, inputs, op.attrs.data, spec.result_types)
        except (ValueError, TypeError, ArithmeticError, IndexError) as e:
            state.error = _kernel_failure(op, e)
            return ()
        # Results may be views of the inputs (of the arena): take all bytes before writing any.
        payloads: list[bytes] = []
        for slot, result in zip(spec.outputs, results, strict=True):
            data = np.ascontiguousarray(result, dtype=slot.dtype)
            if data.size != slot.count:
                state.error = AscendRuntimeError(
                    f"{op.describe()} ({op.kernel.data}) produced {data.size} elements for "
                    f"output {slot.type} at arena[{slot.offset}]"
                )
                return ()
            payloads.append(data.tobytes())
        for slot, payload in zip(spec.outputs, payloads, strict=True):
            arena[slot.offset : slot.offset + slot.nbytes] = payload
            if memory is not None:
                memory.write(slot.offset, slot.nbytes, _name(slot), op.describe())
        return ()

    @impl(DynamicKernelOp)
    def run_dynamic_kernel(
        self, interpreter: Interpreter, op: DynamicKernelOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        spec = state.plan.dynamic[op]
        slots: list[_Slot] = []
        for ref in spec.inputs:
            found = state.resolve(ref, op.describe())
            if isinstance(found, AscendRuntimeError):
                state.error = found
                return ()
            if state.memory is not None:
                name = _name(found, ref.slot if isinstance(ref, _DynRef) else None)
                state.error = state.memory.read(found.offset, found.nbytes, name, op.describe())
                if state.error is not None:
                    return ()
            slots.append(found)
        inputs = [slot.view(state.arena) for slot in slots]
        try:
            results = run_kernel(op.kernel.data, inputs, op.attrs.data, spec.result_types)
            # Copies: results may view the arena, which placing the outputs may grow.
            arrays = [
                np.array(r, dtype=ref.dtype) for r, ref in zip(results, spec.outputs, strict=True)
            ]
        except (ValueError, TypeError, ArithmeticError, IndexError) as e:
            state.error = _kernel_failure(op, e)
            return ()
        del inputs, results
        state.consumed(spec.reads)
        for ref, array in zip(spec.outputs, arrays, strict=True):
            assert isinstance(ref, _DynRef), "a dynamic kernel's outputs are dynamic buffers"
            state.error = state.place(ref, array, op.describe())
            if state.error is not None:
                return ()
        return ()

    @impl(MemcpyAsyncOp)
    def run_memcpy_async(
        self, interpreter: Interpreter, op: MemcpyAsyncOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        if isinstance(op.src, DynBufferAttr) or isinstance(op.dst, DynBufferAttr):
            state.error = _copy_dynamic(state, op)
            return ()
        arena = state.arena
        src, dst = op.src.offset_value, op.dst.offset_value
        size = op.src.nbytes
        if state.memory is not None:
            text = f"{op.src} : {op.src.type}"
            state.error = state.memory.read(src, size, text, op.describe())
            if state.error is not None:
                return ()
            state.memory.write(dst, size, f"{op.dst} : {op.dst.type}", op.describe())
        arena[dst : dst + size] = arena[src : src + size]
        return ()

    @impl(EventRecordOp)
    def run_event_record(
        self, interpreter: Interpreter, op: EventRecordOp, args: PythonValues
    ) -> tuple:
        _state(interpreter).events.add(op.event.value.data)
        return ()

    @impl(EventWaitOp)
    def run_event_wait(
        self, interpreter: Interpreter, op: EventWaitOp, args: PythonValues
    ) -> tuple:
        # The scheduler only runs a wait whose event is recorded; running it consumes it.
        _state(interpreter).events.remove(op.event.value.data)
        return ()

    @impl(LabelSetOp)
    def run_label_set(self, interpreter: Interpreter, op: LabelSetOp, args: PythonValues) -> tuple:
        return ()

    @impl(LabelGotoOp)
    def run_label_goto(
        self, interpreter: Interpreter, op: LabelGotoOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        state.jump = state.plan.labels[state.stream][op.label.value.data]
        return ()

    @impl(LabelSwitchByIndexOp)
    def run_label_switch_by_index(
        self, interpreter: Interpreter, op: LabelSwitchByIndexOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        offset = op.index.offset_value
        if state.memory is not None:
            text = f"{op.index} : {op.index.type}"
            state.error = state.memory.read(offset, op.index.nbytes, text, op.describe())
            if state.error is not None:
                return ()
        index = int.from_bytes(state.arena[offset : offset + 4], "little", signed=True)
        labels = int_array_values(op.labels)
        if not 0 <= index < len(labels):
            state.error = AscendRuntimeError(
                f"{op.describe()}: index {index} read from {op.index} is out of range for "
                f"{len(labels)} labels"
            )
            return ()
        state.jump = state.plan.labels[state.stream][labels[index]]
        return ()

    @impl(StreamActiveOp)
    def run_stream_active(
        self, interpreter: Interpreter, op: StreamActiveOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        state.activate = state.plan.activates[op]
        return ()

    @impl(EndGraphOp)
    def run_end_graph(self, interpreter: Interpreter, op: EndGraphOp, args: PythonValues) -> tuple:
        _state(interpreter).ended = True
        return ()


def _kernel_failure(op: KernelOp | DynamicKernelOp, error: Exception) -> AscendRuntimeError:
    """`'ascend.kernel' "Add_0" (Add): broadcast of [3] and [4]`: every task error starts with
    the task; input-caused numpy failures are put in the user's words."""
    return AscendRuntimeError(
        f"{op.describe()} ({op.kernel.data}): {known_failure(error) or error}"
    )


def _copy_dynamic(state: _RunState, op: MemcpyAsyncOp) -> AscendRuntimeError | None:
    """A copy from or into a dynamic buffer: the value's shape is checked against the target."""
    spec = state.plan.dynamic[op]
    src_ref, dst_ref = spec.inputs[0], spec.outputs[0]
    source = state.resolve(src_ref, op.describe())
    if isinstance(source, AscendRuntimeError):
        return source
    text = f"{op.src} : {op.src.type}"
    if state.memory is not None:
        error = state.memory.read(source.offset, source.nbytes, text, op.describe())
        if error is not None:
            return error
    value = np.frombuffer(state.arena, source.dtype, source.count, source.offset)
    value = value.reshape(source.shape).copy()
    state.consumed(spec.reads)
    if isinstance(dst_ref, _DynRef):
        return state.place(dst_ref, value, op.describe())
    target = dst_ref
    if value.shape != target.shape:
        return AscendRuntimeError(
            f"{op.describe()} copies {text} of shape {value.shape} into {op.dst} : "
            f"{op.dst.type}; the known partition that reads it was compiled for that shape"
        )
    state.arena[target.offset : target.offset + target.nbytes] = value.tobytes()
    if state.memory is not None:
        state.memory.write(target.offset, target.nbytes, _name(target), op.describe())
    return None


def _at_most_one(task: TaskOp, items: tuple[int, ...], verb: str, what: str) -> None:
    """The scheduler runs a task once it can (one event) and starts one stream after it."""
    if len(items) > 1:
        raise AscendRuntimeError(
            f"{task.describe()} {verb} {len(items)} {what}; the interpreter supports one per task"
        )


def _plan(interpreter: Interpreter, model: ModelOp) -> _Plan:
    """The cached plan of `model` (the IR must not change between runs on one interpreter)."""
    plans: dict[ModelOp, _Plan] = interpreter.get_data(AscendFunctions, _PLANS, dict)
    plan = plans.get(model)
    if plan is None:
        plan = plans[model] = _Plan.of(model)
    return plan


def _iterations(model: ModelOp) -> int:
    """The model's `iterations_per_loop`, checked: it sizes the step budget."""
    attr = model.attributes.get(ITERATIONS_PER_LOOP)
    if attr is None:
        return 1
    value = attr.value.data if isinstance(attr, IntegerAttr) else None
    if not isinstance(value, int) or not 1 <= value <= MAX_ITERATIONS_PER_LOOP:
        raise AscendRuntimeError(
            f"'ascend.model' @{model.sym_name.data}: {ITERATIONS_PER_LOOP} must be an integer "
            f"in [1, {MAX_ITERATIONS_PER_LOOP}], got {attr}"
        )
    return value


def _gears(model: ModelOp) -> GearInfo | None:
    try:
        return GearInfo.find_model(model)
    except ValueError as e:
        raise AscendRuntimeError(f"'ascend.model' @{model.sym_name.data}: {e}") from None


def _name(slot: _Slot, dyn: int | None = None) -> str:
    where = f"arena[{slot.offset}]" if dyn is None else f"dyn[{dyn}] at arena[{slot.offset}]"
    return f"{where} : {slot.type}"


def _check_input(
    name: str, slot: _Slot | _DynRef, value: Any, shape: tuple[int, ...]
) -> np.ndarray:
    """`value` as an array of `shape` (the buffer's shape, or its gear's shape)."""
    array = np.asarray(value)
    if isinstance(slot, _DynRef):
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


def _execute(
    interpreter: Interpreter,
    model: ModelOp,
    plan: _Plan,
    args: Sequence[Any],
    options: _Options,
) -> tuple[tuple[np.ndarray, ...], RunStats]:
    size = model.arena_size.value.data
    tables = [
        *(["the writer of each byte (check-uninitialized)"] * options.check_uninitialized),
        *(["the ready time of each byte (timing)"] * options.timing),
    ]
    budget.check(
        size * _bytes_per_arena_byte(options.check_uninitialized, options.timing),
        f"'ascend.model' @{model.sym_name.data}: its arena (arena_size {size})"
        + (f" with {' and '.join(tables)}" if tables else ""),
    )
    arena = bytearray(size)
    for offset, data in plan.weights:
        arena[offset : offset + len(data)] = data
    gear, shapes = _select_gear(model, plan, args)
    state = _RunState(plan, arena, heap=_DynamicHeap(plan.arena_top))
    if options.check_uninitialized:
        memory = state.memory = _MemoryCheck(len(arena))
        for weight in model.weights():
            buffer = weight.buffer
            text = f"{buffer} : {buffer.type}"
            memory.write(buffer.offset_value, buffer.nbytes, text, weight.describe())
    for (name, slot), value, shape, op in zip(
        plan.inputs, args, shapes, model.inputs(), strict=True
    ):
        array = _check_input(name, slot, value, shape)
        if isinstance(slot, _DynRef):
            error = state.place(slot, array, op.describe())
            if error is not None:
                raise error
            continue
        arena[slot.offset : slot.offset + array.nbytes] = np.ascontiguousarray(array).tobytes()
        if state.memory is not None:
            state.memory.write(slot.offset, _nbytes(slot, shape), _name(slot), op.describe())
    previous = interpreter.get_data(AscendFunctions, _STATE, lambda: None)
    interpreter.set_data(AscendFunctions, _STATE, state)
    try:
        stats = _schedule(interpreter, model, state, options)
    finally:
        interpreter.set_data(AscendFunctions, _STATE, previous)
    stats.dynamic_peak = state.heap.peak if state.heap is not None else 0
    slots: list[_Slot] = []
    for (_, ref), op in zip(plan.outputs, model.outputs(), strict=True):
        found = state.resolve(ref, op.describe())
        if isinstance(found, AscendRuntimeError):
            raise found
        slots.append(found)
    out_shapes = [slot.shape for slot in slots]
    if plan.gears is not None and gear is not None:
        dims = plan.gears.output_dims_of(gear)
        out_shapes = [
            dims.get(name, slot.shape) for (name, _), slot in zip(plan.outputs, slots, strict=True)
        ]
    if state.memory is not None:
        for (_, ref), slot, op, shape in zip(
            plan.outputs, slots, model.outputs(), out_shapes, strict=True
        ):
            name = _name(slot, ref.slot if isinstance(ref, _DynRef) else None)
            error = state.memory.read(slot.offset, _nbytes(slot, shape), name, op.describe())
            if error is not None:
                raise error
    outputs = tuple(
        np.frombuffer(state.arena, slot.dtype, math.prod(shape), slot.offset).reshape(shape).copy()
        for slot, shape in zip(slots, out_shapes, strict=True)
    )
    return outputs, stats


def _nbytes(slot: _Slot, shape: tuple[int, ...]) -> int:
    return math.prod(shape) * slot.dtype.itemsize


def _select_gear(
    model: ModelOp, plan: _Plan, args: Sequence[Any]
) -> tuple[int | None, list[tuple[int, ...]]]:
    """The gear of the inputs (E13025 when none) and the shape each input is written with.

    Every input is written packed at the start of its buffer (GE copies the user blob into the
    largest gear's buffer); the shape data, when given, must name the inputs' gear."""
    shapes = [tuple(np.shape(a)) for a in args]
    info = plan.gears
    if info is None:
        return None, [
            slot.shape if isinstance(slot, _Slot) else shape
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
    interpreter: Interpreter, model: ModelOp, state: _RunState, options: _Options
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
    clock = _Clock(model, plan, len(state.arena)) if options.timing else None
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
    plan: _Plan,
    options: _Options,
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


def _activate(task: TaskOp, target: int, live: list[int], pcs: list[int], plan: _Plan) -> None:
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


class _Bound:
    """A critical path of the run: every task starts when the last writers of what it reads
    finished (with unlimited streams), inside a control span after the control task before it,
    on an activated stream after its activation. With `crossing_us`, a value read on another
    engine than its writer's arrives that much later: the record and wait every assignment
    pays there, since streams never mix engines."""

    def __init__(self, arena_size: int, streams: int, crossing_us: float) -> None:
        self.crossing_us = crossing_us
        self.ready = np.zeros(arena_size, np.float64)
        """Per byte: when its last writer finishes."""
        self.engine = np.full(arena_size, -1, np.int16) if crossing_us else None
        """Per byte: its last writer's engine number (-1: no engine, or no writer)."""
        self.dyn_ready: dict[int, tuple[float, int]] = {}
        """Per dynamic slot, the same for its value."""
        self.floor: dict[int, float] = {}
        self.activated_at = [0.0] * streams
        """Per stream: when its current activation completes."""
        self.stream_done = [0.0] * streams
        """Per stream: when its tasks so far are done (what its end_graph follows)."""
        self.critical = 0.0

    def _arrival(self, offset: int, nbytes: int, engine: int) -> float:
        ready = self.ready[offset : offset + nbytes]
        if self.engine is None or engine < 0:
            return float(ready.max())
        writers = self.engine[offset : offset + nbytes]
        crossing = (writers >= 0) & (writers != engine)
        return float((ready + self.crossing_us * crossing).max())

    def step(
        self,
        i: int,
        span: int,
        control: bool,
        engine: int,
        ranges: tuple[list[tuple[int, int]], list[tuple[int, int]]],
        dyn: tuple[list[int], list[int]],
        duration: float,
        activates: int,
    ) -> None:
        reads, writes = ranges
        ready = self.activated_at[i]
        for offset, nbytes in reads:
            if nbytes:
                ready = max(ready, self._arrival(offset, nbytes, engine))
        for slot in dyn[0]:
            done, writer = self.dyn_ready.get(slot, (0.0, -1))
            crossing = engine >= 0 and writer >= 0 and writer != engine
            ready = max(ready, done + (self.crossing_us if crossing else 0.0))
        if span >= 0:
            ready = max(ready, self.floor.get(span, 0.0))
        done = ready + duration
        for offset, nbytes in writes:
            self.ready[offset : offset + nbytes] = done
            if self.engine is not None:
                self.engine[offset : offset + nbytes] = engine
        for slot in dyn[1]:
            self.dyn_ready[slot] = (done, engine)
        if span >= 0 and control:
            self.floor[span] = done
        elif activates >= 0:
            self.activated_at[activates] = done
        self.stream_done[i] = max(self.stream_done[i], done)
        self.critical = max(self.critical, done)

    def end(self, i: int, duration: float) -> None:
        """`end_graph` is work every schedule does after its stream's tasks, not a sync."""
        self.critical = max(self.critical, self.stream_done[i] + duration)


class _Clock:
    """Simulated time of a run (see `timeline`): stream clocks, event times, critical paths."""

    def __init__(self, model: ModelOp, plan: _Plan, arena_size: int) -> None:
        self.plan = plan
        self.costs = plan.costs
        self.now = [0.0] * len(plan.stream_ids)
        self.event_time: dict[int, float] = {}
        self.spans_of = plan.control_spans()
        streams = len(plan.stream_ids)
        self.free = _Bound(arena_size, streams, 0.0)
        """Events free."""
        apart = all(
            task.effects().engine in (None, plan.engines[task.stream.value.data])
            for tasks in plan.tasks
            for task in tasks
        )
        self.priced = _Bound(arena_size, streams, SYNC_US if apart else 0.0)
        """Engine crossings priced: a bound no assignment that keeps engines apart can beat
        (the events-free one where some stream runs another engine's kernels)."""
        self.engines: dict[str, int] = {}
        self._ranges_of: dict[TaskOp, tuple[list[tuple[int, int]], list[tuple[int, int]]]] = {}
        self.timeline = Timeline(model.sym_name.data, dict(plan.engines))

    def _dynamic(
        self, task: TaskOp, effects: TaskEffects, state: _RunState
    ) -> tuple[list[int], list[int], float]:
        """Dynamic slots a task reads and writes, and its duration with the shapes it had."""
        reads, writes = list(effects.dyn_reads), list(effects.dyn_writes)
        if not effects.hybrid:
            return reads, writes, self.costs.duration(task)
        spec = self.plan.dynamic[task]
        ins = [state.dyn.get(r.slot) if isinstance(r, _DynRef) else r for r in spec.inputs]
        outs = [state.dyn.get(r.slot) if isinstance(r, _DynRef) else r for r in spec.outputs]
        shapes_in = [s.shape if s is not None else () for s in ins]
        shapes_out = [s.shape if s is not None else () for s in outs]
        moved = sum(s.nbytes for s in (*ins, *outs) if s is not None)
        cost = self.costs.kernel_cost(
            task, kernel_flops(effects.kernel or "", shapes_in, shapes_out), moved
        )
        return reads, writes, cost.duration_us

    def _ranges(
        self, task: TaskOp, effects: TaskEffects
    ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """The planned byte ranges a task reads and writes."""
        found = self._ranges_of.get(task)
        if found is None:
            found = self._ranges_of[task] = (
                [(b.offset_value, b.nbytes) for b in effects.reads],
                [(b.offset_value, b.nbytes) for b in effects.writes],
            )
        return found

    def step(self, i: int, pc: int, task: TaskOp, state: _RunState) -> None:
        effects = task.effects()
        dyn_reads, dyn_writes, duration = self._dynamic(task, effects, state)
        start = self.now[i]
        for event in effects.waits:
            start = max(start, self.event_time.get(event, 0.0))
        end = start + duration
        self.now[i] = end
        for event in effects.records:
            self.event_time[event] = end
        stream = self.plan.stream_ids[i]
        self.timeline.spans.append(
            TaskSpan(
                stream,
                pc,
                task.trace_name(),
                task.trace_category(),
                effects.engine or RTS_ENGINE,
                start,
                duration,
            )
        )
        if effects.ends_stream:
            for bound in (self.free, self.priced):
                bound.end(i, duration)
            return
        if effects.sync_only:
            return  # synchronisation, not work: free on the critical path
        activates = -1
        if effects.activates:
            # Like an event: the target's clock and its critical path start after this task.
            activates = self.plan.activates[task]
            self.now[activates] = max(self.now[activates], end)
        engine = -1
        if effects.engine is not None:
            engine = self.engines.setdefault(effects.engine, len(self.engines))
        ranges = self._ranges(task, effects)
        span = self.spans_of[i][pc]
        dyn = (dyn_reads, dyn_writes)
        for bound in (self.free, self.priced):
            bound.step(i, span, effects.control, engine, ranges, dyn, duration, activates)

    def finish(self) -> Timeline:
        self.timeline.makespan = max(self.now, default=0.0)
        self.timeline.critical_path = self.free.critical
        self.timeline.crossing_path = self.priced.critical
        return self.timeline


# --------------------------------------------------------------------------------------------
# Python API
# --------------------------------------------------------------------------------------------


def _interpreter_for(model: ModelOp) -> Interpreter:
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
) -> ModelRun:
    """Runs `model` on named inputs; returns its outputs by name and the run statistics.

    Pass an `interpreter` to reuse its cached per-model plan across runs. `check_uninitialized`
    fails any read of bytes nobody wrote or another buffer overwrote; `timing` adds the
    simulated timeline to the statistics. `max_steps` (default: the model's step budget,
    STEP_MARGIN) stops a label loop that never exits.
    """
    interpreter = interpreter or _interpreter_for(model)
    model, inputs = _hybrid(model, interpreter, inputs)
    names = list(model.input_names)
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
    )
    results = interpreter.call_op(model, tuple(inputs[n] for n in names))
    stats = last_stats(interpreter)
    assert stats is not None
    outputs = {o.output_name.data: r for o, r in zip(model.outputs(), results, strict=True)}
    return ModelRun(outputs, stats)


def _hybrid(
    model: ModelOp, interpreter: Interpreter, inputs: Mapping[str, np.ndarray]
) -> tuple[ModelOp, Mapping[str, np.ndarray]]:
    """The model that runs `inputs` and its inputs: a hybrid gear model's dynamic model for
    shapes of no gear (`gears.hybrid_route`, the rule `run()` follows too), else `model`."""
    from gedialects.interpreters.gears import HybridFallbackError, hybrid_route

    info = _plan(interpreter, model).gears
    if info is None or any(n not in info.input_names for n in inputs):
        # No gears; or the caller gave the shape data (named the gear), or unknown names
        # that the input check reports.
        return model, inputs
    try:
        routed = hybrid_route(model, info, {n: np.asarray(v) for n, v in inputs.items()})
    except HybridFallbackError as e:
        raise AscendRuntimeError(f"'ascend.model' @{model.sym_name.data}: {e}") from None
    if routed is None or not isinstance(routed[0], ModelOp):
        return model, inputs
    dynamic, args = routed
    return dynamic, dict(zip(dynamic.input_names, args, strict=True))


def _with_shape_data(
    model: ModelOp, interpreter: Interpreter, inputs: Mapping[str, np.ndarray]
) -> Mapping[str, np.ndarray]:
    """A multi-batch model's inputs with `ascend_mbatch_shape_data` filled from the input
    shapes when the caller left it out (GE's runtime appends it to the user's blobs)."""
    info = _plan(interpreter, model).gears
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


__all__ = [
    "STEP_MARGIN",
    "AscendFunctions",
    "AscendRuntimeError",
    "ModelRun",
    "RunStats",
    "Timeline",
    "configure",
    "execute_model",
    "last_stats",
    "run_model",
    "run_state",
]
