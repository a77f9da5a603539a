"""The per-model plan of the ascend interpreter: what a model's run needs that does not change
between runs (streams, task lists, labels, activations, resolved buffers, dynamic readers),
computed once per model and interpreter from the tasks' effects (`TaskOp.effects`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType, UnrankedTensorType
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from gedialects.ascend import (
    ITERATIONS_PER_LOOP,
    MAX_ITERATIONS_PER_LOOP,
    VAR_BASE,
    BufferAttr,
    DeclarationOp,
    DynBufferAttr,
    InputOp,
    ModelOp,
    OutputOp,
    StreamOp,
    TaskOp,
    VariableOp,
    WeightOp,
)
from gedialects.base import element_count
from gedialects.interpreters.gears import GearInfo
from gedialects.target.cost_model import CostModel
from gedialects.tensors import UnsupportedDtypeError, numpy_dtype, numpy_from_dense


class AscendRuntimeError(InterpretationError):
    """A model run failed: bad inputs, a kernel error, a deadlock, a bad label index."""


class Slot(NamedTuple):
    """A buffer resolved for numpy: where, what dtype, how many elements, which shape.

    A named tuple, not a frozen dataclass: the dynamic heap makes one per value it places,
    and a frozen dataclass's `__init__` (six `object.__setattr__`) was 2 us of a dynamic task."""

    offset: int
    nbytes: int
    dtype: np.dtype
    elements: int
    shape: tuple[int, ...]
    type: TensorType | UnrankedTensorType

    def view(self, arena: bytearray) -> np.ndarray:
        """A read-only array over the arena bytes (kernels must not write their inputs)."""
        array = np.frombuffer(arena, self.dtype, self.elements, self.offset).reshape(self.shape)
        array.flags.writeable = False
        return array

    def describe(self) -> str:
        return f"{self.type} ({self.dtype}, shape {self.shape})"


@dataclass(frozen=True)
class DynRef:
    """A dynamic buffer: its slot and the dims every value in it must have (-1: any; None:
    any rank, for an unranked buffer)."""

    slot: int
    dtype: np.dtype
    dims: tuple[int, ...] | None
    type: TensorType | UnrankedTensorType
    _rank: int = field(init=False, repr=False, compare=False)
    """len(dims), -1 for any rank."""
    _fixed: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)
    """(index, dim) of the static dims: the only ones `conforms` compares (once per value)."""

    def __post_init__(self) -> None:
        dims = self.dims
        object.__setattr__(self, "_rank", -1 if dims is None else len(dims))
        fixed = () if dims is None else tuple((i, d) for i, d in enumerate(dims) if d >= 0)
        object.__setattr__(self, "_fixed", fixed)

    def conforms(self, shape: tuple[int, ...]) -> bool:
        rank = self._rank
        if rank < 0:
            return True
        if len(shape) != rank:
            return False
        for i, d in self._fixed:  # noqa: SIM110 (all() of a generator costs more than the loop)
            if shape[i] != d:
                return False
        return True

    def describe(self) -> str:
        return f"dyn[{self.slot}] : {self.type}"


class _Slots:
    """Resolves buffers to slots, each distinct type object once (`get_shape` is slow).

    A slot's offset is where its bytes lie in the run's memory: the arena's, or for `var[k]`
    the variable region's, which a run keeps at `var_base` (just above the arena)."""

    def __init__(self, var_base: int = 0) -> None:
        self.types: dict[int, tuple[TensorType, tuple[int, ...], np.dtype, int]] = {}
        self.var_base = var_base

    def any(
        self, buffer: BufferAttr | DynBufferAttr, owner: DeclarationOp | TaskOp
    ) -> Slot | DynRef:
        if isinstance(buffer, BufferAttr):
            return self(buffer, owner)
        return self.dyn(buffer, owner)

    def dyn(self, buffer: DynBufferAttr, owner: DeclarationOp | TaskOp) -> DynRef:
        if isinstance(buffer.type, UnrankedTensorType):
            dtype = self._dtype(buffer.type, owner)
            return DynRef(buffer.slot.data, dtype, None, buffer.type)
        ttype, shape, dtype, _ = self._info(buffer.type, owner)
        return DynRef(buffer.slot.data, dtype, shape, ttype)

    @staticmethod
    def _dtype(ttype: TensorType | UnrankedTensorType, owner: DeclarationOp | TaskOp) -> np.dtype:
        try:
            return numpy_dtype(ttype.element_type)
        except UnsupportedDtypeError as e:
            raise AscendRuntimeError(
                f"{owner.describe()}: unsupported element type {e.element_type}"
            ) from None

    def _info(
        self, ttype: TensorType, owner: DeclarationOp | TaskOp
    ) -> tuple[TensorType, tuple[int, ...], np.dtype, int]:
        info = self.types.get(id(ttype))
        if info is None:
            dtype = self._dtype(ttype, owner)
            shape = ttype.get_shape()
            count = element_count(shape)
            info = self.types[id(ttype)] = (ttype, shape, dtype, count)
        return info

    def __call__(self, buffer: BufferAttr, owner: DeclarationOp | TaskOp) -> Slot:
        ttype, shape, dtype, count = self._info(buffer.type, owner)
        return Slot(
            self.place(buffer.offset.data), count * dtype.itemsize, dtype, count, shape, ttype
        )

    def place(self, offset: int) -> int:
        """The run memory's offset of a buffer offset (`var[k]` -> `var_base + k`)."""
        return offset if offset < VAR_BASE else self.var_base + offset - VAR_BASE


@dataclass(frozen=True)
class _KernelTask:
    """The buffers of a task that touches planned buffers only, resolved."""

    inputs: tuple[Slot, ...]
    outputs: tuple[Slot, ...]
    result_types: tuple[TensorType | UnrankedTensorType, ...]


@dataclass(frozen=True)
class _DynamicKernelTask:
    """The buffers of a task that touches a dynamic buffer, resolved."""

    inputs: tuple[Slot | DynRef, ...]
    outputs: tuple[Slot | DynRef, ...]
    result_types: tuple[TensorType | UnrankedTensorType, ...]
    reads: tuple[int, ...]
    """The distinct dynamic slots it reads (each counts once towards freeing)."""


DynamicSpec = _DynamicKernelTask
"""`Plan.dynamic`'s values, as the binders name them."""


@dataclass
class Plan:
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
    inputs: tuple[tuple[str, Slot | DynRef], ...]
    outputs: tuple[tuple[str, Slot | DynRef], ...]
    kernels: dict[TaskOp, _KernelTask]
    """The tasks with buffers, all planned: their buffers (`TaskEffects.ins` / `outs`)."""
    dynamic: dict[TaskOp, _DynamicKernelTask] = field(default_factory=dict)
    """The tasks that touch a dynamic buffer: their buffers."""
    readers: dict[int, int] = field(default_factory=dict)
    """Dynamic slot -> how many tasks read it: it is freed when that many have run."""
    kept: frozenset[int] = frozenset()
    """Dynamic slots that are model outputs: never freed during the run."""
    arena_size: int = 0
    """The planned arena's bytes (the model's `arena_size`)."""
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
    input_ops: tuple[InputOp, ...] = ()
    output_ops: tuple[OutputOp, ...] = ()
    weight_ops: tuple[WeightOp, ...] = ()
    """The model's declarations, found once (each `ModelOp.inputs()` walks the whole body)."""
    variables: tuple[tuple[VariableOp, Slot], ...] = ()
    """Each declared variable and its slot in the run's memory."""
    var_base: int = 0
    """Where the variable region lies in a run's memory: above the arena, aligned."""
    memory_size: int = 0
    """Bytes of a run's planned memory: the arena, then the variable region."""

    def place(self, offset: int) -> int:
        """The run memory's offset of a buffer offset (`var[k]` -> `var_base + k`)."""
        return offset if offset < VAR_BASE else self.var_base + offset - VAR_BASE

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
    def of(model: ModelOp) -> Plan:
        kinds: dict[type, list[Operation]] = {}
        all_tasks: list[TaskOp] = []
        for op in model.body.block.ops:
            if isinstance(op, TaskOp):
                all_tasks.append(op)
            else:
                kinds.setdefault(type(op), []).append(op)
        variable_ops = tuple(op for op in kinds.get(VariableOp, ()) if isinstance(op, VariableOp))
        var_base = align(model.arena_size.value.data)
        var_size = max((v.buffer.end - VAR_BASE for v in variable_ops), default=0)
        slot = _Slots(var_base)
        streams = [op for op in kinds.get(StreamOp, ()) if isinstance(op, StreamOp)]
        input_ops = tuple(op for op in kinds.get(InputOp, ()) if isinstance(op, InputOp))
        output_ops = tuple(op for op in kinds.get(OutputOp, ()) if isinstance(op, OutputOp))
        weight_ops = tuple(op for op in kinds.get(WeightOp, ()) if isinstance(op, WeightOp))
        stream_ids = tuple(sorted(s.id.value.data for s in streams))
        position = {sid: i for i, sid in enumerate(stream_ids)}
        tasks: list[list[TaskOp]] = [[] for _ in stream_ids]
        for task in all_tasks:
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
            if not (e.ins or e.outs or e.kernel is not None):
                continue  # a kernel without buffers still runs (and names an unknown kernel)
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
        for weight in weight_ops:
            data = np.ascontiguousarray(numpy_from_dense(weight.value)).tobytes()
            weights.append((weight.buffer.offset_value, data))
        return Plan(
            stream_ids=stream_ids,
            tasks=tuple(tuple(t) for t in tasks),
            waits=tuple(tuple(next(iter(effects[t].waits), -1) for t in ts) for ts in tasks),
            labels=tuple(labels),
            activates=activates,
            activated=frozenset(activates.values()),
            weights=tuple(weights),
            inputs=tuple((i.input_name.data, slot.any(i.buffer, i)) for i in input_ops),
            outputs=tuple((o.output_name.data, slot.any(o.buffer, o)) for o in output_ops),
            kernels=kernels,
            dynamic=dynamic,
            readers=readers,
            kept=frozenset(
                o.buffer.slot.data for o in output_ops if isinstance(o.buffer, DynBufferAttr)
            ),
            arena_size=model.arena_size.value.data,
            arena_top=align(var_base + var_size),
            engines={s.id.value.data: s.engine.data for s in streams},
            gears=_gears(model),
            iterations=_iterations(model),
            input_ops=input_ops,
            output_ops=output_ops,
            weight_ops=weight_ops,
            variables=tuple((v, slot(v.buffer, v)) for v in variable_ops),
            var_base=var_base,
            memory_size=var_base + var_size if variable_ops else model.arena_size.value.data,
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


DYNAMIC_ALIGNMENT = 512
"""Dynamic buffers are aligned like planned ones (GE's 512 bytes)."""


def align(n: int) -> int:
    return (n + DYNAMIC_ALIGNMENT - 1) // DYNAMIC_ALIGNMENT * DYNAMIC_ALIGNMENT


STEP_MARGIN = 16
"""The default step budget of a run is STEP_MARGIN x the model's tasks x the iterations it
declares (`iterations_per_loop`). A model `ge-compile` builds runs each task at most once per
iteration (case branches jump forward, a `stream_active` restarts its stream once per
iteration), so it never needs more than tasks x iterations steps; the margin leaves room for
hand-written label loops that declare no count (a do-while of three trips over four tasks
takes ten steps). A loop that never exits stops after the budget instead of running for hours;
`max_steps` (`ge-run --max-steps`, Session option `ge.maxSteps`) sets another limit."""


def _at_most_one(task: TaskOp, items: tuple[int, ...], verb: str, what: str) -> None:
    """The scheduler runs a task once it can (one event) and starts one stream after it."""
    if len(items) > 1:
        raise AscendRuntimeError(
            f"{task.describe()} {verb} {len(items)} {what}; the interpreter supports one per task"
        )


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


def slot_name(slot: Slot, dyn: int | None = None, var_base: int = -1) -> str:
    if 0 <= var_base <= slot.offset:
        return f"var[{slot.offset - var_base}] : {slot.type}"
    where = f"arena[{slot.offset}]" if dyn is None else f"dyn[{dyn}] at arena[{slot.offset}]"
    return f"{where} : {slot.type}"
