"""The timing simulator of an ascend model run (`timing=True`): stream clocks, event times and
two critical paths (events free, and engine crossings priced), recorded as a `timeline.Timeline`.
Durations come from `gedialects.target.cost_model`."""

from __future__ import annotations

import numpy as np

from gedialects.ascend import (
    ModelOp,
    TaskEffects,
    TaskOp,
)
from gedialects.base import RTS_ENGINE
from gedialects.interpreters.ascend.memory import RunState
from gedialects.interpreters.ascend.plan import DynRef, Plan
from gedialects.interpreters.timeline import TaskSpan, Timeline
from gedialects.target.cost_model import SYNC_US, kernel_flops


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


class Clock:
    """Simulated time of a run (see `timeline`): stream clocks, event times, critical paths."""

    def __init__(self, model: ModelOp, plan: Plan, arena_size: int) -> None:
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
        self, task: TaskOp, effects: TaskEffects, state: RunState
    ) -> tuple[list[int], list[int], float]:
        """Dynamic slots a task reads and writes, and its duration with the shapes it had."""
        reads, writes = list(effects.dyn_reads), list(effects.dyn_writes)
        if not effects.hybrid:
            return reads, writes, self.costs.duration(task)
        spec = self.plan.dynamic[task]
        ins = [state.dyn.get(r.slot) if isinstance(r, DynRef) else r for r in spec.inputs]
        outs = [state.dyn.get(r.slot) if isinstance(r, DynRef) else r for r in spec.outputs]
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
            place = self.plan.place
            found = self._ranges_of[task] = (
                [(place(b.offset_value), b.nbytes) for b in effects.reads],
                [(place(b.offset_value), b.nbytes) for b in effects.writes],
            )
        return found

    def step(self, i: int, pc: int, task: TaskOp, state: RunState) -> None:
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
