"""Stream assignment and event planning on plain data (the analysis behind `ge-assign-streams`).

Nodes are the units a stream runs: one kernel or memcpy task, or a whole control span (a case's
switch, branches and labels stay together on one stream, as GE keeps control flow on the
stream of its switch). Their order is the model's program order, which is a valid sequential
schedule; `dependencies` derives the edges any other schedule must respect from the buffers:
read-after-write, and write-after-read / write-after-write, which appear once memory is reused.

`assign_streams` follows GE's logical stream passes: nodes with a `_stream_label` share that
label's stream (AssignByLabelPass); engines never share a stream (IndependentStreamPass); the
rest is by dependency (AssignByDependencyPass), generalised to list scheduling with the cost
model: a node continues the stream on which it can start first, a predecessor's stream when it
is that stream's last node (no event needed), or opens a new stream while `max_streams` allows.
`best_assignment` runs a few variants of that rule and keeps the plan whose simulated makespan
is smallest.

`plan_events` inserts one event per cross-stream dependency that the consumer's stream does not
already know to be complete, tracked with per-stream vector clocks: of several sends from one
stream only the last is waited for (GE's OptimizeByRecvEvents), and a wait implied by an earlier
wait through transitive ordering is dropped (OptimizeBySendEvents). `best_sync` turns those
events into record and wait tasks (`SyncPlan`): with or without fork relays, waits sorted by
record time, whichever `simulate` finds faster.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

import numpy as np

from gedialects.passes.analysis import PlanError
from gedialects.passes.analysis.task_graph import TaskGraph, TypeSizes


@dataclass(slots=True)
class Node:
    """Tasks (global positions) run as one unit on one stream (slots: a model of 100k bench
    nodes has as many, read field by field by every stage of the plan)."""

    tasks: list[int]
    engine: str | None
    """None: an attached node (memcpy, control without kernels) that follows its producers."""
    label: str | None = None
    duration: float = 0.0
    pinned: int | None = None
    """A stream the node must run on (a branch's join on the branch's switch stream)."""


def dependencies(
    graph: TaskGraph, nodes: list[Node], weight_size: int, sizes: TypeSizes
) -> list[set[int]]:
    """Per node, the earlier nodes it must follow because of the bytes they touch.

    The arena is cut into atoms at every buffer boundary, so overlapping buffers of a reused
    plan are compared byte-exactly. A dynamic slot is one atom of its own, past the arena.
    Per atom, in node order (a node's reads before its writes): a read follows the last
    earlier write, a write the last earlier write and the reads since; found for every
    access at once by sorting the (atom, node) pairs, O(P log P) in the pairs.
    """
    owner, lo, hi, write = _accesses(graph, nodes, weight_size, sizes)
    preds: list[set[int]] = [set() for _ in nodes]
    if not owner:
        return preds
    # the atoms: offsets come mostly in order, where a stable sort (timsort) is fastest
    cuts = np.sort(np.array(lo + hi, np.int64), kind="stable")
    cuts = cuts[np.r_[True, cuts[1:] != cuts[:-1]]]
    first = np.searchsorted(cuts, np.array(lo, np.int64))
    width = np.searchsorted(cuts, np.array(hi, np.int64)) - first
    # one row per (access, atom): most buffers are one atom (no plan reuses memory yet)
    rows = np.repeat(np.arange(len(owner)), width)
    atom = first[rows] + np.arange(len(rows)) - np.repeat(np.cumsum(width) - width, width)
    node = np.array(owner, np.int64)[rows]
    is_write = np.array(write, bool)[rows]
    order = np.lexsort((is_write, node, atom))
    atom, node, is_write = atom[order], node[order], is_write[order]
    # each row's atom as the rows [group_start, group_end)
    starts = np.flatnonzero(np.r_[True, atom[1:] != atom[:-1]])
    counts = np.diff(np.r_[starts, len(atom)])
    group_start = np.repeat(starts, counts)
    group_end = group_start + np.repeat(counts, counts)
    # the last write before each row, and the first write after each read, in its atom
    at = np.arange(len(atom))
    before = np.r_[-1, np.maximum.accumulate(np.where(is_write, at, -1))[:-1]]
    has_before = before >= group_start
    after = np.minimum.accumulate(np.where(is_write, at, len(atom))[::-1])[::-1]
    has_after = ~is_write & (after < group_end)
    src = np.concatenate((node[before[has_before]], node[has_after]))
    dst = np.concatenate((node[has_before], node[after[has_after]]))
    keep = src != dst
    for d, p in zip(dst[keep].tolist(), src[keep].tolist(), strict=True):
        preds[d].add(p)
    return preds


def _accesses(
    graph: TaskGraph, nodes: list[Node], weight_size: int, sizes: TypeSizes
) -> tuple[list[int], list[int], list[int], list[bool]]:
    """Per access of a node's tasks (weights aside): its node, byte range and whether it
    writes; a dynamic slot k is the range [-2k-2, -2k-1)."""
    by_id = sizes.by_id  # `sizes.nbytes` without its two calls per buffer
    dynamic = graph.dyn_reads.keys() | graph.dyn_writes.keys()
    owner: list[int] = []
    lo: list[int] = []
    hi: list[int] = []
    write: list[bool] = []
    for n, node in enumerate(nodes):
        for pos in node.tasks:
            for writes, buffers in ((False, graph.reads[pos]), (True, graph.writes[pos])):
                for b in buffers:
                    start = b.offset.data
                    if start < weight_size:
                        continue
                    t = b.type
                    info = by_id.get(id(t))
                    end = start + (sizes(t) if info is None else info)[3]
                    if end > start:
                        owner.append(n)
                        lo.append(start)
                        hi.append(end)
                        write.append(writes)
            if pos not in dynamic:
                continue
            for writes, slots in ((False, graph.dyn_reads), (True, graph.dyn_writes)):
                for slot in slots.get(pos, ()):
                    owner.append(n)
                    lo.append(-2 * slot - 2)
                    hi.append(-2 * slot - 1)
                    write.append(writes)
    return owner, lo, hi, write


@dataclass(frozen=True)
class Strategy:
    """Knobs of the list scheduler; `best_assignment` tries several and keeps the fastest."""

    reserve: bool = True
    """Leave a stream to its last node's critical successor (HEFT-like)."""
    crossing_us: float = 0.0
    """Cost of an engine crossing when ranking successors by their longest path to the end."""
    open_us: float = 0.0
    """A new stream must let the node start this much earlier than the best existing one."""


STRATEGIES: tuple[Strategy, ...] = (
    Strategy(),
    Strategy(crossing_us=1.0, open_us=1.0),
    Strategy(reserve=False, open_us=1.0),
    Strategy(reserve=False, crossing_us=1.0),
)
"""Tried in this order; on equal simulated makespans the earlier one wins."""


@dataclass
class StreamAssignment:
    stream_of: list[int]
    engines: list[str]
    """Per stream id, the engine it was opened for."""
    finish: list[float] = field(default_factory=list)
    """Per node, its estimated finish time (us) under the cost model."""

    def verify(self) -> None:
        """Raises PlanError when a node runs on a stream that was never opened or the finish
        times do not match the nodes."""
        for n, s in enumerate(self.stream_of):
            if not 0 <= s < len(self.engines):
                raise PlanError(
                    f"stream assignment: node {n} runs on stream {s}, but only "
                    f"{len(self.engines)} streams are open"
                )
        if self.finish and len(self.finish) != len(self.stream_of):
            raise PlanError(
                f"stream assignment: {len(self.finish)} finish times for "
                f"{len(self.stream_of)} nodes"
            )

    def dump(self) -> str:
        """One line per stream: its engine and its nodes in order."""
        nodes: list[list[int]] = [[] for _ in self.engines]
        for n, s in enumerate(self.stream_of):
            if 0 <= s < len(nodes):
                nodes[s].append(n)
        lines = [f"stream assignment: {len(self.stream_of)} nodes on {len(self.engines)} streams"]
        for s, engine in enumerate(self.engines):
            lines.append(f"  stream {s} [{engine}]: nodes {nodes[s]}")
        return "\n".join(lines)


def assign_streams(
    nodes: list[Node],
    preds: list[set[int]],
    *,
    max_streams: int,
    default_engine: str,
    record_us: float,
    wait_us: float,
    strategy: Strategy | None = None,
    initial_engines: tuple[str, ...] = (),
    critical: list[int] | None = None,
) -> StreamAssignment:
    """List scheduling of nodes onto at most `max_streams` streams (see the module docstring);
    streams `0..len(initial_engines)-1` exist from the start, for those engines. `critical`:
    `_critical_successors` for the strategy's `crossing_us`, when the caller has it."""
    strategy = strategy or STRATEGIES[0]
    return assign_streams_each(
        nodes,
        preds,
        (strategy,),
        critical=None if critical is None else {strategy.crossing_us: critical},
        max_streams=max_streams,
        default_engine=default_engine,
        record_us=record_us,
        wait_us=wait_us,
        initial_engines=initial_engines,
    )[0]


class _Streams:
    """The list scheduler's state: the streams opened so far and the nodes placed on them."""

    def __init__(self, count: int) -> None:
        self.stream_of = [0] * count
        self.finish = [0.0] * count
        self.engines: list[str] = []
        self.avail: list[float] = []
        self.tail: list[int] = []
        self.label_stream: dict[str, int] = {}
        self.unlabelled: list[int] = []
        """The streams of no label in id order, and per engine (kept as streams open,
        instead of filtered per node)."""
        self.unlabelled_of: dict[str, list[int]] = {}

    def copy(self) -> _Streams:
        """An independent state equal to this one (a group of strategies splits)."""
        other = _Streams(0)
        other.stream_of, other.finish = self.stream_of[:], self.finish[:]
        other.engines, other.avail, other.tail = self.engines[:], self.avail[:], self.tail[:]
        other.label_stream = dict(self.label_stream)
        other.unlabelled = self.unlabelled[:]
        other.unlabelled_of = {e: s[:] for e, s in self.unlabelled_of.items()}
        return other

    def open(self, engine: str, label: str | None) -> int:
        self.engines.append(engine)
        self.avail.append(0.0)
        self.tail.append(-1)
        s = len(self.engines) - 1
        if label is None:
            self.unlabelled.append(s)
            self.unlabelled_of.setdefault(engine, []).append(s)
        return s


def assign_streams_each(
    nodes: list[Node],
    preds: list[set[int]],
    strategies: Sequence[Strategy],
    *,
    max_streams: int,
    default_engine: str,
    record_us: float,
    wait_us: float,
    initial_engines: tuple[str, ...] = (),
    critical: dict[float, list[int]] | None = None,
) -> list[StreamAssignment]:
    """`assign_streams` for each strategy, in one pass: the strategies that have placed
    every node alike so far share one state and, per node, the work that does not depend on
    the strategy (the producers' arrivals, every candidate stream's start); a group splits
    where its strategies choose differently (on the bench graphs the four strategies are two
    groups from node 372 on). `critical`: `_critical_successors` per crossing cost, as far
    as the caller has them."""
    critical = dict(critical or {})  # strategies of one crossing cost share it
    for strategy in strategies:
        if strategy.reserve and strategy.crossing_us not in critical:
            found = _critical_successors(nodes, preds, strategy.crossing_us)
            # one list for equal ones (the bench graphs': crossings rarely decide), so that
            # the strategies of a group share its free streams per node
            same = next((c for c in critical.values() if c == found), None)
            critical[strategy.crossing_us] = found if same is None else same
    first = _Streams(len(nodes))
    for engine in initial_engines:
        first.open(engine, None)
    specs = [(s.reserve, critical.get(s.crossing_us, []), s.open_us) for s in strategies]
    groups: list[tuple[_Streams, list[int]]] = [(first, list(range(len(strategies))))]
    for n, node in enumerate(nodes):
        ps = preds[n]
        engine, label, pinned = node.engine, node.label, node.pinned
        split: list[tuple[_Streams, list[int]]] = []
        for state, members in groups:
            stream_of, finish, avail, tail = state.stream_of, state.finish, state.avail, state.tail
            if pinned is not None:
                candidates = [pinned]
            elif label is not None:
                stream = state.label_stream.get(label)
                if stream is None:
                    stream = state.label_stream[label] = state.open(engine or default_engine, label)
                candidates = [stream]
            elif engine is not None:  # not copied: no stream opens before their last use
                candidates = state.unlabelled_of.get(engine, [])
            else:
                candidates = state.unlabelled

            # The latest producer per stream, once per node rather than per candidate
            # stream: from another stream it arrives record_us after it ends (max(f) + r is
            # the max of f + r: float addition is monotonic), in order of arrival.
            latest: dict[int, float] = {}
            for p in ps:
                sp, f = stream_of[p], finish[p]
                if f > latest.get(sp, -1.0):
                    latest[sp] = f
            arrivals = (
                sorted(latest.items(), key=itemgetter(1)) if len(latest) > 1 else latest.items()
            )
            # When n could start on each candidate stream: its waits run first (max as
            # comparisons, which pick the same float; the scheduler's innermost loop).
            keys: list[tuple[float, int, int]] = []
            for s in candidates:
                clock = avail[s]
                for sp, f in arrivals:
                    if sp != s:
                        f += record_us
                        clock = (f if f > clock else clock) + wait_us
                own = latest.get(s, 0.0)
                keys.append((own if own > clock else clock, 0 if tail[s] in ps else 1, s))
            opened = len(state.engines)
            can_open = (
                opened < max_streams
                and label is None
                and pinned is None
                and (engine is not None or not opened)
            )
            start_new = 0.0
            if can_open:  # on a new stream: nothing ran there
                clock = 0.0
                for _, f in arrivals:
                    f += record_us
                    clock = (f if f > clock else clock) + wait_us
                start_new = max(clock, 0.0)
            least = min(keys) if keys else None

            choices: list[tuple[float, int]] = []
            """Per member: its start and stream (-1: a new stream, -2: a shared one)."""
            free_of: list[int] | None = None
            free: list[tuple[float, int, int]] = []
            for i in members:
                reserve, successor, open_us = specs[i]
                best = least
                if reserve:
                    # streams whose last node's critical successor is still to come (HEFT)
                    if successor is not free_of:
                        free_of = successor
                        free = [
                            k for k in keys if not (tail[k[2]] >= 0 and successor[tail[k[2]]] > n)
                        ]
                    if len(free) < len(keys) and (can_open or free):
                        best = min(free) if free else None
                if can_open and (best is None or (start_new + open_us, 2) < best[:2]):
                    choices.append((start_new, -1))
                elif best is None:
                    choices.append((0.0, -2))  # at the stream limit, no stream of this engine
                else:
                    choices.append((best[0], best[2]))
            if len(choices) == 1 or choices.count(choices[0]) == len(choices):
                outcomes = [(state, members, choices[0])]
            else:
                by_choice: dict[tuple[float, int], list[int]] = {}
                for i, choice in zip(members, choices, strict=True):
                    by_choice.setdefault(choice, []).append(i)
                states = [state, *(state.copy() for _ in range(len(by_choice) - 1))]
                outcomes = [
                    (placed, agreeing, choice)
                    for placed, (choice, agreeing) in zip(states, by_choice.items(), strict=True)
                ]
            for placed, agreeing, (start, s) in outcomes:
                split.append((placed, agreeing))
                if s == -1:
                    s = placed.open(engine or default_engine, None)
                elif s == -2:
                    # At the stream limit with no stream of this engine: share the least busy.
                    shared = list(placed.unlabelled) or list(range(len(placed.engines)))
                    if not shared:
                        shared = [placed.open(engine or default_engine, None)]
                    s = min(shared, key=lambda s, avail=placed.avail: (avail[s], s))
                    start = _estimate(s, placed.avail, latest, arrivals, record_us, wait_us)
                p_stream_of, p_avail = placed.stream_of, placed.avail
                p_stream_of[n] = s
                placed.finish[n] = p_avail[s] = start + node.duration
                placed.tail[s] = n
                for p in ps:
                    if p_stream_of[p] != s:
                        p_avail[p_stream_of[p]] += record_us  # its record follows the producer
        groups = split
    result: list[StreamAssignment | None] = [None] * len(strategies)
    for state, members in groups:
        for k, i in enumerate(members):  # each its own lists
            if k == 0:
                result[i] = StreamAssignment(state.stream_of, state.engines, state.finish)
            else:
                result[i] = StreamAssignment(state.stream_of[:], state.engines[:], state.finish[:])
    return [r for r in result if r is not None]


def _estimate(
    s: int,
    avail: list[float],
    latest: dict[int, float],
    arrivals: Iterable[tuple[int, float]],
    record_us: float,
    wait_us: float,
) -> float:
    """When a node could start on stream s (len(avail): a new one): its waits run first."""
    clock = avail[s] if s < len(avail) else 0.0
    for sp, f in arrivals:
        if sp != s:
            clock = max(clock, f + record_us) + wait_us
    return max(clock, latest.get(s, 0.0))


def _critical_successors(
    nodes: list[Node], preds: list[set[int]], crossing_us: float = 0.0
) -> list[int]:
    """Per node, its successor on the longest path to the end (-1 if none): the one that
    should continue its stream so that the critical path crosses no event. An edge between
    two engines needs an event whatever the assignment: it costs `crossing_us` on the path."""
    succs: list[list[int]] = [[] for _ in nodes]
    for n, ps in enumerate(preds):
        for p in ps:
            succs[p].append(n)
    level = [0.0] * len(nodes)
    critical = [-1] * len(nodes)
    for n in range(len(nodes) - 1, -1, -1):
        best = -1
        best_level = 0.0
        engine = nodes[n].engine
        for m in succs[n]:
            other = nodes[m].engine
            crossing = crossing_us if engine and other and engine != other else 0.0
            value = level[m] + crossing
            if best < 0 or value > best_level or (value == best_level and m < best):
                best, best_level = m, value
        critical[n] = best
        level[n] = nodes[n].duration + best_level
    return critical


@dataclass
class EventPlan:
    events: list[tuple[int, int]]
    """(producer node, consumer node) pairs that get an event, in consumer order."""
    cross_edges: int
    """Cross-stream dependencies before pruning (GE's InsertSyncEvents count)."""


def plan_events(preds: list[set[int]], stream_of: list[int], streams: int) -> EventPlan:
    count = [0] * streams
    index = [0] * len(preds)
    known: list[list[int]] = [[0] * streams for _ in range(streams)]
    """Per stream, how many tasks of each other stream it knows complete (its own entry is
    stale: `count` has it); a list is never changed once a node shares it."""
    seen: list[list[int]] = [[] for _ in preds]
    """Per node, its stream's `known` when it ended (with itself: `index` + 1)."""
    events: list[tuple[int, int]] = []
    cross = 0
    for n, ps in enumerate(preds):
        s = stream_of[n]
        latest: dict[int, int] = {}
        for p in ps:
            sp = stream_of[p]
            if sp != s:
                cross += 1
                if p > latest.get(sp, -1):
                    latest[sp] = p
        if latest:
            clock = known[s]
            for p in sorted(latest.values(), reverse=True):
                sp = stream_of[p]
                if clock[sp] > index[p]:
                    continue  # implied by an earlier wait of this stream
                events.append((p, n))
                clock = [max(a, b) for a, b in zip(clock, seen[p], strict=True)]
                clock[sp] = index[p] + 1
            known[s] = clock
        index[n] = count[s]
        count[s] += 1
        seen[n] = known[s]
    return EventPlan(events, cross)


@dataclass(slots=True)
class Sync:
    """An `event_record` (record=True) or `event_wait` of `event` on `stream`; never changed
    once built (plans share them; not frozen: a frozen dataclass builds three times slower,
    and a plan of 100k bench nodes builds some 400k)."""

    record: bool
    event: int
    stream: int


RELAYS: tuple[bool, ...] = (False, True)
"""Fork relay modes `best_sync` tries. With relays, a producer records for its first
consumer only; each further consumer's event is recorded by the previous consumer's stream
right after that stream's wait (a chain), so the producer's stream goes on to its own
successor after one record instead of k, at the price of later arrivals down the chain."""


@dataclass
class SyncPlan:
    """Per node, the sync tasks emitted before its tasks and after them (each on its own
    stream), in block order; events are numbered by their record in block order."""

    before: list[list[Sync]]
    after: list[list[Sync]]
    events: int

    @staticmethod
    def direct(events: list[tuple[int, int]], stream_of: list[int]) -> SyncPlan:
        """One record after the producer and one wait before the consumer per event."""
        before: list[list[Sync]] = [[] for _ in stream_of]
        after: list[list[Sync]] = [[] for _ in stream_of]
        for event, (producer, consumer) in enumerate(events):
            after[producer].append(Sync(True, event, stream_of[producer]))
            before[consumer].append(Sync(False, event, stream_of[consumer]))
        return SyncPlan(before, after, len(events)).renumbered()

    def verify(self) -> None:
        """Raises PlanError naming the first inconsistency: an event recorded twice or never,
        waited for before its record in block order, or numbered out of record order (the IR
        declares events in the order of their records)."""
        recorded: dict[int, tuple[int, int, int]] = {}
        waits: list[tuple[int, tuple[int, int, int]]] = []
        for n in range(max(len(self.before), len(self.after))):
            for when, syncs in ((0, self.before), (1, self.after)):
                for i, sync in enumerate(syncs[n] if n < len(syncs) else ()):
                    if not 0 <= sync.event < self.events:
                        raise PlanError(
                            f"sync plan: node {n} uses event {sync.event} of {self.events}"
                        )
                    if not sync.record:
                        waits.append((sync.event, (n, when, i)))
                    elif sync.event in recorded:
                        raise PlanError(f"sync plan: event {sync.event} is recorded twice")
                    elif sync.event != len(recorded):
                        raise PlanError(
                            f"sync plan: event {sync.event} is record #{len(recorded)} in "
                            "block order"
                        )
                    else:
                        recorded[sync.event] = (n, when, i)
        if len(recorded) != self.events:
            raise PlanError(f"sync plan: {len(recorded)} of {self.events} events are recorded")
        for event, at in waits:
            if recorded[event] >= at:
                raise PlanError(
                    f"sync plan: node {at[0]} waits for event {event}, recorded only at node "
                    f"{recorded[event][0]}"
                )

    def dump(self) -> str:
        """One line per node that syncs: its waits before and records after."""

        def text(syncs: list[Sync]) -> str:
            return " ".join(
                f"{'record' if x.record else 'wait'} e{x.event}@s{x.stream}" for x in syncs
            )

        lines = [f"sync plan: {self.events} events"]
        for n in range(max(len(self.before), len(self.after))):
            before = text(self.before[n]) if n < len(self.before) else ""
            after = text(self.after[n]) if n < len(self.after) else ""
            if before or after:
                lines.append(f"  node {n}: before [{before}] after [{after}]")
        return "\n".join(lines)

    def renumbered(self) -> SyncPlan:
        """Event ids in the block order of their records (the IR reads in that order)."""
        new: dict[int, int] = {}
        for lists in zip(self.before, self.after, strict=True):
            for syncs in lists:
                for sync in syncs:
                    if sync.record:
                        new[sync.event] = len(new)

        def move(syncs: list[Sync]) -> list[Sync]:
            """The syncs renumbered; most nodes have none: their (empty) list is shared."""
            return [Sync(x.record, new[x.event], x.stream) for x in syncs] if syncs else syncs

        return SyncPlan([move(b) for b in self.before], [move(a) for a in self.after], len(new))


def _timeline(
    nodes: list[Node],
    stream_of: list[int],
    streams: int,
    sync: SyncPlan,
    record_us: float,
    wait_us: float,
) -> tuple[float, list[float], list[float], list[float]]:
    """Makespan; per event its record time; per node when its stream reaches its waits and
    when its tasks end."""
    clock = [0.0] * streams
    recorded = [0.0] * sync.events
    reach = [0.0] * len(nodes)
    finish = [0.0] * len(nodes)

    def run(syncs: list[Sync]) -> None:
        for x in syncs:
            if x.record:
                clock[x.stream] += record_us
                recorded[x.event] = clock[x.stream]
            else:
                clock[x.stream] = max(clock[x.stream], recorded[x.event]) + wait_us

    before, after = sync.before, sync.after
    for n, node in enumerate(nodes):
        s = stream_of[n]
        reach[n] = clock[s]
        if before[n]:  # most nodes sync with nothing: no call for them
            run(before[n])
        clock[s] += node.duration
        finish[n] = clock[s]
        if after[n]:
            run(after[n])
    return max(clock, default=0.0), recorded, reach, finish


def simulate(
    nodes: list[Node],
    stream_of: list[int],
    streams: int,
    sync: SyncPlan,
    *,
    record_us: float,
    wait_us: float,
) -> float:
    """Makespan of the emitted plan under the cost model, as the interpreter's timeline runs
    it: per node the syncs before it, its tasks, the syncs after it, each on its stream in
    block order; a wait ends `wait_us` after both its stream and its record are done. A
    control span counts all its tasks (every branch), so a model with cases is overestimated
    there, equally for every assignment."""
    return _timeline(nodes, stream_of, streams, sync, record_us, wait_us)[0]


def plan_syncs(stream_of: list[int], events: list[tuple[int, int]], relay: bool) -> SyncPlan:
    """Record and wait tasks for `events`, with fork relays if `relay` (see `RELAYS`). A
    relay record follows a wait that implies the producer, on a consumer earlier in program
    order than the relayed one (events come in consumer order), so program order stays a
    schedule and the relayed wait orders the same dependency, with an event id of its own."""
    before: list[list[Sync]] = [[] for _ in stream_of]
    after: list[list[Sync]] = [[] for _ in stream_of]
    consumers: dict[int, list[int]] = {}  # only the producers that have events
    for producer, consumer in events:
        consumers.setdefault(producer, []).append(consumer)
    relays: dict[int, list[Sync]] = {}
    count = 0
    for p in sorted(consumers):
        previous = -1
        for c in consumers[p]:
            event = count
            count += 1
            before[c].append(Sync(False, event, stream_of[c]))
            if relay and previous >= 0:
                relays.setdefault(previous, []).append(Sync(True, event, stream_of[previous]))
            else:
                after[p].append(Sync(True, event, stream_of[p]))
            previous = c
    for n, records in relays.items():  # a node's relay records follow its waits
        before[n] += records
    plan = SyncPlan(before, after, count)
    # Without relays every record is in `after`, numbered by producer: already block order.
    return plan.renumbered() if relays else plan


def sort_waits(sync: SyncPlan, recorded: list[float]) -> SyncPlan:
    """Each run of waits on one stream ordered by record time: a run then ends no later (with
    equal wait costs, earliest release first is optimal), so nothing later starts later."""
    return _sort_waits(sync, recorded)[0]


def _sort_waits(sync: SyncPlan, recorded: list[float]) -> tuple[SyncPlan, bool]:
    """`sort_waits`, and whether it moved any wait (if not, the plan simulates the same).
    A list with fewer than two syncs is kept as it is (the plans share unchanged lists:
    none is changed in place once built)."""
    moved = False

    def ordered(syncs: list[Sync]) -> list[Sync]:
        nonlocal moved
        out: list[Sync] = []
        run: list[Sync] = []
        for x in [*syncs, None]:
            if x is not None and not x.record and (not run or run[0].stream == x.stream):
                run.append(x)
                continue
            if len(run) > 1:
                now = sorted(run, key=lambda w: recorded[w.event])
                moved = moved or now != run
                out += now
            else:
                out += run
            run = []
            if x is not None:
                if x.record:
                    out.append(x)
                else:
                    run = [x]
        return out

    before = [ordered(b) if len(b) > 1 else b for b in sync.before]
    return SyncPlan(before, sync.after, sync.events), moved


HOIST_ROUNDS = 3
"""Rounds of `hoist_waits` in `best_sync` (each one can open stalls for the next)."""
HOIST_LOOKBACK = 8
"""How many earlier stalls of its stream a wait may move to (keeps `hoist_waits` linear)."""


def hoist_waits(
    nodes: list[Node],
    stream_of: list[int],
    streams: int,
    sync: SyncPlan,
    *,
    record_us: float,
    wait_us: float,
) -> SyncPlan:
    """Each wait moved, where it fits, into an earlier stall of its stream: a node whose
    stream stands waiting for a late record anyway can run a wait whose record is already
    there at no cost, and the wait's own node then starts 0.5 us sooner. A wait only moves
    past nodes after its record's node, so program order stays a schedule; waiting earlier
    only adds order, so every pruned event stays implied."""
    _, recorded, reach, _ = _timeline(nodes, stream_of, streams, sync, record_us, wait_us)
    recorder: dict[int, int] = {}
    for lists in (sync.before, sync.after):
        for n, syncs in enumerate(lists):
            for x in syncs:
                if x.record:
                    recorder[x.event] = n
    before = list(sync.before)  # a node's list copied where it changes (most do not)
    stalls: list[list[list[float]]] = [[] for _ in range(streams)]
    """Per stream: [node, when its hoisted waits end, when its first late record lands]."""
    for m, syncs in enumerate(sync.before):
        if not syncs:
            continue
        s = stream_of[m]
        kept: list[Sync] = []
        for x in syncs:
            if x.record:
                kept.append(x)
                continue
            arrival = recorded[x.event]
            moved = False
            for stall in reversed(stalls[s][-HOIST_LOOKBACK:]):
                n, free, late = int(stall[0]), stall[1], stall[2]
                if n <= recorder[x.event]:
                    break  # the record comes later in program order
                if max(free, arrival) + wait_us <= late:
                    stall[1] = max(free, arrival) + wait_us
                    before[n] = [x, *before[n]]
                    moved = True
                    break
            if not moved:
                kept.append(x)
        if len(kept) < len(syncs):
            before[m] = kept
        late = [recorded[x.event] for x in syncs if not x.record and recorded[x.event] > reach[m]]
        if late:
            stalls[s].append([m, reach[m], min(late)])
    return SyncPlan(before, sync.after, sync.events)


def best_sync(
    nodes: list[Node],
    stream_of: list[int],
    streams: int,
    events: list[tuple[int, int]],
    *,
    record_us: float,
    wait_us: float,
    hoist: bool = True,
) -> tuple[float, SyncPlan]:
    """The fastest sync plan for these events under the simulation among the `RELAYS`
    modes, each with its waits sorted by record time when that is faster, then (`hoist`)
    with waits hoisted into stalls while that is faster (`hoisted`); a constant number of
    linear passes."""
    best: tuple[float, SyncPlan] | None = None
    for relay in RELAYS:
        sync = plan_syncs(stream_of, events, relay)
        span, sync = _sorted_if_faster(nodes, stream_of, streams, sync, record_us, wait_us)
        if best is None or span < best[0]:
            best = (span, sync)
    assert best is not None
    if not hoist:
        return best
    return hoisted(nodes, stream_of, streams, *best, record_us=record_us, wait_us=wait_us)


def hoisted(
    nodes: list[Node],
    stream_of: list[int],
    streams: int,
    span: float,
    sync: SyncPlan,
    *,
    record_us: float,
    wait_us: float,
) -> tuple[float, SyncPlan]:
    """`hoist_waits` (then waits sorted again) for up to `HOIST_ROUNDS` rounds while the
    simulated makespan `span` of `sync` shrinks."""
    for _ in range(HOIST_ROUNDS):
        moved = hoist_waits(nodes, stream_of, streams, sync, record_us=record_us, wait_us=wait_us)
        faster, moved = _sorted_if_faster(nodes, stream_of, streams, moved, record_us, wait_us)
        if faster >= span:
            break
        span, sync = faster, moved
    return span, sync


def _sorted_if_faster(
    nodes: list[Node],
    stream_of: list[int],
    streams: int,
    sync: SyncPlan,
    record_us: float,
    wait_us: float,
) -> tuple[float, SyncPlan]:
    """`sync` or the same with its waits sorted (`sort_waits`), whichever the simulation
    finds faster, with its makespan."""
    span, recorded, _, _ = _timeline(nodes, stream_of, streams, sync, record_us, wait_us)
    ordered, moved = _sort_waits(sync, recorded)
    if not moved:
        return span, sync
    faster = _timeline(nodes, stream_of, streams, ordered, record_us, wait_us)[0]
    return (faster, ordered) if faster < span else (span, sync)


def best_assignment(
    nodes: list[Node],
    preds: list[set[int]],
    *,
    max_streams: int,
    default_engine: str,
    record_us: float,
    wait_us: float,
    strategies: tuple[Strategy, ...] = STRATEGIES,
    initial_engines: tuple[str, ...] = (),
) -> tuple[StreamAssignment, EventPlan, SyncPlan, float]:
    """The assignment with the smallest simulated makespan among `strategies` (each a list
    schedule, its event plan and the best sync tasks for it (`best_sync`); the winner's
    waits then `hoisted`; a constant number of linear passes), and that makespan. Greedy
    list scheduling has no single best rule when syncing costs as much as a small task:
    which branch keeps the producer's stream, and whether a short branch is worth a new
    stream, depend on the graph, so the cost model decides (as GE's HybridMemAssigner runs
    several memory assigners and keeps the smallest)."""
    best: tuple[float, StreamAssignment, EventPlan, SyncPlan] | None = None
    tried: set[tuple[tuple[int, ...], tuple[str, ...]]] = set()
    plans = assign_streams_each(
        nodes,
        preds,
        strategies,
        max_streams=max_streams,
        default_engine=default_engine,
        record_us=record_us,
        wait_us=wait_us,
        initial_engines=initial_engines,
    )
    for plan in plans:
        # Strategies often agree (the 10k-node bench graph: two of four); the events and
        # syncs depend only on the assignment, so a repeat gets the same makespan and,
        # ties going to the earlier strategy, never wins: its simulations are skipped.
        key = (tuple(plan.stream_of), tuple(plan.engines))
        if key in tried:
            continue
        tried.add(key)
        events = plan_events(preds, plan.stream_of, len(plan.engines))
        span, sync = best_sync(
            nodes,
            plan.stream_of,
            len(plan.engines),
            events.events,
            record_us=record_us,
            wait_us=wait_us,
            hoist=False,
        )
        if best is None or span < best[0]:
            best = (span, plan, events, sync)
    assert best is not None, "no strategy"
    span, plan, events, sync = best
    streams = len(plan.engines)
    span, sync = hoisted(
        nodes, plan.stream_of, streams, span, sync, record_us=record_us, wait_us=wait_us
    )
    return plan, events, sync, span
