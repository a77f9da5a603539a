"""One compile for all gears (issue 19 part 4, GE's SymbolizeMultiBatchSubGraph): `ge-compile`
compiles probe gears and instantiates the others; every gear must compute what the
unexpanded graph computes, and what every gear compiled through every stage computes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.ascend import KernelOp, ModelOp
from gedialects.frontend.onnx import import_model
from gedialects.gear_options import GearConfig, parse_options
from gedialects.interpreters.gears import GearInfo
from gedialects.interpreters.run import run
from gedialects.passes.multibatch import symbolic
from gedialects.passes.multibatch.symbolic import Gear
from gedialects.passes.pipelines import CompilePipelinePass, compile_symbolically
from gedialects.tools import ge_atc

MODELS = Path(__file__).parent / "models"
CNN = MODELS / "cnn.onnx"
needs_cnn = pytest.mark.skipif(not CNN.exists(), reason="tests/models/cnn.onnx is not exported")
SHAPE = "image:-1,3,16,16"
GEARS = "1,2,3,5,8,13,21"


def _model(module: ModuleOp) -> ModelOp:
    (model,) = [op for op in module.ops if isinstance(op, ModelOp)]
    return model


def _per_sample(original: ModuleOp, image: np.ndarray) -> np.ndarray:
    """The exported CNN is fixed at batch 2: each sample paired with itself, one kept."""
    rows = [run(original, {"image": np.stack([s, s])})["logits"][:1] for s in image]
    return np.concatenate(rows)


@pytest.fixture(scope="module")
def cnn() -> tuple[ModuleOp, ModuleOp, ModuleOp]:
    """(original graph, gears compiled symbolically, every gear through every stage)."""
    if not CNN.exists():
        pytest.skip("tests/models/cnn.onnx is not exported")
    original = import_model(CNN)
    fast, each = original.clone(), original.clone()
    pipeline = CompilePipelinePass(input_shape=SHAPE, dynamic_batch_size=GEARS)
    taken = compile_symbolically(fast, pipeline, lambda m, p: p.apply(make_context(), m))
    assert taken, "the CNN's gears are explained by the probes"
    fast.verify()
    CompilePipelinePass(input_shape=SHAPE, dynamic_batch_size=GEARS, symbolic_gears=False).apply(
        make_context(), each
    )
    return original, fast, each


@needs_cnn
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 13, 21])
def test_every_gear_equals_the_graph(cnn: tuple[ModuleOp, ModuleOp, ModuleOp], n: int) -> None:
    original, fast, each = cnn
    image = np.random.default_rng(n).standard_normal((n, 3, 16, 16)).astype(np.float32)
    got = run(fast, {"image": image})["logits"]
    assert got.shape == (n, 10)
    np.testing.assert_allclose(got, _per_sample(original, image), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got, run(each, {"image": image})["logits"])


@needs_cnn
def test_instantiated_model_has_the_full_compiles_tasks(
    cnn: tuple[ModuleOp, ModuleOp, ModuleOp],
) -> None:
    """The same kernels with the same names and types in the same order as every gear
    compiled alone; offsets follow the largest gear's plan, so the arena is no larger."""
    _, fast, each = cnn
    a, b = _model(fast), _model(each)

    def kernels(model: ModelOp) -> list[tuple[str, str, list[object], list[object]]]:
        return [
            (
                k.kernel.data,
                k.node_name.data,
                [x.type for x in k.inputs],
                [y.type for y in k.outputs],
            )
            for k in model.body.block.ops
            if isinstance(k, KernelOp)
        ]

    assert kernels(a) == kernels(b)
    assert [op.name for op in a.body.block.ops] == [op.name for op in b.body.block.ops]
    assert a.arena_size.value.data <= b.arena_size.value.data
    assert a.weight_size == b.weight_size
    info, full = GearInfo.find_model(a), GearInfo.find_model(b)
    assert info is not None and full is not None
    assert info.gears == full.gears == tuple((g,) for g in (1, 2, 3, 5, 8, 13, 21))
    assert all(info.output_dims_of(g) == full.output_dims_of(g) for g in range(7))
    assert dict(a.attributes) == dict(b.attributes)


@needs_cnn
def test_the_default_pipeline_takes_the_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ge-compile` (as ge-atc and the bench run it) compiles three probe gears, not seven."""
    seen: list[str] = []
    real = CompilePipelinePass.passes

    def passes(self: CompilePipelinePass) -> tuple[object, ...]:
        seen.append(self.dynamic_batch_size)
        return real(self)

    monkeypatch.setattr(CompilePipelinePass, "passes", passes)
    module = import_model(CNN)
    CompilePipelinePass(input_shape=SHAPE, dynamic_batch_size=GEARS).apply(make_context(), module)
    assert seen == ["1,5,21"]  # the smallest, the largest, the middle one
    assert GearInfo.find_model(_model(module)) is not None
    seen.clear()
    module = import_model(CNN)
    CompilePipelinePass(input_shape=SHAPE, dynamic_batch_size="1,2,4,8,16").apply(
        make_context(), module
    )
    assert seen == ["1,2,4,8,16"], "five gears: every gear compiled"


def test_probes_cover_each_inputs_largest_gear_and_vary_every_value() -> None:
    config = parse_options(input_shape="x:-1,-1", dynamic_dims="1,9;2,8;3,7;4,6;9,1;5,5")
    probes = symbolic.probe_gears(config)
    assert probes == sorted(probes) and len(probes) >= 3
    assert config.max_gear("x") in probes
    for j in range(2):
        assert len({config.gears[p][j] for p in probes}) >= 3


def test_fit_is_affine_in_one_gear_value_or_refused() -> None:
    config = parse_options(input_shape="x:-1,3", dynamic_batch_size="1,2,4,6,8,10")
    fit = symbolic._Fit(config, [(1,), (4,), (10,)])  # pyright: ignore[reportPrivateUsage]
    assert fit.values([16, 64, 160], "dim") == [16, 32, 64, 96, 128, 160]
    assert fit.values([3, 3, 3], "dim") == [3] * 6
    with pytest.raises(symbolic.NotSymbolic, match="no affine gear function"):
        fit.values([1, 2, 3], "dim")  # not affine over 1, 4, 10
    half = symbolic._Fit(  # pyright: ignore[reportPrivateUsage]
        parse_options(input_shape="x:-1,3", dynamic_batch_size="2,4,5,8,10,12"),
        [(2,), (4,), (12,)],
    )
    with pytest.raises(symbolic.NotSymbolic):
        half.values([1, 2, 6], "dim")  # floor(b / 2): 2.5 at the gear 5


POOL = """
builtin.module {
  graph.graph @main(%x: tensor<1x1x8x8xf32> {node_name = "x"})
      -> (tensor<1x1x4x4xf32> {node_name = "y"}) {
    %y = graph.max_pool_v3 %x ksize [1, 1, 2, 2] strides [1, 1, 2, 2] {node_name = "pool"}
        : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
    graph.net_output %y : tensor<1x1x4x4xf32>
  }
}
"""


def _pool() -> ModuleOp:
    module = Parser(make_context(), POOL).parse_module()
    module.verify()
    return module


def test_a_dim_no_affine_function_explains_compiles_every_gear() -> None:
    """A 2x2 pool over image sizes: floor(h / 2) is h / 2 on the even probes but not at 5,
    so the probes are refused and every gear is compiled; each gear still pools right."""
    sizes = "4,4;6,6;5,5;8,8;10,10;12,12"
    pipeline = CompilePipelinePass(input_shape="x:1,1,-1,-1", dynamic_image_size=sizes)
    module = _pool()
    assert not compile_symbolically(module, pipeline, lambda m, p: p.apply(make_context(), m))
    assert str(module) == str(_pool()), "refused: the module is left as it was"
    pipeline.apply(make_context(), module)
    for h in (4, 5, 6, 12):
        x = np.random.default_rng(h).standard_normal((1, 1, h, h)).astype(np.float32)
        got = run(module, {"x": x})["y"]
        k = h // 2
        want = x[:, :, : 2 * k, : 2 * k].reshape(1, 1, k, 2, k, 2).max(axis=(3, 5))
        np.testing.assert_array_equal(got, want)


def test_image_size_gears_instantiated() -> None:
    """Even image sizes: h / 2 explains every gear; each pools right."""
    sizes = "2,2;4,4;6,6;8,8;10,10;12,12;16,16"
    pipeline = CompilePipelinePass(input_shape="x:1,1,-1,-1", dynamic_image_size=sizes)
    module = _pool()
    assert compile_symbolically(module, pipeline, lambda m, p: p.apply(make_context(), m))
    module.verify()
    for h in (2, 6, 10, 16):
        x = np.random.default_rng(h).standard_normal((1, 1, h, h)).astype(np.float32)
        got = run(module, {"x": x})["y"]
        want = x.reshape(1, 1, h // 2, 2, h // 2, 2).max(axis=(3, 5))
        np.testing.assert_array_equal(got, want)


@needs_cnn
def test_atc_many_gears_runs_every_gear(tmp_path: Path) -> None:
    """Through the CLI: eight gears, the file runs each to the graph's numbers."""
    out = tmp_path / "m.mlir"
    argv = [f"--model={CNN}", f"--output={out}", f"--input_shape={SHAPE}"]
    assert ge_atc.main([*argv, "--dynamic_batch_size=1,2,3,4,6,7,9,12", "--quiet"]) == 0
    module = Parser(make_context(), out.read_text(), str(out)).parse_module()
    module.verify()
    original = import_model(CNN)
    for n in (3, 7, 12):
        image = np.random.default_rng(n).standard_normal((n, 3, 16, 16)).astype(np.float32)
        got = run(module, {"image": image})["logits"]
        np.testing.assert_allclose(got, _per_sample(original, image), rtol=1e-5, atol=1e-5)


SEED_GRAPH = """
graph.graph @main(%data: tensor<1x?x40x?xf32> {node_name = "data"},
                  %label: tensor<1x?xf32> {node_name = "label"},
                  %mask: tensor<?x?xf32> {node_name = "mask"})
    -> (tensor<1x?x40x?xf32> {node_name = "act"}, tensor<1x?xf32> {node_name = "neg"},
        tensor<?x?xf32> {node_name = "sq"}) {
  %a = graph.relu %data : (tensor<1x?x40x?xf32>) -> tensor<1x?x40x?xf32>
  %n = graph.neg %label : (tensor<1x?xf32>) -> tensor<1x?xf32>
  %s = graph.mul %mask, %mask : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  graph.net_output %a, %n, %s : tensor<1x?x40x?xf32>, tensor<1x?xf32>, tensor<?x?xf32>
}
"""
"""The gears seed's graph (section 2): four gear values over three inputs."""


def _seed_session(gears: list[tuple[int, int, int, int]]) -> tuple[object, dict[str, str]]:
    from gedialects.session import Session

    options = {
        "ge.inputShape": "data:1,1,40,-1;label:1,-1;mask:-1,-1",
        "ge.dynamicDims": ";".join(",".join(map(str, g)) for g in gears),
    }
    session = Session()
    session.add_graph(1, SEED_GRAPH, options)
    info = session.gear_info(1)
    assert info is not None and info.gears == tuple(gears)
    for k, (w, n, m0, m1) in enumerate(gears):
        rng = np.random.default_rng(k)
        inputs = {
            "data": rng.standard_normal((1, 1, 40, w)).astype(np.float32),
            "label": rng.standard_normal((1, n)).astype(np.float32),
            "mask": rng.standard_normal((m0, m1)).astype(np.float32),
        }
        got = session.run_graph(1, inputs)
        np.testing.assert_array_equal(got["act"], np.maximum(inputs["data"], 0))
        np.testing.assert_array_equal(got["neg"], -inputs["label"])
        np.testing.assert_array_equal(got["sq"], inputs["mask"] * inputs["mask"])
    return session, session.stages(1)


SMALL = """
graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"})
    -> (tensor<?x3xf32> {node_name = "y"}, tensor<?x3xf32> {node_name = "z"}) {
  %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %y = graph.mul %r, %x : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %z = graph.neg %y : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %y, %z : tensor<?x3xf32>, tensor<?x3xf32>
}
"""


def test_session_compiles_probes_and_runs_every_gear() -> None:
    """The Session takes the same path: its stages are the probes' (three gear branches, not
    seven) and then the model of every gear; each gear returns the graph's numbers."""
    from gedialects.runtime.compile import INSTANTIATED_STAGE
    from gedialects.session import Session

    gears = [1, 2, 3, 5, 8, 13, 21]
    options = {"ge.inputShape": "x:-1,3", "ge.dynamicBatchSize": ",".join(map(str, gears))}
    session = Session()
    session.add_graph(1, SMALL, options)
    stages = session.stages(1)
    assert list(stages)[-1] == INSTANTIATED_STAGE
    assert stages["ge-expand-multibatch"].count("graph.graph @Batch_") == 3
    for n in gears:
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        got = session.run_graph(1, {"x": x})
        np.testing.assert_array_equal(got["y"], np.maximum(x, 0) * x)
        np.testing.assert_array_equal(got["z"], -(np.maximum(x, 0) * x))


def test_seed_graph_with_growing_gears_is_instantiated() -> None:
    """Three inputs, four gear values that grow together: one probe holds every gear. The
    scheduler orders the branch's two event waits by size, differently per probe; their
    order means nothing, so they are compared in the order of their records."""
    from gedialects.runtime.compile import INSTANTIATED_STAGE

    _, stages = _seed_session([(10 * k, 5 * k + 5, k, k + 1) for k in range(1, 8)])
    assert list(stages)[-1] == INSTANTIATED_STAGE


SEED_GEARS = [(20, 20, 1, 1), (40, 40, 2, 2), (80, 60, 4, 4), (30, 10, 3, 1)]
SEED_GEARS += [(50, 30, 5, 2), (60, 50, 6, 3), (70, 40, 7, 4)]
"""The seed's gears, which do not grow together: no gear's buffers hold every other's."""


def test_session_instantiates_gears_where_no_gear_is_largest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The probes add a virtual one, the element-wise largest values (80, 60, 7, 4), which
    is no gear: its plan holds every gear's buffers, so every gear is instantiated from it;
    each gear returns the graph's numbers (`_seed_session` runs them)."""
    from gedialects.runtime.compile import INSTANTIATED_STAGE

    seen: list[list[tuple[int, ...]]] = []
    real = symbolic.instantiate

    def instantiate(module: ModuleOp, name: str, config: GearConfig, probes: list[Gear]) -> None:
        seen.append(probes)
        real(module, name, config, probes)

    monkeypatch.setattr(symbolic, "instantiate", instantiate)
    _, stages = _seed_session(SEED_GEARS)
    assert list(stages)[-1] == INSTANTIATED_STAGE
    assert seen and seen[0][-1] == (80, 60, 7, 4) and (80, 60, 7, 4) not in SEED_GEARS


def _seed_onnx(folder: Path) -> Path:
    """The gears seed's graph as an ONNX file: relu, neg and mask * mask."""
    import onnx
    from onnx import TensorProto
    from onnx import helper as h

    def io(name: str, dims: list[int | str]) -> onnx.ValueInfoProto:
        return h.make_tensor_value_info(name, TensorProto.FLOAT, dims)

    nodes = [
        h.make_node("Relu", ["data"], ["act"]),
        h.make_node("Neg", ["label"], ["neg"]),
        h.make_node("Mul", ["mask", "mask"], ["sq"]),
    ]
    graph = h.make_graph(
        nodes,
        "seed",
        [io("data", [1, 1, 40, "w"]), io("label", [1, "n"]), io("mask", ["m0", "m1"])],
        [io("act", [1, 1, 40, "w"]), io("neg", [1, "n"]), io("sq", ["m0", "m1"])],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    path = folder / "seed.onnx"
    onnx.save(model, str(path))
    return path


def test_virtual_probe_equals_every_gear_compiled_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through ge-atc --dynamic_dims on a file: the instantiated model declares what every
    gear compiled through every stage declares and returns the same numbers at each gear."""
    src = _seed_onnx(tmp_path)
    shape = "--input_shape=data:1,1,40,-1;label:1,-1;mask:-1,-1"
    dims = "--dynamic_dims=" + ";".join(",".join(map(str, g)) for g in SEED_GEARS)
    fast, each = tmp_path / "fast.mlir", tmp_path / "each.mlir"
    done: list[tuple[int, ...]] = []
    real = symbolic.instantiate

    def instantiate(module: ModuleOp, name: str, config: GearConfig, probes: list[Gear]) -> None:
        real(module, name, config, probes)
        done.append(probes[-1])

    monkeypatch.setattr(symbolic, "instantiate", instantiate)
    assert ge_atc.main([f"--model={src}", f"--output={fast}", shape, dims, "--quiet"]) == 0
    with pytest.MonkeyPatch.context() as m:
        m.setattr(symbolic, "MIN_GEARS", 1000)  # every gear through every stage
        assert ge_atc.main([f"--model={src}", f"--output={each}", shape, dims, "--quiet"]) == 0
    a = Parser(make_context(), fast.read_text(), str(fast)).parse_module()
    b = Parser(make_context(), each.read_text(), str(each)).parse_module()
    assert _model(a).attributes["_batch_num"] == _model_attr(len(SEED_GEARS))
    assert done == [(80, 60, 7, 4)], "instantiated from probes ending in the virtual one"
    decls = [
        str(op) for op in _model(a).body.block.ops if op.name in ("ascend.input", "ascend.output")
    ]
    assert decls == [
        str(op) for op in _model(b).body.block.ops if op.name in ("ascend.input", "ascend.output")
    ]
    assert dict(_model(a).attributes) == dict(_model(b).attributes)
    for k, (w, n, m0, m1) in enumerate(SEED_GEARS):
        rng = np.random.default_rng(k)
        inputs = {
            "data": rng.standard_normal((1, 1, 40, w)).astype(np.float32),
            "label": rng.standard_normal((1, n)).astype(np.float32),
            "mask": rng.standard_normal((m0, m1)).astype(np.float32),
        }
        got, want = run(a, inputs), run(b, inputs)
        for key in ("act", "neg", "sq"):
            np.testing.assert_array_equal(got[key], want[key])


def test_virtual_probe_that_declares_a_larger_input_is_refused() -> None:
    """mask gears (4, 1) and (1, 4): GE's SetMaxShape declares mask 4x1 (the first largest
    product), the virtual probe 4x4; the probes are refused and every gear compiled."""
    graph = "builtin.module {\n" + SEED_GRAPH + "\n}"
    gears = [(20, 20, 4, 1), (40, 40, 1, 4), (30, 30, 2, 2), (25, 25, 1, 1)]
    gears += [(35, 35, 1, 2), (45, 45, 2, 1)]
    option = ";".join(",".join(map(str, g)) for g in gears)
    pipeline = CompilePipelinePass(
        input_shape="data:1,1,40,-1;label:1,-1;mask:-1,-1", dynamic_dims=option
    )
    module = Parser(make_context(), graph).parse_module()
    assert symbolic.virtual_probe(pipeline.expansion().config()) == (45, 45, 4, 4)
    assert not compile_symbolically(module, pipeline, lambda m, p: p.apply(make_context(), m))


def test_a_gear_value_of_two_values_is_probed_both_ways() -> None:
    """The second value takes 3 and 5 only: the probes take both (a dim that follows it
    cannot look constant), and a fit needs three values, so such a dim is refused."""
    config = parse_options(input_shape="x:-1,-1", dynamic_dims="1,3;2,3;3,5;4,3;5,3;6,3")
    probes = symbolic.probe_gears(config)
    assert {config.gears[p][1] for p in probes} == {3, 5}
    fit = symbolic._Fit(config, [config.gears[p] for p in probes])  # pyright: ignore[reportPrivateUsage]
    seen = [config.gears[p][1] * 2 for p in probes]
    with pytest.raises(symbolic.NotSymbolic):
        fit.values(seen, "dim")


def _dynamic_batch_onnx(folder: Path) -> Path:
    """conv -> relu -> global average pool -> flatten -> gemm, batch `N` symbolic."""
    import onnx
    from onnx import TensorProto
    from onnx import helper as h
    from onnx import numpy_helper as nh

    rng = np.random.default_rng(7)
    w = nh.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    b = nh.from_array(rng.standard_normal(4).astype(np.float32), "b")
    fc = nh.from_array(rng.standard_normal((5, 4)).astype(np.float32), "fc")
    nodes = [
        h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c"], ["r"]),
        h.make_node("GlobalAveragePool", ["r"], ["p"]),
        h.make_node("Flatten", ["p"], ["f"]),
        h.make_node("Gemm", ["f", "fc"], ["y"], transB=1),
    ]
    graph = h.make_graph(
        nodes,
        "dyn",
        [h.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
        [h.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 5])],
        [w, b, fc],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    path = folder / "dyn.onnx"
    onnx.save(model, str(path))
    return path


@pytest.mark.parametrize("hybrid", [False, True])
def test_atc_many_gears_match_onnxruntime(
    tmp_path: Path, hybrid: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ge-atc with seven gears (and with --hybrid, whose gear graph takes the same path on
    its worker): every gear, and in hybrid mode a batch of no gear, equals onnxruntime."""
    ort = pytest.importorskip("onnxruntime")
    done: list[int] = []
    real = symbolic.instantiate

    def instantiate(module: ModuleOp, name: str, config: GearConfig, probes: list[Gear]) -> None:
        real(module, name, config, probes)
        done.append(len(probes))

    monkeypatch.setattr(symbolic, "instantiate", instantiate)
    path = _dynamic_batch_onnx(tmp_path)
    out = tmp_path / "m.mlir"
    argv = [f"--model={path}", f"--output={out}", "--input_shape=x:-1,3,8,8", "--quiet"]
    argv.append("--dynamic_batch_size=1,2,3,4,6,8,16")
    assert ge_atc.main([*argv, *(["--hybrid"] if hybrid else [])]) == 0
    module = Parser(make_context(), out.read_text(), str(out)).parse_module()
    module.verify()
    models = [op for op in module.ops if isinstance(op, ModelOp)]
    gear_model = models[-1]
    assert gear_model.attributes["_batch_num"] == _model_attr(7)
    assert done == [3], "the gears were instantiated from three probes"
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    for n in (1, 3, 6, 16, *((5,) if hybrid else ())):
        x = np.random.default_rng(n).standard_normal((n, 3, 8, 8)).astype(np.float32)
        (want,) = session.run(None, {"x": x})
        got = run(module, {"x": x})["y"]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _model_attr(n: int) -> object:
    from xdsl.dialects.builtin import IntegerAttr, i64

    return IntegerAttr(n, i64)


def test_fit_names_each_dim_as_an_affine_function_of_one_gear_symbol() -> None:
    """The fit is a gear function GE's symbolisation would write: `s0 * 16`, `s0 + 2`, a
    constant; fitted once for the same values over the probes."""
    config = parse_options(input_shape="x:-1,3", dynamic_batch_size="1,2,4,6,8,10")
    fit = symbolic._Fit(config, [(1,), (4,), (10,)])  # pyright: ignore[reportPrivateUsage]
    assert str(fit.expr([16, 64, 160], "dim")) == "s0 * 16"
    assert str(fit.expr([3, 6, 12], "dim")) == "s0 + 2"
    assert str(fit.expr([3, 3, 3], "dim")) == "3"
    assert fit.expr([16, 64, 160], "dim") is fit.expr([16, 64, 160], "again")
    config2 = parse_options(input_shape="x:-1,-1", dynamic_dims="1,9;2,8;3,7;4,6;9,1;5,5")
    probes = [(1, 9), (2, 8), (9, 1)]
    fit2 = symbolic._Fit(config2, probes)  # pyright: ignore[reportPrivateUsage]
    # s1 * 2 and 20 - 2 * s0 agree on every gear (each sums to 10): either names the dim
    assert fit2.values([18, 16, 2], "dim") == [18, 16, 14, 12, 2, 10]
    config3 = parse_options(input_shape="x:-1,-1", dynamic_dims="1,9;2,8;3,7;4,6;9,1;5,4")
    fit3 = symbolic._Fit(config3, probes)  # pyright: ignore[reportPrivateUsage]
    with pytest.raises(symbolic.NotSymbolic, match="no affine gear function"):
        fit3.expr([18, 16, 2], "dim")  # they disagree at 5,4: which one holds is unknown


def test_instantiation_builds_each_type_once() -> None:
    """A hundred gears: each distinct buffer type of the branches is one object (built once
    and shared by every task that has it), not one per task per gear."""
    gears = ",".join(str(n) for n in range(1, 101))
    pipeline = CompilePipelinePass(input_shape="x:-1,3", dynamic_batch_size=gears)
    module = Parser(make_context(), f"builtin.module {{\n{SMALL}\n}}").parse_module()
    assert compile_symbolically(module, pipeline, lambda m, p: p.apply(make_context(), m))
    module.verify()
    types = [
        b.type
        for k in _model(module).body.block.ops
        if isinstance(k, KernelOp) and "_ascend_mbatch_batch_" in k.node_name.data
        for b in (*k.inputs, *k.outputs)
    ]
    assert len(types) >= 300
    assert len({id(t) for t in types}) == len(set(types))
    x = np.random.default_rng(0).standard_normal((77, 3)).astype(np.float32)
    np.testing.assert_array_equal(run(module, {"x": x})["z"], -(np.maximum(x, 0) * x))


SHAPES = """
builtin.module {
  graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"})
      -> (tensor<?x3xf32> {node_name = "y"}, tensor<?x3xf32> {node_name = "z"},
          tensor<1x?xf32> {node_name = "f"}) {
    %c = graph.const dense<1.5> : tensor<2x3xf32>
    %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
    %y = graph.mul %r, %x : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
    %z = graph.concat_d %y, %c concat_dim 0 : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
    %f = graph.flatten %x axis 0 : (tensor<?x3xf32>) -> tensor<1x?xf32>
    graph.net_output %y, %z, %f : tensor<?x3xf32>, tensor<?x3xf32>, tensor<1x?xf32>
  }
}
"""


def test_recorded_expressions_equal_every_gears_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    """`_symbolic_output_shape` (the probes' fits) is what every gear compiled alone records,
    and each expression at each gear is the shape that gear's run returns; ge-run reports it."""
    from gedialects.multibatch import SYMBOLIC_OUTPUT_SHAPE, Affine
    from gedialects.session import Session
    from gedialects.tools import ge_run

    gears = [1, 2, 3, 5, 8, 13, 21]
    pipeline = CompilePipelinePass(
        input_shape="x:-1,3", dynamic_batch_size=",".join(map(str, gears))
    )
    fast = Parser(make_context(), SHAPES).parse_module()
    each = fast.clone()
    assert compile_symbolically(fast, pipeline, lambda m, p: p.apply(make_context(), m))
    every = CompilePipelinePass(
        input_shape="x:-1,3", dynamic_batch_size=",".join(map(str, gears)), symbolic_gears=False
    )
    every.apply(make_context(), each)
    fast.verify()
    a, b = _model(fast), _model(each)
    assert a.attributes[SYMBOLIC_OUTPUT_SHAPE] == b.attributes[SYMBOLIC_OUTPUT_SHAPE]
    info = GearInfo.find_model(a)
    assert info is not None
    recorded = info.symbolic_output_shapes()
    assert recorded == {"y": ("s0", "3"), "z": ("s0 + 2", "3"), "f": ("1", "s0 * 3")}
    for g, n in enumerate(gears):
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        got = run(fast, {"x": x})
        for name, exprs in recorded.items():
            assert got[name].shape == tuple(Affine.parse(e).at((n,)) for e in exprs)
            assert got[name].shape == info.output_dims_of(g)[name]
    session = Session()
    session.add_graph(
        1,
        SHAPES.replace("builtin.module {", "", 1).rsplit("}", 1)[0],
        {
            "ge.inputShape": "x:-1,3",
            "ge.dynamicBatchSize": ",".join(map(str, gears)),
        },
    )
    assert session.symbolic_output_shapes(1) == recorded
    capsys.readouterr()
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        src = Path(folder) / "m.mlir"
        src.write_text(str(fast))
        np.savez(Path(folder) / "in.npz", x=np.ones((5, 3), np.float32))
        assert ge_run.main([str(src), f"--inputs={Path(folder) / 'in.npz'}"]) == 0
    out = capsys.readouterr().out
    assert (
        "gear 3 of 7 (s0 = 5): y [s0, 3] = [5, 3]; z [s0 + 2, 3] = [7, 3]; f [1, s0 * 3] = [1, 15]"
        in out
    )


def test_affine_expressions_read_back() -> None:
    """The printed form parses back to the same function; other text is refused."""
    from gedialects.multibatch import Affine, fit_gear_dim

    for text in ("7", "s0", "s1 * 16", "s0 + 2", "s0 * 1/2 - 3", "s2 * -2 + 20"):
        assert str(Affine.parse(text)) == text
    for bad in ("s", "x0", "s0*2", "s0 * 0", "s0 ** 2", ""):
        with pytest.raises(ValueError):
            Affine.parse(bad)
    gears = [(1, 5), (2, 5), (4, 7), (8, 5)]
    assert str(fit_gear_dim(gears, [3, 6, 12, 24])) == "s0 * 3"
    assert fit_gear_dim(gears, [1, 4, 16, 64]) is None  # s0 squared
    assert fit_gear_dim([(1,), (2,), (4,)], [-1, -1, -1]) is None  # only the run knows


def test_sunk_loop_gears_are_instantiated() -> None:
    """`iterations-per-loop` 3: the probes are compiled without the loop sink and the model
    of every gear is sunk; it has the declarations, attributes and tasks of every gear
    compiled and sunk alone, and the same numbers at every gear."""
    gears = [1, 2, 3, 5, 8, 13, 21]
    option = ",".join(map(str, gears))
    pipeline = CompilePipelinePass(
        input_shape="x:-1,3", dynamic_batch_size=option, iterations_per_loop=3
    )
    fast = Parser(make_context(), SHAPES).parse_module()
    each = fast.clone()
    assert compile_symbolically(fast, pipeline, lambda m, p: p.apply(make_context(), m))
    fast.verify()
    CompilePipelinePass(
        input_shape="x:-1,3", dynamic_batch_size=option, iterations_per_loop=3, symbolic_gears=False
    ).apply(make_context(), each)
    a, b = _model(fast), _model(each)
    assert dict(a.attributes) == dict(b.attributes)
    assert [op.name for op in a.body.block.ops] == [op.name for op in b.body.block.ops]
    decls = ("ascend.input", "ascend.output", "ascend.weight", "ascend.variable")
    assert [str(op) for op in a.body.block.ops if op.name in decls] == [
        str(op) for op in b.body.block.ops if op.name in decls
    ]
    assert a.arena_size.value.data <= b.arena_size.value.data
    assert a.weight_size == b.weight_size
    for n in gears:
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        got, want = run(fast, {"x": x}), run(each, {"x": x})
        for key in ("y", "z", "f"):
            np.testing.assert_array_equal(got[key], want[key])
        np.testing.assert_array_equal(got["y"], np.maximum(x, 0) * x)


def test_refusals_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    """Each fallback to the compile of every gear names its reason in a debug line."""
    import logging

    caplog.set_level(logging.DEBUG, logger="gedialects.passes.pipelines")
    pipeline = CompilePipelinePass(
        input_shape="x:1,1,-1,-1", dynamic_image_size="4,4;6,6;5,5;8,8;10,10;12,12"
    )
    assert not compile_symbolically(_pool(), pipeline, lambda m, p: p.apply(make_context(), m))
    assert "gears compiled one by one: " in caplog.text
    assert "no affine gear function" in caplog.text
    caplog.clear()
    few = CompilePipelinePass(input_shape="x:1,1,-1,-1", dynamic_image_size="4,4;6,6")
    assert not compile_symbolically(_pool(), few, lambda m, p: p.apply(make_context(), m))
    assert "2 gears, fewer than 6" in caplog.text


def _subgraph_case(k: int) -> str:
    """Case `k` of the gear expansion's subgraph lit test (0: an If, 1: a While whose body
    calls a subgraph) as a module."""
    text = (Path(__file__).parent / "lit/passes/ge-expand-multibatch-subgraphs.mlir").read_text()
    return "builtin.module {\n" + text.split("// -----")[k] + "\n}"


IF_GRAPH = _subgraph_case(0)
WHILE_GRAPH = _subgraph_case(1)


def _if_want(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0) if x.sum() > 0 else -x


def _while_want(x: np.ndarray) -> np.ndarray:
    return x * 4  # the body doubles x while the count goes 1, 2 (the cond stops at 3)


@pytest.mark.parametrize(
    ("graph", "want", "iterations", "same_text"),
    [
        (IF_GRAPH, _if_want, 1, True),
        (WHILE_GRAPH, _while_want, 1, False),
        (IF_GRAPH, _if_want, 2, True),
        (WHILE_GRAPH, _while_want, 3, False),
    ],
    ids=["if", "while", "if-sunk", "while-sunk"],
)
def test_branches_with_control_flow_are_instantiated(
    graph: str, want: Callable[[np.ndarray], np.ndarray], iterations: int, same_text: bool
) -> None:
    """A gear branch with its own If or While (labels and label switches of its own, one set
    per gear, numbered after every gear's section label as the lowering numbers them): the
    probes are instantiated into the model every gear compiled alone gives: the same
    declarations, attributes, tasks (kernels with their names and types, labels) and numbers
    at every gear. The If's is the same text; the While's offsets follow the largest gear's
    plan, whose arena is smaller than the full compile's (which does not lay the gears' loop
    buffers over one another)."""
    gears = [1, 2, 3, 5, 8, 13, 21]
    option = ",".join(map(str, gears))
    fast = Parser(make_context(), graph).parse_module()
    each = fast.clone()
    pipeline = CompilePipelinePass(
        input_shape="x:-1,3", dynamic_batch_size=option, iterations_per_loop=iterations
    )
    assert compile_symbolically(fast, pipeline, lambda m, p: p.apply(make_context(), m))
    fast.verify()
    replace(pipeline, symbolic_gears=False).apply(make_context(), each)
    a, b = _model(fast), _model(each)
    assert dict(a.attributes) == dict(b.attributes)
    assert a.weight_size == b.weight_size
    assert a.arena_size.value.data <= b.arena_size.value.data

    def tasks(model: ModelOp) -> list[tuple[object, ...]]:
        rows: list[tuple[object, ...]] = []
        for op in model.body.block.ops:
            if isinstance(op, KernelOp):
                rows.append((op.kernel.data, op.node_name.data, [x.type for x in op.inputs]))
            elif op.name.startswith("ascend.label") or op.name in ("ascend.input", "ascend.output"):
                props = {k: str(v) for k, v in op.properties.items() if k != "index"}
                rows.append((op.name, props))  # a switch's index is an arena offset
            else:
                rows.append((op.name,))
        return rows

    assert tasks(a) == tasks(b)
    if same_text:
        assert str(fast) == str(each)
    for n in gears:
        for sign in (1, -1):
            x = sign * np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
            x[0, 0] = sign * 10.0  # the sum's sign is the If's condition
            got = run(fast, {"x": x})["y"]
            np.testing.assert_array_equal(got, want(x))
            np.testing.assert_array_equal(got, run(each, {"x": x})["y"])


def _getnext_graph() -> ModuleOp:
    """The GetNext lit test's graph (relu, a row sum plus y, y returned as it is) with its
    inputs sunk into a GetNext (`ge-sink-inputs`)."""
    from gedialects.passes.getnext import SinkInputsPass

    text = (Path(__file__).parent / "lit/tools/ge-run-getnext.mlir").read_text()
    graph = text[text.index("graph.graph @main") :]
    module = Parser(make_context(), "builtin.module {\n" + graph + "\n}").parse_module()
    SinkInputsPass().apply(make_context(), module)
    return module


@pytest.mark.parametrize("iterations", [1, 2])
def test_getnext_sink_gears_are_instantiated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], iterations: int
) -> None:
    """GetNext sink (the gear found on the device by GetDynamicDims, the dims read back from
    the hidden last output; with a loop sink, two input sets per launch): the probes give the
    model every gear compiled alone gives, text for text, and a queue of input sets of
    different gears runs through ge-run with each launch's shapes."""
    from gedialects.tools import ge_run

    gears = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (8, 8), (16, 16)]
    option = ";".join(f"{a},{b}" for a, b in gears)
    pipeline = CompilePipelinePass(
        input_shape="x:-1,3;y:-1", dynamic_dims=option, iterations_per_loop=iterations
    )
    fast, each = _getnext_graph(), _getnext_graph()
    assert compile_symbolically(fast, pipeline, lambda m, p: p.apply(make_context(), m))
    fast.verify()
    replace(pipeline, symbolic_gears=False).apply(make_context(), each)
    assert str(fast) == str(each)
    path = tmp_path / "m.mlir"
    path.write_text(str(fast))
    sizes = [5, 16, 1, 8]
    files: list[str] = []
    for k, n in enumerate(sizes):
        rng = np.random.default_rng(k)
        x = rng.standard_normal((n, 3)).astype(np.float32)
        y = rng.standard_normal(n).astype(np.float32)
        np.savez(tmp_path / f"in{k}.npz", x=x, y=y)
        files.append(f"--inputs={tmp_path / f'in{k}.npz'}")
    out = tmp_path / "out.npz"
    capsys.readouterr()
    assert ge_run.main([str(path), *files, f"--output={out}", "--quiet"]) == 0
    got = np.load(out)
    for launch in range(len(sizes) // iterations):
        k = (launch + 1) * iterations - 1  # a launch returns its last iteration's outputs
        rng = np.random.default_rng(k)
        x = rng.standard_normal((sizes[k], 3)).astype(np.float32)
        y = rng.standard_normal(sizes[k]).astype(np.float32)
        np.testing.assert_allclose(got[f"r:{launch + 1}"], np.maximum(x, 0))
        np.testing.assert_allclose(
            got[f"s:{launch + 1}"], np.maximum(x, 0).sum(axis=1) + y, rtol=1e-5, atol=1e-6
        )
        np.testing.assert_array_equal(got[f"yout:{launch + 1}"], y)


@pytest.mark.parametrize("graph", [SHAPES, IF_GRAPH], ids=["plain", "if"])
def test_hybrid_in_one_pass_is_instantiated(graph: str) -> None:
    """`ge-compile{hybrid}` as one pass: the probes' module holds the gear model and the
    dynamic graph's models (the If's subgraphs are models of their own), which no gear
    changes; the gear model is instantiated and the
    module is the one every gear compiled alone gives, text for text. A batch of no gear runs
    the dynamic model."""
    option = "1,2,3,5,8,13,21"
    pipeline = CompilePipelinePass(input_shape="x:-1,3", dynamic_batch_size=option, hybrid=True)
    fast = Parser(make_context(), graph).parse_module()
    each = fast.clone()
    assert compile_symbolically(fast, pipeline, lambda m, p: p.apply(make_context(), m))
    fast.verify()
    replace(pipeline, symbolic_gears=False).apply(make_context(), each)
    assert str(fast) == str(each)
    models = [op for op in fast.ops if isinstance(op, ModelOp)]
    assert len([m for m in models if GearInfo.find_model(m) is not None]) == 1 < len(models)
    for n in (3, 4, 21):  # 4 is no gear: the dynamic model runs it
        x = np.random.default_rng(n).standard_normal((n, 3)).astype(np.float32)
        x[0, 0] = 10.0
        got = run(fast, {"x": x})["y"]
        want = np.maximum(x, 0) * x if graph is SHAPES else _if_want(x)
        np.testing.assert_array_equal(got, want)
