"""Pipeline stages run as stages (issue 18, part 5): each `ge-partition-stage` stage compiles
to a static model of its own, with its own memory plan, and the root model runs them in level
order with GE's stage synchronisation (the sync token chain of `ascend.stage`)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.ascend import BufferAttr, KernelOp, ModelOp, StageOp
from gedialects.interpreters.ascend import AscendRuntimeError, execute_model
from gedialects.interpreters.run import run
from gedialects.passes.convert_graph_to_ascend import ConvertGraphToAscendPass
from gedialects.passes.partition.stage import PartitionStagePass
from gedialects.passes.pipelines import CompilePipelinePass
from tests.conftest import run_tool


def _dense(a: np.ndarray) -> str:
    return f"dense<{a.tolist()}> : tensor<{'x'.join(map(str, a.shape))}xf32>"


def _staged_text(staged: bool = True) -> str:
    """An MLP cut into three stages: 0 and 1 marked, the residual add the tail stage 2; stage
    2 reads stage 1's result and the root input."""
    rng = np.random.default_rng(18)
    w1, w2 = (rng.standard_normal((8, 8)).astype(np.float32) for _ in range(2))
    b1 = rng.standard_normal((8,)).astype(np.float32)

    def level(n: int) -> str:
        return f", _stage_level = {n}" if staged else ""

    t = "tensor<4x8xf32>"
    return f"""
graph.graph @mlp(%x: {t}) -> {t} {{
  %w1 = graph.const {_dense(w1)} {{node_name = "w1"}}
  %b1 = graph.const {_dense(b1)} {{node_name = "b1"}}
  %w2 = graph.const {_dense(w2)} {{node_name = "w2"}}
  %m1 = graph.matmul %x, %w1 {{node_name = "mm1"{level(0)}}} : ({t}, tensor<8x8xf32>) -> {t}
  %a1 = graph.add %m1, %b1 {{node_name = "bias1"{level(0)}}} : ({t}, tensor<8xf32>) -> {t}
  %r1 = graph.relu %a1 {{node_name = "relu1"{level(0)}}} : ({t}) -> {t}
  %m2 = graph.matmul %r1, %w2 {{node_name = "mm2"{level(1)}}} : ({t}, tensor<8x8xf32>) -> {t}
  %s2 = graph.sigmoid %m2 {{node_name = "sig2"{level(1)}}} : ({t}) -> {t}
  %e2 = graph.exp %s2 {{node_name = "exp2"{level(1)}}} : ({t}) -> {t}
  %h2 = graph.tanh %e2 {{node_name = "tanh2"{level(1)}}} : ({t}) -> {t}
  %n2 = graph.neg %h2 {{node_name = "neg2"{level(1)}}} : ({t}) -> {t}
  %y = graph.add %n2, %x {{node_name = "residual"}} : ({t}, {t}) -> {t}
  graph.net_output %y : {t}
}}
"""


def _parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def _compiled(text: str) -> ModuleOp:
    module = _parse(text)
    CompilePipelinePass().apply(make_context(), module)
    module.verify()
    return module


def _models(module: ModuleOp) -> dict[str, ModelOp]:
    return {m.sym_name.data: m for m in module.ops if isinstance(m, ModelOp)}


X = np.random.default_rng(5).standard_normal((4, 8)).astype(np.float32)


def test_stages_are_not_inlined_and_run_in_level_order() -> None:
    models = _models(_compiled(_staged_text()))
    assert sorted(models) == ["Subgraph_Level_0", "Subgraph_Level_1", "Subgraph_Level_2", "mlp"]
    root = models["mlp"]
    stages = [t for t in root.tasks() if isinstance(t, StageOp)]
    assert not [t for t in root.tasks() if isinstance(t, KernelOp)]  # nothing inlined
    assert [(s.model_name, s.level.value.data) for s in stages] == [
        ("Subgraph_Level_0", 0),
        ("Subgraph_Level_1", 1),
        ("Subgraph_Level_2", 2),
    ]
    # GE's stage synchronisation: each stage starts after the previous one's sync token
    for before, after in itertools.pairwise(stages):
        assert list(after.after.data) == list(before.sync.data) != []
    assert not stages[0].after.data and not stages[-1].sync.data
    kernels = {
        name: [t.node_name.data for t in m.tasks() if isinstance(t, KernelOp)]
        for name, m in models.items()
        if name != "mlp"
    }
    # each stage's nodes (fused by its engine's optimiser: MatMul + bias + Relu is one kernel)
    assert kernels == {
        "Subgraph_Level_0": ["mm1"],
        "Subgraph_Level_1": ["mm2", "exp2", "tanh2", "neg2"],
        "Subgraph_Level_2": ["residual"],
    }


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("schedule", [None, 1, 2])
def test_numbers_equal_the_unpartitioned_graph(compiled: bool, schedule: int | None) -> None:
    """The staged model (three stage models, the sync chain) against the graph interpreter on
    the graph without `_stage_level` and against that graph's own one-model compile: the
    same kernels on the same values, so the numbers are identical."""
    plain = _parse(_staged_text(staged=False))
    want = run(plain, {"x": X})["output0"]
    unstaged = _models(_compiled(_staged_text(staged=False)))
    assert list(unstaged) == ["mlp"]
    whole = execute_model(unstaged["mlp"], {"x": X}).outputs["output0"]
    root = _models(_compiled(_staged_text()))["mlp"]
    got = execute_model(
        root, {"x": X}, schedule_seed=schedule, check_uninitialized=True, compiled=compiled
    ).outputs["output0"]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(got, whole)


def _buffers(model: ModelOp) -> list[BufferAttr]:
    found = [op.buffer for op in (*model.inputs(), *model.outputs(), *model.weights())]
    for t in model.tasks():
        e = t.effects()
        found += [*e.reads, *e.writes]
    assert all(isinstance(b, BufferAttr) for b in found)
    return [b for b in found if isinstance(b, BufferAttr)]


def test_two_stages_have_their_own_memory_plans() -> None:
    """Each stage model holds its weights and plans its feature maps in its own arena: the
    root holds no weight and only the values between stages; ge-plan-memory shrinks each
    stage's arena on its own; the stage arenas start at 0 and overlap in address, so they are
    separate memories, and the uninitialised-memory check passes through both."""
    text = _staged_text()
    unplanned_module = _parse(text)
    PartitionStagePass().apply(make_context(), unplanned_module)
    ConvertGraphToAscendPass().apply(make_context(), unplanned_module)
    unplanned = _models(unplanned_module)
    planned = _models(_compiled(text))
    root, s0, s1 = planned["mlp"], planned["Subgraph_Level_0"], planned["Subgraph_Level_1"]
    assert root.weight_size.value.data == 0 and not root.weights()
    assert [w.value.type for w in s0.weights()] == [
        w.value.type for w in unplanned["Subgraph_Level_0"].weights()
    ]
    assert len(s0.weights()) == 2 and len(s1.weights()) == 1  # w1, b1 / w2
    for name in ("Subgraph_Level_0", "Subgraph_Level_1"):
        mine = planned[name]
        assert mine.arena_size.value.data < unplanned[name].arena_size.value.data, name
        assert all(b.end <= mine.arena_size.value.data for b in _buffers(mine)), name
    ranges0 = {(b.offset_value, b.end) for b in _buffers(s0)}
    ranges1 = {(b.offset_value, b.end) for b in _buffers(s1)}
    assert ranges0 & ranges1  # the same addresses, in two arenas
    for name in ("Subgraph_Level_0", "Subgraph_Level_1"):
        alone = execute_model(
            planned[name],
            {n: np.ones(shape, np.float32) for n, shape in _input_shapes(planned[name])},
            check_uninitialized=True,
        )
        assert all(np.isfinite(v).all() for v in alone.outputs.values())


def _input_shapes(model: ModelOp) -> list[tuple[str, tuple[int, ...]]]:
    types = [(op.input_name.data, op.buffer.type) for op in model.inputs()]
    return [(n, t.get_shape()) for n, t in types if isinstance(t, TensorType)]


RACE = """
ascend.model @root arena_size 2048 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<4xf32>
  ascend.output "y" arena[512] : tensor<4xf32>
  ascend.stage @s0 "first" level 0 stream 1 after() ins(arena[0] : tensor<4xf32>) \
outs(arena[1024] : tensor<4xf32>) sync(arena[1536] : tensor<i32>)
  ascend.stage @s1 "second" level 1 stream 0 after(arena[1536] : tensor<i32>) \
ins(arena[1024] : tensor<4xf32>) outs(arena[512] : tensor<4xf32>) sync()
}
ascend.model @s0 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) \
outs(arena[512] : tensor<4xf32>)
}
ascend.model @s1 arena_size 1024 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : tensor<4xf32>
  ascend.output "b" arena[512] : tensor<4xf32>
  ascend.kernel "Neg" "n" engine "AIcoreEngine" stream 0 ins(arena[0] : tensor<4xf32>) \
outs(arena[512] : tensor<4xf32>)
}
"""


@pytest.mark.parametrize("compiled", [True, False])
def test_a_stage_that_starts_before_its_predecessor_fails_the_run(compiled: bool) -> None:
    """No event orders the two stages (ge-verify-model rejects the model; here it is run
    unverified): the default schedule runs stream 0 first, so stage 1 starts on an unwritten
    token and the run fails naming it, instead of computing on stale bytes."""
    module = _parse(RACE)
    root = _models(module)["root"]
    x = np.arange(4, dtype=np.float32)
    with pytest.raises(AscendRuntimeError, match='"second" \\(level 1\\) started before the'):
        execute_model(root, {"x": x}, compiled=compiled)
    with pytest.raises(AscendRuntimeError, match="second"):
        execute_model(root, {"x": x}, compiled=compiled, check_uninitialized=True)


def test_through_files(tmp_path: Path) -> None:
    """ge-opt -o (text and .gebc), then ge-run on the file; the binary format carries the
    stage tasks and models (generic properties), and both files give the graph's numbers."""
    src = tmp_path / "mlp.mlir"
    src.write_text(_staged_text())
    inputs = tmp_path / "in.npz"
    np.savez(inputs, x=X)
    reference = tmp_path / "ref.npz"
    done = run_tool("ge-run", str(src), "--inputs", str(inputs), "-o", str(reference), "-q")
    assert done.returncode == 0, done.stderr
    for suffix in (".mlir", ".gebc"):
        out = tmp_path / f"mlp.compiled{suffix}"
        done = run_tool("ge-opt", str(src), "-p", "ge-compile", "-o", str(out))
        assert done.returncode == 0, done.stderr
        done = run_tool(
            "ge-run",
            str(out),
            "--inputs",
            str(inputs),
            "--reference",
            str(reference),
            "--check-uninitialized",
            "--schedule-seed",
            "3",
        )
        assert done.returncode == 0, done.stderr + done.stdout
    text = run_tool("ge-opt", str(tmp_path / "mlp.compiled.gebc"))
    assert text.returncode == 0, text.stderr
    assert text.stdout.count("ascend.stage @Subgraph_Level_") == 3


UNKNOWN_STAGES = """
graph.graph @two(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %a = graph.relu %x {node_name = "a", _stage_level = 0} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %c = graph.neg %a {node_name = "c", _stage_level = 1} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  graph.net_output %c : tensor<?x4xf32>
}
"""

UNKNOWN_STAGE_OUTPUT = """
graph.graph @nz(%x: tensor<4xf32>) -> tensor<1x?xi64> {
  %a = graph.relu %x {node_name = "a", _stage_level = 0} : (tensor<4xf32>) -> tensor<4xf32>
  %n = graph.non_zero %a {node_name = "n", _stage_level = 0} : (tensor<4xf32>) -> tensor<1x?xi64>
  %c = graph.neg %n {node_name = "c", _stage_level = 1} : (tensor<1x?xi64>) -> tensor<1x?xi64>
  graph.net_output %c : tensor<1x?xi64>
}
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            UNKNOWN_STAGES,
            "(stage 0) reads a value of unknown shape at input 0 (tensor<?x4xf32>); a stage "
            "runs as a static model, its inputs need static shapes (pin the graph's input "
            "dims, ge-compile's input-shape)",
        ),
        (
            UNKNOWN_STAGE_OUTPUT,
            "(stage 0) returns a value of unknown shape at output 0 (tensor<1x?xi64>); a stage "
            "runs as a static model, its outputs need static shapes",
        ),
    ],
    ids=["input", "output"],
)
def test_a_stage_of_unknown_shape_is_a_one_line_refusal(
    tmp_path: Path, text: str, message: str
) -> None:
    """A stage runs as a static model: ge-compile refuses a stage input or output of unknown
    shape in one line, exit 1 (not the generic static-task error of a value outside an
    unknown-shape partition)."""
    src = tmp_path / "stages.mlir"
    src.write_text(text)
    done = run_tool("ge-opt", str(src), "-p", "ge-compile")
    assert done.returncode == 1
    error = done.stderr.splitlines()[0]
    assert error.endswith(
        "error: ge-convert-graph-to-ascend: 'partition.partitioned_call' "
        f"(Subgraph_Level_0_PartitionedCall) {message}"
    ), done.stderr
    assert "Traceback" not in done.stderr


def test_pinned_input_shape_makes_unknown_stages_static(tmp_path: Path) -> None:
    """The way out the refusal names: input-shape pins the `?` dim, the stages compile to
    static models, and ge-run's numbers equal the graph level's with that shape."""
    src = tmp_path / "stages.mlir"
    src.write_text(UNKNOWN_STAGES)
    x = np.random.default_rng(5).standard_normal((3, 4)).astype(np.float32)
    inputs, reference = tmp_path / "in.npz", tmp_path / "ref.npz"
    np.savez(inputs, x=x)
    np.savez(reference, output0=-np.maximum(x, 0))
    out = tmp_path / "model.mlir"
    done = run_tool("ge-opt", str(src), "-p", 'ge-compile{input-shape="x:3,4"}', "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_text().count("ascend.stage @Subgraph_Level_") == 2
    done = run_tool(
        "ge-run", str(out), "--inputs", str(inputs), "--reference", str(reference),
        "--rtol", "0", "--atol", "0", "--check-uninitialized", "--schedule-seed", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
