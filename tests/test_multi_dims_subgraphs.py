"""Multi-dims subgraphs (issue 19 part 3): ge-create-subgraph-with-scope then
ge-expand-multi-dims-subgraphs give the same numbers as the graph before them at every gear, at
graph level, compiled, and through ge-opt / ge-run on files; a shape of no gear is E13025."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.ascend import DynamicControlOp, KernelOp, ModelOp
from gedialects.interpreters.run import run
from gedialects.passes.multibatch.create_scope import CreateSubGraphWithScopePass
from gedialects.passes.multibatch.subgraph_multi_dims import SubgraphMultiDimsClonePass
from gedialects.passes.pipelines import CompilePipelinePass
from tests.conftest import run_tool

# Scope 0 (mm, relu, tanh) reads x (input 0, ?x4), the weight (1) and y (2, ?x?); the gears give
# x's batch and both dims of y: (2; 2,3), (4; 1,1), (1; 3,2). `after` stays outside the scope.
SAMPLE = """
graph.graph @main(%x: tensor<?x4xf32> {node_name = "x"}, %y: tensor<?x?xf32> {node_name = "y"})
    -> (tensor<?x4xf32> {node_name = "out"}, tensor<?x?xf32> {node_name = "out2"}) {
  %w = graph.const dense<[[1.0, 2.0, 0.5, -1.0], [0.0, 1.0, 1.0, 1.0], [2.0, -1.0, 0.0, 0.5],
                          [1.0, 1.0, 1.0, 1.0]]> : tensor<4x4xf32> {node_name = "w"}
  %a = graph.matmul %x, %w {node_name = "mm", _subgraph_multi_dims_index = 0 : i64,
      _subgraph_multi_dims_input_shape = "0:-1,4;2:-1,-1",
      _subgraph_multi_dims_input_dims = "2,2,3;4,1,1;1,3,2"}
      : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  %b = graph.relu %a {node_name = "relu", _subgraph_multi_dims_index = 0 : i64}
      : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %c = graph.tanh %y {node_name = "tanh", _subgraph_multi_dims_index = 0 : i64}
      : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %d = graph.neg %b {node_name = "after"} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  graph.net_output %d, %c : tensor<?x4xf32>, tensor<?x?xf32>
}
"""
GEARS = [(2, (2, 3)), (4, (1, 1)), (1, (3, 2))]


def _parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def _inputs(gear: int) -> dict[str, np.ndarray]:
    batch, y = GEARS[gear]
    rng = np.random.default_rng(gear)
    return {
        "x": rng.standard_normal((batch, 4)).astype(np.float32),
        "y": rng.standard_normal(y).astype(np.float32),
    }


def _multi_dims() -> ModuleOp:
    module = _parse(SAMPLE)
    CreateSubGraphWithScopePass().apply(make_context(), module)
    SubgraphMultiDimsClonePass().apply(make_context(), module)
    return module


@pytest.fixture(scope="module")
def levels() -> tuple[ModuleOp, ModuleOp, ModuleOp]:
    graph = _multi_dims()
    compiled = graph.clone()
    CompilePipelinePass().apply(make_context(), compiled)
    return _parse(SAMPLE), graph, compiled


@pytest.mark.parametrize("gear", range(len(GEARS)))
def test_multi_dims_matches_the_unexpanded_graph_at_every_gear(
    levels: tuple[ModuleOp, ModuleOp, ModuleOp], gear: int
) -> None:
    original, graph, compiled = levels
    want = run(original, _inputs(gear))
    for module in (graph, compiled):
        got = run(module, _inputs(gear))
        assert sorted(got) == sorted(want)
        for name in want:
            assert got[name].shape == want[name].shape
            np.testing.assert_array_equal(got[name], want[name])


def test_multi_dims_off_gear_shape_is_e13025(levels: tuple[ModuleOp, ModuleOp, ModuleOp]) -> None:
    _, graph, compiled = levels
    feeds = {"x": np.zeros((3, 4), np.float32), "y": np.zeros((2, 3), np.float32)}
    for module in (graph, compiled):
        with pytest.raises(Exception, match=r"E13025: .*\[3,4,2,3\] is not in the dynamic"):
            run(module, feeds)


def test_multi_dims_branches_compile_to_static_models(
    levels: tuple[ModuleOp, ModuleOp, ModuleOp],
) -> None:
    """The Case runs on the host (its inputs change shape), each branch is a model of static
    tasks with its own memory plan, as GE runs a known branch subgraph."""
    _, _, compiled = levels
    models = {m.sym_name.data: m for m in compiled.ops if isinstance(m, ModelOp)}
    assert any(
        isinstance(t, DynamicControlOp) and t.kernel.data == "Case"
        for m in models.values()
        for t in m.body.block.ops
    )
    for g in range(len(GEARS)):
        branch = models[f"main_multi_dims_0_Subgraph_Multi_Dims_Branch_{g}"]
        kernels = [t for t in branch.body.block.ops if isinstance(t, KernelOp)]
        assert kernels and branch.arena_size.value.data > 0
        shapes = {t.effects().ins[0].type.get_shape() for t in kernels}
        assert (GEARS[g][0], 4) in shapes


def test_multi_dims_through_the_tools(tmp_path: Path) -> None:
    """graph.mlir -> ge-opt (both passes) -> .mlir -> ge-opt ge-compile -> .mlir -> ge-run
    --reference (the outputs of the graph before the passes) at every gear."""
    source = tmp_path / "g.mlir"
    source.write_text(SAMPLE)
    md, model = tmp_path / "md.mlir", tmp_path / "model.mlir"
    done = run_tool(
        "ge-opt", str(source), "-p", "ge-create-subgraph-with-scope,ge-expand-multi-dims-subgraphs",
        "-o", str(md),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = run_tool("ge-opt", str(md), "-p", "ge-compile", "-o", str(model))
    assert done.returncode == 0, done.stderr
    for gear in range(len(GEARS)):
        inputs, reference = tmp_path / f"in{gear}.npz", tmp_path / f"ref{gear}.npz"
        feeds = _inputs(gear)
        np.savez(inputs, x=feeds["x"], y=feeds["y"])
        done = run_tool("ge-run", str(source), "--inputs", str(inputs), "-o", str(reference))
        assert done.returncode == 0, done.stderr
        ran = run_tool("ge-run", str(model), "--inputs", str(inputs), "--reference", str(reference))
        assert ran.returncode == 0 and "MATCH: all" in ran.stdout, ran.stdout + ran.stderr


def test_scope_by_options_is_the_whole_graph() -> None:
    """GE's heterogeneous case: `input-shape` / `dynamic-dims` make every node scope 0; the
    result still computes what the graph did at each gear."""
    text = SAMPLE.replace("_subgraph_multi_dims_index = 0 : i64", "_keep = 0 : i64")
    original = _parse(text)
    module = original.clone()
    CreateSubGraphWithScopePass(
        input_shape="x:-1,4;y:-1,-1", dynamic_dims="2,2,3;4,1,1;1,3,2"
    ).apply(make_context(), module)
    SubgraphMultiDimsClonePass().apply(make_context(), module)
    for gear in range(len(GEARS)):
        want, got = run(original, _inputs(gear)), run(module, _inputs(gear))
        for name in want:
            np.testing.assert_array_equal(got[name], want[name])
