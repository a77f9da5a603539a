"""Engine optimisers and ge-compile in GE's OptimizeSubgraph order: every step keeps the numbers
on the corpus models (translation validation per pass), the registry refuses bad
registrations in one line, a user engine registers in process and from a package of its own,
and the placement details (HostcpuEngineUpdatePass, the tiling-dependency rule) and the
partition attribute registry do what GE does."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects import make_context
from gedialects.base import ENGINE_NAME, FORCE_UNKNOWN_SHAPE, GEOp
from gedialects.frontend.onnx import import_model
from gedialects.graph import GraphOp
from gedialects.passes import engine_optimizers
from gedialects.passes.engine_optimizers import (
    EngineOptimizer,
    EngineOptimizerError,
    register_engine_optimizer,
    unregister_engine_optimizer,
)
from gedialects.passes.partition import attr_names
from gedialects.passes.partition.dynamic_shape import PartitionDynamicShapePass
from gedialects.passes.partition.merge_engine_partitions import MergeEnginePartitionsPass
from gedialects.passes.partition.optimize_subgraphs import OptimizeSubgraphsPass
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.passes.translation_validation import (
    check_pass_keeps_numbers,
    compare_modules,
    input_sets,
)
from gedialects.target.engines import ENGINE_BY_NAME, ENGINE_SPECS, EngineSpec, register_engine

MODELS = Path(__file__).parent / "models"
PLUGIN = Path(__file__).parent / "lit" / "inputs" / "engine_plugin"
USER_ENGINE = "NPU_TEST"


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


@pytest.fixture
def user_engine() -> Iterator[None]:
    """Removes whatever a test registered under USER_ENGINE."""
    yield
    if USER_ENGINE in ENGINE_BY_NAME or engine_optimizers.optimizer_for(USER_ENGINE):
        unregister_engine_optimizer(USER_ENGINE)


# ------------------------------------------------------------------------------------------
# Every step of ge-compile keeps the numbers
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["cnn", "mobilenet_block", "transformer"])
def test_every_ge_compile_step_keeps_the_numbers(model: str) -> None:
    """Translation validation of each stage on its own: the interpreter gives the same outputs
    before and after it, on the model's recorded inputs (graph level up to the merge, then the
    task level)."""
    module = import_model(str(MODELS / f"{model}.onnx"))
    with np.load(MODELS / f"{model}.inputs.npz") as data:
        inputs = {name: data[name] for name in data.files}
    names = []
    for stage in CompilePipelinePass().passes():
        if stage.name == "ge-partition-stage" and stage.skips(module):  # pyright: ignore[reportAttributeAccessIssue]
            continue
        module = check_pass_keeps_numbers(module, stage, seeds=(), inputs=inputs).after
        names.append(stage.name)
    assert names.index("ge-update-hostcpu-engine") < names.index("ge-partition-dynamic-shape")
    assert names.count("ge-place-engines") == 2
    assert names[-1] == "ge-plan-memory"


def test_ge_compile_lists_the_steps_in_ges_order() -> None:
    names = [p.name for p in CompilePipelinePass().passes()]
    order = [
        "ge-fold-constants",
        "ge-optimize-original-graph",
        "ge-partition-stage",
        "ge-place-engines",
        "ge-update-hostcpu-engine",
        "ge-partition-dynamic-shape",
        "ge-place-engines",
        "ge-partition-engine",
        "ge-optimize-subgraphs",
        "ge-merge-engine-partitions",
        "ge-convert-graph-to-ascend",
        "ge-assign-streams",
        "ge-plan-memory",
    ]
    assert [n for n in names if n in order] == order
    no_fusion = [p.name for p in CompilePipelinePass(fusion=False).passes()]
    assert "ge-optimize-original-graph" not in no_fusion


# ------------------------------------------------------------------------------------------
# Registry errors
# ------------------------------------------------------------------------------------------


def test_optimizer_registered_twice_for_one_engine_is_refused() -> None:
    with pytest.raises(EngineOptimizerError) as err:
        register_engine_optimizer(EngineOptimizer("my_aicore", "AIcoreEngine"))
    assert str(err.value) == (
        "engine 'AIcoreEngine' already has an engine optimiser ('AIcoreEngine'); "
        "cannot register 'my_aicore'"
    )


def test_user_optimizer_registered_twice_is_refused(user_engine: None) -> None:
    spec = EngineSpec(USER_ENGINE, 0, frozenset({"Relu"}))
    register_engine_optimizer(EngineOptimizer("first", USER_ENGINE), spec=spec)
    with pytest.raises(EngineOptimizerError, match="already has an engine optimiser"):
        register_engine_optimizer(EngineOptimizer("second", USER_ENGINE))


@pytest.mark.parametrize(
    ("optimizer", "spec", "message"),
    [
        (
            EngineOptimizer("o", USER_ENGINE, {"OptimizeEverything": ()}),
            None,
            "optimiser 'o': unknown hook 'OptimizeEverything' (hooks: OptimizeGraphPrepare,",
        ),
        (
            EngineOptimizer("o", USER_ENGINE, {"OptimizeFusedGraph": "ge-fuse"}),  # pyright: ignore[reportArgumentType]
            None,
            "optimiser 'o': hook OptimizeFusedGraph takes a sequence of passes",
        ),
        (
            EngineOptimizer("o", USER_ENGINE),
            None,
            f"optimiser 'o': engine '{USER_ENGINE}' is not registered; pass its EngineSpec",
        ),
        (
            EngineOptimizer("o", USER_ENGINE),
            EngineSpec("OTHER", 0, None),
            f"optimiser 'o' is for engine '{USER_ENGINE}' but its spec names 'OTHER'",
        ),
        (
            EngineOptimizer("o", USER_ENGINE),
            EngineSpec(USER_ENGINE, -1, None),
            f"engine '{USER_ENGINE}': cost must be a non-negative int, got -1",
        ),
    ],
)
def test_bad_registrations_are_one_line_errors(
    optimizer: EngineOptimizer, spec: EngineSpec | None, message: str, user_engine: None
) -> None:
    with pytest.raises(EngineOptimizerError) as err:
        register_engine_optimizer(optimizer, spec=spec)
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)
    assert engine_optimizers.optimizer_for(USER_ENGINE) is None


RELU = """
graph.graph @main(%x: tensor<2x3xf32> {node_name = "x"}) -> (tensor<2x3xf32> {node_name = "y"}) {
  %m = graph.mul %x, %x {node_name = "m"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = graph.relu %m {node_name = "r"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %e = graph.exp %r {node_name = "e"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  graph.net_output %e : tensor<2x3xf32>
}
"""


def test_engine_with_no_optimizer_is_a_one_line_error(user_engine: None) -> None:
    """An engine registered with an op table but no optimiser gets nodes from placement; its
    subgraph then has nobody to optimise it."""
    register_engine(EngineSpec(USER_ENGINE, 0, frozenset({"Relu"})))
    with pytest.raises(PassFailedException) as err:
        CompilePipelinePass().apply(make_context(), parse(RELU))
    assert str(err.value) == (
        "ge-optimize-subgraphs: @partition0_rank2_new_sub_graph2: engine 'NPU_TEST' has no "
        "engine optimiser (register one with register_engine_optimizer or the "
        "gedialects.passes.engine_optimizers entry point)"
    )


def test_hook_naming_an_unknown_pass_is_a_one_line_error(user_engine: None) -> None:
    register_engine_optimizer(
        EngineOptimizer("o", USER_ENGINE, {"OptimizeFusedGraph": ("ge-no-such-pass",)}),
        spec=EngineSpec(USER_ENGINE, 0, frozenset({"Relu"})),
    )
    with pytest.raises(PassFailedException) as err:
        CompilePipelinePass().apply(make_context(), parse(RELU))
    message = str(err.value)
    assert message.startswith(
        "ge-optimize-subgraphs: engine optimiser 'o' names pass 'ge-no-such-pass', which does "
        "not build: "
    )
    assert "\n" not in message


# ------------------------------------------------------------------------------------------
# A user engine
# ------------------------------------------------------------------------------------------


class TagNodes(ModulePass):
    """Marks every node of the graphs it is handed with the names of those graphs."""

    name = "test-tag-nodes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        graphs = ",".join(g.sym_name.data for g in op.ops if isinstance(g, GraphOp))
        for g in op.ops:
            if isinstance(g, GraphOp):
                for node in g.body.block.ops:
                    node.attributes["_seen"] = StringAttr(graphs)


def test_user_engine_from_register_engine_optimizer(user_engine: None) -> None:
    """Placement puts Relu on the user engine (cost 0 beats AI Core's 1), its hook sees its
    own subgraph only, and the compiled model runs it on the engine's stream with the same
    numbers."""
    register_engine_optimizer(
        EngineOptimizer("npu_test_optimizer", USER_ENGINE, {"OptimizeFusedGraph": (TagNodes(),)}),
        spec=EngineSpec(USER_ENGINE, 0, frozenset({"Relu"}), dtypes=frozenset({"float32"})),
    )
    assert [s.name for s in ENGINE_SPECS][:2] == [USER_ENGINE, "AIcoreEngine"]
    module = parse(RELU)
    stages = CompilePipelinePass().passes()
    merge = next(i for i, p in enumerate(stages) if isinstance(p, MergeEnginePartitionsPass))
    graph_level = check_pass_keeps_numbers(module, list(stages[: merge + 1])).after
    main = next(g for g in graph_level.ops if isinstance(g, GraphOp))
    seen = {
        op.attributes[ENGINE_NAME].data: op.attributes.get("_seen")  # pyright: ignore[reportAttributeAccessIssue]
        for op in main.body.block.ops
        if isinstance(op, GEOp) and ENGINE_NAME in op.attributes
    }
    assert seen["AIcoreEngine"] is None  # other engines' nodes were not handed to the hook
    assert isinstance(seen[USER_ENGINE], StringAttr)
    assert seen[USER_ENGINE].data.count(",") == 0  # one subgraph: the user engine's
    compiled = check_pass_keeps_numbers(module, CompilePipelinePass()).after
    text = str(compiled)
    assert f'ascend.stream 1 engine "{USER_ENGINE}"' in text
    assert f'ascend.kernel "Relu" "r" engine "{USER_ENGINE}"' in text


def test_user_engine_from_its_own_package_by_entry_point(tmp_path: Path) -> None:
    """The package in tests/lit/inputs/engine_plugin (not part of gedialects) declares its
    optimiser in entry-point group gedialects.passes.engine_optimizers; a fresh ge-opt finds it, and
    ge-run gives the same numbers as without it."""
    source = tmp_path / "relu.mlir"
    source.write_text(RELU)
    env_path = f"{PLUGIN}:{Path(__file__).parents[1]}"
    code = (
        "import sys; from gedialects.tools import ge_opt; "
        f"sys.exit(ge_opt.main([{str(source)!r}, '-p', 'ge-compile']))"
    )
    with_plugin = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": env_path},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert 'ascend.kernel "Relu" "r" engine "NPU_DEMO"' in with_plugin
    assert "_npu_demo_streams = 2" in with_plugin
    assert engine_optimizers.optimizer_for("NPU_DEMO") is None  # this process has no plug-in
    plain = check_pass_keeps_numbers(parse(RELU), CompilePipelinePass()).after
    assert "NPU_DEMO" not in str(plain)
    sets = input_sets(plain, plain, (0, 1))
    problems, _ = compare_modules(plain, parse(with_plugin), sets)
    assert problems == []


# ------------------------------------------------------------------------------------------
# HostcpuEngineUpdatePass and the tiling rule through ge-compile
# ------------------------------------------------------------------------------------------

HOST = """
graph.graph @main(%s: tensor<2xi32> {node_name = "s", _host_tensor = true},
                  %x: tensor<2x3xf32> {node_name = "x"})
    -> (tensor<2xi32> {node_name = "y"}, tensor<2x3xf32> {node_name = "z"}) {
  %c = graph.const dense<[3, 4]> : tensor<2xi32>
  %a = graph.add %s, %c {node_name = "a"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %m = graph.mul %a, %a {node_name = "m"} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %r = graph.relu %x {node_name = "r"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %q = graph.relu %r {node_name = "q"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = graph.relu %q {node_name = "t"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u = graph.relu %t {node_name = "u"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  graph.net_output %m, %u : tensor<2xi32>, tensor<2x3xf32>
}
"""


def test_small_host_ops_run_on_host_cpu_with_the_same_numbers() -> None:
    """The host-tensor arithmetic moves to host CPU, so the dynamic-shape partition makes it
    unknown (its rule 2) and it runs as dynamic tasks on host CPU; the Relu chain stays a
    static AI Core partition; the outputs equal the graph's."""
    compiled = check_pass_keeps_numbers(parse(HOST), CompilePipelinePass()).after
    text = str(compiled)
    assert 'ascend.dynamic_kernel "Add" "a" engine "DNN_VM_HOST_CPU"' in text
    assert 'ascend.dynamic_kernel "Mul" "m" engine "DNN_VM_HOST_CPU"' in text
    assert 'ascend.kernel "Relu" "r" engine "AIcoreEngine"' in text


TILE = """
graph.graph @main(%x: tensor<2x3xf32> {node_name = "x"}, %k: tensor<2xi64> {node_name = "k"})
    -> (tensor<4x6xf32> {node_name = "y"}) {
  %t = graph.tile %x, %k {node_name = "t"} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  graph.net_output %t : tensor<4x6xf32>
}
"""


def test_tiling_dependency_on_data_goes_dynamic_unless_the_engine_sinks_it(
    user_engine: None,
) -> None:
    k = np.array([2, 2], np.int64)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    compiled = check_pass_keeps_numbers(
        parse(TILE), CompilePipelinePass(), seeds=(), inputs={"x": x, "k": k}
    ).after
    assert 'ascend.dynamic_kernel "Tile" "t"' in str(compiled)
    partitioned = parse(TILE)
    for op in partitioned.walk():
        if op.name == "graph.tile":
            op.attributes[ENGINE_NAME] = StringAttr(USER_ENGINE)
    register_engine_optimizer(
        EngineOptimizer("sinks_tiling", USER_ENGINE),
        spec=EngineSpec(USER_ENGINE, 0, frozenset({"Tile"}), tiling_sink=frozenset({"Tile"})),
    )
    PartitionDynamicShapePass().apply(make_context(), partitioned)
    tile = next(op for op in partitioned.walk() if op.name == "graph.tile")
    assert FORCE_UNKNOWN_SHAPE not in tile.attributes
    main = next(g for g in partitioned.ops if isinstance(g, GraphOp))
    assert (
        main.attributes["_dynamic_shape_partitioned"]
        == parse("builtin.module attributes {a = false} {}").attributes["a"]
    )


# ------------------------------------------------------------------------------------------
# Partition attribute registry
# ------------------------------------------------------------------------------------------

LABELLED = """
graph.graph @main(%x: tensor<4xf32> {node_name = "x"}, %n: tensor<?xf32> {node_name = "n"})
    -> (tensor<4xf32>, tensor<?xf32>) {
  %a = graph.relu %x {node_name = "a", _team = "blue"} : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.relu %a {node_name = "b", _team = "blue"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.relu %n {node_name = "c", _team = "red"} : (tensor<?xf32>) -> tensor<?xf32>
  graph.net_output %b, %c : tensor<4xf32>, tensor<?xf32>
}
"""


def test_user_partition_attr_is_carried_to_the_call_and_back() -> None:
    attr_names.register_partition_attr_name("_team")
    try:
        module = parse(LABELLED)
        PartitionDynamicShapePass(static_model_ops_lower_limit=1).apply(make_context(), module)
        calls = {
            op.attributes["node_name"].data: op.attributes.get("_team")  # pyright: ignore[reportAttributeAccessIssue]
            for op in module.walk()
            if op.name == "partition.partitioned_call"
        }
        assert sorted(str(v) for v in calls.values()) == ['"blue"', '"red"']
        with pytest.raises(attr_names.PartitionAttrError, match="already registered"):
            attr_names.register_partition_attr_name("_team")
    finally:
        attr_names.unregister_partition_attr_name("_team")
    module = parse(LABELLED)
    PartitionDynamicShapePass(static_model_ops_lower_limit=1).apply(make_context(), module)
    assert not any("_team" in op.attributes for op in module.walk() if op.name.startswith("part"))


def test_optimize_subgraphs_without_partitions_changes_nothing() -> None:
    module = parse(RELU)
    before = str(module)
    OptimizeSubgraphsPass().apply(make_context(), module)
    assert str(module) == before


# ------------------------------------------------------------------------------------------
# GE options that switch steps off
# ------------------------------------------------------------------------------------------

MUL_ADD = """
graph.graph @main(%x: tensor<4xf32> {node_name = "x"}, %s: tensor<4xf32> {node_name = "s"})
    -> (tensor<4xf32> {node_name = "y"}) {
  %m = graph.mul %x, %s {node_name = "m"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y = graph.add %m, %s {node_name = "y"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
"""


@pytest.mark.parametrize(
    ("switch", "fused"),
    [
        ({"GraphFusion": {"ALL": "off"}}, False),
        ({"GraphFusion": {"mul-add": "off"}}, False),
        ({"GraphFusion": {"ALL": "off", "mul-add": "on"}}, True),
        ({"UBFusion": {"TbeConvStridedwriteFusionPass": "off"}}, True),
    ],
)
def test_fusion_switch_file_switches_graph_fusion(
    switch: dict[str, dict[str, str]], fused: bool, tmp_path: Path
) -> None:
    import json

    from gedialects.session import Session

    path = tmp_path / "fusion_switch.json"
    path.write_text(json.dumps({"Switch": switch}))
    session = Session({"ge.fusionSwitchFile": str(path)})
    session.add_graph(0, MUL_ADD)
    out = session.run_graph(0, {"x": np.ones(4, np.float32), "s": np.full(4, 2, np.float32)})
    np.testing.assert_array_equal(out["y"], np.full(4, 4, np.float32))
    assert ('"FusedMulAdd"' in session.stages(0)["ge-plan-memory"]) == fused


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{", "not a JSON fusion switch file"),
        ('{"Switch": {"GraphFusion": {"mul-ad": "off"}}}', 'unknown graph fusion "mul-ad"'),
        ('{"Switch": {"GraphFusion": {"ALL": "no"}}}', 'GraphFusion "ALL" must be "on" or "off"'),
        ("[]", 'expected {"Switch"'),
    ],
)
def test_bad_fusion_switch_file_is_a_one_line_option_error(
    text: str, reason: str, tmp_path: Path
) -> None:
    from gedialects.errors import OptionError
    from gedialects.session import Session

    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(OptionError) as err:
        Session({"ge.fusionSwitchFile": str(path)})
    assert reason in str(err.value) and "\n" not in str(err.value)


def test_exclude_engines_option_reaches_placement() -> None:
    from gedialects.errors import OptionError
    from gedialects.session import Session

    session = Session({"ge.exec.exclude_engines": "AIcoreEngine|VectorEngine"})
    session.add_graph(0, MUL_ADD)
    assert 'engine "DNN_VM_AICPU"' in session.stages(0)["ge-plan-memory"]
    with pytest.raises(OptionError, match="unknown engine 'AiCore'"):
        Session({"ge.exec.exclude_engines": "AiCore"})


def test_broken_plugin_entry_point_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dist = tmp_path / "broken_npu-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-npu\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[gedialects.passes.engine_optimizers]\nbroken = no_such_module_here:optimizer\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(engine_optimizers, "_loaded_entry_points", False)
    with pytest.raises(EngineOptimizerError) as err:
        CompilePipelinePass().passes()
    assert str(err.value) == (
        "entry point 'broken' (no_such_module_here:optimizer) of group "
        "gedialects.passes.engine_optimizers does not load: ModuleNotFoundError: No module named "
        "'no_such_module_here'"
    )
