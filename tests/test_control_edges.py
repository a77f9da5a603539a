"""GE control edges (the operands of `graph.identity` after its data input) survive every
graph-level pass, keep the numbers, and become task dependencies after `ge-compile`."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.parser import Parser
from xdsl.passes import PassPipeline

from gedialects import make_context
from gedialects.ascend import KernelOp, ModelOp
from gedialects.base import NODE_NAME
from gedialects.graph import IdentityOp
from gedialects.interpreters.ascend import execute_model
from gedialects.interpreters.run import run
from gedialects.partition import PlaceHolderOp
from gedialects.passes import get_all_passes
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.tools import gen_docs
from tests.conftest import ROOT

EDGES = ROOT / "tests" / "lit" / "dialects" / "graph" / "control-edges.mlir"
# graph-level passes (the others take or make the ascend level; ge-expand-multibatch needs a
# gear option and a `?` input, tests/test_multibatch_expand.py); each runs with its defaults
GRAPH_PASSES = sorted(
    p.name
    for p in gen_docs.pass_classes()
    if p.name
    not in {
        "ge-assign-streams", "ge-compile", "ge-convert-graph-to-ascend", "ge-dump-dot",
        "ge-plan-memory", "ge-sink-loop", "ge-verify-model", "ge-expand-multibatch",
    }
)  # fmt: skip
OPTIONS = {"ge-partition-jit": "ge-partition-jit{known=auto}"}
"""Passes that need an option to run."""
FEEDS = {
    "i": np.array(0, np.int32),
    "v": np.array([1.0, -2.0, 3.0, 0.5], np.float32),
    "x": np.arange(4, dtype=np.float32),
}
PIPELINES = {
    "engine-merged": "ge-place-engines,ge-partition-engine,ge-merge-engine-partitions",
    "partition-inline": "ge-partition-dynamic-shape{static-model-ops-lower-limit=-1},"
    "ge-inline-partitions",
    "graph-optimise": "ge-infer-shapes,ge-normalize-conds,ge-fold-constants,ge-fold-identity,"
    "ge-fuse",
}


def _module() -> ModuleOp:
    module = Parser(make_context(), EDGES.read_text()).parse_module()
    module.verify()
    return module


def _producer(value: SSAValue) -> str:
    """The node name of `value`'s producer; a PlaceHolder stands for its End's producer
    (`_parentNodeName`), a block argument for a partition input."""
    owner = value.owner
    if isinstance(owner, PlaceHolderOp):
        return str(owner.properties["_parentNodeName"])
    return str(getattr(owner, "attributes", {}).get(NODE_NAME, '"arg"'))


def _edges(module: ModuleOp) -> dict[str, list[str]]:
    """Identity node -> the node names of the producers of its control inputs, looked through
    the partition calls' arguments (a partitioned edge enters the subgraph as an input)."""
    found: dict[str, list[str]] = {}
    for op in module.walk():
        if isinstance(op, IdentityOp) and op.ctrl:
            name = op.attributes[NODE_NAME]
            found[str(name)] = [_producer(v) for v in op.ctrl]
    return found


def _apply(pipeline: str) -> ModuleOp:
    module = _module()
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(make_context(), module)
    module.verify()
    return module


@pytest.mark.parametrize("name", GRAPH_PASSES)
def test_every_graph_pass_keeps_the_control_edges(name: str) -> None:
    before = _edges(_module())
    assert set(before) == {'"var_after_loop"', '"k_after_leaf"'}
    module = _apply(OPTIONS.get(name, name))
    after = _edges(module)
    assert set(after) == set(before), name
    for node, producers in after.items():  # the same producers, or a partition's inputs
        assert producers in (before[node], ['"arg"'] * len(producers)), (node, producers)
    got = run(module, FEEDS, "main")
    want = run(_module(), FEEDS, "main")
    for key in want:
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_pass_pipelines_keep_the_control_edges(pipeline: str) -> None:
    module = _apply(PIPELINES[pipeline])
    assert set(_edges(module)) == {'"var_after_loop"', '"k_after_leaf"'}
    want = run(_module(), FEEDS, "main")
    got = run(module, FEEDS, "main")
    for key in want:
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)


CONST_EDGE = """
graph.graph @g() -> tensor<2xf32> {
  %k = graph.const dense<[1.0, 2.0]> : tensor<2xf32>
  %w = graph.const dense<3.0> : tensor<f32> {node_name = "w"}
  %y = graph.identity %k, %w {node_name = "k_after_w"} : (tensor<2xf32>, tensor<f32>)
    -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
"""


def test_identity_with_constant_control_inputs_is_not_folded() -> None:
    """All its operands are constants, yet folding it to a Const would drop the edge."""
    module = Parser(make_context(), CONST_EDGE).parse_module()
    PassPipeline.parse_spec(get_all_passes(), "ge-fold-constants").apply(make_context(), module)
    assert _edges(module) == {'"k_after_w"': ['"w"']}


COMPILED = ROOT / "tests" / "lit" / "inputs" / "control-edges-compile.mlir"


def test_control_edges_become_task_dependencies_after_ge_compile() -> None:
    """The Identity's task reads the writer's output buffer, so on another stream it waits for
    the writer's event; every schedule gives the graph level's numbers."""
    module = Parser(make_context(), COMPILED.read_text()).parse_module()
    feeds = {"v": FEEDS["v"], "x": FEEDS["x"]}
    want = run(module, feeds)
    CompilePipelinePass().apply(make_context(), module)
    (model,) = module.ops
    assert isinstance(model, ModelOp)
    tasks = {t.node_name.data: t for t in model.tasks() if isinstance(t, KernelOp)}
    writer_out = tasks["writer"].effects().outs
    for name in ("v_after_writer", "k_after_writer"):
        reads = tasks[name].effects().ins
        assert set(writer_out) <= set(reads), name
    for seed in (None, 1, 2, 3):
        got = execute_model(model, feeds, schedule_seed=seed, check_uninitialized=True).outputs
        for key in want:
            np.testing.assert_array_equal(got[key], want[key], err_msg=key)
