"""Matrix ops: MatMul, BatchMatMulV2, Einsum and the ONNX MatMul/Gemm/Einsum converters.

Kernels against numpy's definitions written out (loops or explicit sums), builders by their
inferred types, equation parsing by its errors, and one-node ONNX models against
`onnx.reference.ReferenceEvaluator` (`tests/onnx_check.py`).
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, UnrankedTensorType, f32, i32
from xdsl.ir import SSAValue
from xdsl.utils.test_value import create_ssa_value

from gedialects.graph import BatchMatMulV2Op, EinsumOp, parse_einsum
from gedialects.interpreters.kernels import KernelError, run_kernel
from tests.onnx_check import check, imported

Q = DYNAMIC_INDEX
RNG = np.random.default_rng(3)


def tensor(*dims: int, elem: object = f32) -> TensorType:
    return TensorType(elem, list(dims))


def value(t: object) -> SSAValue:
    return create_ssa_value(t)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def run_op(op: object, *inputs: np.ndarray) -> np.ndarray:
    return run_kernel(op.GE_TYPE, list(inputs), op.properties, op.result_types)[0]  # type: ignore[attr-defined]


def node(op: str, inputs: list[str], **attrs: object):
    return helper.make_node(op, inputs, ["y"], **attrs)


# --------------------------------------------------------------------------------------------
# Builders and kernels
# --------------------------------------------------------------------------------------------


def test_batch_matmul_result_types() -> None:
    def shape(a: tuple, b: tuple, **kw: bool) -> object:
        return BatchMatMulV2Op(value(tensor(*a)), value(tensor(*b)), **kw).y.type

    assert shape((8, 4, 16), (1, 5, 16), adj_x2=True) == tensor(8, 4, 5)
    assert shape((4, 16), (16,)) == tensor(4)
    assert shape((16,), (2, 16, 3)) == tensor(2, 3)
    assert shape((Q, 3, 4), (4, Q)) == tensor(Q, 3, Q)
    assert shape((2, 1, 3, 4), (5, 4, 6)) == tensor(2, 5, 3, 6)
    op = BatchMatMulV2Op(value(tensor(3, 4)), value(UnrankedTensorType(f32)))
    assert op.y.type == UnrankedTensorType(f32)


def test_batch_matmul_kernel_against_loops() -> None:
    a, b, bias = rand(2, 1, 4, 3), rand(5, 6, 4), rand(6)
    op = BatchMatMulV2Op(
        value(tensor(2, 1, 4, 3)),
        value(tensor(5, 6, 4)),
        value(tensor(6)),
        adj_x1=True,
        adj_x2=True,
    )
    got = run_op(op, a, b, bias)
    want = np.zeros((2, 5, 3, 6), np.float32)
    for i in range(2):
        for j in range(5):
            for m in range(3):
                for n in range(6):
                    want[i, j, m, n] = sum(a[i, 0, k, m] * b[j, n, k] for k in range(4)) + bias[n]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    ints = BatchMatMulV2Op(value(tensor(2, 3, elem=i32)), value(tensor(3, elem=i32)))
    x, v = np.arange(6, dtype=np.int32).reshape(2, 3), np.array([1, -1, 2], np.int32)
    np.testing.assert_array_equal(run_op(ints, x, v), [0 - 1 + 4, 3 - 4 + 10])
    with pytest.raises(KernelError, match="cannot multiply"):
        run_op(ints, x, np.ones(4, np.int32))


def test_einsum_parsing_and_types() -> None:
    assert parse_einsum("bij, bjk -> bik", [3, 3]) == (["bij", "bjk"], "bik")
    assert parse_einsum("...ii", [4]) == ([".ii"], ".")  # implicit: no letter occurs once
    assert parse_einsum("ij,jk", [2, 2]) == (["ij", "jk"], "ik")
    assert parse_einsum("ba", [2]) == (["ba"], "ab")  # implicit output is sorted
    with pytest.raises(ValueError, match="has 1 input terms for 2 inputs"):
        parse_einsum("ij->i", [2, 2])
    with pytest.raises(ValueError, match="does not fit an input of rank 3"):
        parse_einsum("ij->i", [3])
    op = EinsumOp([value(tensor(2, 3, 4)), value(tensor(2, 4, 5))], equation="bij,bjk->bik")
    assert op.y.type == tensor(2, 3, 5) and op.N.value.data == 2
    batch = EinsumOp([value(tensor(Q, 7, 3, 3))], equation="...ii->...i")
    assert batch.y.type == tensor(Q, 7, 3)
    scalar = EinsumOp([value(tensor(4)), value(tensor(4))], equation="i,i")
    assert scalar.y.type == tensor()


def test_einsum_kernel_against_explicit_sums() -> None:
    a, b = rand(2, 3, 4), rand(4, 5)
    op = EinsumOp([value(tensor(2, 3, 4)), value(tensor(4, 5))], equation="bij,jk->bki")
    want = np.zeros((2, 5, 3), np.float32)
    for bi, k, i in np.ndindex(2, 5, 3):
        want[bi, k, i] = sum(a[bi, i, j] * b[j, k] for j in range(4))
    np.testing.assert_allclose(run_op(op, a, b), want, rtol=1e-5, atol=1e-5)
    diag = EinsumOp([value(tensor(2, 3, 3))], equation="...ii->...i")
    c = rand(2, 3, 3)
    np.testing.assert_array_equal(
        run_op(diag, c), [[c[n, i, i] for i in range(3)] for n in range(2)]
    )


# --------------------------------------------------------------------------------------------
# ONNX models against the reference evaluator
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ((3, 4), (4, 5)),
        ((2, 3, 4), (4, 5)),
        ((4,), (2, 4, 3)),
        ((2, 3, 4), (4,)),
        ((4,), (4,)),
        ((2, 1, 3, 4), (5, 4, 2)),
    ],
)
def test_matmul_models(a: tuple, b: tuple) -> None:
    """2-D x 2-D imports as graph.matmul, everything else as graph.batch_mat_mul_v2."""
    feeds = {"a": rand(*a), "b": rand(*b)}
    check(node("MatMul", ["a", "b"]), feeds, opset=13)
    names = [op.name for op in imported(node("MatMul", ["a", "b"]), feeds, opset=13).walk()]
    expected = "graph.matmul" if len(a) == len(b) == 2 else "graph.batch_mat_mul_v2"
    assert expected in names


GEMM_CASES = [
    ({}, (3, 4), (4, 5), None),
    ({"transA": 1, "transB": 1}, (4, 3), (5, 4), (5,)),
    ({"alpha": 0.5, "beta": 2.0}, (3, 4), (4, 5), (3, 5)),
    ({"alpha": 2.0}, (3, 4), (4, 5), (1,)),
    ({"beta": 0.0}, (3, 4), (4, 5), (3, 1)),
    ({"beta": -1.5, "transB": 1}, (3, 4), (5, 4), ()),
    ({"alpha": 3.0, "transA": 1}, (4, 3), (4, 5), (1, 5)),
]


@pytest.mark.parametrize(("attrs", "a", "b", "c"), GEMM_CASES)
@pytest.mark.parametrize("constant_weights", [True, False])
def test_gemm_models(
    attrs: dict, a: tuple, b: tuple, c: tuple | None, constant_weights: bool
) -> None:
    """B and C as initializers (alpha/beta folded at import) and as run-time inputs (graph.mul)."""
    inputs = ["a", "b"] if c is None else ["a", "b", "c"]
    weights = {"b": rand(*b)} if c is None else {"b": rand(*b), "c": rand(*c)}
    feeds, consts = (
        ({"a": rand(*a)}, weights) if constant_weights else ({"a": rand(*a), **weights}, {})
    )
    check(node("Gemm", inputs, **attrs), feeds, consts, opset=13)
    check(node("Gemm", inputs, **attrs), feeds, consts, opset=11)


def test_gemm_on_integers() -> None:
    a, b = np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(12, dtype=np.int32).reshape(3, 4)
    check(
        node("Gemm", ["a", "b", "c"], alpha=1.0),
        {"a": a, "b": b, "c": np.ones(4, np.int32)},
        opset=13,
    )


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("ij->ji", [(3, 4)]),
        ("ij->i", [(3, 4)]),
        ("...ii->...i", [(2, 3, 3)]),
        ("i,i", [(5,), (5,)]),
        ("bij, bjk -> bik", [(2, 3, 4), (2, 4, 5)]),
        ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
        ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
        ("->", [()]),
    ],
)
def test_einsum_models(equation: str, shapes: list) -> None:
    feeds = {f"x{i}": rand(*s) for i, s in enumerate(shapes)}
    check(node("Einsum", list(feeds), equation=equation), feeds, opset=12)
