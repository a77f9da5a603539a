"""`ge-sink-loop`: run a model's task lists N times on the device (GE's FlowCtrlPass).

GE sinks `iterations_per_loop` iterations into one model launch: variables `npu_runconfig/*`
(loop counter, one, zero, iterations per loop), an AssignAdd of the counter, a StreamSwitch
comparing it with the iteration count and a StreamActive back to the loop head. Here the same
loop is written with the task-level control flow the `ascend` dialect has:

    memcpy_async   zero -> counter                      (reset; GE's Assign(loop_cond, zero))
    label_set      head_s                               (every looping stream s)
    ...the original tasks (end_graph moved to the exit)...
    event_record   done_s on s, event_wait done_s on c  (every stream s != c: c waits for all)
    kernel AssignAdd  counter += one                    (control stream c)
    kernel Less       cond = counter < iterations
    kernel Cast       index = int32(cond)
    event_record   go_s on c, event_wait go_s on s
    label_switch_by_index index labels [exit_s, head_s] (every stream, c last)
    label_set      exit_s; end_graph where the stream had one

The done/go events are a barrier: iteration k+1 starts on no stream before iteration k ended on
every stream, so a memory plan and an event plan made for one iteration stay correct (every
tensor is written and read inside one iteration; inputs and weights are never written).
Therefore the pass runs after `ge-plan-memory` and `ge-assign-streams`, as the last step of
`ge-compile`: it adds the constants at the end of the weight region (shifting every other
buffer by one aligned block), and the counter, the compare result and the switch index in one
aligned block at the end of the arena. Each iteration reads the same inputs; the outputs are
those of the last iteration. The model gets the attribute `iterations_per_loop`.

Streams named by an `ascend.stream_active` (a case branch's body, GE's CaseOpLabelMaker) do
not loop: they get no head or exit label, no barrier events and no switch. Their activator's
`stream_active` is inside the loop body and starts them again in every iteration; each ends
with an `event_record` that a looping stream waits on (the branch's join), so an activated
stream has finished iteration k before the barrier of iteration k lets iteration k+1 start.

Restrictions (refused with an error): a model sunk already; events whose records and waits do
not pair up (a record left over from iteration k could release a wait of iteration k+1); an
activated stream whose last task is not an `event_record` (nothing would join it); a model
whose every stream is activated (no stream starts the loop).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.ascend import (
    ITERATIONS_PER_LOOP,
    LABEL_NUM,
    MAX_ITERATIONS_PER_LOOP,
    VAR_BASE,
    BufferAttr,
    DeclarationOp,
    EndGraphOp,
    EventOp,
    EventRecordOp,
    EventWaitOp,
    KernelOp,
    LabelSetOp,
    LabelSwitchByIndexOp,
    MemcpyAsyncOp,
    ModelOp,
    TaskOp,
    WeightOp,
)
from gedialects.passes.analysis.memory_plan import GE_ALIGNMENT, align
from gedialects.passes.failure import OpPassFailed

_NAME = "ge-sink-loop"
ITERATIONS_ATTR = ITERATIONS_PER_LOOP
"""Model attribute holding N (GE's option `iterations_per_loop`)."""

# GE's node names (flow_ctrl_pass.cc, types.h).
LOOP_ASSIGNADD = "FlowCtrl_LoopCond_ASSIGNADD"
LOOP_SWITCH = "IteratorCtrl_StreamSwitch"

_SCALAR_I64 = TensorType(i64, [])


@dataclass(frozen=True)
class LoopLayout:
    """Where the loop-control buffers of a sunk model live (bytes)."""

    zero: BufferAttr
    one: BufferAttr
    iterations: BufferAttr
    counter: BufferAttr
    cond: BufferAttr
    index: BufferAttr
    shift: int
    """By how much every non-weight buffer moved up."""


def _fail(model: ModelOp, message: str) -> PassFailedException:
    return OpPassFailed(f"{_NAME}: @{model.sym_name.data}: {message}", model)


def _i64_dense(value: int) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr.from_list(_SCALAR_I64, [value])


def _shifted(value: Attribute, start: int, shift: int) -> Attribute:
    if isinstance(value, BufferAttr) and start <= value.offset_value < VAR_BASE:
        return BufferAttr(value.offset_value + shift, value.type)
    if isinstance(value, ArrayAttr) and any(isinstance(v, BufferAttr) for v in value.data):
        return ArrayAttr([_shifted(v, start, shift) for v in value.data])
    return value


def _shift_buffers(ops: list[Operation], start: int, shift: int) -> None:
    """Moves every arena buffer at or above `start` by `shift` bytes, in any property of any
    op (the variable region is apart from the arena: its buffers stay)."""
    for op in ops:
        for name, value in list(op.properties.items()):
            moved = _shifted(value, start, shift)
            if moved is not value:
                op.properties[name] = moved


def _check_events(model: ModelOp, tasks: list[TaskOp]) -> None:
    records = Counter(e for t in tasks for e in t.effects().records)
    waits = Counter(e for t in tasks for e in t.effects().waits)
    for event in sorted(set(records) | set(waits)):
        if records[event] != 1 or waits[event] != 1:
            raise _fail(
                model,
                f"event {event} is recorded {records[event]} and waited {waits[event]} times "
                "per iteration; the loop needs each event recorded once and waited once",
            )


def _check_joins(model: ModelOp, tasks: list[TaskOp], activated: set[int]) -> None:
    """Each activated stream must end with its join's record (an `end_graph` after it may
    stay: it ends each activation)."""
    last = {t.stream.value.data: t for t in tasks if not t.effects().ends_stream}
    for stream in sorted(activated):
        task = last.get(stream)
        if task is not None and not task.effects().records:
            raise _fail(
                model,
                f"activated stream {stream} ends with {task.describe()}, not an event_record; "
                "the loop needs every activated stream joined before the iteration ends",
            )


def sink_model(model: ModelOp, iterations: int, alignment: int = GE_ALIGNMENT) -> LoopLayout:
    """Rewrites `model` in place into a device loop of `iterations` iterations."""
    if ITERATIONS_ATTR in model.attributes:
        raise _fail(model, f"is sunk already ({ITERATIONS_ATTR} is set)")
    ops = list(model.body.block.ops)
    decls = [op for op in ops if isinstance(op, DeclarationOp)]
    tasks = model.tasks()
    declared = sorted(s.id.value.data for s in model.streams())
    if not declared:
        raise _fail(model, "declares no stream to run the loop on")
    _check_events(model, tasks)
    activated = {s for t in tasks for s in t.effects().activates}
    idle = [s for s in declared if s not in activated]
    if not idle:
        raise _fail(model, "activates every stream it declares; no stream starts the loop")
    _check_joins(model, tasks, activated)
    looping = sorted({t.stream.value.data for t in tasks} - activated) or idle[:1]
    control = looping[0]
    others = [s for s in looping if s != control]
    ended = {t.stream.value.data for t in tasks if t.effects().ends_stream} & set(looping)

    # Memory: constants at the end of the weight region, control block at the end of the arena.
    weight_size = model.weight_size.value.data
    base = align(weight_size, 8)
    shift = align(base + 24 - weight_size, alignment)
    _shift_buffers(ops, weight_size, shift)
    top = align(model.arena_size.value.data + shift, alignment)
    layout = LoopLayout(
        zero=BufferAttr(base, _SCALAR_I64),
        one=BufferAttr(base + 8, _SCALAR_I64),
        iterations=BufferAttr(base + 16, _SCALAR_I64),
        counter=BufferAttr(top, _SCALAR_I64),
        cond=BufferAttr(top + 8, TensorType(i1, [])),
        index=BufferAttr(top + 12, TensorType(i32, [])),
        shift=shift,
    )
    model.weight_size = IntegerAttr(weight_size + shift, i64)
    model.arena_size = IntegerAttr(top + align(16, alignment), i64)

    # Fresh ids: labels are per stream but unique ids keep the IR readable.
    used_labels = [label for t in tasks for label in (*t.effects().labels, *t.effects().jumps)]
    next_label = max(used_labels, default=-1) + 1
    head = {s: next_label + 2 * i for i, s in enumerate(looping)}
    exit_ = {s: next_label + 2 * i + 1 for i, s in enumerate(looping)}
    next_event = max((e.id.value.data for e in model.events()), default=-1) + 1
    done = {s: next_event + 2 * i for i, s in enumerate(others)}
    go = {s: next_event + 2 * i + 1 for i, s in enumerate(others)}

    engine = next(s.engine.data for s in model.streams() if s.id.value.data == control)
    new_weights = [
        WeightOp(layout.zero, _i64_dense(0)),
        WeightOp(layout.one, _i64_dense(1)),
        WeightOp(layout.iterations, _i64_dense(iterations)),
    ]
    new_events = [EventOp(e) for s in others for e in (done[s], go[s])]
    body: list[Operation] = []
    for op in decls:
        op.detach()
    last_weight = max((i for i, op in enumerate(decls) if isinstance(op, WeightOp)), default=-1)
    last_event = max((i for i, op in enumerate(decls) if isinstance(op, EventOp)), default=-1)
    for i, op in enumerate(decls):
        body.append(op)
        if i == last_event:
            body.extend(new_events)
        if i == last_weight:
            body.extend(new_weights)
    if last_event < 0:
        body.extend(new_events)
    if last_weight < 0:
        body.extend(new_weights)

    body.append(MemcpyAsyncOp(control, layout.zero, layout.counter))
    body.extend(LabelSetOp(head[s], s) for s in looping)
    for task in tasks:
        task.detach()
        if not (task.effects().ends_stream and task.stream.value.data in ended):
            body.append(task)  # an activated stream's end_graph ends each activation
    body.extend(EventRecordOp(done[s], s) for s in others)
    body.extend(EventWaitOp(done[s], control) for s in others)
    body.append(
        KernelOp(
            "AssignAdd",
            LOOP_ASSIGNADD,
            engine,
            control,
            [layout.counter, layout.one],
            [layout.counter],
        )
    )
    body.append(
        KernelOp(
            "Less",
            f"{LOOP_SWITCH}/Less",
            engine,
            control,
            [layout.counter, layout.iterations],
            [layout.cond],
        )
    )
    body.append(
        KernelOp(
            "Cast",
            f"{LOOP_SWITCH}/Cast",
            engine,
            control,
            [layout.cond],
            [layout.index],
            {"dst_type": i32},
        )
    )
    body.extend(EventRecordOp(go[s], control) for s in others)
    for s in others:
        body.append(EventWaitOp(go[s], s))
        body.append(LabelSwitchByIndexOp(layout.index, [exit_[s], head[s]], s))
    body.append(LabelSwitchByIndexOp(layout.index, [exit_[control], head[control]], control))
    for s in looping:
        body.append(LabelSetOp(exit_[s], s))
        if s in ended:
            body.append(EndGraphOp(s))
    model.body.block.add_ops(body)
    model.attributes[ITERATIONS_ATTR] = IntegerAttr(iterations, i64)
    if LABEL_NUM in model.attributes or used_labels:
        model.attributes[LABEL_NUM] = IntegerAttr(next_label + 2 * len(looping), i64)
    return layout


def check_iterations(value: int, what: str) -> None:
    """Refuses an iteration count outside [1, MAX_ITERATIONS_PER_LOOP] (see there why)."""
    if value < 1:
        raise PassFailedException(f"{what} must be at least 1, got {value}")
    if value > MAX_ITERATIONS_PER_LOOP:
        raise PassFailedException(
            f"{what} must be at most {MAX_ITERATIONS_PER_LOOP} (the interpreter runs every "
            f"iteration; GE sinks the steps between host syncs), got {value}"
        )


def loop_overhead(streams: int) -> tuple[int, int]:
    """(tasks per iteration, tasks once) that `sink_model` adds for `streams` looping streams.

    Per iteration: a head label and a switch per stream, AssignAdd, Less and Cast, and per
    stream besides the control one two records and two waits. Once: the counter reset and an
    exit label per stream (end_graph tasks are moved, not added).
    """
    return 2 * streams + 3 + 4 * (streams - 1), 1 + streams


@dataclass(frozen=True)
class SinkLoopPass(ModulePass):
    """Sinks `iterations` iterations of every `ascend.model` into one launch (GE FlowCtrlPass).

    The task lists become a device loop: a counter in the arena, AssignAdd, a compare, and
    `label_switch_by_index` back to the head of every stream, with a done/go event barrier
    between the streams so that iteration k+1 starts nowhere before iteration k ended
    everywhere; streams a `stream_active` starts are started again by it in every iteration
    and do not loop themselves. Run it after `ge-assign-streams` and `ge-plan-memory` (the
    per-iteration plans stay valid under the barrier). Adds the model attribute
    `iterations_per_loop`.
    """

    name = "ge-sink-loop"

    iterations: int = 1
    alignment: int = GE_ALIGNMENT

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_iterations(self.iterations, f"{_NAME}: iterations")
        if self.alignment <= 0:
            raise PassFailedException(f"{_NAME}: alignment must be positive, got {self.alignment}")
        for model in [m for m in op.walk() if isinstance(m, ModelOp)]:
            sink_model(model, self.iterations, self.alignment)
