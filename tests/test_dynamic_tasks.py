"""Dynamic tasks: unknown-shape partitions compiled by ge-compile and run by the ascend
interpreter with shapes and arena placement decided at run time (GE's hybrid execution)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.ascend import DynamicKernelOp, ModelOp
from gedialects.interpreters.ascend import DynamicHeap, execute_model
from gedialects.interpreters.run import run
from gedialects.passes.pipelines import CompilePipelinePass
from tests.conftest import ROOT

# Two branches after a data-dependent op: the unknown partition spans two engines' work, so
# stream assignment puts dynamic tasks on several streams synchronised by events.
BRANCHY = (ROOT / "tests" / "lit" / "inputs" / "branchy-nonzero.mlir").read_text()


def _parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def _compiled(text: str, **options: object) -> ModuleOp:
    module = _parse(text)
    CompilePipelinePass(**options).apply(make_context(), module)  # type: ignore[arg-type]
    module.verify()
    return module


def _model(module: ModuleOp) -> ModelOp:
    (model,) = [op for op in module.ops if isinstance(op, ModelOp)]
    return model


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_branchy_dynamic_tasks_equal_the_graph_interpreter(seed: int) -> None:
    x = np.random.default_rng(seed).standard_normal((8, 4)).astype(np.float32)
    want = run(_parse(BRANCHY), {"x": x})
    model = _model(_compiled(BRANCHY))
    assert len({t.stream.value.data for t in model.tasks()}) > 1
    assert {t.node_name.data for t in model.tasks() if isinstance(t, DynamicKernelOp)} >= {
        "nz",
        "exp",
        "sqrt",
    }
    for schedule in (None, 7, 8, 9):
        got = execute_model(model, {"x": x}, schedule_seed=schedule, check_uninitialized=True)
        for name, value in want.items():
            np.testing.assert_allclose(got.outputs[name], value, rtol=1e-6, err_msg=name)


def test_no_element_selected_gives_empty_outputs() -> None:
    model = _model(_compiled(BRANCHY))
    got = execute_model(model, {"x": -np.ones((8, 4), np.float32)}, check_uninitialized=True)
    assert got.outputs["a"].shape == (0,) and got.outputs["b"].shape == (0,)
    assert got.outputs["s"] == 0


def test_dynamic_tasks_in_a_sunk_loop_rewrite_their_buffers() -> None:
    """N iterations per launch: every dynamic buffer is written again in each iteration, the
    old value freed first, so the results are those of one iteration and the dynamic memory
    does not grow with the iteration count."""
    x = np.random.default_rng(3).standard_normal((8, 4)).astype(np.float32)
    want = run(_parse(BRANCHY), {"x": x})
    peaks = []
    for n in (3, 5):
        looped = execute_model(_model(_compiled(BRANCHY, iterations_per_loop=n)), {"x": x})
        for name, value in want.items():
            np.testing.assert_allclose(looped.outputs[name], value, rtol=1e-6, err_msg=name)
        peaks.append(looped.stats.dynamic_peak)
    assert peaks[0] == peaks[1] > 0


def test_dynamic_memory_is_reused_after_the_last_reader() -> None:
    model = _model(_compiled(BRANCHY, multi_stream=False))
    x = np.ones((8, 4), np.float32)
    stats = execute_model(model, {"x": x}).stats
    sizes = [32 * 8 * 2, 32 * 4, 32 * 4, 32 * 4]  # indices (int64 pairs), picked, exp, sqrt
    no_reuse = sum(-(-s // 512) * 512 for s in sizes)
    assert 0 < stats.dynamic_peak < no_reuse


def test_heap_best_fit_coalesces_and_shrinks_the_top() -> None:
    heap = DynamicHeap(1024)
    a, b, c = heap.allocate(100), heap.allocate(1000), heap.allocate(10)
    assert (a, b, c) == (1024, 1536, 2560) and heap.top == 3072
    heap.release(a, 100)
    heap.release(b, 1000)  # coalesces with a: one free block of 1536 bytes
    assert heap.free == [(1024, 1536)]
    assert heap.allocate(600) == 1024  # best fit from the freed block
    assert heap.free == [(2048, 512)]
    heap.release(c, 10)  # joins the free block below it, which now ends at the top: top shrinks
    assert heap.top == 2048 and heap.free == []
    assert heap.peak == 2048


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 5000)), min_size=1, max_size=60))
def test_heap_never_overlaps_live_blocks(ops: list[tuple[bool, int]]) -> None:
    heap = DynamicHeap(512)
    live: list[tuple[int, int]] = []
    for free, size in ops:
        if free and live:
            offset, nbytes = live.pop(size % len(live))
            heap.release(offset, nbytes)
        else:
            offset = heap.allocate(size)
            assert offset % 512 == 0 and offset >= 512
            live.append((offset, size))
        spans = sorted(live)
        for (o1, n1), (o2, _) in itertools.pairwise(spans):
            assert o1 + n1 <= o2
        assert all(o + n <= heap.top for o, n in live)
        assert heap.used == sum(-(-n // 512) * 512 for _, n in live)
