"""Array ops (reshaping, concat/split, slicing, gather/scatter, pad, generated tensors):
builders' type inference, kernels against hand-computed values and ONNX models against
onnx's reference evaluator, static shapes through Shape -> Gather -> Concat -> Reshape."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from xdsl.dialects.builtin import TensorType, UnrankedTensorType, f32, i64
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.test_value import create_ssa_value

from gedialects.frontend.onnx import OnnxImportError, import_model
from gedialects.graph import (
    ConcatDOp,
    ConstOp,
    ExpandOp,
    FlattenOp,
    GatherNdOp,
    GatherV2DOp,
    GraphOp,
    NonZeroOp,
    PadV3Op,
    RangeOp,
    ReshapeOp,
    SplitDOp,
    SplitVOp,
    SqueezeV3Op,
    StridedSliceV2Op,
    TileOp,
    UnsqueezeV3Op,
)
from gedialects.interpreters.kernels import KernelError, run_kernel
from gedialects.interpreters.run import run
from gedialects.tensors import dense_from_numpy
from tests.onnx_check import check, imported, one_node_model

Q = -1


def tensor(*dims: int, elem: object = f32) -> TensorType:
    return TensorType(elem, [d if d >= 0 else -(2**63) for d in dims])  # type: ignore[arg-type]


def value(t: object) -> SSAValue:
    return create_ssa_value(t)  # type: ignore[arg-type]


def const(*values: int) -> ConstOp:
    return ConstOp(dense_from_numpy(np.array(values, dtype=np.int64)))


def scalar(v: int) -> ConstOp:
    return ConstOp(dense_from_numpy(np.array(v, dtype=np.int64)))


def node(op: str, inputs: list[str], outputs: list[str] | None = None, **attrs: object):
    return helper.make_node(op, inputs, outputs or ["y"], **attrs)


RNG = np.random.default_rng(0)
X234 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
I64 = np.int64

# --------------------------------------------------------------------------------------------
# Builders: type inference from properties and constant operands
# --------------------------------------------------------------------------------------------


def test_shape_like_operands_decide_static_types_only_when_constant() -> None:
    x = value(tensor(2, 3, 4))
    assert SqueezeV3Op(value(tensor(1, 3, 1))).y.type == tensor(3)
    assert SqueezeV3Op(value(tensor(1, 3, 1)), const(-1)).y.type == tensor(1, 3)
    assert SqueezeV3Op(value(tensor(1, Q))).y.type == UnrankedTensorType(f32)
    assert UnsqueezeV3Op(x, const(0, -1)).y.type == tensor(1, 2, 3, 4, 1)
    assert UnsqueezeV3Op(x, value(tensor(2, elem=i64))).y.type == tensor(Q, Q, Q, Q, Q)
    assert ReshapeOp(value(tensor(0, 3)), const(3, 0), allowzero=True).y.type == tensor(3, 0)
    assert ExpandOp(value(tensor(3, 1)), const(2, 1, 4)).y.type == tensor(2, 3, 4)
    assert TileOp(x, const(1, 2, 0)).y.type == tensor(2, 6, 0)
    assert FlattenOp(x, axis=-1).y.type == tensor(6, 4)
    assert FlattenOp(value(tensor(2, Q, 4)), axis=2).y.type == tensor(Q, 4)
    assert ConcatDOp([x, value(tensor(2, 5, 4))], -2).y.type == tensor(2, 8, 4)
    assert ConcatDOp([x, value(tensor(2, Q, 4))], 1).y.type == tensor(2, Q, 4)


def test_slice_gather_split_and_pad_types() -> None:
    x = value(tensor(4, 6))
    sl = StridedSliceV2Op(x, const(-1), const(-(2**63)), const(1), const(-2))
    assert sl.y.type == tensor(4, 3)
    assert StridedSliceV2Op(x, const(1), const(100), const(0), const(1)).y.type == tensor(3, 6)
    unknown = StridedSliceV2Op(x, value(tensor(1, elem=i64)), const(2), const(0), const(1))
    assert unknown.y.type == tensor(Q, 6)
    assert GatherV2DOp(x, value(tensor(2, 5, elem=i64)), axis=1).y.type == tensor(4, 2, 5)
    indices = value(tensor(2, 3, 1, elem=i64))
    assert GatherNdOp(value(tensor(2, 3, 5)), indices, batch_dims=1).y.type == tensor(2, 3, 5)
    a, b, c = SplitVOp(x, const(2, -1, 1), scalar(1), num_split=3).y
    assert (a.type, b.type, c.type) == (tensor(4, 2), tensor(4, 3), tensor(4, 1))
    parts = SplitDOp(value(tensor(7, 2)), split_dim=0, num_split=3).y
    assert [p.type for p in parts] == [tensor(3, 2), tensor(3, 2), tensor(1, 2)]
    pad = PadV3Op(x, const(1, -1, 0, 2), value(tensor(elem=f32)), paddings_contiguous=True)
    assert pad.y.type == tensor(4, 8)
    assert NonZeroOp(x).y.type == tensor(2, Q, elem=i64)
    assert RangeOp(scalar(1), scalar(10), scalar(3)).y.type == tensor(3, elem=i64)


def test_verifiers_reject_inconsistent_types() -> None:
    x = value(tensor(2, 3))
    bad = SqueezeV3Op(x, const(0), result_type=tensor(3))
    with pytest.raises(VerifyException, match="cannot squeeze dim 0 of size 2"):
        bad.verify()
    with pytest.raises(VerifyException, match="result shape \\[3, 2\\] differs"):
        TileOp(x, const(1, 1), result_type=tensor(3, 2)).verify()
    with pytest.raises(VerifyException, match="inputs differ in dim 0"):
        ConcatDOp([x, value(tensor(3, 3))], 1, result_type=tensor(2, 6)).verify()
    with pytest.raises(VerifyException, match="num_split 2 differs from the 1 results"):
        SplitDOp(x, split_dim=0, num_split=2, result_types=[tensor(1, 3)]).verify()


# --------------------------------------------------------------------------------------------
# Kernels: hand-computed edge cases
# --------------------------------------------------------------------------------------------


def run_op(op: object, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
    return run_kernel(op.GE_TYPE, inputs, op.properties, op.result_types)  # type: ignore[attr-defined]


def test_slice_clamps_and_walks_backwards() -> None:
    x = np.arange(10)
    v = value(tensor(1, elem=i64))
    op = StridedSliceV2Op(value(tensor(10, elem=i64)), v, v, v, v)
    (y,) = run_op(op, x, np.array([20]), np.array([-20]), np.array([0]), np.array([-3]))
    np.testing.assert_array_equal(y, [9, 6, 3, 0])
    (y,) = run_op(op, x, np.array([-3]), np.array([100]), np.array([0]), np.array([1]))
    np.testing.assert_array_equal(y, [7, 8, 9])
    (y,) = run_op(op, x, np.array([-100]), np.array([-100]), np.array([0]), np.array([-1]))
    np.testing.assert_array_equal(y, [0])  # ONNX clamps a negative-step start to 0
    with pytest.raises(KernelError, match="strides must not be 0"):
        run_op(op, x, np.array([0]), np.array([3]), np.array([0]), np.array([0]))


def test_pad_crops_with_negative_pads_and_wraps() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    pads = value(tensor(4, elem=i64))
    op = PadV3Op(value(tensor(2, 3)), pads, value(tensor(elem=f32)), mode="wrap")
    (y,) = run_op(op, x, np.array([0, 0, -1, 2]), np.array(0, np.float32))
    np.testing.assert_array_equal(y, [[1, 2, 1, 2], [4, 5, 4, 5]])


def test_gather_nd_with_batch_dims_and_negative_indices() -> None:
    x = np.arange(24).reshape(2, 3, 4)
    indices = np.array([[[-1]], [[0]]])
    op = GatherNdOp(
        value(tensor(2, 3, 4, elem=i64)), value(tensor(2, 1, 1, elem=i64)), batch_dims=1
    )
    (y,) = run_op(op, x, indices)
    np.testing.assert_array_equal(y, [[x[0, 2]], [x[1, 0]]])
    with pytest.raises(KernelError, match="out of range"):
        run_op(op, x, np.array([[[3]], [[0]]]))


# --------------------------------------------------------------------------------------------
# ONNX models against the reference evaluator
# --------------------------------------------------------------------------------------------

CASES = [
    (
        node("Reshape", ["x", "s"], allowzero=1),
        {"x": np.zeros((0, 3), np.float32)},
        {"s": np.array([3, 0], I64)},
        18,
    ),
    (node("Flatten", ["x"], axis=-2), {"x": X234}, {}, 18),
    (node("Squeeze", ["x"], axes=[0, 2]), {"x": np.ones((1, 3, 1), np.float32)}, {}, 11),
    (
        node("Squeeze", ["x", "a"]),
        {"x": np.ones((1, 3, 1), np.float32)},
        {"a": np.array([-1], I64)},
        13,
    ),
    (node("Unsqueeze", ["x"], axes=[0, 3]), {"x": X234[0]}, {}, 11),
    (node("Unsqueeze", ["x", "a"]), {"x": X234[0], "a": np.array([-1, 0], I64)}, {}, 13),
    (node("Concat", ["x", "x"], axis=-1), {"x": X234}, {}, 13),
    (node("Split", ["x"], ["a", "b"], axis=2, split=[1, 3]), {"x": X234}, {}, 11),
    (
        node("Split", ["x", "s"], ["a", "b"], axis=1),
        {"x": X234, "s": np.array([2, 1], I64)},
        {},
        13,
    ),
    (
        node("Split", ["x"], ["a", "b", "c"], axis=0, num_outputs=3),
        {"x": np.arange(7.0, dtype=np.float32)},
        {},
        18,
    ),
    (
        node("Slice", ["x", "s", "e", "a", "t"]),
        {"x": X234},
        {
            "s": np.array([-1, 10], I64),
            "e": np.array([-10, 0], I64),
            "a": np.array([2, 1], I64),
            "t": np.array([-2, -1], I64),
        },
        13,
    ),
    (
        node("Slice", ["x", "s", "e"]),
        {"x": X234, "s": np.array([1], I64), "e": np.array([2], I64)},
        {},
        13,
    ),
    (
        node("Gather", ["x", "i"], axis=-1),
        {"x": X234, "i": np.array([[-1, 0], [2, 2]], I64)},
        {},
        13,
    ),
    (
        node("GatherElements", ["x", "i"], axis=1),
        {"x": X234, "i": np.array([[[-1, 0, 1, 2]] * 2] * 2, I64)},
        {},
        13,
    ),
    (
        node("GatherND", ["x", "i"], batch_dims=1),
        {"x": X234, "i": np.array([[1, 3], [0, -1]], I64)},
        {},
        13,
    ),
    (
        node("ScatterElements", ["x", "i", "u"], axis=1, reduction="mul"),
        {
            "x": X234,
            "i": np.array([[[0, 0, 1, 2]]] * 2, I64),
            "u": np.full((2, 1, 4), 2.0, np.float32),
        },
        {},
        18,
    ),
    (
        node("ScatterND", ["x", "i", "u"], reduction="add"),
        {"x": X234, "i": np.array([[1, 2], [1, 2]], I64), "u": np.ones((2, 4), np.float32)},
        {},
        18,
    ),
    (
        node("Expand", ["x", "s"]),
        {"x": np.arange(3, dtype=np.float32).reshape(3, 1)},
        {"s": np.array([2, 1, 4], I64)},
        13,
    ),
    (node("Tile", ["x", "r"]), {"x": X234, "r": np.array([1, 2, 0], I64)}, {}, 13),
    (
        node("Pad", ["x", "p"], mode="reflect"),
        {"x": X234},
        {"p": np.array([0, 1, 2, 0, 1, 1], I64)},
        13,
    ),
    (
        node("Pad", ["x", "p", "v", "a"]),
        {"x": X234},
        {"p": np.array([1, 2], I64), "v": np.array(7.0, np.float32), "a": np.array([-2], I64)},
        18,
    ),
    (
        node("Pad", ["x", "p"], mode="edge"),
        {"x": X234, "p": np.array([1, 0, 0, 0, 2, 3], I64)},
        {},
        13,
    ),
    (node("Shape", ["x"], start=-2), {"x": X234}, {}, 15),
    (node("Shape", ["x"], start=1, end=-1), {"x": X234}, {}, 15),
    (node("Size", ["x"]), {"x": X234}, {}, 13),
    (
        node("ConstantOfShape", ["s"], value=helper.make_tensor("v", TensorProto.INT32, [1], [5])),
        {"s": np.array([2, 3], I64)},
        {},
        13,
    ),
    (
        node("Range", ["a", "b", "c"]),
        {"a": np.array(10, I64), "b": np.array(1, I64), "c": np.array(-3, I64)},
        {},
        13,
    ),
    (
        node("Range", ["a", "b", "c"]),
        {},
        {
            "a": np.array(1.0, np.float32),
            "b": np.array(2.0, np.float32),
            "c": np.array(0.3, np.float32),
        },
        13,
    ),
    (node("NonZero", ["x"]), {"x": np.array([[0, 1, 0], [2, 0, 3]], np.float32)}, {}, 13),
    (
        node("OneHot", ["i", "d", "v"], axis=0),
        {
            "i": np.array([[1, -1], [0, 7]], I64),
            "d": np.array(4, I64),
            "v": np.array([0.0, 2.5], np.float32),
        },
        {},
        11,
    ),
    (
        node("OneHot", ["i", "d", "v"]),
        {"i": np.array([1.0, 3.0], np.float32)},
        {"d": np.array(5.0, np.float32), "v": np.array([-1, 1], I64)},
        11,
    ),
    (node("Trilu", ["x", "k"], upper=0), {"x": X234, "k": np.array(-1, I64)}, {}, 14),
    (
        node("ReverseSequence", ["x", "l"], time_axis=1, batch_axis=0),
        {"x": X234, "l": np.array([3, 1], I64)},
        {},
        11,
    ),
    (node("Transpose", ["x"]), {"x": X234}, {}, 13),
]


@pytest.mark.parametrize(
    ("onnx_node", "feeds", "consts", "opset"), CASES, ids=lambda c: getattr(c, "op_type", "")
)
def test_onnx_node_matches_the_reference(onnx_node, feeds, consts, opset) -> None:
    check(onnx_node, feeds, consts, opset)


def test_range_over_runtime_inputs_has_an_unknown_length() -> None:
    feeds = {"a": np.array(0, I64), "b": np.array(5, I64), "c": np.array(2, I64)}
    graph = imported(node("Range", ["a", "b", "c"]), feeds).ops.first
    assert isinstance(graph, GraphOp)
    (rng,) = [op for op in graph.body.ops if isinstance(op, RangeOp)]
    assert rng.y.type == tensor(Q, elem=i64)


def test_dropout_is_identity_with_an_all_true_mask() -> None:
    dropout = node("Dropout", ["x", "r"], ["y", "m"])
    got = check(dropout, {"x": X234}, {"r": np.array(0.3, np.float32)}, opset=13)
    assert got["m"].dtype == np.bool_ and got["m"].all()
    training = node("Dropout", ["x", "r", "t"], ["y"])
    consts = {"r": np.array(0.3, np.float32), "t": np.array(True)}
    model = one_node_model(training, {"x": X234}, consts, {"y": X234}, 13)
    with pytest.raises(OnnxImportError, match="training_mode = 1 is not supported"):
        import_model(model)
    zero = {"r": np.array(0.0, np.float32), "t": np.array(True)}
    got = check(node("Dropout", ["x", "r", "t"], ["y", "m"]), {"x": X234}, zero, opset=13)
    assert got["m"].all()


# --------------------------------------------------------------------------------------------
# Shapes computed at import: Shape -> Gather -> Concat -> Reshape
# --------------------------------------------------------------------------------------------


def reshape_by_own_shape(dims: list[int | str]) -> object:
    """y = reshape(x, concat(gather(shape(x), [0]), [-1])): flattens all but the first dim."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "first"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "zero"], ["n1"]),
        helper.make_node("Slice", ["n1", "zero", "one"], ["n2"]),
        helper.make_node("Concat", ["n2", "minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    inits = [
        helper.make_tensor("first", TensorProto.INT64, [], [0]),
        helper.make_tensor("zero", TensorProto.INT64, [1], [0]),
        helper.make_tensor("one", TensorProto.INT64, [1], [1]),
        helper.make_tensor("minus_one", TensorProto.INT64, [1], [-1]),
    ]
    graph = helper.make_graph(
        nodes,
        "net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def reshape_result(module: object) -> ReshapeOp:
    graph = module.ops.first  # type: ignore[attr-defined]
    (op,) = [op for op in graph.body.ops if isinstance(op, ReshapeOp)]
    return op


def test_reshape_target_from_a_static_shape_is_static() -> None:
    module = import_model(reshape_by_own_shape([2, 3, 4]))
    assert reshape_result(module).y.type == tensor(2, 12)
    np.testing.assert_array_equal(run(module, {"x": X234})["y"], X234.reshape(2, 12))


def test_reshape_target_from_a_dynamic_shape_stays_dynamic() -> None:
    module = import_model(reshape_by_own_shape(["batch", 3, 4]))
    assert reshape_result(module).y.type == tensor(Q, Q)
    x = RNG.standard_normal((5, 3, 4)).astype(np.float32)
    np.testing.assert_array_equal(run(module, {"x": x})["y"], x.reshape(5, 12))
