"""Analysis of an `ascend.model`'s task lists: accesses, control spans, cases, happens-before.

Shared by `ge-plan-memory` and `ge-assign-streams`. Everything is indexed by the task's global
position (its place in the model body) and, per stream, by its index in that stream's list:

- accesses: the planned buffers each task reads and writes (kernels, memcpy, the switch index),
  and apart from them the dynamic slots (`dyn[k]`, placed at run time: no plan concerns them,
  but they order their writer before their readers);
- control spans: per stream, the merged ranges between every jump and its target label. Control
  flow stays inside a span, so passes treat a span as one unit (GE keeps control flow on one
  stream); a span with a backward jump is a loop;
- cases: spans that have GE's CaseOpLabelMaker shape (switch, one labelled block per branch each
  ending in a goto to the end label; IfOpLabelMaker's is one with the switch list `[else,
  then]`), with their branches in program order, for the per-gear memory overlay;
- happens-before: per task a vector clock, `reach[t][s]` = how many tasks of stream s are
  known complete when t starts (stream order, event record -> wait, and `stream_active` -> the
  first task of the stream it activates). Task a happens before
  task b iff `index[a] < reach[b][stream[a]]`. Events recorded inside a loop, or recorded more
  than once, order nothing here (which record a wait consumed is then unknown): the analysis
  stays sound by being conservative.

All of it is linear in the number of tasks (times the number of streams for the clocks).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from xdsl.dialects.builtin import TensorType

from gedialects.ascend import BufferAttr, ModelOp, TaskEffects, TaskOp
from gedialects.base import element_count, element_nbytes
from gedialects.passes.analysis import PlanError


class AnalysisError(Exception):
    """The model cannot be analysed (a deadlock, a malformed label structure)."""


class TypeSizes:
    """Per tensor type: a canonical number, shape, element count and byte size.

    `get_shape` and hashing a type are slow and parsed buffers carry equal but distinct type
    objects: look up by object identity first (objects are kept alive), by value once.
    """

    def __init__(self) -> None:
        self.by_id: dict[int, tuple[int, tuple[int, ...], int, int]] = {}
        self.by_value: dict[TensorType, int] = {}
        self.alive: list[TensorType] = []

    def __call__(self, t: TensorType) -> tuple[int, tuple[int, ...], int, int]:
        """(canonical number, shape, element count, byte size)."""
        found = self.by_id.get(id(t))
        if found is None:
            canon = self.by_value.setdefault(t, len(self.by_value))
            shape = t.get_shape()
            count = element_count(shape)
            found = (canon, shape, count, count * (element_nbytes(t.element_type) or 1))
            self.by_id[id(t)] = found
            self.alive.append(t)
        return found

    def canon(self, t: TensorType) -> int:
        return self(t)[0]

    def shape(self, t: TensorType) -> tuple[int, ...]:
        return self(t)[1]

    def nbytes(self, t: TensorType) -> int:
        return self(t)[3]


@dataclass
class Span:
    """Tasks `[first, last]` (stream indices) of one stream that control flow never leaves."""

    stream: int
    first: int
    last: int
    loop: bool
    first_pos: int = 0
    last_pos: int = 0
    contiguous: bool = True
    """No task of another stream lies between its first and last task in the model body, except
    tasks of streams activated inside it (a case's branch streams)."""


@dataclass
class Case:
    """A recognised CaseOpLabelMaker structure, in global positions."""

    head: int
    """The `label_switch_by_index`."""
    tail: int
    """The end `label_set` every branch reaches."""
    branches: list[tuple[int, int]]
    """Per branch `[start, stop)`: from its `label_set` to the next branch's (or the tail)."""
    parent: int = -1
    """The innermost case whose branch holds this one, -1 at top level."""

    def branch_of(self, pos: int) -> int:
        for i, (start, stop) in enumerate(self.branches):
            if start <= pos < stop:
                return i
        return -1


@dataclass
class TaskGraph:
    model: ModelOp
    tasks: list[TaskOp] = field(default_factory=list)
    effects: list[TaskEffects] = field(default_factory=list)
    """Per position: what the task touches (`TaskOp.effects`)."""
    stream: list[int] = field(default_factory=list)
    index: list[int] = field(default_factory=list)
    reads: list[tuple[BufferAttr, ...]] = field(default_factory=list)
    writes: list[tuple[BufferAttr, ...]] = field(default_factory=list)
    dyn_reads: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """Position -> dynamic slots it reads (tasks that touch none are absent)."""
    dyn_writes: dict[int, tuple[int, ...]] = field(default_factory=dict)
    stream_ids: list[int] = field(default_factory=list)
    stream_tasks: dict[int, list[int]] = field(default_factory=dict)
    spans: list[Span] = field(default_factory=list)
    span_of: list[int] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    case_of: dict[int, int] = field(default_factory=dict)
    """Position -> innermost case whose [head, tail] holds it (positions in no case absent)."""
    activated_at: dict[int, int] = field(default_factory=dict)
    """Stream id -> position of the `stream_active` starting it (always-active streams absent)."""
    iteration_clocks: bool = False
    """Clocks of one loop iteration: events recorded and waited once, both inside loops, order
    tasks too. Sound only under a barrier between iterations; set by `barrier_loops`."""
    _reach: list[list[int]] | None = None
    _looped_syncing: set[int] = field(default_factory=set)

    @staticmethod
    def of(model: ModelOp) -> TaskGraph:
        graph = TaskGraph(model)
        graph._collect()
        graph._find_spans()
        graph._find_cases()
        return graph

    # ----------------------------------------------------------------------------------------

    def _collect(self) -> None:
        declared = sorted(s.id.value.data for s in self.model.streams())
        self.stream_ids = declared
        self.stream_tasks = {s: [] for s in declared}
        for pos, task in enumerate(self.model.tasks()):
            sid = task.stream.value.data
            if sid not in self.stream_tasks:
                raise AnalysisError(f"{task.describe()} runs on undeclared stream {sid}")
            self.tasks.append(task)
            self.stream.append(sid)
            self.index.append(len(self.stream_tasks[sid]))
            self.stream_tasks[sid].append(pos)
            effects = task.effects()
            self.effects.append(effects)
            self.reads.append(effects.reads)
            self.writes.append(effects.writes)
            if effects.dyn_reads:
                self.dyn_reads[pos] = effects.dyn_reads
            if effects.dyn_writes:
                self.dyn_writes[pos] = effects.dyn_writes
            for target in effects.activates:
                self.activated_at[target] = pos

    def home(self, sid: int) -> int:
        """The always-active stream whose `stream_active` (directly or through other activated
        streams) starts `sid`; `sid` itself if it is always active."""
        seen: set[int] = set()
        while sid in self.activated_at and sid not in seen:
            seen.add(sid)
            sid = self.stream[self.activated_at[sid]]
        return sid

    def label_positions(self, sid: int) -> dict[int, int]:
        return {label: p for p in self.stream_tasks[sid] for label in self.effects[p].labels}

    def jump_targets(self, pos: int) -> tuple[int, ...]:
        return self.effects[pos].jumps

    def _find_spans(self) -> None:
        self.span_of = [-1] * len(self.tasks)
        for sid in self.stream_ids:
            positions = self.stream_tasks[sid]
            labels = self.label_positions(sid)
            ranges: list[tuple[int, int, bool]] = []
            for i, pos in enumerate(positions):
                if self.effects[pos].labels:
                    ranges.append((i, i, False))
                for label in self.jump_targets(pos):
                    if label not in labels:
                        raise AnalysisError(
                            f"{self.tasks[pos].describe()} targets label {label}, which stream "
                            f"{sid} does not set"
                        )
                    j = self.index[labels[label]]
                    ranges.append((min(i, j), max(i, j), j <= i))
            ranges.sort()
            merged: list[Span] = []
            for first, last, loop in ranges:
                if merged and first <= merged[-1].last:
                    span = merged[-1]
                    span.last = max(span.last, last)
                    span.loop = span.loop or loop
                else:
                    merged.append(Span(sid, first, last, loop))
            for span in merged:
                span.first_pos = positions[span.first]
                span.last_pos = positions[span.last]
                span.contiguous = span.last_pos - span.first_pos == span.last - span.first
                if not span.contiguous and self.activated_at:
                    span.contiguous = self._only_activated_between(span)
                sid_index = len(self.spans)
                for p in positions[span.first : span.last + 1]:
                    self.span_of[p] = sid_index
                self.spans.append(span)

    def _only_activated_between(self, span: Span) -> bool:
        """Whether every task of another stream inside the span's range runs on a stream
        activated inside it (a case whose branches run on streams they activate)."""
        for p in range(span.first_pos, span.last_pos + 1):
            sid = self.stream[p]
            if sid != span.stream and not (
                span.first_pos < self.activated_at.get(sid, -1) < span.last_pos
            ):
                return False
        return True

    def _find_cases(self) -> None:
        """Recognises GE's case label scheme inside contiguous, loop-free spans."""
        for span in self.spans:
            if span.loop or not span.contiguous:
                continue
            labels = self.label_positions(span.stream)
            found: list[Case] = []
            jumps_ok: set[int] = set()
            jumps = [p for p in range(span.first_pos, span.last_pos + 1) if self.effects[p].jumps]
            for p in jumps:
                if self.effects[p].conditional:
                    case = self._case_at(p, labels)
                    if case is not None:
                        found.append(case)
                        jumps_ok.add(p)
                        jumps_ok.update(start - 1 for start, _ in case.branches[1:])
            if set(jumps) != jumps_ok or not self._nest(found):
                continue
            self.cases.extend(found)
        self.cases.sort(key=lambda c: c.head)
        for i, case in enumerate(self.cases):
            for p in range(case.head, case.tail + 1):
                self.case_of[p] = i  # inner cases come later and overwrite
        stack: list[int] = []
        for i, case in enumerate(self.cases):
            while stack and self.cases[stack[-1]].tail < case.head:
                stack.pop()
            case.parent = stack[-1] if stack else -1
            stack.append(i)

    def _case_at(self, head: int, labels: dict[int, int]) -> Case | None:
        # Branches in program order: If's switch lists `[else, then]` with then first.
        starts = sorted(labels[label] for label in self.effects[head].jumps)
        if starts[0] != head + 1 or any(b <= a for a, b in itertools.pairwise(starts)):
            return None
        end_label: int | None = None
        for start in starts[1:]:
            goto = self.effects[start - 1]
            if goto.conditional or len(goto.jumps) != 1:
                return None
            if end_label is None:
                end_label = goto.jumps[0]
            elif goto.jumps[0] != end_label:
                return None
        if end_label is None:
            return None
        tail = labels[end_label]
        if tail <= starts[-1]:
            return None
        bounds = [*starts, tail]
        return Case(head, tail, [(bounds[i], bounds[i + 1]) for i in range(len(starts))])

    @staticmethod
    def _nest(cases: list[Case]) -> bool:
        """Cases must be disjoint or nested inside one branch of another."""
        for a in cases:
            for b in cases:
                if a is b or b.tail < a.head or a.tail < b.head:
                    continue
                inner, outer = (a, b) if a.head > b.head else (b, a)
                if outer.branch_of(inner.head) == -1 or outer.branch_of(inner.head) != (
                    outer.branch_of(inner.tail)
                ):
                    return False
        return True

    # ----------------------------------------------------------------------------------------

    def verify(self) -> None:
        """Raises PlanError naming the first inconsistency: the per-task columns, the stream
        lists (program order, each task once), spans against `span_of`, cases against their
        branches and `case_of`, activations. Linear in the tasks."""
        n = len(self.tasks)
        for what, column in (
            ("stream", self.stream),
            ("index", self.index),
            ("reads", self.reads),
            ("writes", self.writes),
            ("span_of", self.span_of),
        ):
            if len(column) != n:
                raise PlanError(f"task graph: {len(column)} {what} entries for {n} tasks")
        if sorted(self.stream_tasks) != self.stream_ids:
            raise PlanError(
                f"task graph: task lists for streams {sorted(self.stream_tasks)}, declared "
                f"streams {self.stream_ids}"
            )
        listed = 0
        for sid, positions in self.stream_tasks.items():
            previous = -1
            for i, pos in enumerate(positions):
                if not previous < pos < n:
                    raise PlanError(
                        f"task graph: stream {sid} lists task {pos} after task {previous}: "
                        "not in program order"
                    )
                if self.stream[pos] != sid or self.index[pos] != i:
                    raise PlanError(
                        f"task graph: stream {sid} lists task {pos} as its #{i}, but the task "
                        f"is #{self.index[pos]} of stream {self.stream[pos]}"
                    )
                previous = pos
            listed += len(positions)
        if listed != n:
            raise PlanError(f"task graph: the streams list {listed} tasks of {n}")
        in_spans = 0
        for k, span in enumerate(self.spans):
            positions = self.stream_tasks.get(span.stream, [])
            if not 0 <= span.first <= span.last < len(positions):
                raise PlanError(
                    f"task graph: span {k} holds tasks #{span.first}..#{span.last} of stream "
                    f"{span.stream}, which has {len(positions)}"
                )
            if (positions[span.first], positions[span.last]) != (span.first_pos, span.last_pos):
                raise PlanError(f"task graph: span {k}'s positions differ from its stream's")
            for p in positions[span.first : span.last + 1]:
                if self.span_of[p] != k:
                    raise PlanError(
                        f"task graph: task {p} lies in span {k} but span_of gives {self.span_of[p]}"
                    )
            in_spans += span.last - span.first + 1
        if sum(1 for s in self.span_of if s >= 0) != in_spans:
            raise PlanError("task graph: span_of places tasks in spans that do not hold them")
        for c, case in enumerate(self.cases):
            starts = [start for start, _ in case.branches]
            stops = [stop for _, stop in case.branches]
            if (
                not case.branches
                or starts[0] != case.head + 1
                or starts[1:] != stops[:-1]
                or any(stop <= start for start, stop in case.branches)
                or stops[-1] != case.tail
                or not case.tail < n
            ):
                raise PlanError(
                    f"task graph: case {c} (switch at {case.head}, end at {case.tail}) has "
                    f"branches {case.branches} that do not tile it"
                )
            if case.parent >= c or (
                case.parent >= 0 and self.cases[case.parent].branch_of(case.head) < 0
            ):
                raise PlanError(f"task graph: case {c} is not inside its parent {case.parent}")
            for p in (case.head, case.tail):
                inner = self.case_of.get(p, -1)
                if inner < c or not self.cases[inner].head <= p <= self.cases[inner].tail:
                    raise PlanError(f"task graph: case_of misses task {p} of case {c}")
        for sid, pos in self.activated_at.items():
            if sid not in self.stream_tasks or not 0 <= pos < n:
                raise PlanError(f"task graph: stream {sid} is activated by task {pos}")

    def dump(self) -> str:
        """The analysis as text: per stream its tasks (position, reads, writes), then the
        control spans and the cases."""
        lines = [
            f"task graph of @{self.model.sym_name.data}: {len(self.tasks)} tasks on "
            f"{len(self.stream_ids)} streams"
        ]
        for sid in self.stream_ids:
            start = self.activated_at.get(sid)
            lines.append(f"stream {sid}" + ("" if start is None else f" (activated by {start})"))
            for pos in self.stream_tasks[sid]:
                access = f"reads {len(self.reads[pos])} writes {len(self.writes[pos])}"
                if pos in self.dyn_reads or pos in self.dyn_writes:
                    access += (
                        f" dyn reads {list(self.dyn_reads.get(pos, ()))} "
                        f"writes {list(self.dyn_writes.get(pos, ()))}"
                    )
                lines.append(f"  {pos}: {self.tasks[pos].describe()} {access}")
        for k, span in enumerate(self.spans):
            kind = "loop" if span.loop else "span"
            lines.append(
                f"{kind} {k}: stream {span.stream} tasks {span.first_pos}..{span.last_pos}"
                + ("" if span.contiguous else " (interleaved)")
            )
        for c, case in enumerate(self.cases):
            branches = " ".join(f"[{a},{b})" for a, b in case.branches)
            lines.append(
                f"case {c}: switch {case.head} end {case.tail} branches {branches} "
                f"parent {case.parent}"
            )
        return "\n".join(lines)

    @property
    def multi_stream(self) -> bool:
        return sum(1 for s in self.stream_ids if self.stream_tasks[s]) > 1

    @property
    def has_loops(self) -> bool:
        return any(span.loop for span in self.spans)

    def in_loop(self, pos: int) -> Span | None:
        """The loop span holding `pos`: a task of an activated stream is in the loop that
        holds its `stream_active` (a sunk loop activates it every iteration)."""
        span = self.span_of[pos]
        if span >= 0 and self.spans[span].loop:
            return self.spans[span]
        if self.activated_at:  # also a task of an If that a While's body runs on its stream
            start = self.activated_at.get(self.stream[pos])
            if start is not None and start != pos:
                return self.in_loop(start)
        return None

    def barrier_loops(self) -> bool:
        """Whether every iteration of the loops ends before the next begins on any stream, as
        far as buffers and events are concerned (GE's FlowCtrl loop as `ge-sink-loop` writes
        it: done/go events around the loop switch); if so, switches to the clocks of one
        iteration (`iteration_clocks`) and returns True.

        Checked on those clocks, per pair of streams t != s with tasks inside the loops: the
        accesses of iteration k on t complete before those of iteration k+1 on s, because they
        all happen before every back-edge jump of the loop s runs in (or activator's loop), or
        because s's first access of an iteration knows t started that iteration (t loops); a
        stream a While's region activates and joins (GE's EnterStreamActive) counts at its
        activation on the loop's stream: its accesses need only precede the jumps back that
        can run the other access again after them, and an access of another loop that knows
        the loop's stream passed its end is over in every iteration. The same for each
        event's wait of iteration k and its record of iteration k+1. By induction
        each event of the body is then recorded and consumed in one iteration, and one
        iteration's clocks hold for every iteration. Otherwise the conservative clocks stay
        (events inside loops order nothing). Linear in the tasks plus streams squared."""
        loops = [k for k, span in enumerate(self.spans) if span.loop]
        if not loops:
            return False
        self.iteration_clocks, self._reach = True, None
        try:
            reach = self.reach()
        except AnalysisError:
            self.iteration_clocks, self._reach = False, None
            return False
        back: dict[int, list[int]] = {}  # loop span -> its backward jumps
        for k in loops:
            span = self.spans[k]
            labels = self.label_positions(span.stream)
            for pos in self.stream_tasks[span.stream][span.first : span.last + 1]:
                if any(labels[lb] <= pos for lb in self.jump_targets(pos)):
                    back.setdefault(k, []).append(pos)
        target: dict[int, int] = {}  # backward jump -> the position it jumps to
        for k, jumps in back.items():
            labels = self.label_positions(self.spans[k].stream)
            for b in jumps:
                target[b] = min(labels[lb] for lb in self.jump_targets(b) if labels[lb] <= b)
        number = {id(span): k for k, span in enumerate(self.spans)}
        loop_at: dict[int, int] = {}  # in-loop position -> the loop span it runs in
        accesses: dict[int, list[int]] = {}  # stream -> its in-loop tasks that access memory
        for pos in range(len(self.tasks)):
            loop = self.in_loop(pos)
            if loop is None:
                continue
            sid = self.stream[pos]
            loop_at[pos] = number[id(loop)]
            if self.span_of[pos] in back and pos > back[self.span_of[pos]][-1]:
                continue  # after the loop's last jump back: runs once, after the loop
            if (
                self.reads[pos]
                or self.writes[pos]
                or pos in self.dyn_reads
                or pos in self.dyn_writes
            ):
                accesses.setdefault(sid, []).append(pos)

        def before_next(t: int, k_t: int, k: int) -> bool:
            """Task k_t of stream t completes in an iteration before loop k (the loop of the
            task it is compared with) starts the next: it happens before every back-edge jump
            of k."""
            col, jumps = self.column(t), back.get(k, ())
            return bool(jumps) and all(reach[b][col] > k_t for b in jumps)

        def started(t: int, p: int, q: int) -> bool:
            """Task q knows stream t began the iteration its task p runs in (t loops itself)."""
            own = self.spans[loop_at[p]]
            return own.stream == t and reach[q][self.column(t)] > own.first

        def home(pos: int) -> int:
            """The position on its loop's stream: a task of an activated stream is where
            the `stream_active` that starts it runs."""
            seen: set[int] = set()
            while self.stream[pos] in self.activated_at and pos not in seen:
                seen.add(pos)
                pos = self.activated_at[self.stream[pos]]
            return pos

        def before_again(p: int, q: int, k: int) -> bool:
            """Task p completes before every jump back of loop k that can run task q again
            after p: those at or after p (when p runs in k) that jump to q or before it. A
            body's streams joined before their While's goto are then ordered against the
            tasks of the Whiles before it on the loop's stream (a sunk loop around them)."""
            hp, hq = home(p), home(q)
            own = loop_at[p] == k
            col = self.column(self.stream[p])
            return all(
                reach[b][col] > self.index[p]
                for b in back.get(k, ())
                if target[b] <= hq and (not own or b >= hp)
            )

        def left(k: int, p: int) -> bool:
            """Task p, of another loop, knows loop k's stream passed its end: every iteration
            of k is over (two Whiles one after the other, a body's streams in the second)."""
            span = self.spans[k]
            return loop_at[p] != k and reach[p][self.column(span.stream)] > span.last

        for t, ps in accesses.items():
            for s, qs in accesses.items():
                if s == t:
                    continue
                by_loop: dict[int, list[int]] = {}
                for q in qs:
                    by_loop.setdefault(loop_at[q], []).append(q)
                for k, group in by_loop.items():
                    late = [p for p in ps if not before_next(t, self.index[p], k)]
                    for p in late:  # few: a loop's own switch, reading the loop index
                        for q in group:
                            if (
                                self._touch_same(p, q)
                                and not started(t, p, q)
                                and not left(k, p)
                                and not before_again(p, q, k)
                            ):
                                return self._no_barrier()
        records: dict[int, list[int]] = {}
        waits: dict[int, list[int]] = {}
        for pos, effects in enumerate(self.effects):
            for event in effects.records:
                records.setdefault(event, []).append(pos)
            for event in effects.waits:
                waits.setdefault(event, []).append(pos)
        for event, rs in records.items():
            ws = waits.get(event, [])
            if len(rs) == 1 and len(ws) == 1 and rs[0] in self._looped_syncing:
                r, w = rs[0], ws[0]
                t = self.stream[w]
                if t != self.stream[r] and not (
                    before_next(t, self.index[w], loop_at[r])
                    or started(t, w, r)
                    or before_again(w, r, loop_at[r])
                ):
                    return self._no_barrier()
        return True

    def _touch_same(self, p: int, q: int) -> bool:
        """Tasks p and q access common bytes (or a common dynamic slot), one of them writing."""

        def ranges(pos: int, out: bool) -> list[tuple[int, int]]:
            return [
                (b.offset_value, b.offset_value + b.nbytes)
                for b in (self.writes[pos] if out else self.reads[pos])
            ]

        def meet(xs: list[tuple[int, int]], ys: list[tuple[int, int]]) -> bool:
            return any(a < d and c < b for a, b in xs for c, d in ys)

        pw, qw = ranges(p, True), ranges(q, True)
        if meet(pw, qw + ranges(q, False)) or meet(qw, ranges(p, False)):
            return True
        pd = set(self.dyn_writes.get(p, ()))
        qd = set(self.dyn_writes.get(q, ()))
        return bool(
            pd & (qd | set(self.dyn_reads.get(q, ()))) or qd & set(self.dyn_reads.get(p, ()))
        )

    def _no_barrier(self) -> bool:
        self.iteration_clocks, self._reach = False, None
        return False

    def reach(self) -> list[list[int]]:
        """Per task, per stream (in `stream_ids` order): tasks known complete when it starts."""
        if self._reach is None:
            self._reach = self._vector_clocks()
        return self._reach

    def column(self, sid: int) -> int:
        return self.stream_ids.index(sid)

    def _vector_clocks(self) -> list[list[int]]:
        ids = self.stream_ids
        col = {s: i for i, s in enumerate(ids)}
        records: dict[int, list[int]] = {}
        for pos, effects in enumerate(self.effects):
            for event in effects.records:
                records.setdefault(event, []).append(pos)
        looped: set[int] = set()
        if self.iteration_clocks:
            waits: dict[int, list[int]] = {}
            for pos, effects in enumerate(self.effects):
                for event in effects.waits:
                    waits.setdefault(event, []).append(pos)
            looped = {
                event
                for event, ps in records.items()
                if len(ps) == 1
                and len(waits.get(event, ())) == 1
                and self.in_loop(ps[0]) is not None
                and self.in_loop(waits[event][0]) is not None
            }
        syncing = {
            event: ps[0]
            for event, ps in records.items()
            if len(ps) == 1 and (self.in_loop(ps[0]) is None or event in looped)
        }
        self._looped_syncing = {records[event][0] for event in looped}
        reach: list[list[int]] = [[] for _ in self.tasks]
        record_clock: dict[int, list[int]] = {}
        known = {s: [0] * len(ids) for s in ids}
        pointer = dict.fromkeys(ids, 0)
        activation = self.activated_at
        positions_of = self.stream_tasks
        remaining = len(self.tasks)
        while remaining:
            progressed = False
            for s in ids:
                positions = self.stream_tasks[s]
                clock = known[s]
                i = pointer[s]
                while i < len(positions):
                    pos = positions[i]
                    effects = self.effects[pos]
                    if i == 0 and s in activation:
                        if activation[s] not in record_clock:
                            break
                        other = record_clock[activation[s]]
                        clock = [max(a, b) for a, b in zip(clock, other, strict=True)]
                    waited = [syncing[e] for e in effects.waits if e in syncing]
                    if any(record not in record_clock for record in waited):
                        break
                    for record in waited:
                        other = record_clock[record]
                        clock = [max(a, b) for a, b in zip(clock, other, strict=True)]
                    clock[col[s]] = i
                    reach[pos] = clock[:]
                    clock[col[s]] = i + 1
                    if effects.records or effects.activates:
                        record_clock[pos] = clock[:]
                    i += 1
                    remaining -= 1
                    progressed = True
                known[s] = clock
                pointer[s] = i
            if not progressed:
                blocked = ", ".join(
                    f"stream {s} waits for its stream_active"
                    if pointer[s] == 0 and s in activation
                    else f"stream {s} waits on event {self._event(positions_of[s][pointer[s]])}"
                    for s in ids
                    if pointer[s] < len(self.stream_tasks[s])
                )
                raise AnalysisError(f"the model deadlocks: {blocked}")
        return reach

    def _event(self, pos: int) -> int:
        effects = self.effects[pos]
        return next(iter((*effects.waits, *effects.records)), -1)

    def happens_before(self, a: int, b: int) -> bool:
        """Task a completes before task b starts, under every schedule."""
        if self.stream[a] == self.stream[b]:
            return self.index[a] < self.index[b]
        return self.index[a] < self.reach()[b][self.column(self.stream[a])]
