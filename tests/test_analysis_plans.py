"""verify() and dump() of each analysis plan (issue 15 part 4): a plan built from a real model
verifies and dumps readably; a corrupted one is refused with a message naming what is wrong."""

from __future__ import annotations

import copy
import dataclasses
import random

import pytest
from test_plan_memory import BENCH, EXAMPLE, lower
from xdsl.dialects.builtin import TensorType, f32

from gedialects.ascend import ModelOp
from gedialects.passes.analysis import PlanError
from gedialects.passes.analysis.liveness import (
    Conflicts,
    conflicts,
    merge_blocks,
    sharing_conflicts,
)
from gedialects.passes.analysis.memory_plan import (
    BlockPlan,
    MemoryPlan,
    Slot,
    SlotKind,
    greedy_by_size,
    plan_without_reuse,
)
from gedialects.passes.analysis.stream_plan import (
    StreamAssignment,
    Sync,
    SyncPlan,
    best_assignment,
    dependencies,
)
from gedialects.passes.analysis.task_graph import Case, TaskGraph, TypeSizes
from gedialects.passes.assign_streams import _nodes, assign_model
from gedialects.passes.plan_memory import _classify
from gedialects.target.cost_model import CostModel


def branchy_model() -> ModelOp:
    """A model with several streams, events and a case whose branches activate streams."""
    _, model = lower(BENCH.branchy_graph(5, blocks=3))
    assign_model(model)
    return model


@pytest.fixture(scope="module")
def graph() -> TaskGraph:
    return TaskGraph.of(branchy_model())


def test_task_graph_of_a_real_model_verifies_and_dumps(graph: TaskGraph) -> None:
    graph.verify()
    assert graph.cases and graph.activated_at and graph.multi_stream
    text = graph.dump().splitlines()
    assert text[0].startswith(f"task graph of @{graph.model.sym_name.data}: ")
    assert f"{len(graph.tasks)} tasks on {len(graph.stream_ids)} streams" in text[0]
    assert any(line.startswith("case 0: switch ") for line in text)
    assert any("(activated by " in line for line in text)
    assert sum(1 for line in text if line.startswith("  ")) == len(graph.tasks)


def _corrupt(graph: TaskGraph, change: str) -> TaskGraph:
    bad = copy.copy(graph)
    if change == "index":
        bad.index = [*graph.index]
        bad.index[0] += 1
    elif change == "stream":
        # the first two tasks of a stream swapped, with their indices: only the order is off
        bad.stream_tasks = {s: list(ps) for s, ps in graph.stream_tasks.items()}
        positions = bad.stream_tasks[graph.stream_ids[0]]
        positions[0], positions[1] = positions[1], positions[0]
        bad.index = [*graph.index]
        bad.index[positions[0]], bad.index[positions[1]] = 0, 1
    elif change == "column":
        bad.reads = graph.reads[:-1]
    elif change == "span":
        bad.span_of = [*graph.span_of]
        inside = next(p for p, s in enumerate(graph.span_of) if s >= 0)
        bad.span_of[inside] = -1
    elif change == "case":
        bad.cases = [*graph.cases]
        case = graph.cases[0]
        bad.cases[0] = Case(case.head, case.tail, case.branches[1:], case.parent)
    return bad


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("index", r"stream \d+ lists task 0 as its #0, but the task is #1 of stream"),
        ("stream", r"stream \d+ lists task \d+ after task \d+: not in program order"),
        ("column", r"\d+ reads entries for \d+ tasks"),
        ("span", r"task \d+ lies in span \d+ but span_of gives -1"),
        ("case", r"case 0 \(switch at \d+, end at \d+\) has branches .* that do not tile it"),
    ],
)
def test_corrupted_task_graph_is_refused(graph: TaskGraph, change: str, message: str) -> None:
    with pytest.raises(PlanError, match="task graph: " + message):
        _corrupt(graph, change).verify()


def _blocks_and_conflicts(model: ModelOp) -> tuple[TaskGraph, list[int], Conflicts]:
    graph = TaskGraph.of(model)
    info = _classify(model, graph)
    tensors = sorted(info.tensors.values(), key=lambda t: t.positions[0])
    blocks = merge_blocks(tensors, [], graph)
    sizes = [-(-max(b.nbytes, 1) // 512) * 512 for b in blocks]
    return graph, sizes, conflicts(graph, blocks)


def test_conflicts_verify_dump_and_refuse_a_one_sided_conflict() -> None:
    _, _, found = _blocks_and_conflicts(branchy_model())
    found.verify()
    text = found.dump().splitlines()
    assert text[0] == f"conflicts of {len(found.neighbours)} blocks"
    assert text[1].startswith("  block 0: live ")
    a = next(i for i, adjacent in enumerate(found.neighbours) if adjacent)
    b = min(found.neighbours[a])
    one_sided = Conflicts([set(n) for n in found.neighbours], found.live)
    one_sided.neighbours[b].discard(a)
    with pytest.raises(PlanError, match=f"block {a} conflicts with block {b} but not {b} with"):
        one_sided.verify()
    unsorted = Conflicts(found.neighbours, [*found.live])
    unsorted.live[0] = [(5, 6), (1, 2)]
    with pytest.raises(PlanError, match=r"block 0's live ranges \[\(5, 6\), \(1, 2\)\]"):
        unsorted.verify()


def test_block_plan_verifies_a_greedy_plan_and_refuses_conflicting_blocks_together() -> None:
    _, sizes, found = _blocks_and_conflicts(branchy_model())
    offsets, size = greedy_by_size(sizes, list(range(len(sizes))), found.neighbours)
    plan = BlockPlan(sizes, offsets, size, found.neighbours, 512, "greedy-by-size")
    plan.verify()
    text = plan.dump().splitlines()
    assert text[0] == f"block plan (greedy-by-size): {len(sizes)} blocks in {size} B"
    assert len(text) == len(sizes) + 1
    a = next(i for i, adjacent in enumerate(found.neighbours) if adjacent)
    b = min(found.neighbours[a])
    moved = [*offsets]
    moved[b] = offsets[a]
    with pytest.raises(PlanError, match=f"blocks {min(a, b)} .* may be live at once but share"):
        dataclasses.replace(plan, offsets=moved).verify()
    misaligned = [*offsets]
    misaligned[0] += 8
    with pytest.raises(PlanError, match=r"block 0 at .* is not placed on a multiple of 512"):
        dataclasses.replace(plan, offsets=misaligned).verify()
    with pytest.raises(PlanError, match="ends past the feature region"):
        dataclasses.replace(plan, size=size - 1).verify()


def _slots() -> list[Slot]:
    t = TensorType(f32, [4])
    return [Slot(t, SlotKind.FEATURE), Slot(t, SlotKind.WEIGHT), Slot(t, SlotKind.IO)]


def test_memory_plan_verifies_the_baseline_and_refuses_overlaps_and_misplaced_weights() -> None:
    slots = _slots()
    plan = plan_without_reuse(slots)
    plan.verify()
    assert plan.dump().splitlines() == [
        "memory plan: arena 1536 B, weights [0, 512), features 16 B, alignment 512",
        "  [0, 16) weight tensor<4xf32>",
        "  [512, 528) io tensor<4xf32>",
        "  [1024, 1040) feature tensor<4xf32>",
    ]
    feature, _, io = slots
    overlap = dataclasses.replace(plan, offsets={**plan.offsets, io: 1024})
    with pytest.raises(
        PlanError, match=r"feature slot .* at \[1024, 1040\) and io slot .* share bytes"
    ):
        overlap.verify()
    with pytest.raises(PlanError, match=r"weight slot .* is on the wrong side of the weight"):
        dataclasses.replace(plan, weight_size=0).verify()
    with pytest.raises(PlanError, match="is not aligned to 512"):
        dataclasses.replace(plan, offsets={**plan.offsets, feature: 1030}).verify()
    with pytest.raises(PlanError, match="ends past the arena"):
        dataclasses.replace(plan, arena_size=1024).verify()
    with pytest.raises(PlanError, match="feature slots hold 16 B, the plan says 0"):
        dataclasses.replace(plan, feature_bytes=0).verify()
    assert isinstance(plan, MemoryPlan)


def test_stream_and_sync_plans_of_a_real_model_verify_and_corruptions_are_refused() -> None:
    _, model = lower(EXAMPLE)
    graph = TaskGraph.of(model)
    costs = CostModel()
    nodes, _ = _nodes(model, graph, costs)
    preds = dependencies(graph, nodes, model.weight_size.value.data, TypeSizes())
    plan, _, sync, _ = best_assignment(
        nodes, preds, max_streams=4, default_engine="AIcoreEngine", record_us=1.0, wait_us=1.0
    )
    plan.verify()
    sync.verify()
    assert plan.dump().splitlines()[0] == (
        f"stream assignment: {len(nodes)} nodes on {len(plan.engines)} streams"
    )
    assert sync.dump().splitlines()[0] == f"sync plan: {sync.events} events"
    with pytest.raises(PlanError, match="node 0 runs on stream 9, but only"):
        StreamAssignment([9, *plan.stream_of[1:]], plan.engines).verify()
    with pytest.raises(PlanError, match="finish times for"):
        StreamAssignment(plan.stream_of, plan.engines, [0.0]).verify()


def test_sync_plan_refuses_a_wait_before_its_record_and_a_lost_record() -> None:
    good = SyncPlan.direct([(0, 2)], [0, 0, 1])
    good.verify()
    assert good.dump().splitlines() == [
        "sync plan: 1 events",
        "  node 0: before [] after [record e0@s0]",
        "  node 2: before [wait e0@s1] after []",
    ]
    early = SyncPlan([[Sync(False, 0, 1)], [], []], [[Sync(True, 0, 0)], [], []], 1)
    with pytest.raises(PlanError, match="node 0 waits for event 0, recorded only at node 0"):
        early.verify()
    lost = SyncPlan([[], [], [Sync(False, 0, 1)]], [[], [], []], 1)
    with pytest.raises(PlanError, match="0 of 1 events are recorded"):
        lost.verify()
    twice = SyncPlan([[], [], []], [[Sync(True, 0, 0)], [Sync(True, 0, 0)], []], 1)
    with pytest.raises(PlanError, match="event 0 is recorded twice"):
        twice.verify()


def _sharing_by_conflict_graph(
    graph: TaskGraph, blocks: list, starts: list[int], ends: list[int]
) -> set[tuple[int, int]]:
    """The reference `sharing_conflicts` must equal: the conflict graph, pair by pair, and
    bytes shared when the ranges intersect (an empty range shares none)."""
    found = conflicts(graph, blocks)
    return {
        (a, b)
        for a, near in enumerate(found.neighbours)
        for b in near
        if a < b and max(starts[a], starts[b]) < min(ends[a], ends[b])
    }


@pytest.mark.parametrize(
    ("seed", "case", "streams"),
    [(s, True, True) for s in range(3)] + [(3, False, False), (4, True, False), (5, False, True)],
)
def test_sharing_conflicts_equal_the_conflict_graph_on_random_placements(
    seed: int, case: bool, streams: bool
) -> None:
    """The mask sweeps of `sharing_conflicts` find exactly the conflicting pairs that share
    bytes, on random placements (dense, sparse, empty ranges) of random subsets of the blocks
    of real models: multi-stream with events, cases and streams a branch activates, and one
    stream with and without cases."""
    _, model = lower(BENCH.branchy_graph(seed, blocks=3, case=case))
    if streams:
        assign_model(model)
    graph = TaskGraph.of(model)
    if streams:
        assert graph.multi_stream
    info = _classify(model, graph)
    tensors = sorted(info.tensors.values(), key=lambda t: t.positions[0])
    everything = merge_blocks(tensors, [], graph)
    rng = random.Random(seed)
    nonempty = 0
    for trial in range(30):
        blocks = [b for b in everything if rng.random() < 0.8] if trial % 3 else everything
        span = rng.choice([4, 64, 4096])
        starts = [rng.randrange(span) for _ in blocks]
        ends = [s + rng.choice([0, 1, rng.randrange(1, span + 1)]) for s in starts]
        expected = _sharing_by_conflict_graph(graph, blocks, starts, ends)
        assert sharing_conflicts(graph, blocks, starts, ends) == expected
        nonempty += bool(expected)
    assert nonempty >= 10  # the placements do collide
