"""Reductions, ArgMax/ArgMin, TopK and CumSum: builders' type inference, kernels on edge cases
(empty reductions, ties, exclusive/reverse sums) and ONNX models of several opsets against
onnx's reference evaluator."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from xdsl.dialects.builtin import TensorType, UnrankedTensorType, f32, i64
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.test_value import create_ssa_value

from gedialects.graph import (
    ArgMaxDOp,
    ConstOp,
    CumsumOp,
    ReduceLogSumExpOp,
    ReduceMaxOp,
    ReduceSumOp,
    TopKV2Op,
)
from gedialects.interpreters.kernels import KernelError, run_kernel
from gedialects.tensors import dense_from_numpy
from tests.onnx_check import check

Q = -1
I64 = np.int64
RNG = np.random.default_rng(1)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)


def tensor(*dims: int, elem: object = f32) -> TensorType:
    return TensorType(elem, [d if d >= 0 else -(2**63) for d in dims])  # type: ignore[arg-type]


def value(t: object) -> SSAValue:
    return create_ssa_value(t)  # type: ignore[arg-type]


def const(*values: int) -> ConstOp:
    return ConstOp(dense_from_numpy(np.array(values, dtype=np.int64)))


def run_op(op: object, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
    return run_kernel(op.GE_TYPE, inputs, op.properties, op.result_types)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------------


def test_reduce_result_types() -> None:
    x = value(tensor(2, 3, 4))
    assert ReduceSumOp(x, const(-1)).y.type == tensor(2, 3)
    assert ReduceSumOp(x, const(0, 2), keep_dims=True).y.type == tensor(1, 3, 1)
    assert ReduceSumOp(x).y.type == tensor()
    assert ReduceSumOp(x, noop_with_empty_axes=True).y.type == tensor(2, 3, 4)
    assert ReduceSumOp(x, value(tensor(2, elem=i64))).y.type == tensor(Q)
    assert ReduceSumOp(x, value(tensor(Q, elem=i64))).y.type == UnrankedTensorType(f32)
    assert ArgMaxDOp(x, dimension=-2, keep_dims=True).y.type == tensor(2, 1, 4, elem=i64)
    values, indices = TopKV2Op(x, const(2), dim=1).results
    assert (values.type, indices.type) == (tensor(2, 2, 4), tensor(2, 2, 4, elem=i64))
    assert TopKV2Op(x, value(tensor(1, elem=i64))).values.type == tensor(2, 3, Q)


def test_reduce_verifiers() -> None:
    x = value(tensor(2, 3))
    with pytest.raises(VerifyException, match="axis 2 is out of range for rank 2"):
        ReduceMaxOp(x, const(2), result_type=tensor(2)).verify()
    with pytest.raises(VerifyException, match="result shape \\[3\\] differs"):
        ReduceMaxOp(x, const(1), result_type=tensor(3)).verify()
    with pytest.raises(VerifyException, match="k 4 exceeds dim 1"):
        TopKV2Op(x, const(4), result_types=[tensor(2, 4), tensor(2, 4, elem=i64)]).verify()
    with pytest.raises(VerifyException, match="axis must be an int32 or int64 tensor"):
        CumsumOp(x, value(tensor(elem=f32))).verify()


# --------------------------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------------------------


def test_empty_reductions_give_the_identity() -> None:
    empty = np.zeros((2, 0), np.float32)
    x = value(tensor(2, 0))
    (y,) = run_op(ReduceMaxOp(x, const(1)), empty, np.array([1]))
    np.testing.assert_array_equal(y, [-np.inf, -np.inf])
    (y,) = run_op(ReduceSumOp(x, const(1)), empty, np.array([1]))
    np.testing.assert_array_equal(y, [0, 0])
    (y,) = run_op(ReduceLogSumExpOp(x, const(1)), empty, np.array([1]))
    np.testing.assert_array_equal(y, [-np.inf, -np.inf])
    ints = np.zeros((0, 3), np.int32)
    (y,) = run_op(ReduceMaxOp(value(tensor(0, 3, elem=ints_type())), const(0)), ints, np.array([0]))
    np.testing.assert_array_equal(y, [np.iinfo(np.int32).min] * 3)


def ints_type() -> object:
    from xdsl.dialects.builtin import i32

    return i32


def test_log_sum_exp_does_not_overflow() -> None:
    x = np.array([[1000.0, 1000.0], [-1000.0, 0.0]], np.float32)
    (y,) = run_op(ReduceLogSumExpOp(value(tensor(2, 2)), const(1)), x, np.array([1]))
    np.testing.assert_allclose(y, [1000 + np.log(2), 0.0], rtol=1e-6)


def test_top_k_keeps_ties_in_index_order_and_arg_max_picks_the_last() -> None:
    x = np.array([[3, 1, 3, 2, 3]], np.int64)
    op = TopKV2Op(value(tensor(1, 5, elem=i64)), value(tensor(1, elem=i64)))
    values, indices = run_op(op, x, np.array([3]))
    np.testing.assert_array_equal(indices, [[0, 2, 4]])
    smallest = TopKV2Op(value(tensor(1, 5, elem=i64)), value(tensor(1, elem=i64)), largest=False)
    values, indices = run_op(smallest, x, np.array([2]))
    np.testing.assert_array_equal((values, indices), ([[1, 2]], [[1, 3]]))
    (last,) = run_op(
        ArgMaxDOp(value(tensor(1, 5, elem=i64)), dimension=1, select_last_index=True), x
    )
    np.testing.assert_array_equal(last, [4])
    with pytest.raises(KernelError, match="k 6 is out of range"):
        run_op(op, x, np.array([6]))


def test_cumsum_exclusive_and_reverse() -> None:
    x = np.array([1, 2, 3, 4], np.float32)
    op = CumsumOp(value(tensor(4)), value(tensor(elem=i64)), exclusive=True, reverse=True)
    (y,) = run_op(op, x, np.array(0))
    np.testing.assert_array_equal(y, [9, 7, 4, 0])


# --------------------------------------------------------------------------------------------
# ONNX models against the reference evaluator
# --------------------------------------------------------------------------------------------


def node(op: str, inputs: list[str], outputs: list[str] | None = None, **attrs: object):
    return helper.make_node(op, inputs, outputs or ["y"], **attrs)


REDUCE = (
    "ReduceSum",
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceSumSquare",
)
POSITIVE = np.abs(X) + 0.5


@pytest.mark.parametrize("op", REDUCE)
def test_reductions_with_axes_as_attribute_and_as_input(op: str) -> None:
    check(node(op, ["x"], axes=[0, -1], keepdims=0), {"x": POSITIVE}, opset=11)
    since = 13 if op == "ReduceSum" else 18
    axes = {"a": np.array([1], I64)}
    check(node(op, ["x", "a"]), {"x": POSITIVE}, axes, opset=since)
    check(node(op, ["x", "a"], keepdims=0), {"x": POSITIVE, **axes}, opset=since)
    check(node(op, ["x"], noop_with_empty_axes=1), {"x": POSITIVE}, opset=since)
    check(node(op, ["x"]), {"x": POSITIVE}, opset=since)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
def test_arg_reductions(op: str) -> None:
    ties = np.array([[1, 5, 5], [2, 2, 0]], np.float32)
    check(node(op, ["x"], axis=1, select_last_index=1), {"x": ties}, opset=13)
    check(node(op, ["x"], axis=-1, keepdims=0), {"x": ties}, opset=13)
    check(node(op, ["x"]), {"x": X}, opset=11)


def test_top_k_and_cumsum_models() -> None:
    k = {"k": np.array([2], I64)}
    check(node("TopK", ["x", "k"], ["v", "i"], axis=1), {"x": X}, k, opset=11)
    check(node("TopK", ["x", "k"], ["v", "i"], largest=0), {"x": X, **k}, opset=11)
    axis = {"a": np.array(-1, I64)}
    check(node("CumSum", ["x", "a"], exclusive=1), {"x": X}, axis, opset=14)
    check(node("CumSum", ["x", "a"], reverse=1), {"x": X.astype(np.int32), **axis}, opset=14)
