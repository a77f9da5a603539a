"""ge-expand-multibatch end to end: the expanded module run at each gear equals the original
graph on the same inputs, inputs of no gear give GE's E13025, and the ACL-like query API reads
the gears back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType

from gedialects import make_context
from gedialects.errors import GearMismatchError
from gedialects.graph import GraphOp
from gedialects.interpreters.gears import GearInfo
from gedialects.interpreters.run import RunError, find_entry, random_inputs, run, signature
from gedialects.multibatch import DynamicType
from gedialects.passes.multibatch.expand import MultibatchExpandPass
from tests.conftest import parse

MODELS = Path(__file__).resolve().parent / "models"


def expand(module: ModuleOp, **options: object) -> ModuleOp:
    expanded = module.clone()
    MultibatchExpandPass(**options).apply(make_context(), expanded)  # type: ignore[arg-type]
    expanded.verify()
    return expanded


def assert_same(got: dict[str, np.ndarray], want: dict[str, np.ndarray]) -> None:
    assert set(want) <= set(got)
    for name, value in want.items():
        assert got[name].shape == value.shape, name
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


BATCH = """
graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}, %s: tensor<2xi32> {node_name = "s"})
    -> (tensor<?x3xf32> {node_name = "y"}, tensor<2xi32> {node_name = "s_out"},
        tensor<?xf32> {node_name = "sum"}) {
  %w = graph.const dense<[1.0, -2.0, 3.0]> : tensor<3xf32> {node_name = "w"}
  %a = graph.add %x, %w {node_name = "add"} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %r = graph.relu %a : (tensor<?x3xf32>) -> tensor<?x3xf32>
  %axes = graph.const dense<[1]> : tensor<1xi64>
  %m = graph.reduce_sum %r, %axes : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?xf32>
  graph.net_output %r, %s, %m : tensor<?x3xf32>, tensor<2xi32>, tensor<?xf32>
}
"""
BATCH_OPTIONS = {"input_shape": "x:-1,3;s:2", "dynamic_batch_size": "1,4,2"}


@pytest.fixture(scope="module")
def batch() -> tuple[ModuleOp, ModuleOp]:
    original = parse(BATCH)
    return original, expand(original, **BATCH_OPTIONS)


@pytest.mark.parametrize("n", [1, 4, 2])
def test_batch_gear_equals_original(batch: tuple[ModuleOp, ModuleOp], n: int) -> None:
    original, expanded = batch
    rng = np.random.default_rng(n)
    inputs = {
        "x": rng.standard_normal((n, 3)).astype(np.float32),
        "s": np.array([7, -1], dtype=np.int32),
    }
    got = run(expanded, inputs)
    assert list(got) == ["y", "s_out", "sum"]
    assert got["y"].shape == (n, 3) and got["sum"].shape == (n,)
    assert_same(got, run(original, inputs))


def test_batch_of_no_gear_lists_the_gears(batch: tuple[ModuleOp, ModuleOp]) -> None:
    _, expanded = batch
    x = np.zeros((3, 3), dtype=np.float32)
    with pytest.raises(RunError) as info:
        run(expanded, {"x": x, "s": np.zeros(2, dtype=np.int32)})
    assert str(info.value) == (
        "E13025: Input tensor is invalid. Reason: The input tensor dimension [3] (x:[3,3], "
        "s:[2]) is not in the dynamic dimension list [[1], [4], [2]] configured by "
        "--dynamic_batch_size."
    )


def test_fixed_dims_are_still_checked(batch: tuple[ModuleOp, ModuleOp]) -> None:
    _, expanded = batch
    with pytest.raises(RunError, match=r"input 'x' has shape \[4,5\], @main expects \[\?,3\]"):
        run(expanded, {"x": np.zeros((4, 5), np.float32), "s": np.zeros(2, np.int32)})


def test_the_shape_data_input_is_filled_by_run(batch: tuple[ModuleOp, ModuleOp]) -> None:
    _, expanded = batch
    sig = signature(find_entry(expanded))
    assert sig.input_names == ("x", "s")
    with pytest.raises(RunError, match="unknown input 'ascend_mbatch_shape_data'"):
        run(
            expanded,
            {
                "x": np.zeros((1, 3), np.float32),
                "s": np.zeros(2, np.int32),
                "ascend_mbatch_shape_data": np.array([1], np.int32),
            },
        )


def test_random_inputs_take_the_first_gear(batch: tuple[ModuleOp, ModuleOp]) -> None:
    _, expanded = batch
    inputs = random_inputs(signature(find_entry(expanded)), 0)
    assert inputs["x"].shape == (1, 3) and inputs["s"].shape == (2,)
    assert run(expanded, inputs)["y"].shape == (1, 3)


# --------------------------------------------------------------------------------------------
# Query API
# --------------------------------------------------------------------------------------------


def test_gear_info_reports_the_gears(batch: tuple[ModuleOp, ModuleOp]) -> None:
    _, expanded = batch
    info = GearInfo.from_module(expanded)
    assert info.gear_count == 3
    assert info.dynamic_type is DynamicType.BATCH
    assert info.gears == ((1,), (4,), (2,))
    assert info.input_names == ("x", "s")
    assert info.input_dims(1) == {"x": (4, 3), "s": (2,)}
    assert info.output_dims_of(2) == {"y": (2, 3), "s_out": (2,), "sum": (2,)}
    assert info.max_input_dims() == {"x": (4, 3), "s": (2,)}
    assert info.set_dims([2]) == 2
    with pytest.raises(GearMismatchError, match=r"^E13025: .*dimension \[3\] is not in"):
        info.set_dims([3])
    with pytest.raises(IndexError):
        info.input_dims(3)


def test_set_dims_runs_a_gear_from_max_size_buffers(batch: tuple[ModuleOp, ModuleOp]) -> None:
    """ACL hands buffers of the largest gear and says which gear with SetInputDynamicDims."""
    original, expanded = batch
    info = GearInfo.from_module(expanded)
    buffer = np.arange(12, dtype=np.float32).reshape(4, 3) - 5
    s = np.array([1, 2], dtype=np.int32)
    cropped = info.crop({"x": buffer, "s": s}, info.set_dims([2]))
    assert cropped["x"].shape == (2, 3)
    assert_same(run(expanded, cropped), run(original, {"x": buffer[:2], "s": s}))
    with pytest.raises(GearMismatchError, match="holds 3 elements"):
        info.crop({"x": buffer[:1]}, 1)


def test_gear_info_needs_an_expanded_graph() -> None:
    with pytest.raises(ValueError, match="has no gears"):
        GearInfo.from_module(parse(BATCH))


# --------------------------------------------------------------------------------------------
# Dims on several inputs, both ways of finding the gear
# --------------------------------------------------------------------------------------------

DIMS = """
graph.graph @main(%data: tensor<1x?x4xf32> {node_name = "data"},
                  %label: tensor<?x?xf32> {node_name = "label"},
                  %bias: tensor<4xf32> {node_name = "bias"})
    -> (tensor<1x?x4xf32> {node_name = "out"}, tensor<?x?xf32> {node_name = "scaled"}) {
  %a = graph.add %data, %bias : (tensor<1x?x4xf32>, tensor<4xf32>) -> tensor<1x?x4xf32>
  %two = graph.const dense<2.0> : tensor<f32>
  %m = graph.mul %label, %two : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  graph.net_output %a, %m : tensor<1x?x4xf32>, tensor<?x?xf32>
}
"""
DIMS_OPTIONS = {"input_shape": "label:-1,-1;data:1,-1,4;bias:4", "dynamic_dims": "1,3,2;2,2,5"}


@pytest.mark.parametrize("get_dynamic_dims", [False, True])
@pytest.mark.parametrize(("label", "seq"), [((1, 3), 2), ((2, 2), 5)])
def test_dims_gears_equal_original(
    get_dynamic_dims: bool, label: tuple[int, int], seq: int
) -> None:
    original = parse(DIMS)
    expanded = expand(original, get_dynamic_dims=get_dynamic_dims, **DIMS_OPTIONS)
    rng = np.random.default_rng(seq)
    inputs = {
        "data": rng.standard_normal((1, seq, 4)).astype(np.float32),
        "label": rng.standard_normal(label).astype(np.float32),
        "bias": rng.standard_normal(4).astype(np.float32),
    }
    got = run(expanded, inputs)
    assert_same(got, run(original, inputs))
    if get_dynamic_dims:
        np.testing.assert_array_equal(got["ascend_mbatch_get_dynamic_dims_node"], [*label, seq])


def test_dims_mixed_gears_are_refused() -> None:
    expanded = expand(parse(DIMS), **DIMS_OPTIONS)
    inputs = {
        "data": np.zeros((1, 5, 4), np.float32),  # gear 1's data with gear 0's label
        "label": np.zeros((1, 3), np.float32),
        "bias": np.zeros(4, np.float32),
    }
    with pytest.raises(RunError) as info:
        run(expanded, inputs)
    assert "dimension [1,3,5] (data:[1,5,4], label:[1,3], bias:[4])" in str(info.value)
    assert "list [[1,3,2], [2,2,5]] configured by --dynamic_dims" in str(info.value)


# --------------------------------------------------------------------------------------------
# Image sizes
# --------------------------------------------------------------------------------------------

IMAGE = """
graph.graph @net(%img: tensor<1x3x?x?xf32> {node_name = "img"})
    -> (tensor<1x3x?x?xf32> {node_name = "act"}, tensor<1x3xf32> {node_name = "pooled"}) {
  %r = graph.sigmoid %img : (tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32>
  %axes = graph.const dense<[2, 3]> : tensor<2xi64>
  %p = graph.reduce_mean %r, %axes : (tensor<1x3x?x?xf32>, tensor<2xi64>) -> tensor<1x3xf32>
  graph.net_output %r, %p : tensor<1x3x?x?xf32>, tensor<1x3xf32>
}
"""


@pytest.mark.parametrize("hw", [(4, 6), (8, 8)])
def test_image_size_gears_equal_original(hw: tuple[int, int]) -> None:
    original = parse(IMAGE)
    expanded = expand(original, input_shape="img:1,3,-1,-1", dynamic_image_size="4,6;8,8")
    img = np.random.default_rng(0).standard_normal((1, 3, *hw)).astype(np.float32)
    assert_same(run(expanded, {"img": img}), run(original, {"img": img}))
    info = GearInfo.from_module(expanded)
    assert info.dynamic_type is DynamicType.IMAGE_SIZE
    assert info.output_dims_of(info.set_dims(hw)) == {"act": (1, 3, *hw), "pooled": (1, 3)}


# --------------------------------------------------------------------------------------------
# An exported CNN (Conv, BatchNorm, MaxPool, GlobalAveragePool, Flatten, Gemm)
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cnn() -> tuple[ModuleOp, ModuleOp]:
    if not (MODELS / "cnn.onnx").exists():
        pytest.skip("tests/models/cnn.onnx is not exported")
    from gedialects.frontend.onnx import import_model

    original = import_model(MODELS / "cnn.onnx")
    return original, expand(original, input_shape="image:-1,3,16,16", dynamic_batch_size="1,4,2")


def test_cnn_branches_are_static(cnn: tuple[ModuleOp, ModuleOp]) -> None:
    _, expanded = cnn
    branches = [g for g in expanded.ops if isinstance(g, GraphOp) and g is not find_entry(expanded)]
    assert [b.sym_name.data for b in branches] == ["Batch_0", "Batch_1", "Batch_2"]
    for branch, n in zip(branches, (1, 4, 2), strict=True):
        (out,) = branch.function_type.outputs.data
        assert isinstance(out, TensorType) and tuple(out.get_shape()) == (n, 10)


def test_cnn_batch_two_matches_onnxruntime(cnn: tuple[ModuleOp, ModuleOp]) -> None:
    _, expanded = cnn
    with np.load(MODELS / "cnn.inputs.npz") as inputs, np.load(MODELS / "cnn.expected.npz") as ref:
        got = run(expanded, {"image": inputs["image"]})
        np.testing.assert_allclose(got["logits"], ref["logits"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("n", [1, 4])
def test_cnn_gear_equals_original_per_pair(cnn: tuple[ModuleOp, ModuleOp], n: int) -> None:
    """The exported graph is fixed at batch 2: compare row by row through it."""
    original, expanded = cnn
    image = np.random.default_rng(n).standard_normal((n, 3, 16, 16)).astype(np.float32)
    got = run(expanded, {"image": image})["logits"]
    assert got.shape == (n, 10)
    padded = np.concatenate([image, image[:1]]) if n % 2 else image
    want = np.concatenate(
        [run(original, {"image": padded[i : i + 2]})["logits"] for i in range(0, len(padded), 2)]
    )[:n]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


DIRECT = """
graph.graph @main(%x: tensor<?x3xf32> {node_name = "x"}, %yin: tensor<?x3xf32> {node_name = "yin"})
    -> (tensor<?x3xf32> {node_name = "y"}, tensor<?x3xf32> {node_name = "yout"}) {
  %r = graph.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  graph.net_output %r, %yin : tensor<?x3xf32>, tensor<?x3xf32>
}
"""


def test_direct_output_writes_no_dynamic_dim_marker_into_dynamic_output_dims() -> None:
    """Issue 19 part 6: a gear input returned as an output leaked -9223372036854775808."""
    from gedialects.passes.pipelines import CompilePipelinePass

    module = expand(parse(DIRECT), input_shape="x:-1,3;yin:-1,3", dynamic_batch_size="1,4,8")
    info = GearInfo.from_module(module)
    assert info.output_dims_of(1) == {"y": (4, 3), "yout": (4, 3)}
    assert info.output_dims_of(0) == {"y": (1, 3), "yout": (1, 3)}
    assert "-9223372036854775808" not in str(module)
    CompilePipelinePass().apply(make_context(), module)  # refused the marker before the fix
    x = np.arange(-6, 6, dtype=np.float32).reshape(4, 3)
    out = run(module, {"x": x, "yin": x + 1})
    assert_same(out, {"y": np.maximum(x, 0), "yout": x + 1})


def test_ge_dims_writes_minus_one_for_the_dynamic_marker() -> None:
    from xdsl.dialects.builtin import DYNAMIC_INDEX

    from gedialects.base import ge_dims, ge_dims_array, int_array_values
    from gedialects.multibatch import (
        ORIGIN_INPUT_DIMS,
        GetDynamicDimsOp,
        input_attrs,
        output_dims_entry,
    )

    assert ge_dims((DYNAMIC_INDEX, 3, -1, 0)) == (-1, 3, -1, 0)
    assert int_array_values(ge_dims_array((DYNAMIC_INDEX, 2))) == (-1, 2)
    assert output_dims_entry(-1, 0, (DYNAMIC_INDEX, 3)).data == "-1,0,-1,3"
    attrs = input_attrs("x", (DYNAMIC_INDEX, 3), (8, 3)).data
    assert int_array_values(attrs[ORIGIN_INPUT_DIMS]) == (-1, 3)
    op = GetDynamicDimsOp([], shape_info=(2, DYNAMIC_INDEX, 3))
    assert int_array_values(op.shape_info) == (2, -1, 3)
