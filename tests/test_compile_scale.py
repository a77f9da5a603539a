"""ge-compile's speed work (issue 14 part 5) keeps its output: byte-identical text, checked
against digests recorded with the code before it, and the array-based conflict pairs equal to
the pair-by-pair sweep they replaced."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import itertools
import random
import sys
from pathlib import Path

from xdsl.ir import Operation
from xdsl.printer import Printer

from gedialects import make_context
from gedialects.frontend.onnx import import_model
from gedialects.passes.analysis.liveness import (
    crossing,
    crossing_pairs,
    intervals,
    overlapping,
    overlapping_pairs,
)
from gedialects.passes.analysis.memory_plan import Pairs
from gedialects.passes.pipelines import CompilePipelinePass

ROOT = Path(__file__).resolve().parent.parent

GRAPH_SHA256 = "64945ef8c50f6815afd26771d71de1d73fc3851ae246c8010a4d36cbe591600a"
"""`ge-import` of bench_scale's 2000-node model, printed (recorded with main at 601f79b)."""
COMPILED_SHA256 = "44354eac8db83b25603eb5bbd6510e8a917609189f211e26022834f070801bc1"
"""The same after `ge-compile`, printed (recorded with main at 601f79b, before the speed-ups).
A pass that changes its output on purpose records the new digest here and says so."""


def _bench_scale():
    spec = importlib.util.spec_from_file_location("bench_scale", ROOT / "bench" / "bench_scale.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _text(module: Operation) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def test_compile_of_a_2k_node_scale_graph_is_byte_identical_to_before_the_speed_ups() -> None:
    module = import_model(_bench_scale().scale_model(2000))
    graph = _text(module)
    assert hashlib.sha256(graph.encode()).hexdigest() == GRAPH_SHA256, "ge-import's output moved"
    CompilePipelinePass().apply(make_context(), module)
    compiled = _text(module)
    assert hashlib.sha256(compiled.encode()).hexdigest() == COMPILED_SHA256, (
        "ge-compile's output of the 2k-node scale graph changed"
    )


def _segments(rng: random.Random, blocks: int) -> list[tuple[int, int, int]]:
    """Per block 1-3 closed ranges, sorted and apart (as `liveness.segments` makes them)."""
    out = []
    for i in range(blocks):
        lo = rng.randint(0, 30)
        for _ in range(rng.randint(1, 3)):
            hi = lo + rng.randint(0, 8)
            out.append((lo, hi, i))
            lo = hi + rng.randint(2, 10)
    return out


def _pair_sets(n: int, pairs: Pairs) -> list[set[int]]:
    got: list[set[int]] = [set() for _ in range(n)]
    for a, b in zip(pairs.a.tolist(), pairs.b.tolist(), strict=True):
        got[a].add(b)
        got[b].add(a)
    return got


def test_overlapping_pairs_are_the_pairs_the_sweep_yields() -> None:
    rng = random.Random(14)
    for _ in range(500):
        n = rng.randint(1, 40)
        family = _segments(rng, n)
        want: list[set[int]] = [set() for _ in range(n)]
        for a, b in overlapping(family):
            want[a].add(b)
            want[b].add(a)
        pairs = overlapping_pairs(intervals(family))
        assert _pair_sets(n, pairs) == want, family
        assert len(pairs.a) == sum(1 for _ in overlapping(family)), "each pair once"


def test_crossing_pairs_are_the_pairs_the_sweep_yields() -> None:
    rng = random.Random(15)
    for _ in range(500):
        n = rng.randint(1, 40)

        def family(n: int = n) -> list[tuple[int, int, int]]:
            starts = [(i, rng.randint(0, 60)) for i in range(n) if rng.random() < 0.7]
            return [(lo, lo + rng.randint(0, 8), i) for i, lo in starts]

        xs, ys = family(), family()
        want: list[set[int]] = [set() for _ in range(n)]
        for a, b in crossing(xs, ys):
            want[a].add(b)
            want[b].add(a)
        pairs = crossing_pairs(intervals(xs), intervals(ys))
        assert _pair_sets(n, pairs) == want, (xs, ys)
        found = zip(pairs.a.tolist(), pairs.b.tolist(), strict=True)
        assert sorted(found) == sorted(crossing(xs, ys))


def test_task_and_declaration_builders_make_the_ops_irdl_init_makes() -> None:
    """The builders that skip `irdl_op_init` (`ascend._init_properties`) give the op the
    generic IRDL builder gives from the same properties: same properties and attributes,
    same text, and it verifies the same way."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, DictionaryAttr, TensorType, f32
    from xdsl.irdl import IRDLOperation

    from gedialects import ascend

    buf = ascend.BufferAttr(512, TensorType(f32, [2, 3]))
    out = ascend.BufferAttr(1024, TensorType(f32, [2, 3]))
    built: list[IRDLOperation] = [
        ascend.EventOp(3),
        ascend.StreamOp(1, "AIcoreEngine"),
        ascend.EventRecordOp(2, 1),
        ascend.EventWaitOp(2, 0),
        ascend.LabelSetOp(4, 1),
        ascend.LabelGotoOp(4, 1),
        ascend.EndGraphOp(0),
        ascend.StreamActiveOp(2, 0),
        ascend.MemcpyAsyncOp(1, buf, out),
        ascend.WeightOp(0, DenseIntOrFPElementsAttr.from_list(TensorType(f32, [2, 3]), [1.0] * 6)),
        ascend.KernelOp("Relu", "relu0", "AIcoreEngine", 1, [buf], [out]),
        ascend.KernelOp("Relu", "relu1", "AIcoreEngine", 0, [buf], [out], {"x": buf}),
    ]
    built += [  # the second op of a class copies the first's fields (the template path)
        ascend.EventOp(4),
        ascend.StreamOp(2, "AIcpuEngine"),
        ascend.EventRecordOp(5, 0),
        ascend.EndGraphOp(1),
        ascend.MemcpyAsyncOp(0, out, buf),
        ascend.WeightOp(
            512, DenseIntOrFPElementsAttr.from_list(TensorType(f32, [2, 3]), [2.0] * 6)
        ),
        ascend.KernelOp("Add", "add0", "AIcoreEngine", 2, [buf, buf], [out]),
    ]
    for op in built:
        cls = type(op)
        generic = cls.__new__(cls)
        IRDLOperation.__init__(generic, properties=dict(op.properties))
        assert generic.properties == op.properties and generic.attributes == op.attributes
        assert vars(generic).keys() == vars(op).keys()
        for key, value in vars(generic).items():
            assert vars(op)[key] == value, key
        assert str(generic) == str(op)
        assert not op.operands and not op.results and not op.regions
        assert op.parent is None and op.next_op is None
        op.verify_()
    for a, b in itertools.combinations(built, 2):  # no op shares a mutable dict with another
        assert a.properties is not b.properties and a.attributes is not b.attributes
    # a default the builder leaves out is filled as IRDL's __post_init__ fills it
    bare = ascend.KernelOp.__new__(ascend.KernelOp)
    given = {k: v for k, v in built[-1].properties.items() if k != "attrs"}
    ascend._init_properties(bare, given)  # pyright: ignore[reportPrivateUsage]
    assert bare.properties["attrs"] == DictionaryAttr({})
    again = ascend.KernelOp("Relu", "relu2", "AIcoreEngine", 0, [buf], [out])
    first = next(op for op in built if isinstance(op, ascend.KernelOp))
    assert first.node_name.data == "relu0"
    assert again.kernel is first.kernel and again.engine is first.engine  # shared


def test_new_i64_and_buffer_at_equal_the_verified_constructors() -> None:
    """`base.new_i64` and `BufferAttr.at` skip xDSL's generic verification: on random
    values (and i64's ends) they give equal attributes with equal hashes and text, and
    refuse what the verified constructors refuse."""
    import pytest
    from xdsl.dialects.builtin import IntegerAttr, TensorType, f16, f32, i64
    from xdsl.utils.exceptions import VerifyException

    from gedialects.ascend import BufferAttr
    from gedialects.base import new_i64

    rng = random.Random(16)
    values = [0, -1, 1, -(1 << 63), (1 << 63) - 1]
    values += [rng.randint(-(1 << 63), (1 << 63) - 1) for _ in range(200)]
    values += [1 << 63, (1 << 64) - 1]  # signless: xDSL wraps them to negative values
    for v in values:
        want, got = IntegerAttr(v, i64), new_i64(v)
        assert (got, hash(got), str(got)) == (want, hash(want), str(want))
    for v in (1 << 64, -(1 << 63) - 1):
        with pytest.raises(VerifyException):
            IntegerAttr(v, i64)
        with pytest.raises(VerifyException):
            new_i64(v)
    for _ in range(200):
        shape = [rng.randint(0, 5) for _ in range(rng.randint(0, 3))]
        source = BufferAttr(rng.randrange(0, 1 << 40), TensorType(rng.choice([f16, f32]), shape))
        if rng.random() < 0.5:
            _ = source.nbytes  # carried over when known
        offset = rng.randrange(0, 1 << 40)
        want, got = BufferAttr(offset, source.type), source.at(offset)
        assert (got, hash(got), str(got), got.nbytes) == (want, hash(want), str(want), want.nbytes)
    with pytest.raises(VerifyException, match="negative"):
        BufferAttr(0, TensorType(f32, [1])).at(-512)


def test_buffer_placed_equals_the_verified_constructor() -> None:
    """`BufferAttr.placed` (the lowering's builder, `memory_plan.type_facts` giving the byte
    size) makes the attribute the verified constructor makes, and what it cannot vouch for
    (no byte size, a `?` dim, a negative offset) goes to that constructor, which refuses it."""
    import pytest
    from xdsl.dialects.builtin import TensorType, f16, f32, i1, i8, i64
    from xdsl.utils.exceptions import VerifyException

    from gedialects.ascend import BufferAttr
    from gedialects.passes.analysis.memory_plan import type_facts

    rng = random.Random(14)
    for _ in range(200):
        shape = [rng.randint(0, 5) for _ in range(rng.randint(0, 3))]
        t = TensorType(rng.choice([f16, f32, i1, i8, i64]), shape)
        offset = rng.randrange(0, 1 << 40)
        facts = type_facts(t)
        assert facts.static and type_facts(t) is facts
        want, got = BufferAttr(offset, t), BufferAttr.placed(offset, t, facts.nbytes)
        assert (got, hash(got), str(got), got.nbytes) == (want, hash(want), str(want), want.nbytes)
        assert facts.reserved == facts.nbytes and not facts.formatted
    dynamic = TensorType(f32, [-1, 2])
    assert not type_facts(dynamic).static and type_facts(dynamic).nbytes is None
    with pytest.raises(VerifyException, match="not static"):
        BufferAttr.placed(0, dynamic, type_facts(dynamic).nbytes)
    with pytest.raises(VerifyException, match="negative"):
        BufferAttr.placed(-512, TensorType(f32, [1]), 4)
