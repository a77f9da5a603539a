"""ge-plan-memory: reuse keeps the numbers, plans respect liveness, broken plans are caught."""

from __future__ import annotations

import gc
import importlib.util
import itertools
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from gedialects import make_context
from gedialects.ascend import BufferAttr, KernelOp, ModelOp
from gedialects.interpreters.ascend import AscendRuntimeError, execute_model
from gedialects.interpreters.run import find_entry, random_inputs, run, signature
from gedialects.passes import plan_memory
from gedialects.passes.analysis import PlanError
from gedialects.passes.analysis.liveness import block_order, conflicts, in_place_pairs, merge_blocks
from gedialects.passes.analysis.memory_plan import (
    BlockOrder,
    BlockPlan,
    Pairs,
    ge_lifetime,
    greedy_by_size,
    greedy_in_order,
    size_classes,
)
from gedialects.passes.analysis.task_graph import TaskGraph
from gedialects.passes.assign_streams import assign_model
from gedialects.passes.convert_graph_to_ascend import ConvertGraphToAscendPass
from gedialects.passes.plan_memory import (
    PlanMemoryPass,
    _classify,  # pyright: ignore[reportPrivateUsage]
    plan_model,
)

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location(
        "bench_memory_streams", ROOT / "bench" / "bench_memory_streams.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


BENCH = _bench()
EXAMPLE = (ROOT / "examples" / "conv_block.mlir").read_text()


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def lower(text: str) -> tuple[ModuleOp, ModelOp]:
    module = parse(text)
    ConvertGraphToAscendPass().apply(make_context(), module)
    return module, next(op for op in module.walk() if isinstance(op, ModelOp))


@lru_cache(maxsize=4)
def _read_only(text: str) -> ModuleOp:
    """One parse of `text` for the helpers that only read it (inputs, the graph-level
    reference): the schedule sweeps call them many times per graph, and parsing the bench
    graphs' dense weights costs more than running them."""
    return parse(text)


def inputs_of(text: str, seed: int, index: int = 1) -> dict[str, np.ndarray]:
    values = random_inputs(signature(find_entry(_read_only(text))), seed)
    if "i" in values:
        values["i"] = np.array(index, np.int32)
    return values


def reference(text: str, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return run(_read_only(text), inputs)


def feature_ranges(model: ModelOp) -> dict[tuple[int, int], list[int]]:
    """(offset, end) of every task buffer outside weights and I/O -> task positions using it."""
    io = {(op.buffer.offset_value, op.buffer.end) for op in [*model.inputs(), *model.outputs()]}
    graph = TaskGraph.of(model)
    found: dict[tuple[int, int], list[int]] = {}
    for pos in range(len(graph.tasks)):
        for b in (*graph.reads[pos], *graph.writes[pos]):
            key = (b.offset_value, b.end)
            if b.offset_value >= model.weight_size.value.data and key not in io:
                found.setdefault(key, []).append(pos)
    return found


GRAPHS = [("example", EXAMPLE)] + [
    (f"branchy{s}", BENCH.branchy_graph(s, blocks=3)) for s in range(4)
]


@pytest.mark.parametrize(("name", "text"), GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize(
    "options",
    [{}, {"strategy": "ge-lifetime"}, {"reuse": False}, {"in_place": False}],
    ids=["greedy", "ge-lifetime", "no-reuse", "no-in-place"],
)
def test_reuse_keeps_the_graph_level_numbers(name: str, text: str, options: dict) -> None:
    _, model = lower(text)
    stats = plan_model(model, **options)
    model.verify()
    assert stats.lower_bound <= stats.features <= stats.no_reuse
    for index in (0, 1, 2) if "branchy" in name else (0,):
        inputs = inputs_of(text, 3, index)
        want = reference(text, inputs)
        got = execute_model(model, inputs, check_uninitialized=True).outputs
        for key, value in want.items():
            np.testing.assert_array_equal(got[key], value, err_msg=f"{name} gear {index}")


def test_reuse_shrinks_the_arena_and_reaches_the_bound_on_the_example() -> None:
    _, plain = lower(EXAMPLE)
    _, reused = lower(EXAMPLE)
    no_reuse = plan_model(plain, reuse=False)
    stats = plan_model(reused)
    assert stats.arena < no_reuse.arena
    assert stats.features == stats.lower_bound
    assert stats.in_place > 0


def _operands(model: ModelOp) -> list[tuple[int, int, BufferAttr]]:
    """(task position, operand number, buffer) of every kernel and memcpy operand."""
    graph = TaskGraph.of(model)
    return [
        (pos, i, b)
        for pos in range(len(graph.tasks))
        for i, b in enumerate((*graph.reads[pos], *graph.writes[pos]))
    ]


def test_single_stream_plan_never_overlaps_live_tensors_without_cases() -> None:
    # Oracle: tensors are the buffers of the unplanned model; after planning, any two whose
    # new ranges share bytes have disjoint program-order lifetimes, or touch at one task
    # (in place: the last reader of one is the first writer of the other).
    for seed in range(3):
        _, model = lower(BENCH.branchy_graph(seed, blocks=4, case=False))
        io = {(op.buffer.offset_value) for op in [*model.inputs(), *model.outputs()]}
        before = _operands(model)
        plan_model(model)
        after = _operands(model)
        lifetimes: dict[tuple[int, int], list[int]] = {}
        placed: dict[tuple[int, int], tuple[int, int]] = {}
        for (pos, _, old), (_, _, new) in zip(before, after, strict=True):
            if old.offset_value < model.weight_size.value.data or old.offset_value in io:
                continue
            key = (old.offset_value, old.end)
            lifetimes.setdefault(key, []).append(pos)
            placed[key] = (new.offset_value, new.end)
        assert len(set(placed.values())) < len(placed), "no reuse happened"
        for a, b in itertools.combinations(placed, 2):
            (sa, ea), (sb, eb) = placed[a], placed[b]
            if sa < eb and sb < ea:
                pa, pb = lifetimes[a], lifetimes[b]
                assert max(pa) <= min(pb) or max(pb) <= min(pa), (a, b)


def test_multi_stream_plan_keeps_numbers_under_random_schedules() -> None:
    text = BENCH.branchy_graph(7, blocks=4)
    for first in ("streams", "memory"):
        _, model = lower(text)
        if first == "streams":
            assign_model(model)
            plan_model(model)
        else:
            plan_model(model)
            assign_model(model)
        assert len(model.streams()) > 1
        inputs = inputs_of(text, 1, 2)
        want = reference(text, inputs)
        for seed in [None, *range(15)]:
            got = execute_model(model, inputs, schedule_seed=seed, check_uninitialized=True)
            np.testing.assert_array_equal(got.outputs["y"], want["y"], err_msg=f"{first} {seed}")


def _move(model: ModelOp, kernel: KernelOp, offset: int) -> None:
    old = kernel.outputs.data[0]
    new = BufferAttr(offset, old.type)
    for task in model.tasks():
        if isinstance(task, KernelOp):
            task.inputs = type(task.inputs)([new if b == old else b for b in task.inputs.data])
            task.outputs = type(task.outputs)([new if b == old else b for b in task.outputs.data])


def test_the_task_graph_sees_a_task_changed_after_assign_streams() -> None:
    """ge-assign-streams reads every task's effects (cached per task); a task rewritten
    between it and ge-plan-memory is read again, not taken from that cache."""
    _, model = lower(BENCH.branchy_graph(1, blocks=3, case=False))
    assign_model(model)
    kernel = next(t for t in model.tasks() if isinstance(t, KernelOp))
    top = max(b.end for t in model.tasks() for b in t.effects().outs if isinstance(b, BufferAttr))
    _move(model, kernel, top)
    graph = TaskGraph.of(model)
    assert graph.writes[graph.tasks.index(kernel)][0].offset_value == top
    readers = [
        p for p, reads in enumerate(graph.reads) if any(b.offset_value == top for b in reads)
    ]
    assert readers, "the readers of the moved output read it at its new offset"
    plan_model(model)
    assert kernel.outputs.data[0].offset_value != top  # planned like every feature buffer


def _broken(shift: int) -> tuple[ModelOp, dict, dict]:
    """The example without reuse, with relu1's output moved over conv1's, which "skip" reads
    after relu1 ran: a plan that lets two live tensors share bytes."""
    _, model = lower(EXAMPLE)
    plan_model(model, reuse=False)
    kernels = {k.node_name.data: k for k in model.tasks() if isinstance(k, KernelOp)}
    _move(model, kernels["relu1"], kernels["conv1"].outputs.data[0].offset_value + shift)
    inputs = inputs_of(EXAMPLE, 0)
    return model, inputs, reference(EXAMPLE, inputs)


def test_a_broken_plan_changes_the_results() -> None:
    model, inputs, want = _broken(0)
    assert not np.array_equal(execute_model(model, inputs).outputs["logits"], want["logits"])


def test_a_broken_plan_is_caught_by_the_debug_mode() -> None:
    model, inputs, _ = _broken(512)
    pattern = r'"skip" reads arena\[\d+\] .* last written through .* by .ascend.kernel. "relu1"'
    with pytest.raises(AscendRuntimeError, match=pattern):
        execute_model(model, inputs, check_uninitialized=True)


def test_planned_models_are_refused() -> None:
    _, model = lower(EXAMPLE)
    plan_model(model)
    with pytest.raises(PassFailedException, match="is already planned: feature buffers"):
        plan_model(model)


def test_device_memory_names_the_largest_tensor() -> None:
    module, _ = lower(EXAMPLE)
    pattern = (
        r"more than device-memory=1024; largest tensors: arena\[\d+\] : "
        r'tensor<1x8x16x16xf32> written by .ascend.kernel. "conv1"'
    )
    with pytest.raises(PassFailedException, match=pattern):
        PlanMemoryPass(device_memory=1024).apply(make_context(), module)


def test_pass_leaves_garbage_collection_enabled() -> None:
    module, _ = lower(EXAMPLE)
    assert gc.isenabled()
    PlanMemoryPass().apply(make_context(), module)
    assert gc.isenabled()


def test_greedy_by_size_takes_the_best_fitting_gap() -> None:
    # 0 conflicts with 1, 2 and 3; 1 and 3 conflict; 2 fits the gap 0 leaves behind.
    sizes = [4, 2, 1, 2]
    neighbours = [{1, 2, 3}, {0, 3}, {0}, {0, 1}]
    offsets, top = greedy_by_size(sizes, [0, 1, 2, 3], neighbours)
    assert offsets == [0, 4, 4, 6]
    assert top == 8


def _best_fit_reference(
    sizes: list[int], firsts: list[int], neighbours: list[set[int]]
) -> tuple[list[int], int]:
    """TFLite's best fit written as a plain loop over each block's placed neighbours."""
    offsets = [-1] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], firsts[i])):
        placed = sorted(
            (offsets[j], offsets[j] + sizes[j]) for j in neighbours[i] if offsets[j] >= 0
        )
        best, best_gap, cursor = -1, -1, 0
        for start, end in placed:
            gap = start - cursor
            if gap >= sizes[i] and (best < 0 or gap < best_gap):
                best, best_gap = cursor, gap
            cursor = max(cursor, end)
        offsets[i] = best if best >= 0 else cursor
    return offsets, max((o + s for o, s in zip(offsets, sizes, strict=True)), default=0)


def test_greedy_by_size_equals_the_plain_best_fit_loop() -> None:
    """The C-level gap search places every block where the plain loop does (random conflict
    graphs, sizes with many ties so that equal gaps and exact fits occur)."""
    rng = np.random.default_rng(14)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        sizes = [int(s) * 512 for s in rng.integers(1, 6, n)]
        firsts = [int(f) for f in rng.integers(0, 10, n)]
        neighbours: list[set[int]] = [set() for _ in range(n)]
        for a, b in itertools.combinations(range(n), 2):
            if rng.random() < 0.3:
                neighbours[a].add(b)
                neighbours[b].add(a)
        want = _best_fit_reference(sizes, firsts, neighbours)
        assert greedy_by_size(sizes, firsts, neighbours) == want
        # the same graph as pairs, each twice and some both ways (as conflicts may give them)
        edges = [(a, b) for a in range(n) for b in neighbours[a] if a < b]
        edges += [(b, a) for a, b in edges] + edges[::2]
        pairs = Pairs(
            np.array([a for a, _ in edges], np.int64), np.array([b for _, b in edges], np.int64)
        )
        assert greedy_by_size(sizes, firsts, pairs) == want


def test_greedy_by_size_with_empty_blocks_equals_the_plain_best_fit_loop() -> None:
    """Zero sizes (a range of no bytes placed twice is not the same as once) as pairs."""
    rng = np.random.default_rng(15)
    for _ in range(300):
        n = int(rng.integers(1, 30))
        sizes = [int(s) * 512 for s in rng.integers(0, 4, n)]
        firsts = [int(f) for f in rng.integers(0, 10, n)]
        neighbours: list[set[int]] = [set() for _ in range(n)]
        for a, b in itertools.combinations(range(n), 2):
            if rng.random() < 0.4:
                neighbours[a].add(b)
                neighbours[b].add(a)
        edges = [(a, b) for a in range(n) for b in neighbours[a] if a < b] * 2
        pairs = Pairs(
            np.array([a for a, _ in edges], np.int64), np.array([b for _, b in edges], np.int64)
        )
        want = _best_fit_reference(sizes, firsts, neighbours)
        assert greedy_by_size(sizes, firsts, neighbours) == want
        assert greedy_by_size(sizes, firsts, pairs) == want


def _random_order(rng: np.random.Generator, n: int, streams: int) -> BlockOrder:
    """Blocks as intervals of program order and of each stream's index: one is before
    another when each of its intervals ends before the other's starts (a transitive order,
    as the vector clocks' is)."""
    lows = rng.integers(0, 12, (n, streams + 1))
    highs = lows + rng.integers(0, 4, (n, streams + 1))
    return BlockOrder(lows[:, 0], highs[:, 0], highs[:, 1:], lows[:, 1:])


def _order_sets(order: BlockOrder) -> list[set[int]]:
    """The conflicts of `order`, by testing every pair."""
    n = len(order.firsts)
    sets: list[set[int]] = [set() for _ in range(n)]
    for a, b in itertools.permutations(range(n), 2):
        if (
            not order.before(np.array([a]), np.array([b]))[0]
            and not order.before(np.array([b]), np.array([a]))[0]
        ):
            sets[a].add(b)
    return sets


def test_greedy_in_order_equals_the_plain_best_fit_loop() -> None:
    """Best fit by chain tests places every block where the plain loop over the conflict
    sets does (sizes and first uses with many ties)."""
    rng = np.random.default_rng(16)
    for _ in range(300):
        n = int(rng.integers(1, 40))
        order = _random_order(rng, n, int(rng.integers(0, 3)))
        sizes = [int(s) * 512 for s in rng.integers(1, 5, n)]
        firsts = order.firsts.tolist()
        neighbours = _order_sets(order)
        want = _best_fit_reference(sizes, firsts, neighbours)
        assert greedy_in_order(sizes, firsts, order) == want
        assert greedy_by_size(sizes, firsts, neighbours) == want
        offsets, size = want
        BlockPlan(sizes, offsets, size, order, 512, "greedy-by-size").verify()


def test_greedy_in_order_gives_up_past_its_ranges() -> None:
    order = BlockOrder(
        *(np.zeros(3, np.int64) for _ in range(2)), *(np.zeros((3, 0), np.int64),) * 2
    )
    assert greedy_in_order([512, 512, 512], [0, 0, 0], order, max_ranges=2) is None
    assert greedy_in_order([512, 512, 512], [0, 0, 0], order) == ([0, 512, 1024], 1536)
    with pytest.raises(ValueError, match="positive"):
        greedy_in_order(
            [0], [0], BlockOrder(*(np.zeros(1, np.int64),) * 2, *(np.zeros((1, 0), np.int64),) * 2)
        )


def test_a_plan_against_the_order_is_checked() -> None:
    """Two blocks that are not ordered may not share a range, even with a chain between."""
    order = BlockOrder(
        np.array([0, 2, 4]),
        np.array([1, 3, 5]),
        np.zeros((3, 0), np.int64),
        np.zeros((3, 0), np.int64),
    )
    BlockPlan([512] * 3, [0, 0, 0], 512, order, 512, "greedy-by-size").verify()
    order = BlockOrder(
        np.array([0, 2, 3]),
        np.array([1, 3, 5]),
        np.zeros((3, 0), np.int64),
        np.zeros((3, 0), np.int64),
    )
    with pytest.raises(PlanError, match="blocks 1 \\[0, 512\\) and 2"):
        BlockPlan([512] * 3, [0, 0, 0], 512, order, 512, "greedy-by-size").verify()
    # distinct ranges that overlap: block 1 [0, 1024) holds block 2 [512, 1024)
    BlockPlan([512, 1024, 512], [0, 0, 1024], 1536, order, 512, "g").verify()
    with pytest.raises(PlanError, match="blocks 1 \\[0, 1024\\) and 2"):
        BlockPlan([512, 1024, 512], [0, 0, 512], 1024, order, 512, "g").verify()


def _blocks_of(model: ModelOp) -> tuple[TaskGraph, list]:
    """The task graph and the feature blocks `plan_model` places."""
    graph = TaskGraph.of(model)
    info = _classify(model, graph)
    tensors = sorted(info.tensors.values(), key=lambda t: t.positions[0])
    pairs = in_place_pairs(graph, info.tensors, info.sizes)
    return graph, merge_blocks(tensors, pairs, graph)


def test_block_order_is_the_conflict_graph() -> None:
    """Where `block_order` answers, its order's conflicts are those of `conflicts`: on one
    stream and on several (assign-streams, with events), every pair tested."""
    checked = 0
    for seed in range(4):
        for streams in (False, True):
            _, model = lower(BENCH.branchy_graph(seed, blocks=3, case=False))
            if streams:
                assign_model(model)
            graph, blocks = _blocks_of(model)
            order = block_order(graph, blocks)
            assert order is not None
            assert graph.multi_stream == streams or not streams
            checked += graph.multi_stream
            assert _order_sets(order) == conflicts(graph, blocks).neighbours
    assert checked, "no multi-stream model was checked"
    _, model = lower(BENCH.branchy_graph(0, blocks=3))  # a case: the overlay is no order
    graph, blocks = _blocks_of(model)
    assert graph.cases and block_order(graph, blocks) is None
    assert block_order(graph, blocks, overlay=False) is not None


def test_plans_by_the_order_equal_the_plans_by_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pass places every buffer where the conflict pairs would (one and several streams)."""
    texts: list[str] = []
    for use_order in (True, False):
        if not use_order:
            monkeypatch.setattr(plan_memory, "block_order", lambda *_: None)
        for seed in range(3):
            _, model = lower(BENCH.branchy_graph(seed, blocks=4, case=False))
            if seed:
                assign_model(model)
            plan_model(model)
            texts.append(str(model))
    assert texts[:3] == texts[3:]


def test_size_classes_halve_from_the_largest() -> None:
    assert size_classes([512, 1024, 4096], 512) == [512, 1024, 2048, 4096]
    # Blocks reuse only within their class: the two 512s share unless they conflict.
    offsets, top = ge_lifetime([512, 512, 4096], [0, 1, 2], [set(), set(), set()], 512)
    assert top == 4096 + 512 and offsets[0] == offsets[1]
    offsets, top = ge_lifetime([512, 512, 4096], [0, 1, 2], [{1}, {0}, set()], 512)
    assert top == 4096 + 1024 and offsets[0] != offsets[1]


def test_buffer_array_equals_the_verified_array() -> None:
    """The rewrite's unverified arrays are the arrays `ArrayAttr` builds: equal, same hash
    and text, the same elements in order."""
    from xdsl.dialects.builtin import ArrayAttr, TensorType, f32

    from gedialects.ascend import BufferAttr
    from gedialects.base import new_array

    for n in range(4):
        buffers = [BufferAttr(512 * k, TensorType(f32, [k + 1])) for k in range(n)]
        want, got = ArrayAttr(buffers), new_array(iter(buffers))
        assert (got, hash(got), str(got), got.data) == (want, hash(want), str(want), want.data)
