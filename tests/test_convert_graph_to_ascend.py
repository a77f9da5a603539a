"""ge-convert-graph-to-ascend and ge-compile keep the numbers: graph level == ascend level."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.utils.exceptions import PassFailedException

from gedialects import make_context
from gedialects.ascend import ModelOp
from gedialects.interpreters.run import find_entry, random_inputs, run, signature
from gedialects.passes.analysis.memory_plan import GE_ALIGNMENT, Slot, SlotKind, plan_without_reuse
from gedialects.passes.convert_graph_to_ascend import ConvertGraphToAscendPass
from gedialects.passes.pipelines import CompilePipelinePass
from tests.conftest import EXAMPLES, ROOT, parse

LIT_CASES = ROOT / "tests" / "lit" / "passes" / "ge-convert-graph-to-ascend.mlir"


def _lit_chunks() -> list[str]:
    return LIT_CASES.read_text().split("// -----")


def _lower(module: ModuleOp, **options: object) -> ModuleOp:
    lowered = module.clone()
    ConvertGraphToAscendPass(**options).apply(make_context(), lowered)
    lowered.verify()
    assert all(isinstance(op, ModelOp) for op in lowered.ops)
    return lowered


def _assert_same(module: ModuleOp, inputs: dict[str, np.ndarray], **options: object) -> None:
    expected = run(module, inputs)
    got = run(_lower(module, **options), inputs)
    assert list(got) == list(expected)
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_example_equal_at_both_levels(seed: int) -> None:
    module = parse((EXAMPLES / "conv_block.mlir").read_text())
    inputs = random_inputs(signature(find_entry(module)), seed)
    _assert_same(module, inputs)
    _assert_same(module, inputs, alignment=32, default_engine="VectorEngine")


@pytest.mark.parametrize("index", range(len(_lit_chunks())))
def test_lit_cases_equal_at_both_levels(index: int) -> None:
    module = parse(_lit_chunks()[index])
    sig = signature(find_entry(module))
    if sig.entry == "gears":
        for gear in ([1, 2], [3, 4]):
            inputs = random_inputs(sig, index) | {"x": np.array(gear, np.int32)}
            _assert_same(module, inputs)
    else:
        _assert_same(module, random_inputs(sig, index))


def test_case_selects_the_gear_at_the_ascend_level() -> None:
    module = parse(_lit_chunks()[3])
    lowered = _lower(module)
    v = np.array([1, -2, 3, -4], np.float32)
    doubled = run(lowered, {"x": np.array([1, 2], np.int32), "v": v})["output0"]
    zeroed = run(lowered, {"x": np.array([3, 4], np.int32), "v": v})["output0"]
    np.testing.assert_array_equal(doubled, 2 * v)
    np.testing.assert_array_equal(zeroed, 0 * v)


def test_ge_compile_pipeline_lowers_the_example() -> None:
    module = parse((EXAMPLES / "conv_block.mlir").read_text())
    inputs = random_inputs(signature(find_entry(module)), 0)
    expected = run(module, inputs)
    CompilePipelinePass().apply(make_context(), module)
    module.verify()
    assert [op.sym_name.data for op in module.ops] == ["conv_block"]
    np.testing.assert_allclose(run(module, inputs)["logits"], expected["logits"], rtol=1e-5)


def test_ge_compile_runs_in_ge_order_with_switchable_stages() -> None:
    names = [p.name for p in CompilePipelinePass().passes()]
    assert names == [
        "ge-infer-shapes",
        "ge-verify-graph",
        "ge-convert-for-to-while",
        "ge-split-variables-into-subgraphs",
        "ge-normalize-conds",
        "ge-fuse-quant",
        "ge-fold-constants",
        "ge-optimize-original-graph",
        "ge-prepare-variables",
        "ge-partition-stage",
        "ge-place-engines",
        "ge-update-hostcpu-engine",
        "ge-partition-dynamic-shape",
        "ge-place-engines",
        "ge-partition-engine",
        "ge-optimize-subgraphs",
        "ge-merge-engine-partitions",
        "ge-optimize-whole-graph",
        "ge-delete-variable-refs",
        "ge-convert-graph-to-ascend",
        "ge-assign-streams",
        "ge-plan-memory",
    ]
    lean = [p.name for p in CompilePipelinePass(fold=False, fusion=False, formats=False).passes()]
    assert "ge-fold-constants" not in lean and "ge-optimize-original-graph" not in lean
    assert "ge-optimize-whole-graph" not in lean  # AI Core's weight fold and trans-op clean-up


def test_bad_alignment_is_a_pass_failure() -> None:
    module = parse(_lit_chunks()[0])
    with pytest.raises(PassFailedException, match="alignment must be positive, got 0"):
        ConvertGraphToAscendPass(alignment=0).apply(make_context(), module)


def test_memory_plan_without_reuse_is_disjoint_aligned_and_ordered() -> None:
    t = TensorType(f32, [3, 5])  # 60 bytes
    kinds = [SlotKind.FEATURE, SlotKind.IO, SlotKind.WEIGHT, SlotKind.FEATURE, SlotKind.WEIGHT]
    slots = [Slot(t, kind) for kind in kinds]
    plan = plan_without_reuse(slots)
    ranges = sorted((plan.offset(s), plan.offset(s) + s.nbytes, s.kind) for s in slots)
    assert [kind for *_, kind in ranges] == [
        SlotKind.WEIGHT,
        SlotKind.WEIGHT,
        SlotKind.IO,
        SlotKind.FEATURE,
        SlotKind.FEATURE,
    ]
    for (_, end, _), (start, _, _) in pairwise(ranges):
        assert end <= start
    assert all(plan.offset(s) % GE_ALIGNMENT == 0 for s in slots)
    assert plan.weight_size == 2 * GE_ALIGNMENT
    assert plan.arena_size == 5 * GE_ALIGNMENT
    assert plan.feature_bytes == 120


def test_lowered_example_reparses(tmp_path: Path) -> None:
    module = parse((EXAMPLES / "conv_block.mlir").read_text())
    lowered = _lower(module)
    again = parse(str(lowered))
    assert str(again) == str(lowered)
