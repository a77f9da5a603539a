"""`ge-verify-model`: proves that no two live feature tensors of an `ascend.model` share bytes.

The interpreter (and GE's runtime) trust the memory plan: a task writing bytes another tensor
still needs changes the numbers without any error. The dialect verifier checks what one walk
over the model can (bounds, the weight region, inputs and outputs that overlap, a task buffer
straddling an input or output); whether two tensors that share bytes are ever live at once needs
the liveness of `analysis.liveness`, which lives in the pass layer (it is built on `TaskGraph`),
so this check is a pass, and the tools run it when they load a model (`ge-opt` before its
passes, `ge-run` and the Session before running, `verify_models`).

A planned model names a tensor only by its buffer and reuses buffers, so the tensors are
recovered from the accesses: per buffer `(offset, type)`, a write after a read of the current
value starts a new value, unless it lies in a loop and the value is loop-carried (it must
survive every iteration). Writes with no read between them are one value (each branch of a case
writes the case's result, read after the case); a value a branch also reads before the case
ends is taken to end there (the planner never shares a case result with a branch's tensors).
A read in a branch sees the bytes as the switch left them, not as an earlier branch in
program order left them (only one branch runs: `_CasePaths`).

Label loops (a sunk model, `ge-sink-loop`): a value each iteration makes anew (written first,
inside the loop, by a task that happens before its other accesses, and used nowhere else) needs
bytes only within an iteration; any other value in a loop is live across the back edge, so for
the whole loop, on every stream of it. Loops on several streams are analysed on the clocks of
one iteration when the model proves a barrier between iterations (`TaskGraph.barrier_loops`,
the done/go events ge-sink-loop writes), and refused without one. Values are then the
planner's blocks: `liveness.conflicts` gives the pairs that may be live at once (case branches
exclusive, streams ordered by events), and any such pair whose bytes intersect is an error,
except a kernel that reads one value for the last time and writes the other (in place: a kernel
reads all inputs before it writes). Dynamic slots (`dyn[k]`) are placed at run time and share
no arena bytes; the arena values a dynamic kernel reads are checked as any other.

Reads across streams: the write that last set a read's bytes (program order) must happen before
the read under every schedule (same stream, or ordered by events and stream activations), unless
the two lie in different branches of one case; otherwise the value read depends on the
interleaving, which neither GE's runtime nor `--schedule-seed` would reliably show.

Weights: a task reads a weight whole or as its prefix, in its element type (a read across two
weights or into the padding after one takes bytes no weight holds).

Models straight from `ge-compile` (sunk or not) pass. Near-linear in the tasks: the sweeps of
liveness test each interval against the intervals open at its start as one bit mask of the
blocks whose bytes meet it (`liveness.sharing_conflicts`), so neither the pairs live at once nor
the pairs sharing bytes (both quadratic on a planned model) are listed.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException, VerifyException

from gedialects.ascend import VAR_BASE, BufferAttr, ModelOp, TaskOp, WeightOp
from gedialects.base import paused_gc
from gedialects.passes.analysis.liveness import Block, Tensor, merge_blocks, sharing_conflicts
from gedialects.passes.analysis.task_graph import (
    AnalysisError,
    Span,
    TaskGraph,
    TypeSizes,
)

_NAME = "ge-verify-model"


@dataclass(eq=False)
class _Value:
    """One value held by a buffer: the positions of its accesses, program order."""

    buffer: BufferAttr
    key: tuple[int, int]
    nbytes: int
    positions: list[int]
    read_since_write: bool = False
    writer: int = -1
    reads_at: set[int] | None = None
    writes_at: set[int] | None = None


@dataclass
class _LastWrites:
    """Per byte of the arena, the range of the write that last set it (program order):
    disjoint segments `[starts[k], ends[k])` each with its write `(start, end, task)`."""

    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    writes: list[tuple[int, int, int]] = field(default_factory=list)

    def write(self, start: int, end: int, pos: int) -> None:
        lo = bisect_right(self.ends, start)
        hi = bisect_left(self.starts, end)
        keep_s: list[int] = []
        keep_e: list[int] = []
        keep_w: list[tuple[int, int, int]] = []
        if lo < hi and self.starts[lo] < start:  # the left rest of a cut segment
            keep_s.append(self.starts[lo])
            keep_e.append(start)
            keep_w.append(self.writes[lo])
        keep_s.append(start)
        keep_e.append(end)
        keep_w.append((start, end, pos))
        if lo < hi and self.ends[hi - 1] > end:
            keep_s.append(end)
            keep_e.append(self.ends[hi - 1])
            keep_w.append(self.writes[hi - 1])
        self.starts[lo:hi], self.ends[lo:hi], self.writes[lo:hi] = keep_s, keep_e, keep_w

    def unwritten(self, start: int, end: int) -> tuple[int, int] | None:
        """The first run of bytes of `[start, end)` that no earlier write set."""
        at = start
        for k in range(bisect_right(self.ends, start), bisect_left(self.starts, end)):
            if self.starts[k] > at:
                return at, self.starts[k]
            at = max(at, self.ends[k])
        return (at, end) if at < end else None

    def writers(self, start: int, end: int) -> Iterator[int]:
        """The tasks whose writes last set some byte of `[start, end)`."""
        for k in range(bisect_right(self.ends, start), bisect_left(self.starts, end)):
            yield self.writes[k][2]

    def copy(self) -> _LastWrites:
        return _LastWrites(list(self.starts), list(self.ends), list(self.writes))

    def mismatch(self, start: int, end: int) -> tuple[int, int, int] | None:
        """A last write that `[start, end)` neither coincides with nor is a prefix of."""
        lo = bisect_right(self.ends, start)
        hi = bisect_left(self.starts, end)
        for k in range(lo, hi):
            ws, we, _ = self.writes[k]
            if ws != start or we < end:
                return self.writes[k]
        return None


class _Weights:
    """The weights of a model by offset: a task may read a weight whole or as its prefix, in
    the weight's element type (GE binds a kernel's constant input to one WeightData). A read
    that straddles two weights, runs past its weight's end or lies in the padding between
    weights takes bytes no weight holds (or another weight's bytes) and gives other numbers
    without any error."""

    def __init__(self, model: ModelOp, sizes: TypeSizes) -> None:
        self.ops: list[WeightOp] = sorted(model.weights(), key=lambda w: w.buffer.offset_value)
        self.starts = [w.buffer.offset_value for w in self.ops]
        self.ends = [w.buffer.offset_value + sizes.nbytes(w.buffer.type) for w in self.ops]

    def check_read(self, task: TaskOp, buffer: BufferAttr, nbytes: int, bad: list[str]) -> None:
        """The task is described only for a message (printing ops is slow)."""
        start, end = buffer.offset_value, buffer.offset_value + nbytes
        k = bisect_right(self.starts, start) - 1
        if k >= 0 and self.starts[k] == start and end <= self.ends[k]:
            weight = self.ops[k]
            if weight.buffer.type.element_type == buffer.type.element_type:
                return
        read = f"{task.describe()} reads {buffer} : {buffer.type} (bytes [{start}, {end}))"
        if k >= 0 and self.starts[k] == start and end <= self.ends[k]:
            weight = self.ops[k]
            bad.append(
                f"{read}, the bytes of {weight.describe()} : {weight.buffer.type} read as "
                f"{buffer.type.element_type}; a task reads a weight in its own element type"
            )
            return
        # the weight holding the first byte, else the first one after it that the read touches
        held = k if k >= 0 and start < self.ends[k] else k + 1
        if held < len(self.ops) and self.starts[held] < end:
            weight = self.ops[held]
            lo, hi = max(start, self.starts[held]), min(end, self.ends[held])
            bad.append(
                f"{read}, which straddles {weight.describe()} : {weight.buffer.type} (bytes "
                f"[{self.starts[held]}, {self.ends[held]})), sharing bytes [{lo}, {hi}); a task "
                "may only read a weight whole or as its prefix"
            )
        else:
            bad.append(f"{read}, bytes of the weight region that no 'ascend.weight' holds")


def _values(model: ModelOp, graph: TaskGraph, bad: list[str]) -> list[_Value]:
    """The feature values of `model`'s planned buffers (module docstring).

    A read must take bytes one value holds: its range must coincide with the last write of
    those bytes or be a prefix of it (a view, as of an I/O buffer); one that straddles a
    written value or covers only its tail reads bytes no single tensor holds (the first such
    read goes to `bad`; two live values sharing bytes is the more telling error)."""
    weight_size = model.weight_size.value.data
    from gedialects.passes.plan_memory import io_buffers  # GetNext sink's buffers included

    io_at: dict[int, int] = {}
    for buffer in io_buffers(model):
        offset = buffer.offset_value
        io_at[offset] = max(io_at.get(offset, 0), buffer.nbytes)
    sizes = TypeSizes()
    current: dict[tuple[int, int], _Value] = {}
    values: list[_Value] = []
    last = _LastWrites()
    paths = _CasePaths(graph)
    weights = _Weights(model, sizes)
    multi = graph.multi_stream
    for pos in range(len(graph.tasks)):
        last = paths.enter(pos, last)
        for written, buffers in ((False, graph.reads[pos]), (True, graph.writes[pos])):
            for buffer in buffers:
                offset = buffer.offset_value
                nbytes = sizes.nbytes(buffer.type)
                if nbytes and offset < weight_size and not written and not bad:
                    weights.check_read(graph.tasks[pos], buffer, nbytes, bad)
                if offset < weight_size or nbytes == 0 or nbytes <= io_at.get(offset, -1):
                    continue  # weights are read-only; I/O views are checked by the dialect
                if offset >= VAR_BASE:
                    continue  # a variable holds the session's value from the start of a run
                if written:
                    last.write(offset, offset + nbytes, pos)
                    paths.write(offset, offset + nbytes, pos)
                else:
                    other = last.mismatch(offset, offset + nbytes)
                    if other is not None and not bad:
                        ws, we, by = other
                        bad.append(
                            f"{graph.tasks[pos].describe()} reads {buffer} : {buffer.type} "
                            f"(bytes [{offset}, {offset + nbytes})), bytes no single value "
                            f"holds: it straddles or only partly covers bytes [{ws}, {we}) "
                            f"written by {graph.tasks[by].describe()}"
                        )
                    racer = (
                        None
                        if bad or not multi
                        else _unordered(graph, last, offset, offset + nbytes, pos)
                    )
                    if racer is not None:
                        bad.append(
                            f"{graph.tasks[pos].describe()} reads {buffer} : {buffer.type} "
                            f"(bytes [{offset}, {offset + nbytes})) written by "
                            f"{graph.tasks[racer].describe()} on stream {graph.stream[racer]}, "
                            "but no event orders the write before the read: which value it "
                            "reads depends on the schedule"
                        )
                    gap = None if bad else last.unwritten(offset, offset + nbytes)
                    if gap is not None:
                        bad.append(
                            f"{graph.tasks[pos].describe()} reads {buffer} : {buffer.type} "
                            f"(bytes [{offset}, {offset + nbytes})), but no earlier task writes "
                            f"bytes [{gap[0]}, {gap[1]}) (uninitialised memory)"
                        )
                key = (offset, sizes.canon(buffer.type))
                value = current.get(key)
                if value is not None and written and value.read_since_write:
                    loop = graph.in_loop(pos)
                    if (
                        loop is None
                        or _iteration_local(graph, value, loop)
                        or value.positions[-1] < loop.first_pos
                    ):
                        # outside loops, made anew each iteration, or a value before the
                        # loop that it never touched (a label loop inside the model: a
                        # While after an If whose cond had these bytes)
                        value = None
                elif value is not None and written and _overwrites_unread(graph, value, pos):
                    value = None
                if value is None:
                    value = _Value(buffer, key, nbytes, [], reads_at=set())
                    value.writes_at = set()
                    current[key] = value
                    values.append(value)
                if not value.positions or value.positions[-1] != pos:
                    value.positions.append(pos)
                assert value.reads_at is not None and value.writes_at is not None
                if written:
                    value.writes_at.add(pos)
                    value.read_since_write = False
                    if value.writer < 0:
                        value.writer = pos
                else:
                    value.reads_at.add(pos)
                    value.read_since_write = True
    return values


class _CasePaths:
    """The last writes along the path a read lies on, for the cases of `TaskGraph.cases`.

    Only one branch of a case runs, so a branch starts from the bytes as they were at the
    switch, not from what an earlier branch (before it in program order) left; after the
    case, the bytes are those the branches together may have set (every branch's writes, in
    program order, over the switch's state). Without this, a branch reading its case input in
    bytes that an earlier branch reused once that input died there (the planner's exclusive
    branches) would seem to read the other branch's value."""

    def __init__(self, graph: TaskGraph) -> None:
        self.heads = {case.head: c for c, case in enumerate(graph.cases)}
        self.starts = {
            start: c for c, case in enumerate(graph.cases) for start, _ in case.branches[1:]
        }
        self.tails = {case.tail: c for c, case in enumerate(graph.cases)}
        self.at_switch: dict[int, _LastWrites] = {}
        self.joined: dict[int, _LastWrites] = {}
        """Per open case: the state after it so far (all its branches' writes)."""

    def enter(self, pos: int, last: _LastWrites) -> _LastWrites:
        """The path state at `pos` (before its accesses), given the state after `pos - 1`."""
        c = self.tails.get(pos)
        if c is not None and c in self.joined:
            del self.at_switch[c]
            last = self.joined.pop(c)
        c = self.heads.get(pos)
        if c is not None:
            self.at_switch[c] = last.copy()
            self.joined[c] = last.copy()
        c = self.starts.get(pos)
        if c is not None and c in self.at_switch:
            last = self.at_switch[c].copy()
        return last

    def write(self, start: int, end: int, pos: int) -> None:
        for joined in self.joined.values():
            joined.write(start, end, pos)


def _unordered(graph: TaskGraph, last: _LastWrites, start: int, end: int, pos: int) -> int | None:
    """A task whose write last set bytes that the read at `pos` takes but that may run after
    it: on another stream, with no event (or stream activation) ordering it first. Writes in
    another branch of a case the read is in never run with it (only one branch runs)."""
    for by in last.writers(start, end):
        if by == pos or graph.stream[by] == graph.stream[pos]:
            continue
        if _exclusive(graph, by, pos) or graph.happens_before(by, pos):
            continue
        return by
    return None


def _exclusive(graph: TaskGraph, a: int, b: int) -> bool:
    """Whether `a` and `b` lie in different branches of one case."""
    for c in {graph.case_of.get(a, -1), graph.case_of.get(b, -1)} - {-1}:
        while c >= 0:
            case = graph.cases[c]
            i, j = case.branch_of(a), case.branch_of(b)
            if i >= 0 and j >= 0 and i != j:
                return True
            c = case.parent
    return False


def _overwrites_unread(graph: TaskGraph, value: _Value, pos: int) -> bool:
    """Whether the write at `pos` ends `value`, which no task read since its last write: that
    write was a dead store (an output nothing reads, such as LayerNorm's mean) when it happens
    before `pos` on the same path. Writes in different branches of one case are one value (each
    branch writes the case's result); in loops and between unordered streams they stay one
    value too (a conservative live range)."""
    last = value.positions[-1]
    if last == pos or graph.in_loop(pos) is not None or graph.in_loop(last) is not None:
        return False
    return not _exclusive(graph, last, pos) and graph.happens_before(last, pos)


def _iteration_local(graph: TaskGraph, value: _Value, loop: Span | None) -> bool:
    """Whether `value` is made anew by each iteration of `loop`: written first, inside it, by a
    task that happens before its every other access, and never used outside it. It then needs
    no bytes across iterations (a sunk loop runs the whole model per iteration). Under a
    barrier (`TaskGraph.barrier_loops`) the looping streams' loops are one loop and the value
    may be used on several of them; otherwise it stays inside one loop span."""
    if loop is None:
        return False
    first = value.positions[0]
    assert value.reads_at is not None
    if value.writer != first or first in value.reads_at:
        return False
    if not graph.iteration_clocks:
        return all(graph.in_loop(p) is loop for p in value.positions)
    return all(
        graph.in_loop(p) is not None and (p == first or graph.happens_before(first, p))
        for p in value.positions
    )


def _in_place(graph: TaskGraph, a: _Value, b: _Value) -> bool:
    """`a` ends at the task where `b` begins, reading `a` and writing `b` there, and every
    other access of `a` happens before it and of `b` after it."""
    assert a.reads_at is not None and a.writes_at is not None and b.writes_at is not None
    t = a.positions[-1]
    if t != b.positions[0] or t not in b.writes_at or t in a.writes_at or t not in a.reads_at:
        return False
    loop = graph.in_loop(t)
    if loop is not None and not (
        _iteration_local(graph, a, loop) and _iteration_local(graph, b, loop)
    ):
        return False  # a loop-carried value lives over the whole loop: no task ends it
    before = all(p == t or graph.happens_before(p, t) for p in a.positions)
    return before and all(p == t or graph.happens_before(t, p) for p in b.positions)


def _describe(graph: TaskGraph, value: _Value) -> str:
    where = (
        f"written by {graph.tasks[value.writer].describe()}"
        if value.writer >= 0
        else "written by no task"
    )
    return f"{value.buffer} : {value.buffer.type} ({where})"


def check_memory(model: ModelOp) -> None:
    """VerifyException naming two tensors that share bytes while both may be live."""
    here = f"'ascend.model' @{model.sym_name.data}"
    with paused_gc():
        try:
            graph = TaskGraph.of(model)
        except AnalysisError as e:
            raise VerifyException(f"{here}: {e}") from None
        bad: list[str] = []
        if not graph.barrier_loops():
            _refuse_unsynchronised_loops(here, graph)
        values = _values(model, graph, bad)
        spans = [(v.key[0], v.key[0] + v.nbytes - 1, i) for i, v in enumerate(values)]
        involved = _sharing(spans)
        if involved:
            _check_pairs(here, graph, values, involved, spans)
        if bad:
            raise VerifyException(f"{here}: {bad[0]}")


def _refuse_unsynchronised_loops(here: str, graph: TaskGraph) -> None:
    """Loops that touch memory on two streams with no barrier between iterations: one stream
    may run iteration k+1 while another still runs iteration k, and which of a value's
    writes a read sees is then unknown (events inside such loops order nothing), so no plan
    can be proven; `ge-sink-loop` ends every iteration with done/go events instead."""
    streams: dict[int, int] = {}
    for pos in range(len(graph.tasks)):
        if graph.in_loop(pos) is not None and (
            graph.reads[pos] or graph.writes[pos] or pos in graph.dyn_writes
        ):
            streams.setdefault(graph.stream[pos], pos)
    if len(streams) > 1:
        (s, a), (t, b) = sorted(streams.items())[:2]
        raise VerifyException(
            f"{here}: the label loops of streams {s} and {t} access memory "
            f"({graph.tasks[a].describe()}, {graph.tasks[b].describe()}) without a barrier "
            "between iterations (every access of an iteration must happen before every "
            "stream jumps back, as the done/go events of ge-sink-loop make it)"
        )


def _sharing(spans: list[tuple[int, int, int]]) -> list[int]:
    """The ids of the closed intervals `(lo, hi, id)` that intersect another, ascending: sorted
    by `lo`, one intersects an earlier one iff the largest `hi` before it reaches its `lo`, and
    a later one iff the next `lo` is at most its `hi` (no pairs listed: reused buffers make
    them quadratic in the tasks)."""
    ordered = sorted(spans)
    out: list[int] = []
    reach = -1
    for k, (lo, hi, ident) in enumerate(ordered):
        if reach >= lo or (k + 1 < len(ordered) and ordered[k + 1][0] <= hi):
            out.append(ident)
        reach = max(reach, hi)
    return sorted(out)


def _loop_groups(graph: TaskGraph) -> dict[int, tuple[int, int]]:
    """Per loop span (by its first position): the program range of the loops it overlaps.
    The loops of several streams that `ge-sink-loop` writes interleave and are one loop; label
    loops one after another on a stream (two Whiles) are loops of their own."""
    spans = sorted((s.first_pos, s.last_pos) for s in graph.spans if s.loop)
    merged: list[list[int]] = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    groups: dict[int, tuple[int, int]] = {}
    for lo, _ in spans:
        for a, b in merged:
            if a <= lo <= b:
                groups[lo] = (a, b)
    return groups


def _check_pairs(
    here: str,
    graph: TaskGraph,
    values: list[_Value],
    involved: list[int],
    spans: list[tuple[int, int, int]],
) -> None:
    """VerifyException for the first pair of values that share bytes while both may be live:
    the pairs that may be live at once (`liveness.conflicts`) and share bytes come from
    `liveness.sharing_conflicts` (the same sweep lines, tested against the bytes as bit masks,
    without building the dense conflict graph); the first is the one the byte sweep
    (`overlapping`) would list first, so the message does not depend on the order of the search."""
    tensors = [
        Tensor(values[i].key, values[i].buffer, values[i].nbytes, values[i].positions)
        for i in involved
    ]
    local = {
        id(t)
        for t, i in zip(tensors, involved, strict=True)
        if _iteration_local(graph, values[i], graph.in_loop(values[i].positions[0]))
    }
    groups = _loop_groups(graph)
    if groups:
        # a value live across a back edge is live for the whole loop, on every stream of it
        for t in tensors:
            if id(t) in local:
                continue
            bounds: set[int] = set()
            for p in t.positions:
                loop = graph.in_loop(p)
                if loop is not None:
                    bounds.update(groups[loop.first_pos])
            if bounds:
                t.positions = sorted(bounds.union(t.positions))
    blocks: list[Block] = merge_blocks([t for t in tensors if id(t) not in local], [], graph)
    for t in tensors:
        if id(t) in local:  # no loop extension: see `_iteration_local`
            streams = frozenset(graph.stream[p] for p in t.positions)
            blocks.append(Block([t], t.nbytes, t.positions, streams))
    block_of = {id(b.tensors[0]): k for k, b in enumerate(blocks)}
    index = [block_of[id(t)] for t in tensors]
    value_of = {k: involved[w] for w, k in enumerate(index)}
    order = [value_of[k] for k in range(len(blocks))]
    starts = [values[v].key[0] for v in order]
    ends = [values[v].key[0] + values[v].nbytes for v in order]
    try:
        found = sharing_conflicts(graph, blocks, starts, ends)
    except AnalysisError as e:
        raise VerifyException(f"{here}: {e}") from None
    candidates: list[tuple[int, int]] = []
    for k, m in found:
        i, j = sorted((value_of[k], value_of[m]), key=lambda v: spans[v])
        a, b = values[i], values[j]
        if _in_place(graph, a, b) or _in_place(graph, b, a):
            continue
        candidates.append((i, j))
    if candidates:
        i, j = min(candidates)
        a, b = values[i], values[j]
        first, second = sorted((a, b), key=lambda v: v.positions[0])
        lo = max(first.key[0], second.key[0])
        hi = min(first.key[0] + first.nbytes, second.key[0] + second.nbytes)
        raise VerifyException(
            f"{here}: {_describe(graph, second)} overwrites bytes [{lo}, {hi}) of "
            f"{_describe(graph, first)} while that tensor may still be read"
        )


def verify_models(module: ModuleOp) -> None:
    """`check_memory` on every `ascend.model` of `module` (the tools' load-time check; models
    are top-level ops, so a graph module costs one look at each of its top-level ops)."""
    for op in module.ops:
        if isinstance(op, ModelOp):
            check_memory(op)


@dataclass(frozen=True)
class VerifyModelPass(ModulePass):
    """Proves the memory plan of each `ascend.model`: no two tensors that may be live at once
    share bytes (module docstring). `ge-opt`, `ge-run` and the Session run the same check when
    they load a model; as a pass it checks a model built in a pipeline."""

    name = "ge-verify-model"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            verify_models(op)
        except VerifyException as e:
            raise PassFailedException(f"{_NAME}: {e}") from None
