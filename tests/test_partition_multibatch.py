"""Interpreter semantics of the `partition` and `multibatch` dialects.

Programs are parsed from text and run on the `graph` + `partition` + `multibatch` interpreter
functions; the tests check values that only the right wiring can produce (argument order, the
branch that ran, the gear that matched).
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, f32, i32, i64
from xdsl.interpreter import Interpreter
from xdsl.utils.exceptions import InterpretationError

from gedialects.base import int_array
from gedialects.graph import ConstOp, GraphOp, NetOutputOp
from gedialects.interpreters.graph import GraphFunctions
from gedialects.interpreters.kernels import KernelError, run_kernel
from gedialects.interpreters.multibatch import MultibatchFunctions
from gedialects.interpreters.partition import PartitionFunctions
from gedialects.multibatch import CaseOp, GetDynamicDimsOp, MapIndexOp
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp
from gedialects.tensors import dense_from_numpy
from tests.conftest import parse


def interpreter(module: ModuleOp) -> Interpreter:
    it = Interpreter(module)
    for functions in (GraphFunctions(), PartitionFunctions(), MultibatchFunctions()):
        it.register_implementations(functions)
    return it


def run(src: str, entry: str, *args: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(interpreter(parse(src)).call_op(entry, args))


# --------------------------------------------------------------------------------------------
# partition.partitioned_call
# --------------------------------------------------------------------------------------------

CALL = """
graph.graph @cluster0(%a: tensor<?x2xf32>, %b: tensor<2xi32>)
    -> (tensor<2xi32>, tensor<?x2xf32>, tensor<2xi32>) {
  %c = graph.const dense<[7, 8]> : tensor<2xi32>
  graph.net_output %b, %a, %c : tensor<2xi32>, tensor<?x2xf32>, tensor<2xi32>
}
graph.graph @root(%x: tensor<3x2xf32>, %y: tensor<2xi32>)
    -> (tensor<3x2xf32>, tensor<2xi32>, tensor<2xi32>) {
  %r:3 = partition.partitioned_call @cluster0(%x, %y)
      : (tensor<3x2xf32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<3x2xf32>, tensor<2xi32>)
  graph.net_output %r#1, %r#0, %r#2 : tensor<3x2xf32>, tensor<2xi32>, tensor<2xi32>
}
"""


def test_partitioned_call_passes_operands_and_results_in_order() -> None:
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = np.array([-1, -2], dtype=np.int32)
    got_x, got_y, got_c = run(CALL, "root", x, y)
    np.testing.assert_array_equal(got_x, x)
    np.testing.assert_array_equal(got_y, y)
    np.testing.assert_array_equal(got_c, [7, 8])
    assert got_c.dtype == np.int32


# --------------------------------------------------------------------------------------------
# partition.end / partition.place_holder
# --------------------------------------------------------------------------------------------

ENGINES = """
graph.graph @new_sub_graph0(%x: tensor<2x2xf32>) {
  %w = graph.const dense<[[1.5, 2.5], [3.5, 4.5]]> : tensor<2x2xf32>
  partition.end %x peerIndex 0 parentOpType "Add" : (tensor<2x2xf32>) -> ()
  partition.end %w peerIndex 1 parentOpType "Add" : (tensor<2x2xf32>) -> ()
  graph.net_output
}
graph.graph @new_sub_graph1() -> (tensor<?x2xf32>, tensor<2x2xf32>) {
  %w = partition.place_holder peerIndex 1 parentOpType "Const" : () -> tensor<2x2xf32>
  %x = partition.place_holder peerIndex 0 _parentNodeName "x" : () -> tensor<?x2xf32>
  %s = graph.add %x, %w : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %x, %s : tensor<?x2xf32>, tensor<2x2xf32>
}
graph.graph @root(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  partition.partitioned_call @new_sub_graph0(%x) : (tensor<2x2xf32>) -> ()
  %r:2 = partition.partitioned_call @new_sub_graph1() : () -> (tensor<2x2xf32>, tensor<2x2xf32>)
  graph.net_output %r#0, %r#1 : tensor<2x2xf32>, tensor<2x2xf32>
}
"""


def test_end_to_place_holder_transfer_across_two_calls() -> None:
    it = interpreter(parse(ENGINES))
    for scale in (1.0, -3.0):  # a second run reuses the (emptied) channels
        x = np.array([[1, 2], [3, 4]], dtype=np.float32) * scale
        got_x, got_sum = it.call_op("root", (x,))
        np.testing.assert_array_equal(got_x, x)
        np.testing.assert_array_equal(got_sum, x + np.array([[1.5, 2.5], [3.5, 4.5]]))
    assert PartitionFunctions.channels(it) == {}


def test_place_holder_without_end_is_reported() -> None:
    it = interpreter(parse(ENGINES))
    with pytest.raises(InterpretationError, match=r"'partition.place_holder' peerIndex 1: no"):
        it.call_op("new_sub_graph1", ())


def test_place_holder_receives_once() -> None:
    it = interpreter(parse(ENGINES))
    it.call_op("root", (np.zeros((2, 2), np.float32),))
    with pytest.raises(InterpretationError, match=r"peerIndex 1: no 'partition.end'"):
        it.call_op("new_sub_graph1", ())


def test_place_holder_rejects_a_value_of_another_type() -> None:
    src = """
graph.graph @producer(%x: tensor<3xi32>) {
  partition.end %x peerIndex 4 : (tensor<3xi32>) -> ()
  graph.net_output
}
graph.graph @consumer() -> tensor<3xf32> {
  %p = partition.place_holder peerIndex 4 : () -> tensor<3xf32>
  graph.net_output %p : tensor<3xf32>
}
"""
    it = interpreter(parse(src))
    it.call_op("producer", (np.array([1, 2, 3], np.int32),))
    with pytest.raises(InterpretationError, match=r"received int32 \[3\], incompatible"):
        it.call_op("consumer", ())


# --------------------------------------------------------------------------------------------
# multibatch.map_index + multibatch.case
# --------------------------------------------------------------------------------------------

GEARS = """
graph.graph @Batch_0(%x: tensor<1x2xf32>, %w: tensor<3x2xf32>) -> (tensor<1x2xf32>, tensor<1xi32>) {
  %tag = graph.const dense<[100]> : tensor<1xi32>
  graph.net_output %x, %tag : tensor<1x2xf32>, tensor<1xi32>
}
graph.graph @Batch_1(%x: tensor<1x4xf32>, %w: tensor<3x2xf32>) -> (tensor<1x4xf32>, tensor<1xi32>) {
  %tag = graph.const dense<[101]> : tensor<1xi32>
  graph.net_output %x, %tag : tensor<1x4xf32>, tensor<1xi32>
}
graph.graph @Batch_2(%x: tensor<3x2xf32>, %w: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<1xi32>) {
  %tag = graph.const dense<[102]> : tensor<1xi32>
  graph.net_output %w, %tag : tensor<3x2xf32>, tensor<1xi32>
}
graph.graph @root(%x: tensor<?x?xf32>, %dims: tensor<2xi32>) -> (tensor<?x?xf32>, tensor<1xi32>) {
  %gears = graph.const dense<[1, 2, 1, 4, 3, 2]> : tensor<6xi32>
  %w = graph.const dense<[[0.5, 0.25], [1.5, 1.25], [2.5, 2.25]]> : tensor<3x2xf32>
  %i = multibatch.map_index %dims, %gears : (tensor<2xi32>, tensor<6xi32>) -> tensor<i32>
  %r:2 = multibatch.case %i, %x, %w branches [@Batch_0, @Batch_1, @Batch_2] {_batch_num = 3 : i64}
      : (tensor<i32>, tensor<?x?xf32>, tensor<3x2xf32>) -> (tensor<?x?xf32>, tensor<1xi32>)
  graph.net_output %r#0, %r#1 : tensor<?x?xf32>, tensor<1xi32>
}
"""


@pytest.mark.parametrize("gear, shape", [(0, (1, 2)), (1, (1, 4)), (2, (3, 2))])
def test_case_runs_the_branch_of_the_matching_gear(gear: int, shape: tuple[int, int]) -> None:
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    out, tag = run(GEARS, "root", x, np.array(shape, np.int32))
    np.testing.assert_array_equal(tag, [100 + gear])
    weight = np.array([[0.5, 0.25], [1.5, 1.25], [2.5, 2.25]], np.float32)
    expected = weight if gear == 2 else x
    np.testing.assert_array_equal(out, expected)


def test_map_index_without_matching_gear_raises_e13025() -> None:
    message = (
        "E13025: The input tensor dimension [1,5] is not in the dynamic dimension list "
        "[[1,2],[1,4],[3,2]] configured by dynamic_dims"
    )
    with pytest.raises(KernelError) as info:
        run(GEARS, "root", np.zeros((1, 5), np.float32), np.array([1, 5], np.int32))
    assert str(info.value) == message


CASE_DIRECT = """
graph.graph @b0() -> tensor<1xi32> {
  %c = graph.const dense<[10]> : tensor<1xi32>
  graph.net_output %c : tensor<1xi32>
}
graph.graph @b1() -> tensor<1xi32> {
  %c = graph.const dense<[11]> : tensor<1xi32>
  graph.net_output %c : tensor<1xi32>
}
graph.graph @root(%i: tensor<1xi32>) -> tensor<1xi32> {
  %r = multibatch.case %i branches [@b0, @b1] : (tensor<1xi32>) -> tensor<1xi32>
  graph.net_output %r : tensor<1xi32>
}
"""


def test_case_with_a_one_element_index_tensor() -> None:
    for index in (0, 1):
        (out,) = run(CASE_DIRECT, "root", np.array([index], np.int32))
        np.testing.assert_array_equal(out, [10 + index])


@pytest.mark.parametrize("index", [2, -1])
def test_case_refuses_an_out_of_range_index(index: int) -> None:
    with pytest.raises(InterpretationError, match=rf"branch_index {index} is out of range for 2"):
        run(CASE_DIRECT, "root", np.array([index], np.int32))


def test_map_index_kernel_shapes_its_result_like_the_result_type() -> None:
    (y,) = run_kernel(
        "MapIndex",
        [np.array([4], np.int32), np.array([1, 2, 4, 8], np.int32)],
        {},
        [TensorType(i32, [1])],
    )
    assert y.shape == (1,) and y.dtype == np.int32 and int(y[0]) == 2


# --------------------------------------------------------------------------------------------
# multibatch.get_dynamic_dims
# --------------------------------------------------------------------------------------------

GETNEXT = """
graph.graph @root(%s0: tensor<2xi64>, %s1: tensor<3xi32>, %s2: tensor<0xi64>) -> tensor<3xi32> {
  %d = multibatch.get_dynamic_dims %s0, %s1, %s2 shape_info [2, -1, 3, 3, -1, 8, -1, 0] N 3
      : (tensor<2xi64>, tensor<3xi32>, tensor<0xi64>) -> tensor<3xi32>
  graph.net_output %d : tensor<3xi32>
}
"""


def test_get_dynamic_dims_gathers_the_unknown_dims_in_input_order() -> None:
    (dims,) = run(
        GETNEXT,
        "root",
        np.array([7, 3], np.int64),
        np.array([5, 8, 6], np.int32),
        np.array([], np.int64),
    )
    assert dims.dtype == np.int32
    np.testing.assert_array_equal(dims, [7, 5, 6])


def test_get_dynamic_dims_refuses_a_shape_that_contradicts_a_known_dim() -> None:
    with pytest.raises(KernelError, match=r"input 1 has shape \[5,9,6\], but dim 1 is fixed to 8"):
        run(
            GETNEXT,
            "root",
            np.array([7, 3], np.int64),
            np.array([5, 9, 6], np.int32),
            np.array([], np.int64),
        )


def test_get_dynamic_dims_feeds_map_index_and_case() -> None:
    src = """
graph.graph @small(%x: tensor<2x3xf32>) -> tensor<1xi32> {
  %c = graph.const dense<[0]> : tensor<1xi32>
  graph.net_output %c : tensor<1xi32>
}
graph.graph @large(%x: tensor<8x3xf32>) -> tensor<1xi32> {
  %c = graph.const dense<[1]> : tensor<1xi32>
  graph.net_output %c : tensor<1xi32>
}
graph.graph @root(%x: tensor<?x3xf32>, %shape: tensor<2xi64>) -> tensor<1xi32> {
  %d = multibatch.get_dynamic_dims %shape shape_info [2, -1, 3] N 1
      : (tensor<2xi64>) -> tensor<1xi32>
  %gears = graph.const dense<[2, 8]> : tensor<2xi32>
  %i = multibatch.map_index %d, %gears : (tensor<1xi32>, tensor<2xi32>) -> tensor<1xi32>
  %r = multibatch.case %i, %x branches [@small, @large]
      : (tensor<1xi32>, tensor<?x3xf32>) -> tensor<1xi32>
  graph.net_output %r : tensor<1xi32>
}
"""
    for batch, branch in ((2, 0), (8, 1)):
        x = np.zeros((batch, 3), np.float32)
        (out,) = run(src, "root", x, np.array(x.shape, np.int64))
        np.testing.assert_array_equal(out, [branch])


def test_get_dynamic_dims_kernel_checks_its_attributes() -> None:
    attrs = {"shape_info": int_array([1, -1, 1, -1]), "N": IntegerAttr(1, i64)}
    with pytest.raises(KernelError, match="1 inputs, shape_info describes 2, N is 1"):
        run_kernel("GetDynamicDims", [np.array([4], np.int64)], attrs, [TensorType(i32, [2])])


# --------------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------------


def test_builders_make_ops_that_verify_and_round_trip() -> None:
    f32x2 = TensorType(f32, [2])
    index_t = TensorType(i32, [])
    sub = GraphOp("sub", [f32x2], [f32x2])
    end = EndOp(sub.body.block.args[0], peer_index=3, parent_op_type="Relu")
    hold = PlaceHolderOp(f32x2, peer_index=3, parent_node_name="x", anchor_index=1)
    sub.body.block.add_ops([end, hold, NetOutputOp([hold])])
    root = GraphOp("root", [f32x2, TensorType(i64, [1])], [f32x2, f32x2])
    x, shape = root.body.block.args
    call = PartitionedCallOp("sub", [x], [f32x2])
    dims = GetDynamicDimsOp([shape], shape_info=[1, -1])
    gears = ConstOp(dense_from_numpy(np.array([2, 5], np.int32)))
    index = MapIndexOp(dims, gears)
    case = CaseOp(index, [x], ["sub", "sub"], [f32x2])
    root.body.block.add_ops([call, dims, gears, index, case, NetOutputOp([call, case])])
    module = ModuleOp([sub, root])
    module.verify()

    assert dims.dims.type == TensorType(i32, [1]) and dims.N.value.data == 1
    assert index.y.type == index_t
    text = str(module)
    assert 'partition.place_holder peerIndex 3 _parentNodeName "x" anchorIndex 1' in text
    assert "multibatch.case %" in text and "branches [@sub, @sub]" in text
    assert str(parse(text)) == text

    x_value = np.array([1.0, 2.0], np.float32)
    got_call, got_case = interpreter(module).call_op("root", (x_value, np.array([5], np.int64)))
    np.testing.assert_array_equal(got_call, x_value)
    np.testing.assert_array_equal(got_case, x_value)
