"""Partitioning of functional control flow (issue 17 part 4), numerically: every partition
pass leaves the graph computing what it computed, with If/While/For and their subgraphs, on
random inputs and on the three PyTorch control-flow models; and the subgraph marks follow
GE's rules (an unknown control-flow node's subgraphs run dynamically whole)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.parser import Parser
from xdsl.passes import ModulePass

from gedialects import make_context
from gedialects.base import IS_UNKNOWN_SHAPE
from gedialects.frontend.onnx import import_model
from gedialects.graph import GraphOp
from gedialects.graph.control import ControlFlowOp
from gedialects.interpreters.run import run
from gedialects.passes.analysis.graph_view import bool_attr, called_symbols
from gedialects.passes.partition.dynamic_shape import PartitionDynamicShapePass
from gedialects.passes.partition.engine import PartitionEnginePass
from gedialects.passes.partition.inline import InlinePartitionsPass
from gedialects.passes.partition.merge_engine_partitions import MergeEnginePartitionsPass
from gedialects.passes.partition.place_engines import PlaceEnginesPass
from gedialects.passes.partition.stage import PartitionStagePass
from tests.conftest import ROOT
from tests.test_models import assert_outputs_match, expected_of, inputs_of

LIT = ROOT / "tests" / "lit" / "passes"
MODELS = ROOT / "tests" / "models"

PIPELINES: dict[str, list[ModulePass]] = {
    "dynamic-shape": [PartitionDynamicShapePass()],
    "dynamic-shape-limit1": [PartitionDynamicShapePass(static_model_ops_lower_limit=1)],
    "all-unknown": [PartitionDynamicShapePass(static_model_ops_lower_limit=-1)],
    "engine": [PlaceEnginesPass(), PartitionEnginePass()],
    "engine-merged": [PlaceEnginesPass(), PartitionEnginePass(), MergeEnginePartitionsPass()],
    "dynamic-then-engine": [PartitionDynamicShapePass(), PlaceEnginesPass(), PartitionEnginePass()],
    "inlined": [PartitionDynamicShapePass(), InlinePartitionsPass()],
    "stage": [PartitionStagePass()],
}


def _chunks(path: Path) -> list[str]:
    return [c for c in path.read_text().split("// -----") if "graph.graph" in c]


def _parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def _apply(module: ModuleOp, passes: list[ModulePass]) -> ModuleOp:
    ctx = make_context()
    for p in passes:
        p.apply(ctx, module)
    module.verify()
    return module


def _roots(module: ModuleOp) -> list[GraphOp]:
    called = {s for op in module.walk() for s in called_symbols(op)}
    return [g for g in module.ops if isinstance(g, GraphOp) and g.sym_name.data not in called]


def _random_inputs(graph: GraphOp, rng: np.random.Generator) -> dict[str, np.ndarray]:
    from gedialects.tensors import numpy_dtype

    feeds: dict[str, np.ndarray] = {}
    for arg in graph.body.block.args:
        t = arg.type
        assert isinstance(t, TensorType)
        dtype, shape = numpy_dtype(t.element_type), t.get_shape()
        if dtype == np.bool_:
            value = rng.random(shape) < 0.5
        elif np.issubdtype(dtype, np.integer):
            value = rng.integers(1, 4, shape).astype(dtype)  # > 0: a For delta
        else:
            value = rng.standard_normal(shape).astype(dtype)
        feeds[arg.name_hint or ""] = np.asarray(value)
    return feeds


CHUNKS = {
    f"{path.stem}:{k}": text
    for path in (
        LIT / "ge-partition-control-flow.mlir",
        LIT / "ge-partition-engine-control-flow.mlir",
        LIT / "ge-partition-stage-control-flow.mlir",
    )
    for k, text in enumerate(_chunks(path))
}


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
@pytest.mark.parametrize("chunk", sorted(CHUNKS))
def test_partitioning_control_flow_keeps_the_numbers(chunk: str, pipeline: str) -> None:
    before = _parse(CHUNKS[chunk])
    after = _apply(_parse(CHUNKS[chunk]), PIPELINES[pipeline])
    rng = np.random.default_rng(17)
    for root in _roots(before):
        for _ in range(4):
            feeds = _random_inputs(root, rng)
            want = run(before, feeds, root.sym_name.data)
            got = run(after, feeds, root.sym_name.data)
            assert want.keys() == got.keys()
            for name in want:
                np.testing.assert_array_equal(got[name], want[name], err_msg=name)


MODEL_CASES = {"branch_then": "branch", "rnn_loop_b3_t2": "rnn_loop", "cumulative_t8": "cumulative"}


@pytest.mark.parametrize("pipeline", ["dynamic-shape", "dynamic-then-engine", "inlined"])
@pytest.mark.parametrize("case", sorted(MODEL_CASES))
def test_partitioned_control_flow_models_match_onnxruntime(case: str, pipeline: str) -> None:
    module = _apply(import_model(MODELS / f"{MODEL_CASES[case]}.onnx"), PIPELINES[pipeline])
    assert_outputs_match(run(module, inputs_of(case)), expected_of(case))


@pytest.mark.parametrize("model", ["branch", "rnn_loop", "cumulative"])
def test_dynamic_models_run_their_control_flow_subgraphs_dynamically(model: str) -> None:
    """The models have `?` batch (and step) axes, so their control-flow node is unknown
    (rule 3) and every subgraph under it is marked unknown, nested ones included."""
    module = _apply(import_model(MODELS / f"{model}.onnx"), PIPELINES["dynamic-shape"])
    graphs = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    subgraphs = {
        name for op in module.walk() if isinstance(op, ControlFlowOp) for name in called_symbols(op)
    }
    assert subgraphs
    for name in subgraphs:
        assert bool_attr(graphs[name], IS_UNKNOWN_SHAPE) is True, name
        for op in graphs[name].body.block.ops:
            assert bool_attr(op, IS_UNKNOWN_SHAPE) is True, (name, op.name)
