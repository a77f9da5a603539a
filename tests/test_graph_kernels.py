"""The numpy kernels of the graph ops against hand-computed values and independent references.

The references are written differently from the kernels on purpose: convolution and batch norm
as nested Python loops, transposition by index arithmetic, so a shared mistake is unlikely.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pytest
from xdsl.dialects.builtin import BoolAttr, FloatAttr, IntegerAttr, StringAttr, f32, i64
from xdsl.ir import Attribute

from gedialects.base import int_array
from gedialects.interpreters.kernels import KernelError, run_kernel
from gedialects.tensors import tensor_type_of


def run(ge_type: str, inputs: Sequence[np.ndarray], attrs: dict[str, Attribute], like: np.ndarray):
    """Runs a kernel whose single result has the type of `like`."""
    (out,) = run_kernel(ge_type, inputs, attrs, [tensor_type_of(like)])
    return out


# --------------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------------

A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32)
ROW = np.array([10.0, 20.0, 30.0], dtype=np.float32)
COL = np.array([[2.0], [-1.0]], dtype=np.float32)


@pytest.mark.parametrize(
    ("ge_type", "x1", "x2", "expected"),
    [
        ("Add", A, ROW, [[11, 22, 33], [14, 25, 36]]),
        ("Add", COL, ROW, [[12, 22, 32], [9, 19, 29]]),
        ("Sub", A, ROW, [[-9, -18, -27], [-6, -15, -24]]),
        ("Sub", ROW, A, [[9, 18, 27], [6, 15, 24]]),
        ("Mul", A, COL, [[2, 4, 6], [-4, -5, -6]]),
        ("Mul", A, np.float32(3.0), [[3, 6, 9], [12, 15, 18]]),
    ],
)
def test_binary_broadcasting(ge_type: str, x1: np.ndarray, x2: np.ndarray, expected: list) -> None:
    want = np.array(expected, dtype=np.float32)
    out = run(ge_type, [np.asarray(x1), np.asarray(x2)], {}, want)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_relu(dtype: type) -> None:
    x = np.array([[-2, -0.0, 3], [0.5, -7, 1]], dtype=np.float64).astype(dtype)
    want = np.array([[0, 0, 3], [0.5, 0, 1]], dtype=np.float64).astype(dtype)
    out = run("Relu", [x], {}, want)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, want)


# --------------------------------------------------------------------------------------------
# MatMul
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("transpose_x1", "transpose_x2"), list(itertools.product([False, True], repeat=2))
)
@pytest.mark.parametrize("with_bias", [False, True])
def test_matmul(transpose_x1: bool, transpose_x2: bool, with_bias: bool) -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.standard_normal((5, 4)).astype(np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    x1 = np.ascontiguousarray(a.T) if transpose_x1 else a
    x2 = np.ascontiguousarray(b.T) if transpose_x2 else b
    want = a @ b + (bias if with_bias else 0)
    attrs = {
        "transpose_x1": BoolAttr.from_bool(transpose_x1),
        "transpose_x2": BoolAttr.from_bool(transpose_x2),
    }
    inputs = [x1, x2, bias] if with_bias else [x1, x2]
    np.testing.assert_allclose(run("MatMul", inputs, attrs, want), want, rtol=1e-5, atol=1e-6)


def test_matmul_hand_computed_defaults() -> None:
    """No attributes: the transposes default to false."""
    x1 = np.array([[1, 2], [3, 4]], dtype=np.float32)
    x2 = np.array([[5, 6], [7, 8]], dtype=np.float32)
    want = np.array([[19, 22], [43, 50]], dtype=np.float32)
    np.testing.assert_array_equal(run("MatMul", [x1, x2], {}, want), want)


def test_matmul_rejects_mismatched_k() -> None:
    x = np.ones((2, 3), np.float32)
    with pytest.raises(KernelError, match=r"cannot multiply \(2, 3\) by \(2, 3\)"):
        run("MatMul", [x, x], {}, np.ones((2, 3), np.float32))


# --------------------------------------------------------------------------------------------
# Conv2D
# --------------------------------------------------------------------------------------------


def naive_conv2d_nchw(
    x: np.ndarray,
    w: np.ndarray,
    bias: np.ndarray | None,
    strides: tuple[int, int],
    pads: tuple[int, int, int, int],
    dilations: tuple[int, int],
    groups: int,
) -> np.ndarray:
    """Direct definition: out[n, o, i, j] = sum over the group's channels and the taps."""
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    top, bottom, left, right = pads
    ho = (h + top + bottom - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    wo = (wd + left + right - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    og = o // groups
    out = np.zeros((n, o, ho, wo), dtype=np.float64)
    for b, oc, i, j in itertools.product(range(n), range(o), range(ho), range(wo)):
        g = oc // og
        acc = 0.0 if bias is None else float(bias[oc])
        for ic, p, q in itertools.product(range(cg), range(kh), range(kw)):
            row = i * strides[0] + p * dilations[0] - top
            col = j * strides[1] + q * dilations[1] - left
            if 0 <= row < h and 0 <= col < wd:
                acc += float(x[b, g * cg + ic, row, col]) * float(w[oc, ic, p, q])
        out[b, oc, i, j] = acc
    return out


CONV_CASES = [
    # (N, C, H, W, O, kh, kw, strides, pads, dilations, groups)
    (1, 3, 7, 7, 4, 3, 3, (1, 1), (0, 0, 0, 0), (1, 1), 1),
    (2, 3, 8, 9, 5, 3, 3, (2, 2), (1, 1, 1, 1), (1, 1), 1),
    (1, 4, 9, 8, 6, 3, 2, (2, 1), (0, 2, 1, 0), (2, 3), 2),
    (2, 6, 6, 6, 6, 3, 3, (1, 2), (1, 1, 2, 2), (1, 1), 6),
    (1, 4, 5, 7, 8, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1), 4),
    (1, 2, 5, 5, 2, 5, 5, (1, 1), (0, 0, 0, 0), (1, 1), 1),
]


@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.parametrize("data_format", ["NCHW", "NHWC"])
@pytest.mark.parametrize("with_bias", [False, True])
def test_conv2d_against_naive(case: tuple, data_format: str, with_bias: bool) -> None:
    n, c, h, wd, o, kh, kw, strides, pads, dilations, groups = case
    rng = np.random.default_rng(CONV_CASES.index(case))
    x = rng.standard_normal((n, c, h, wd)).astype(np.float32)
    w = rng.standard_normal((o, c // groups, kh, kw)).astype(np.float32)
    bias = rng.standard_normal(o).astype(np.float32) if with_bias else None
    want = naive_conv2d_nchw(x, w, bias, strides, pads, dilations, groups).astype(np.float32)
    if data_format == "NHWC":
        x, w, want = x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), want.transpose(0, 2, 3, 1)
        full_strides, full_dilations = (1, *strides, 1), (1, *dilations, 1)
    else:
        full_strides, full_dilations = (1, 1, *strides), (1, 1, *dilations)
    attrs = {
        "strides": int_array(full_strides),
        "pads": int_array(pads),
        "dilations": int_array(full_dilations),
        "groups": IntegerAttr(groups, i64),
        "data_format": StringAttr(data_format),
    }
    inputs = [np.ascontiguousarray(x), np.ascontiguousarray(w)]
    if bias is not None:
        inputs.append(bias)
    np.testing.assert_allclose(run("Conv2D", inputs, attrs, want), want, rtol=1e-4, atol=1e-4)


def test_conv2d_defaults_and_hand_values() -> None:
    """Only `strides` given: no padding, no dilation, one group, NCHW. A 2x2 box filter."""
    x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    w = np.ones((1, 1, 2, 2), dtype=np.float32)
    want = np.array([[[[8, 12], [20, 24]]]], dtype=np.float32)
    out = run("Conv2D", [x, w], {"strides": int_array((1, 1, 1, 1))}, want)
    np.testing.assert_array_equal(out, want)


def test_conv2d_float16_is_cast_back() -> None:
    x = np.ones((1, 2, 4, 4), dtype=np.float16)
    w = np.full((3, 2, 3, 3), 0.5, dtype=np.float16)
    want = np.full((1, 3, 2, 2), 9.0, dtype=np.float16)
    out = run("Conv2D", [x, w], {"strides": int_array((1, 1, 1, 1))}, want)
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out, want)


def test_conv2d_requires_strides() -> None:
    x = np.ones((1, 1, 3, 3), np.float32)
    with pytest.raises(KernelError, match="required attribute 'strides' is missing"):
        run("Conv2D", [x, np.ones((1, 1, 1, 1), np.float32)], {}, x)


def test_conv2d_rejects_bad_groups() -> None:
    x = np.ones((1, 3, 3, 3), np.float32)
    attrs = {"strides": int_array((1, 1, 1, 1)), "groups": IntegerAttr(2, i64)}
    with pytest.raises(KernelError, match="groups = 2"):
        run("Conv2D", [x, np.ones((2, 1, 1, 1), np.float32)], attrs, x)


# --------------------------------------------------------------------------------------------
# BatchNorm
# --------------------------------------------------------------------------------------------


def naive_batch_norm(x, scale, offset, mean, variance, epsilon: float, axis: int) -> np.ndarray:
    out = np.empty(x.shape, dtype=np.float64)
    for index in np.ndindex(x.shape):
        ch = index[axis]
        norm = (float(x[index]) - mean[ch]) / np.sqrt(float(variance[ch]) + epsilon)
        out[index] = scale[ch] * norm + offset[ch]
    return out


@pytest.mark.parametrize(
    ("shape", "data_format", "axis"),
    [
        ((2, 3, 4, 5), "NCHW", 1),
        ((2, 4, 5, 3), "NHWC", 3),
        ((6, 3), "NCHW", 1),
        ((6, 3), "NHWC", 1),
    ],
)
@pytest.mark.parametrize("epsilon", [1e-3, None])
def test_batch_norm(shape: tuple, data_format: str, axis: int, epsilon: float | None) -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32)
    scale, offset, mean = (rng.standard_normal(3).astype(np.float32) for _ in range(3))
    variance = rng.uniform(0.0, 2.0, 3).astype(np.float32)
    variance[0] = 0.0  # epsilon alone keeps this channel finite
    attrs: dict[str, Attribute] = {"data_format": StringAttr(data_format)}
    if epsilon is not None:
        attrs["epsilon"] = FloatAttr(epsilon, f32)
    eps = float(np.float32(epsilon)) if epsilon is not None else float(np.float32(1e-4))
    want = naive_batch_norm(x, scale, offset, mean, variance, eps, axis).astype(np.float32)
    out = run("BatchNorm", [x, scale, offset, mean, variance], attrs, want)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_batch_norm_hand_computed() -> None:
    x = np.array([[1.0, 10.0], [3.0, 20.0]], dtype=np.float32)
    scale = np.array([2.0, 1.0], dtype=np.float32)
    offset = np.array([0.5, -1.0], dtype=np.float32)
    mean = np.array([2.0, 10.0], dtype=np.float32)
    variance = np.array([4.0, 100.0], dtype=np.float32)
    attrs = {"epsilon": FloatAttr(0.0, f32)}
    want = np.array([[-0.5, -1.0], [1.5, 0.0]], dtype=np.float32)
    out = run("BatchNorm", [x, scale, offset, mean, variance], attrs, want)
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_batch_norm_rejects_training() -> None:
    x, p = np.ones((1, 2), np.float32), np.ones(2, np.float32)
    with pytest.raises(KernelError, match="only inference"):
        run("BatchNorm", [x, p, p, p, p], {"is_training": BoolAttr.from_bool(True)}, x)


# --------------------------------------------------------------------------------------------
# Shape manipulation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("in_shape", "target", "out_shape"),
    [
        ((2, 3, 4), [0, -1], (2, 12)),
        ((2, 3, 4), [-1], (24,)),
        ((2, 3, 4), [4, 0, -1], (4, 3, 2)),
        ((2, 3, 4), [0, 0, 0], (2, 3, 4)),
        ((2, 3, 4), [3, 8], (3, 8)),
        ((6,), [1, -1, 1], (1, 6, 1)),
        ((0, 3), [-1, 3], (0, 3)),
    ],
)
@pytest.mark.parametrize("shape_dtype", [np.int64, np.int32])
def test_reshape(in_shape: tuple, target: list, out_shape: tuple, shape_dtype: type) -> None:
    x = np.arange(int(np.prod(in_shape)), dtype=np.float32).reshape(in_shape)
    want = np.arange(x.size, dtype=np.float32).reshape(out_shape)
    out = run("Reshape", [x, np.array(target, dtype=shape_dtype)], {}, want)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ([-1, -1], "more than one -1"),
        ([5, -1], "cannot reshape 24 elements"),
        ([2, 3, 5], "cannot reshape 24 elements"),
        ([0, 0, 0, 0], "copies dim 3"),
        ([2, -3, 4], "negative dim -3"),
    ],
)
def test_reshape_rejects(target: list, message: str) -> None:
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(KernelError, match=message):
        run("Reshape", [x, np.array(target, np.int64)], {}, np.zeros(24, np.float32))


def test_reshape_must_agree_with_result_type() -> None:
    """The shape values say [4, 6]; a result type of [6, 4] is a kernel error, not a silent fix."""
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(
        KernelError, match=r"produced shape \[4, 6\], its result type says \[6, 4\]"
    ):
        run("Reshape", [x, np.array([4, -1], np.int64)], {}, np.zeros((6, 4), np.float32))


@pytest.mark.parametrize("perm", [(0, 1, 2), (2, 0, 1), (1, 2, 0), (2, 1, 0)])
def test_transpose(perm: tuple[int, ...]) -> None:
    shape = (2, 3, 4)
    x = np.arange(24, dtype=np.int32).reshape(shape)
    out_shape = tuple(shape[p] for p in perm)
    (out,) = run_kernel(
        "Transpose", [x], {"perm": int_array(perm)}, [tensor_type_of(np.zeros(out_shape, np.int32))]
    )
    assert out.shape == out_shape
    for index in np.ndindex(out_shape):
        source = [0, 0, 0]
        for axis, p in enumerate(perm):
            source[p] = index[axis]
        # flat index of `source` in the row-major input
        assert out[index] == (source[0] * 3 + source[1]) * 4 + source[2]


def test_transpose_rejects_wrong_perm() -> None:
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(KernelError, match="does not permute 2 dims"):
        run("Transpose", [x], {"perm": int_array((0, 1, 2))}, x)
