"""`ge-assign-streams`: spreads each `ascend.model`'s tasks over streams, synchronised by events.

Runs on the task level after `ge-convert-graph-to-ascend` (before or after `ge-plan-memory`).
The model's program order is taken as its sequential meaning: events of the input are dropped
and re-derived from the buffers (`analysis.stream_plan`), so the result computes the same
numbers under every schedule the event semantics allow.

A case (GE's CaseOpLabelMaker label scheme) keeps its switch, labels and gotos on one stream,
and each branch's body is scheduled on its own: on the switch's stream plus streams the branch
starts with `ascend.stream_active` after its `label_set` (GE puts a StreamActive there), joined
back by events before the branch's `label_goto`. Branches are mutually exclusive, so each gets
up to `max-streams` streams of its own. A While (GE's WhileOpLabelMaker scheme) is scheduled
the same way in its two regions: the cond between its `label_set` and the switch, the body
between the body's `label_set` and the goto back, each starting its own streams after its
label (GE's CondStreamActive and EnterStreamActive) and joining them before it jumps, so that
an iteration ends on the loop's stream before the next begins and every activated stream
has ended when its `stream_active` runs again. A model this pass emitted can be assigned
again: the activated streams' tasks are first folded back onto the stream that activates them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import I64, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.ascend import (
    EndGraphOp,
    EventOp,
    EventRecordOp,
    EventWaitOp,
    ModelOp,
    StreamActiveOp,
    StreamOp,
    TaskEffects,
    TaskOp,
)
from gedialects.base import (
    AICORE_ENGINE,
    STREAM_LABEL,
    block_ops,
    of_class,
    paused_gc,
    set_block_ops,
    walk_holders,
)
from gedialects.passes.analysis.stream_plan import (
    EventPlan,
    Node,
    StreamAssignment,
    Sync,
    SyncPlan,
    best_assignment,
    dependencies,
)
from gedialects.passes.analysis.task_graph import (
    AnalysisError,
    Case,
    TaskGraph,
    TypeSizes,
)
from gedialects.passes.failure import OpPassFailed
from gedialects.target.cost_model import (
    CONTROL_US,
    EVENT_RECORD_US,
    EVENT_WAIT_US,
    CostModel,
)

_NAME = "ge-assign-streams"
_DECLARED = (TaskOp, StreamOp, EventOp)
"""What the emitter replaces in a model's body (the rest is kept in order)."""


@dataclass
class StreamStats:
    model: str
    streams: int
    events_before: int
    events_after: int
    nodes: int

    def line(self) -> str:
        return (
            f"remark: {_NAME} @{self.model}: {self.nodes} nodes on {self.streams} streams; "
            f"events {self.events_before} before pruning, {self.events_after} after"
        )


def _fail(model: ModelOp, message: str) -> PassFailedException:
    return OpPassFailed(f"{_NAME}: @{model.sym_name.data}: {message}", model)


@dataclass
class Branch:
    """One case branch, or a While's cond or body region: its control tasks and body, and the
    body's schedule (stream 0 is the switch's stream, the others are streams the branch
    activates); `goto` is the jump that ends it (a While cond's is the switch)."""

    label_set: int
    goto: int | None
    body: list[Node]
    stream_of: list[int] = field(default_factory=list)
    engines: list[str] = field(default_factory=list)
    sync: SyncPlan | None = None
    cross_edges: int = 0
    span: float = 0.0
    """Simulated time of the body with its syncs (us)."""


@dataclass
class CaseLayout:
    """A case node split into its control tasks and branches; or a While's (`loop`, no head:
    its branches are the cond and body regions, one after the other each iteration)."""

    head: int | None
    tail: int
    branches: list[Branch]
    loop: bool = False


def _nodes(model: ModelOp, graph: TaskGraph, costs: CostModel) -> tuple[list[Node], bool]:
    """The scheduling units in program order, and whether the model had an end_graph."""
    nodes: list[Node] = []
    has_end = False
    span_node: dict[int, Node] = {}
    for pos, task in enumerate(graph.tasks):
        effects = graph.effects[pos]
        if effects.sync_only:
            continue
        if effects.ends_stream:
            if graph.index[pos] != len(graph.stream_tasks[graph.stream[pos]]) - 1:
                raise _fail(model, f"{task.describe()} is not the last task of its stream")
            has_end = True
            continue
        span = graph.span_of[pos]
        if span >= 0:
            node = span_node.get(span)
            if node is None:
                if not graph.spans[span].contiguous:
                    raise _fail(
                        model,
                        f"the control flow of stream {graph.spans[span].stream} is interleaved "
                        "with other streams' tasks; it must be one run of tasks",
                    )
                node = span_node[span] = Node([], None)
                nodes.append(node)
            node.tasks.append(pos)
            if node.engine is None:
                node.engine = effects.engine
            node.duration += costs.duration_of(task, effects)
        else:
            nodes.append(_task_node(graph, pos, costs, task, effects))
    return nodes, has_end


def _task_node(
    graph: TaskGraph,
    pos: int,
    costs: CostModel,
    task: TaskOp | None = None,
    effects: TaskEffects | None = None,
) -> Node:
    """A kernel or memcpy task as a node: its engine (None: attached) and stream label;
    `task` and `effects`: the graph's, when the caller holds them."""
    task = graph.tasks[pos] if task is None else task
    effects = graph.effects[pos] if effects is None else effects
    label = task.attributes.get(STREAM_LABEL)  # mostly None: no failing ABC isinstance
    return Node(
        [pos],
        effects.engine,
        label.data if label is not None and isinstance(label, StringAttr) else None,
        costs.duration_of(task, effects),
    )


def _case_layouts(graph: TaskGraph, nodes: list[Node], costs: CostModel) -> dict[int, CaseLayout]:
    """Node index -> layout, for the nodes that are exactly one top-level case without nested
    cases (those stay one unit on one stream, as before)."""
    by_head = {case.head: i for i, case in enumerate(graph.cases)}
    nested = {case.parent for case in graph.cases}
    layouts: dict[int, CaseLayout] = {}
    for n, node in enumerate(nodes):
        i = by_head.get(node.tasks[0], -1) if node.tasks else -1
        if i < 0 or i in nested or graph.cases[i].tail != node.tasks[-1]:
            continue
        case = graph.cases[i]
        if graph.in_loop(case.head) is not None:
            continue
        layout = layouts[n] = CaseLayout(case.head, case.tail, _branches(graph, case, node, costs))
        node.engine = _busiest_engine(layout)
    return layouts


def _while_layouts(graph: TaskGraph, nodes: list[Node], costs: CostModel) -> dict[int, CaseLayout]:
    """Node index -> layout, for the nodes that are exactly one While of GE's
    WhileOpLabelMaker scheme:

        label_set L, cond, label_switch_by_index [L+2, L+1], label_set L+1, body,
        label_goto L, label_set L+2

    Forward control flow inside the cond or the body (an If or Case of the body) is one node
    of its region, on one stream; a loop inside keeps the whole While one unit."""
    layouts: dict[int, CaseLayout] = {}
    starts = {span.first_pos: span for span in graph.spans if span.loop}
    for n, node in enumerate(nodes):
        span = starts.get(node.tasks[0]) if node.tasks else None
        if span is None or span.last_pos != node.tasks[-1] or not span.contiguous:
            continue
        regions = _while_regions(graph, node.tasks, costs)
        if regions is None:
            continue
        layout = layouts[n] = CaseLayout(None, node.tasks[-1], regions, loop=True)
        node.engine = _busiest_engine(layout)
    return layouts


def _while_regions(graph: TaskGraph, tasks: list[int], costs: CostModel) -> list[Branch] | None:
    """The cond and body regions of the While whose tasks are `tasks`, or None when they do
    not have the WhileOpLabelMaker shape."""
    effects = [graph.effects[p] for p in tasks]
    first, goto, leave = effects[0], effects[-2], effects[-1]
    if (
        len(first.labels) != 1
        or first.jumps
        or len(leave.labels) != 1
        or leave.jumps
        or not _is_goto(goto)
        or goto.labels
        or goto.jumps != first.labels
    ):
        return None
    switch = next(
        (
            i
            for i in range(1, len(tasks) - 3)
            if effects[i].conditional
            and len(effects[i].jumps) == 2
            and effects[i].jumps[0] == leave.labels[0]
            and effects[i + 1].labels == effects[i].jumps[1:]
        ),
        None,
    )
    if switch is None or effects[switch].labels or effects[switch + 1].jumps:
        return None
    regions: list[Branch] = []
    for a, b in ((0, switch), (switch + 1, len(tasks) - 2)):
        body = _region_nodes(graph, tasks[a + 1 : b], costs)
        if body is None:
            return None
        regions.append(Branch(tasks[a], tasks[b], body))
    return regions


def _region_nodes(graph: TaskGraph, positions: list[int], costs: CostModel) -> list[Node] | None:
    """A region's scheduling units: each task, or each run of forward control flow (its
    labels and jumps within the region) as one node; None when control leaves the region or
    jumps back."""
    index = {p: i for i, p in enumerate(positions)}
    labels = {lb: i for i, p in enumerate(positions) for lb in graph.effects[p].labels}
    reach = list(range(len(positions)))  # the last task each task's control run spans to
    for i, p in enumerate(positions):
        for label in graph.effects[p].jumps:
            j = labels.get(label)
            if j is None or j <= i:
                return None
            reach[i] = max(reach[i], j)
    for label, j in labels.items():
        if not any(label in graph.effects[q].jumps for q in positions if index[q] < j):
            return None  # a label nothing in the region jumps to: not a structure of its own
    nodes: list[Node] = []
    i = 0
    while i < len(positions):
        if not graph.effects[positions[i]].control:
            nodes.append(_task_node(graph, positions[i], costs))
            i += 1
            continue
        end = reach[i]
        k = i
        while k <= end:
            end = max(end, reach[k])
            k += 1
        run = positions[i : end + 1]
        engine = next((graph.effects[q].engine for q in run if graph.effects[q].engine), None)
        nodes.append(Node(run, engine, None, sum(costs.duration(graph.tasks[q]) for q in run)))
        i = end + 1
    return nodes


def _busiest_engine(layout: CaseLayout) -> str | None:
    """The engine with the most work in the case's branches (the first on a tie): the switch's
    stream is one of its streams, so the most work runs there without an activation."""
    work: dict[str, float] = {}
    for branch in layout.branches:
        for node in branch.body:
            if node.engine is not None:
                work[node.engine] = work.get(node.engine, 0.0) + node.duration
    return max(work, key=lambda e: work[e]) if work else None


def _is_goto(effects: TaskEffects) -> bool:
    """An unconditional jump (GE LabelGotoExTaskInfo): how a case branch ends."""
    return len(effects.jumps) == 1 and not effects.conditional


def _branches(graph: TaskGraph, case: Case, node: Node, costs: CostModel) -> list[Branch]:
    members = set(node.tasks)
    branches: list[Branch] = []
    for start, stop in case.branches:
        positions = [p for p in range(start + 1, stop) if p in members]
        goto = positions.pop() if positions and _is_goto(graph.effects[positions[-1]]) else None
        body = [_task_node(graph, pos, costs) for pos in positions]
        branches.append(Branch(start, goto, body))
    return branches


def _schedule_branch(
    graph: TaskGraph,
    branch: Branch,
    home: str,
    max_streams: int,
    weight_size: int,
    sizes: TypeSizes,
) -> None:
    """The branch body on the switch's stream (engine `home`) plus streams of its own, and a
    join pinned to the switch's stream that depends on every body node: the events it gets are
    the waits before the branch's `label_goto`."""
    body = branch.body
    if not body:
        branch.stream_of, branch.engines, branch.sync = [], [home], SyncPlan([], [], 0)
        return
    join = Node([], home, pinned=0)
    preds = dependencies(graph, body, weight_size, sizes)
    inner = set().union(*preds)
    preds.append({n for n in range(len(body)) if n not in inner})
    plan, events, sync, span = best_assignment(
        [*body, join],
        preds,
        max_streams=max_streams,
        default_engine=home,
        record_us=EVENT_RECORD_US,
        wait_us=EVENT_WAIT_US,
        initial_engines=(home,),
    )
    branch.stream_of, branch.engines, branch.sync = plan.stream_of, plan.engines, sync
    branch.cross_edges = events.cross_edges
    branch.span = span


def _case_duration(graph: TaskGraph, layout: CaseLayout, costs: CostModel) -> float:
    """The switch, the longest branch (its labels, activations, body and syncs), the end
    label; for a While one iteration, its cond and body regions one after the other."""
    control = costs.duration(graph.tasks[layout.tail])
    if layout.head is not None:
        control += costs.duration(graph.tasks[layout.head])
    times: list[float] = []
    for branch in layout.branches:
        time = costs.duration(graph.tasks[branch.label_set]) + branch.span
        time += CONTROL_US * (len(branch.engines) - 1)
        if branch.goto is not None:
            time += costs.duration(graph.tasks[branch.goto])
        times.append(time)
    return control + (sum(times) if layout.loop else max(times, default=0.0))


def _caps(nodes: list[Node], layouts: dict[int, CaseLayout], max_streams: int) -> list[int]:
    """The stream counts the model's own nodes may take (see `_plan_with_cases`): all of
    `max-streams`, or 2 or 4 fewer, left to the cases' branches; only those that leave every
    branch a stream per engine it uses, when some do (else streams must mix engines anyway)."""
    if not layouts:
        return [max_streams]
    caps = sorted({max(1, max_streams - j) for j in (0, 2, 4)})
    need = max(
        len({nodes[n].engine} | {b.engine for b in branch.body if b.engine is not None})
        for n, layout in layouts.items()
        for branch in layout.branches
    )
    room = [c for c in caps if _share(c, max_streams, len(layouts)) >= need]
    if not room:
        cap = max_streams - (need - 1) * len(layouts)
        room = [cap] if cap >= 1 else []
    return room or caps


def _share(cap: int, max_streams: int, cases: int) -> int:
    """Streams each branch may use when the model's own nodes take `cap`: at most
    `max-streams` run at once, the model's plus one branch's per case."""
    return 1 + (max_streams - cap) // max(cases, 1)


def _plan_with_cases(
    graph: TaskGraph,
    nodes: list[Node],
    preds: list[set[int]],
    layouts: dict[int, CaseLayout],
    cap: int,
    max_streams: int,
    default_engine: str,
) -> tuple[float, StreamAssignment, EventPlan, SyncPlan]:
    """The model's own nodes on at most `cap` streams, each case's branches on the rest (at
    most `max_streams` run at once: the model's streams plus one branch's per case); returns
    the simulated makespan with the branches' simulated times as the cases' durations."""
    costs = CostModel()
    weight_size, sizes = graph.model.weight_size.value.data, TypeSizes()
    budget = _share(cap, max_streams, len(layouts))

    def schedule(n: int, home: str) -> None:
        for branch in layouts[n].branches:
            _schedule_branch(graph, branch, home, budget, weight_size, sizes)
        nodes[n].duration = _case_duration(graph, layouts[n], costs)

    homes = {n: nodes[n].engine or default_engine for n in layouts}
    for n, home in homes.items():
        schedule(n, home)
    plan, events, sync, span = best_assignment(
        nodes,
        preds,
        max_streams=cap,
        default_engine=default_engine,
        record_us=EVENT_RECORD_US,
        wait_us=EVENT_WAIT_US,
    )
    for n, home in homes.items():
        if plan.engines[plan.stream_of[n]] != home:  # no kernels, or at the stream limit
            schedule(n, plan.engines[plan.stream_of[n]])
    return span, plan, events, sync


def _fold_activated(model: ModelOp) -> None:
    """Puts the tasks of activated streams back on the stream that activates them and drops
    the `stream_active` tasks: program order is a schedule, so it is a single-stream one."""
    activator: dict[int, int] = {}
    # only task classes that declare activations are read (one isinstance walk otherwise)
    for op in [t for t in model.tasks() if type(t).EFFECTS.activates is not None]:
        effects = op.effects()
        if effects.activates:
            activator.update(dict.fromkeys(effects.activates, op.stream.value.data))
            model.body.block.erase_op(op)
    if not activator:
        return

    def root(sid: int) -> int:
        seen: set[int] = set()
        while sid in activator and sid not in seen:
            seen.add(sid)
            sid = activator[sid]
        return sid

    for task in model.tasks():
        sid = task.stream.value.data
        if sid in activator:
            task.stream = IntegerAttr(root(sid), i64)


def _check_program_order(model: ModelOp, graph: TaskGraph) -> None:
    """Every wait must follow a record of its event: then program order is a schedule."""
    recorded: set[int] = set()
    for task, effects in zip(graph.tasks, graph.effects, strict=True):
        for event in effects.waits:
            if event not in recorded:
                raise _fail(
                    model,
                    f"{task.describe()} precedes every record of event {event}; "
                    "program order must be a valid schedule",
                )
        recorded.update(effects.records)


def assign_model(
    model: ModelOp, *, max_streams: int = 8, single_stream: bool = False
) -> StreamStats:
    """Reassigns `model`'s tasks to streams and events in place; returns what it did."""
    with paused_gc():
        return _assign_model(model, max_streams, single_stream)


def _assign_model(model: ModelOp, max_streams: int, single_stream: bool) -> StreamStats:
    default_engine = next(
        (s.engine.data for s in model.streams() if s.id.value.data == 0),
        AICORE_ENGINE,
    )
    _fold_activated(model)
    try:
        graph = TaskGraph.of(model)
    except AnalysisError as e:
        raise _fail(model, str(e)) from None
    graph.verify()
    _check_program_order(model, graph)
    costs = CostModel()
    nodes, has_end = _nodes(model, graph, costs)
    layouts: dict[int, CaseLayout] = {}
    if single_stream or not nodes:
        stream_of = [0] * len(nodes)
        engines = [default_engine]
        sync = SyncPlan.direct([], stream_of)
        before = 0
    else:
        weight_size, sizes = model.weight_size.value.data, TypeSizes()
        labels = {n.label for n in nodes if n.label is not None}
        if len(labels) > max_streams:
            raise _fail(
                model, f"{len(labels)} stream labels do not fit in max-streams={max_streams}"
            )
        layouts = _case_layouts(graph, nodes, costs) | _while_layouts(graph, nodes, costs)
        preds = dependencies(graph, nodes, weight_size, sizes)
        caps = _caps(nodes, layouts, max_streams)
        results = [
            (_plan_with_cases(graph, nodes, preds, layouts, cap, max_streams, default_engine), cap)
            for cap in caps
        ]
        (_, plan, event_plan, sync), cap = min(results, key=lambda r: r[0][0])
        if cap != caps[-1]:  # the branches hold the last cap's schedules: redo the best's
            _, plan, event_plan, sync = _plan_with_cases(
                graph, nodes, preds, layouts, cap, max_streams, default_engine
            )
        plan.verify()
        for layout in layouts.values():
            for branch in layout.branches:
                if branch.sync is not None:
                    branch.sync.verify()
        stream_of, engines = plan.stream_of, plan.engines
        before = event_plan.cross_edges + sum(
            b.cross_edges for layout in layouts.values() for b in layout.branches
        )
    sync.verify()
    emitter = _Emitter(model, graph, list(engines))
    emitter.emit(nodes, stream_of, sync, layouts, has_end)
    return StreamStats(
        model.sym_name.data, len(emitter.engines), before, emitter.events, len(nodes)
    )


class _Emitter:
    """Writes the new body: streams, events (numbered by their records in block order), the
    declarations kept, then per node its waits, tasks and records; a case with a layout gets
    its branches' activated streams (numbered after the others) and syncs."""

    def __init__(self, model: ModelOp, graph: TaskGraph, engines: list[str]) -> None:
        self.model = model
        self.graph = graph
        self.engines = engines
        self.tasks: list[Operation] = []
        self.events = 0
        self._ids: dict[tuple[int, int], int] = {}
        self._streams: dict[int, IntegerAttr[I64]] = {}

    def emit(
        self,
        nodes: list[Node],
        stream_of: list[int],
        sync: SyncPlan,
        layouts: dict[int, CaseLayout],
        has_end: bool,
    ) -> None:
        before, after = sync.before, sync.after
        for n, node in enumerate(nodes):
            s = stream_of[n]
            if before[n]:  # most nodes sync with nothing: no call for them
                self._syncs(sync, before[n])
            layout = layouts.get(n)
            if layout is None:
                for pos in node.tasks:
                    self._task(pos, s)
            else:
                self._case(layout, s)
            if after[n]:
                self._syncs(sync, after[n])
        if has_end:
            self.tasks.append(EndGraphOp(stream_of[-1] if nodes else 0))
        block = self.model.body.block
        # the declarations and tasks are replaced: one walk, not a set of three walks' ops,
        # each op's class tested once per class (an ABC isinstance that fails costs a
        # microsecond: 0.12 s of 180k ops at 100k bench nodes)
        kept = [op for op in block_ops(block) if not of_class(op, _DECLARED)]
        ops: list[Operation] = [StreamOp(s, engine) for s, engine in enumerate(self.engines)]
        ops += [EventOp(e) for e in range(self.events)]
        ops += kept
        ops += self.tasks
        set_block_ops(block, ops)

    def _task(self, pos: int, stream: int) -> None:
        task = self.graph.tasks[pos]
        attr = self._streams.get(stream)
        if attr is None:  # one attribute per stream, not one built and verified per task
            attr = self._streams[stream] = IntegerAttr(stream, i64)
        task.stream = attr
        self.tasks.append(task)

    def _syncs(self, plan: SyncPlan, syncs: list[Sync], ids: list[int] | None = None) -> None:
        """`ids`: a branch's stream numbers (its plan's stream i is stream ids[i])."""
        for x in syncs:
            key = (id(plan), x.event)
            stream = x.stream if ids is None else ids[x.stream]
            if x.record:
                event = self._ids[key] = self.events
                self.events += 1
                self.tasks.append(EventRecordOp(event, stream))
            else:
                self.tasks.append(EventWaitOp(self._ids[key], stream))

    def _case(self, layout: CaseLayout, home: int) -> None:
        if layout.head is not None:
            self._task(layout.head, home)
        for branch in layout.branches:
            self._task(branch.label_set, home)
            ids = [home]
            for engine in branch.engines[1:]:
                ids.append(len(self.engines))
                self.engines.append(engine)
                self.tasks.append(StreamActiveOp(ids[-1], home))
            plan = branch.sync
            assert plan is not None
            for i, node in enumerate(branch.body):
                s = ids[branch.stream_of[i]]
                self._syncs(plan, plan.before[i], ids)
                for pos in node.tasks:
                    self._task(pos, s)
                self._syncs(plan, plan.after[i], ids)
            if branch.body:
                join = len(branch.body)
                self._syncs(plan, plan.before[join], ids)
            if branch.goto is not None:
                self._task(branch.goto, home)
        self._task(layout.tail, home)


@dataclass(frozen=True)
class AssignStreamsPass(ModulePass):
    """Assigns each `ascend.model`'s tasks to streams and inserts the events between them.

    GE's logical stream allocation (by `_stream_label`, one stream family per engine, by
    dependency) as list scheduling under the interpreter's cost model, then GE's
    InsertSyncEvents with OptimizeBySend/RecvEvents: every cross-stream dependency (read after
    write, and write after read / write after write on reused memory) gets an event unless
    the waiting stream already knows the producer finished; waits move into earlier stalls of
    their stream where that is faster. A case's switch, labels and gotos stay on one stream,
    and each branch runs its body there and on streams it starts with `ascend.stream_active`
    (GE's CaseOpLabelMaker), joined by events before its goto; a While's cond and body the
    same (WhileOpLabelMaker's CondStreamActive and EnterStreamActive). Options: `max-streams` (the
    most streams running at once: the model's plus one branch's per case), `single-stream`
    (GE's SingleStreamPass: everything on stream 0, no events), `stats` (print one `remark:`
    line per model to stderr: streams, events before and after pruning).
    """

    name = "ge-assign-streams"

    max_streams: int = 8
    single_stream: bool = False
    stats: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_streams <= 0:
            raise PassFailedException(
                f"{_NAME}: max-streams must be positive, got {self.max_streams}"
            )
        for model in list(walk_holders(op, ModelOp)):
            stats = assign_model(
                model, max_streams=self.max_streams, single_stream=self.single_stream
            )
            if self.stats:
                print(stats.line(), file=sys.stderr)
