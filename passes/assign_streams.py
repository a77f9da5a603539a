"""`ge-assign-streams`: spreads each `ascend.model`'s tasks over streams, synchronised by events.

Runs on the task level after `ge-convert-graph-to-ascend` (before or after `ge-plan-memory`).
The model's program order is taken as its sequential meaning: events of the input are dropped
and re-derived from the buffers (`passes.stream_plan`), so the result computes the same numbers
under every schedule the event semantics allow.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.ascend import (
    EndGraphOp,
    EngineTaskOp,
    EventOp,
    EventRecordOp,
    EventWaitOp,
    ModelOp,
    StreamOp,
    TaskOp,
)
from gedialects.base import AICORE_ENGINE, STREAM_LABEL
from gedialects.interpreters.cost_model import EVENT_RECORD_US, EVENT_WAIT_US, CostModel
from passes.stream_plan import Node, Sync, SyncPlan, best_assignment, dependencies
from passes.task_graph import AnalysisError, TaskGraph, TypeSizes, paused_gc

_NAME = "ge-assign-streams"


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
    return PassFailedException(f"{_NAME}: @{model.sym_name.data}: {message}")


def _nodes(model: ModelOp, graph: TaskGraph, costs: CostModel) -> tuple[list[Node], bool]:
    """The scheduling units in program order, and whether the model had an end_graph."""
    nodes: list[Node] = []
    has_end = False
    span_node: dict[int, Node] = {}
    for pos, task in enumerate(graph.tasks):
        if isinstance(task, EventRecordOp | EventWaitOp):
            continue
        if isinstance(task, EndGraphOp):
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
            if node.engine is None and isinstance(task, EngineTaskOp):
                node.engine = task.engine.data
        else:
            engine = task.engine.data if isinstance(task, EngineTaskOp) else None
            label = task.attributes.get(STREAM_LABEL)
            nodes.append(Node([pos], engine, label.data if isinstance(label, StringAttr) else None))
        node = nodes[-1] if span < 0 else span_node[span]
        node.duration += costs.duration(task)
    return nodes, has_end


def _check_program_order(model: ModelOp, graph: TaskGraph) -> None:
    """Every wait must follow a record of its event: then program order is a schedule."""
    recorded: set[int] = set()
    for task in graph.tasks:
        if isinstance(task, EventRecordOp):
            recorded.add(task.event.value.data)
        elif isinstance(task, EventWaitOp) and task.event.value.data not in recorded:
            raise _fail(
                model,
                f"{task.describe()} precedes every record of event {task.event.value.data}; "
                "program order must be a valid schedule",
            )


def assign_model(
    model: ModelOp, *, max_streams: int = 8, single_stream: bool = False
) -> StreamStats:
    """Reassigns `model`'s tasks to streams and events in place; returns what it did."""
    with paused_gc():
        return _assign_model(model, max_streams, single_stream)


def _assign_model(model: ModelOp, max_streams: int, single_stream: bool) -> StreamStats:
    try:
        graph = TaskGraph.of(model)
    except AnalysisError as e:
        raise _fail(model, str(e)) from None
    _check_program_order(model, graph)
    costs = CostModel()
    nodes, has_end = _nodes(model, graph, costs)
    default_engine = next(
        (s.engine.data for s in model.streams() if s.id.value.data == 0),
        AICORE_ENGINE,
    )
    if single_stream or not nodes:
        stream_of = [0] * len(nodes)
        engines = [default_engine]
        sync = SyncPlan.direct([], stream_of)
        before = 0
    else:
        preds = dependencies(graph, nodes, model.weight_size.value.data, TypeSizes())
        labels = {n.label for n in nodes if n.label is not None}
        if len(labels) > max_streams:
            raise _fail(
                model, f"{len(labels)} stream labels do not fit in max-streams={max_streams}"
            )
        plan, event_plan, sync = best_assignment(
            nodes,
            preds,
            max_streams=max_streams,
            default_engine=default_engine,
            record_us=EVENT_RECORD_US,
            wait_us=EVENT_WAIT_US,
        )
        stream_of, engines = plan.stream_of, plan.engines
        before = event_plan.cross_edges
    _emit(model, graph, nodes, stream_of, engines, sync, has_end)
    return StreamStats(model.sym_name.data, len(engines), before, sync.events, len(nodes))


def _emit(
    model: ModelOp,
    graph: TaskGraph,
    nodes: list[Node],
    stream_of: list[int],
    engines: list[str],
    sync: SyncPlan,
    has_end: bool,
) -> None:
    block = model.body.block
    kept = [op for op in block.ops if not isinstance(op, TaskOp | StreamOp | EventOp)]
    ops: list[Operation] = [StreamOp(s, engine) for s, engine in enumerate(engines)]
    ops += [EventOp(e) for e in range(sync.events)]
    ops += kept
    for n, node in enumerate(nodes):
        s = stream_of[n]
        ops += [_sync_op(x) for x in sync.before[n]]
        stream = IntegerAttr(s, i64)
        for pos in node.tasks:
            task = graph.tasks[pos]
            task.stream = stream
            ops.append(task)
        ops += [_sync_op(x) for x in sync.after[n]]
    if has_end:
        ops.append(EndGraphOp(stream_of[-1] if nodes else 0))
    for op in list(block.ops):
        block.detach_op(op)
    block.add_ops(ops)


def _sync_op(sync: Sync) -> EventRecordOp | EventWaitOp:
    return (EventRecordOp if sync.record else EventWaitOp)(sync.event, sync.stream)


@dataclass(frozen=True)
class AssignStreamsPass(ModulePass):
    """Assigns each `ascend.model`'s tasks to streams and inserts the events between them.

    GE's logical stream allocation (by `_stream_label`, one stream family per engine, by
    dependency) as list scheduling under the interpreter's cost model, then GE's
    InsertSyncEvents with OptimizeBySend/RecvEvents: every cross-stream dependency (read after
    write, and write after read / write after write on reused memory) gets an event unless
    the waiting stream already knows the producer finished. A case's switch, branches and
    labels stay on one stream. Options: `max-streams` (upper bound on streams),
    `single-stream` (GE's SingleStreamPass: everything on stream 0, no events), `stats`
    (print one `remark:` line per model to stderr: streams, events before and after pruning).
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
        for model in [m for m in op.walk() if isinstance(m, ModelOp)]:
            stats = assign_model(
                model, max_streams=self.max_streams, single_stream=self.single_stream
            )
            if self.stats:
                print(stats.line(), file=sys.stderr)
