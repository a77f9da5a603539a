"""NN ops: convolutions, pooling, normalisation, softmax, LRN, resizing, depth/space.

Kernels are checked against direct loop definitions and hand-computed values, builders by
their inferred types, and the ONNX converters by one-node models run at graph level against
`onnx.reference.ReferenceEvaluator` (`tests/onnx_check.py`).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import helper
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, f32
from xdsl.ir import SSAValue
from xdsl.utils.test_value import create_ssa_value

from gedialects.frontend.onnx import import_model
from gedialects.frontend.onnx.registry import OnnxImportError
from gedialects.graph import (
    AvgPoolV2Op,
    ConstOp,
    Conv2DTransposeOp,
    Conv3DOp,
    DepthToSpaceOp,
    GlobalAveragePoolOp,
    GlobalMaxPoolOp,
    LayerNormV3Op,
    MaxPoolV3Op,
    MaxPoolWithArgmaxOp,
    ResizeDOp,
    ResizeOp,
    SoftmaxV2Op,
    SpaceToDepthOp,
)
from gedialects.interpreters.graph.nn import conv_nd, conv_transpose_nd
from gedialects.interpreters.kernels import KernelError, run_kernel
from gedialects.interpreters.run import run
from gedialects.tensors import dense_from_numpy
from tests.onnx_check import check, imported, one_node_model

Q = DYNAMIC_INDEX
RNG = np.random.default_rng(7)


def tensor(*dims: int, elem: object = f32) -> TensorType:
    return TensorType(elem, list(dims))


def value(t: object) -> SSAValue:
    return create_ssa_value(t)


def const(array: np.ndarray) -> ConstOp:
    return ConstOp(dense_from_numpy(array))


def run_op(op: object, *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
    return run_kernel(op.GE_TYPE, list(inputs), op.properties, op.result_types)  # type: ignore[attr-defined]


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def node(op: str, inputs: list[str], outputs: list[str] | None = None, **attrs: object):
    return helper.make_node(op, inputs, outputs or ["y"], **attrs)


def op_names(module: object) -> list[str]:
    return [op.name for op in module.walk()]  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------
# Kernels against loop definitions
# --------------------------------------------------------------------------------------------


def naive_conv_transpose(
    x: np.ndarray, w: np.ndarray, strides: tuple, dilations: tuple, groups: int
) -> np.ndarray:
    """Every input element scatters its weighted kernel into the full output."""
    n, c, *sizes = x.shape
    og, taps = w.shape[1], w.shape[2:]
    full = [
        (s - 1) * st + d * (k - 1) + 1
        for s, st, d, k in zip(sizes, strides, dilations, taps, strict=True)
    ]
    y = np.zeros((n, og * groups, *full), np.float64)
    cg = c // groups
    for b, ci, *pos in itertools.product(range(n), range(c), *(range(s) for s in sizes)):
        g = ci // cg
        for oc, *tap in itertools.product(range(og), *(range(k) for k in taps)):
            out = tuple(
                p * st + t * d for p, st, t, d in zip(pos, strides, tap, dilations, strict=True)
            )
            y[(b, g * og + oc, *out)] += x[(b, ci, *pos)] * w[(ci, oc, *tap)]
    return y


@pytest.mark.parametrize(
    ("shape", "wshape", "strides", "dilations", "groups"),
    [
        ((1, 2, 3, 4), (2, 3, 2, 3), (1, 1), (1, 1), 1),
        ((2, 4, 3, 3), (4, 1, 3, 2), (2, 3), (2, 1), 2),
        ((1, 2, 2, 3, 2), (2, 2, 2, 2, 2), (2, 1, 2), (1, 2, 1), 1),
        ((1, 3, 5), (3, 2, 3), (3,), (2,), 1),
    ],
)
def test_conv_transpose_against_naive(
    shape: tuple, wshape: tuple, strides: tuple, dilations: tuple, groups: int
) -> None:
    x, w = rand(*shape), rand(*wshape)
    want = naive_conv_transpose(x, w, strides, dilations, groups)
    full = want.shape[2:]
    got = conv_transpose_nd(
        x,
        w,
        out_size=full,
        strides=strides,
        pads_begin=(0,) * len(full),
        dilations=dilations,
        groups=groups,
    )
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    # crop one element at the start and extend one past the end (zeros there)
    got = conv_transpose_nd(
        x,
        w,
        out_size=full,
        strides=strides,
        pads_begin=(1,) * len(full),
        dilations=dilations,
        groups=groups,
    )
    shifted = np.pad(want, ((0, 0), (0, 0)) + ((0, 1),) * len(full))
    np.testing.assert_allclose(got, shifted[(..., *(slice(1, None),) * len(full))], atol=1e-4)


def test_conv_nd_3d_against_naive() -> None:
    x, w = rand(1, 4, 4, 5, 3), rand(4, 2, 2, 3, 2)
    got = conv_nd(x, w, strides=(1, 2, 1), pads=(1, 0, 0, 1, 1, 1), dilations=(2, 1, 1), groups=2)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 0), (0, 1), (1, 1)))
    want = np.zeros(got.shape)
    for b, o, i, j, k in itertools.product(*(range(d) for d in got.shape)):
        g = o // 2
        patch = xp[b, 2 * g : 2 * g + 2, i : i + 3 : 2, 2 * j : 2 * j + 3, k : k + 2]
        want[b, o, i, j, k] = (patch * w[o]).sum()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_max_pool_with_argmax_by_hand() -> None:
    x = np.array([[[[1, 9, 2], [4, 5, 8], [7, 3, 6]]]], np.float32)
    op = MaxPoolWithArgmaxOp(
        value(tensor(1, 1, 3, 3)), ksize=(1, 1, 2, 2), strides=(1, 1, 1, 1), pads=(0, 1, 0, 1)
    )
    y, idx = run_op(op, x)
    np.testing.assert_array_equal(y[0, 0], [[9, 9, 8], [7, 8, 8], [7, 6, 6]])
    np.testing.assert_array_equal(idx[0, 0], [[1, 1, 5], [6, 5, 5], [6, 8, 8]])
    column_major = MaxPoolWithArgmaxOp(
        value(tensor(1, 1, 3, 3)), ksize=(1, 1, 3, 3), strides=(1, 1, 1, 1), storage_order=1
    )
    y, idx = run_op(column_major, x)
    assert (y.item(), idx.item()) == (9, 3)  # row 0, column 1 -> 1 * 3 + 0


def test_avg_pool_divisors_with_pads_and_ceil_mode() -> None:
    """Exclusive counts input cells; inclusive counts the explicit pads but not ceil_mode's."""
    x = np.ones((1, 1, 5), np.float32)
    # windows over [pad, x0 .. x4, ceil extra]: [pad x0 x1], [x1 x2 x3], [x3 x4 extra]
    kw = {"ksize": (1, 1, 3), "strides": (1, 1, 2), "pads": (1, 0), "ceil_mode": True}
    inclusive = AvgPoolV2Op(value(tensor(1, 1, 5)), exclusive=False, **kw)
    exclusive = AvgPoolV2Op(value(tensor(1, 1, 5)), **kw)
    np.testing.assert_allclose(run_op(inclusive, x)[0][0, 0], [2 / 3, 1.0, 1.0])
    np.testing.assert_allclose(run_op(exclusive, x)[0][0, 0], [1.0, 1.0, 1.0])
    override = AvgPoolV2Op(value(tensor(1, 1, 5)), divisor_override=4, **kw)
    np.testing.assert_allclose(run_op(override, x)[0][0, 0], [0.5, 0.75, 0.5])


def test_max_pool_keeps_integers_and_ignores_padding() -> None:
    x = np.array([[[[200, 3], [1, 255]]]], np.uint8)
    op = MaxPoolV3Op(
        value(tensor(1, 1, 2, 2, elem=x_elem())),
        ksize=(1, 1, 2, 2),
        strides=(1, 1, 1, 1),
        pads=(1, 0, 1, 0),
    )
    (y,) = run_op(op, x)
    assert y.dtype == np.uint8
    np.testing.assert_array_equal(y[0, 0], [[200, 200], [200, 255]])


def x_elem() -> object:
    from gedialects.tensors import element_type_of

    return element_type_of(np.dtype(np.uint8))


def test_conv_kernel_errors() -> None:
    with pytest.raises(KernelError, match="Conv3D: x and filter must be 5-D"):
        run_kernel("Conv3D", [rand(1, 1, 2, 2), rand(1, 1, 1, 1)], {}, [tensor(1, 1, 2, 2)])


# --------------------------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------------------------


def test_builders_infer_result_types() -> None:
    conv = Conv3DOp(
        value(tensor(Q, 2, 5, 6, 7)),
        value(tensor(4, 1, 3, 3, 3)),
        strides=(1, 1, 2, 2, 2),
        pads=(1, 1, 1, 1, 1, 1),
        groups=2,
    )
    assert conv.y.type == tensor(Q, 4, 3, 3, 4)
    size = const(np.array([1, 2, 9, 9], np.int64))
    deconv = Conv2DTransposeOp(
        size, value(tensor(1, 3, 4, 4)), value(tensor(3, 2, 3, 3)), strides=(1, 1, 2, 2)
    )
    assert deconv.y.type == tensor(1, 2, 9, 9)
    pool = MaxPoolV3Op(
        value(tensor(1, 3, 5, 5)), ksize=(1, 1, 2, 2), strides=(1, 1, 2, 2), ceil_mode=True
    )
    assert pool.y.type == tensor(1, 3, 3, 3)
    assert GlobalMaxPoolOp(value(tensor(2, 3, Q, 4, 5))).y.type == tensor(2, 3, 1, 1, 1)
    ln = LayerNormV3Op(
        value(tensor(2, 5, 6)), value(tensor(6)), value(tensor(6)), begin_norm_axis=-1
    )
    assert [r.type for r in ln.results] == [tensor(2, 5, 6), tensor(2, 5, 1), tensor(2, 5, 1)]
    assert SoftmaxV2Op(value(tensor(2, 3)), axes=(0,)).y.type == tensor(2, 3)
    assert ResizeDOp(value(tensor(1, 1, 3, 3)), scales=(1, 1, 1.5, 2)).y.type == tensor(1, 1, 4, 6)
    empty = const(np.zeros(0, np.float32))
    scales = const(np.array([2.0, 3.0], np.float32))
    sizes = const(np.zeros(0, np.int64))
    r = ResizeOp(value(tensor(1, 1, 2, 2)), empty, scales, sizes, axes=(2, 3))
    assert r.y.type == tensor(1, 1, 4, 6)
    dynamic = ResizeOp(value(tensor(1, 1, 2, 2)), empty, value(tensor(4)), sizes)
    assert dynamic.y.type == tensor(Q, Q, Q, Q)
    assert DepthToSpaceOp(value(tensor(1, 8, 2, 3)), block_size=2).y.type == tensor(1, 2, 4, 6)
    nhwc = SpaceToDepthOp(value(tensor(1, 4, 6, 2)), block_size=2, data_format="NHWC")
    assert nhwc.y.type == tensor(1, 2, 3, 8)


# --------------------------------------------------------------------------------------------
# ONNX models against the reference evaluator
# --------------------------------------------------------------------------------------------


def test_conv_models() -> None:
    x1, w1 = rand(2, 4, 9), rand(6, 2, 3)
    check(
        node("Conv", ["x", "w"], strides=[2], pads=[1, 0], dilations=[2], group=2),
        {"x": x1},
        {"w": w1},
    )
    x, w, b = rand(1, 4, 7, 6), rand(4, 2, 3, 2), rand(4)
    check(
        node("Conv", ["x", "w", "b"], group=2, dilations=[1, 2], strides=[2, 1]),
        {"x": x},
        {"w": w, "b": b},
    )
    for auto_pad in ("SAME_UPPER", "SAME_LOWER", "VALID"):
        check(
            node("Conv", ["x", "w"], auto_pad=auto_pad, strides=[2, 2]),
            {"x": x, "w": rand(4, 4, 3, 2)},
            opset=11,
        )
    x3, w3 = rand(1, 2, 4, 5, 3), rand(3, 2, 2, 2, 2)
    check(node("Conv", ["x", "w"], pads=[0, 1, 0, 1, 0, 1]), {"x": x3, "w": w3}, opset=22)


def test_conv_transpose_models() -> None:
    x, w, b = rand(1, 2, 3, 3), rand(2, 3, 3, 3), rand(3)
    check(
        node("ConvTranspose", ["x", "w", "b"], strides=[3, 2], output_padding=[1, 1]),
        {"x": x},
        {"w": w, "b": b},
    )
    check(node("ConvTranspose", ["x", "w"], strides=[3, 2], output_shape=[10, 8]), {"x": x, "w": w})
    check(
        node("ConvTranspose", ["x", "w"], strides=[2, 2], auto_pad="SAME_UPPER"), {"x": x, "w": w}
    )
    check(node("ConvTranspose", ["x", "w"], pads=[1, 0, 1, 2], dilations=[2, 1]), {"x": x, "w": w})
    # grouped: the evaluator cannot, so against the scatter loop
    xg, wg = rand(1, 4, 3, 2), rand(4, 1, 2, 2)
    grouped = node("ConvTranspose", ["x", "w"], group=2, strides=[1, 2])
    want = naive_conv_transpose(xg, wg, (1, 2), (1, 1), 2).astype(np.float32)
    model = one_node_model(grouped, {"x": xg}, {"w": wg}, {"y": want}, 11)
    got = run(import_model(model), {"x": xg})["y"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    check(node("ConvTranspose", ["x", "w"], strides=[2]), {"x": rand(1, 2, 4), "w": rand(2, 1, 3)})
    check(node("ConvTranspose", ["x", "w"]), {"x": rand(1, 1, 2, 2, 2), "w": rand(1, 2, 2, 2, 2)})


def test_pool_models() -> None:
    x = rand(1, 3, 7, 6)
    window = {"kernel_shape": [3, 2], "strides": [2, 2], "ceil_mode": 1, "dilations": [1, 2]}
    check(node("MaxPool", ["x"], **window), {"x": x})
    check(node("MaxPool", ["x"], kernel_shape=[3, 3], auto_pad="SAME_LOWER"), {"x": x})
    check(
        node("MaxPool", ["x"], kernel_shape=[3, 3], auto_pad="SAME_UPPER", strides=[2, 2]), {"x": x}
    )
    check(node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 3], strides=[2, 1]), {"x": x})
    check(node("MaxPool", ["x"], kernel_shape=[2]), {"x": rand(2, 2, 5)})
    check(node("MaxPool", ["x"], kernel_shape=[2, 2, 2]), {"x": rand(1, 1, 3, 4, 5)})
    for count_include_pad in (0, 1):
        avg = node(
            "AveragePool",
            ["x"],
            kernel_shape=[3, 3],
            pads=[1, 2, 1, 0],
            strides=[2, 2],
            ceil_mode=1,
            count_include_pad=count_include_pad,
        )
        check(avg, {"x": x})
    check(
        node("AveragePool", ["x"], kernel_shape=[2, 2], auto_pad="SAME_UPPER"), {"x": x}, opset=11
    )
    check(node("LpPool", ["x"], kernel_shape=[2, 2], p=3, pads=[1, 1, 0, 0]), {"x": x})
    for op in ("GlobalAveragePool", "GlobalMaxPool"):
        check(node(op, ["x"]), {"x": rand(2, 3, 4, 5)})
    # GlobalLpPool has no evaluator kernel, and 5-D global pools confuse it: by hand
    x4 = rand(2, 3, 4, 5)
    got = run(imported(node("GlobalAveragePool", ["x"]), {"x": x4}), {"x": x4})["y"]
    lp = one_node_model(node("GlobalLpPool", ["x"], p=3), {"x": x4}, {}, {"y": got}, 18)
    want = (np.abs(x4.astype(np.float64)) ** 3).sum(axis=(2, 3), keepdims=True) ** (1 / 3)
    np.testing.assert_allclose(run(import_model(lp), {"x": x4})["y"], want, rtol=1e-5)
    x5 = rand(2, 3, 4, 5, 2)
    average = run_op(GlobalAveragePoolOp(value(tensor(2, 3, 4, 5, 2))), x5)[0]
    np.testing.assert_allclose(average, x5.mean(axis=(2, 3, 4), keepdims=True), rtol=1e-5)
    maximum = run_op(GlobalMaxPoolOp(value(tensor(2, 3, 4, 5, 2))), x5)[0]
    np.testing.assert_array_equal(maximum, x5.max(axis=(2, 3, 4), keepdims=True))


def test_pool_models_where_the_reference_evaluator_is_wrong() -> None:
    """onnx's evaluator mis-handles SAME_LOWER with strides, Indices with pads and storage_order
    = 1; these values follow the spec (and the backend node tests agree with the kernels)."""
    x = np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4)
    same_lower = node("MaxPool", ["x"], kernel_shape=[3, 3], auto_pad="SAME_LOWER", strides=[2, 2])
    got = run(imported(same_lower, {"x": np.ones_like(x)}), {"x": x})["y"]
    np.testing.assert_array_equal(got[0, 0], [[5, 7], [9, 11]])  # pads: 1 before, 0 after
    padded = node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], pads=[1, 1, 1, 1])
    got = run(imported(padded, {"x": x}), {"x": x})
    np.testing.assert_array_equal(got["i"], got["y"].astype(np.int64))  # x holds its own index
    column_major = node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 3], storage_order=1)
    got = run(imported(column_major, {"x": x}), {"x": x})
    np.testing.assert_array_equal(got["y"][0, 0], [[6, 7], [10, 11]])
    np.testing.assert_array_equal(got["i"][0, 0], [[7, 10], [8, 11]])  # h + 3 * w


def test_normalization_models() -> None:
    x, p = rand(2, 3, 4, 5), rand(3)
    var = np.abs(rand(3)) + 0.1
    params = {"s": p, "b": p, "m": p, "v": var}
    bn = node("BatchNormalization", ["x", "s", "b", "m", "v"], epsilon=1e-3)
    check(bn, {"x": x}, params, opset=15)
    bn = node("BatchNormalization", ["x", "s", "b", "m", "v"])
    check(bn, {"x": rand(4, 3, 2), **params}, opset=15)
    # opset 9-13 inference (the evaluator applies momentum there): by hand
    x3 = rand(4, 3, 2)
    got = run(imported(bn, {"x": x3}, params, opset=11), {"x": x3})["y"]
    c = (1, 3, 1)
    want = p.reshape(c) * (x3 - p.reshape(c)) / np.sqrt(var.reshape(c) + 1e-5) + p.reshape(c)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    check(node("InstanceNormalization", ["x", "s", "b"], epsilon=1e-2), {"x": x, "s": p, "b": p})
    gn = node("GroupNormalization", ["x", "s", "b"], num_groups=2)
    check(gn, {"x": rand(2, 4, 3, 3), "s": rand(4), "b": rand(4)}, opset=21)
    for axis in (0, 1, -1):
        shape = x.shape[axis % 4 :]
        ln = node("LayerNormalization", ["x", "s", "b"], ["y", "m", "r"], axis=axis, epsilon=1e-3)
        check(ln, {"x": x, "s": rand(*shape), "b": rand(*shape)}, opset=17)
    check(node("LayerNormalization", ["x", "s"]), {"x": x}, {"s": rand(5)}, opset=17)


def test_batch_norm_training_mode_matches_the_reference() -> None:
    """Training-mode BatchNormalization (issue 21) normalises by the batch statistics and
    returns the updated running mean and variance; it was refused before."""
    p = np.ones(3, np.float32)
    bn = node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"], training_mode=1)
    check(bn, {"x": rand(2, 3, 2, 2)}, {"s": p, "b": p * 0.5, "m": p * 0.1, "v": p}, opset=15)


def coerced(op: str, x: np.ndarray, axis: int) -> np.ndarray:
    """Softmax-11 semantics: x as a 2-D [prod(dims < axis), prod(dims >= axis)] matrix."""
    rows = x.reshape(int(np.prod(x.shape[:axis])), -1).astype(np.float64)
    if op == "Hardmax":
        out = np.zeros_like(rows)
        out[np.arange(len(rows)), rows.argmax(axis=1)] = 1
    else:
        shifted = rows - rows.max(axis=1, keepdims=True)
        log_sum = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        out = shifted - log_sum if op == "LogSoftmax" else np.exp(shifted - log_sum)
    return out.reshape(x.shape).astype(x.dtype)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
def test_softmax_models_in_both_opset_semantics(op: str) -> None:
    """Opset 13 against the evaluator; opset 11 (x coerced to 2-D, which the evaluator does
    not model) against `coerced`."""
    x = rand(2, 3, 4)
    x[0, 1, 2] = x[0, 1, 3] = 9.0  # a tie: Hardmax takes the first
    for axis in (0, 1, -1):
        check(node(op, ["x"], axis=axis), {"x": x}, opset=13)
    for axis in (0, 1, 2, -1):
        got = run(imported(node(op, ["x"], axis=axis), {"x": x}, opset=11), {"x": x})["y"]
        np.testing.assert_allclose(got, coerced(op, x, axis % 3), rtol=1e-5, atol=1e-6)
    got = run(imported(node(op, ["x"]), {"x": x}, opset=11), {"x": x})["y"]  # default axis 1
    np.testing.assert_allclose(got, coerced(op, x, 1), rtol=1e-5, atol=1e-6)
    assert not np.allclose(coerced(op, x, 1), check(node(op, ["x"], axis=1), {"x": x})["y"])


def test_lrn_model() -> None:
    """Against a channel loop (the evaluator loops over the batch instead of the channels)."""
    x = rand(2, 5, 3, 3)
    lrn = node("LRN", ["x"], size=3, alpha=0.02, beta=0.5, bias=2.0)
    got = run(imported(lrn, {"x": np.ones_like(x)}), {"x": x})["y"]
    want = np.empty_like(x)
    for c in range(5):
        square_sum = (x[:, max(c - 1, 0) : c + 2] ** 2).sum(axis=1)
        want[:, c] = x[:, c] / (2.0 + 0.02 / 3 * square_sum) ** 0.5
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(OnnxImportError, match="size 4 must be odd"):
        imported(node("LRN", ["x"], size=4), {"x": rand(1, 5, 2, 2)})


RESIZE_CASES = [
    ({"mode": "nearest"}, {"scales": np.array([1, 1, 2, 1.5], np.float32)}),
    (
        {
            "mode": "nearest",
            "nearest_mode": "ceil",
            "coordinate_transformation_mode": "align_corners",
        },
        {"sizes": np.array([1, 2, 7, 3], np.int64)},
    ),
    (
        {
            "mode": "nearest",
            "nearest_mode": "round_prefer_ceil",
            "coordinate_transformation_mode": "asymmetric",
        },
        {"sizes": np.array([1, 2, 5, 8], np.int64)},
    ),
    ({"mode": "linear"}, {"scales": np.array([1, 1, 0.6, 1.7], np.float32)}),
    (
        {"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"},
        {"sizes": np.array([1, 2, 1, 3], np.int64)},
    ),
    (
        {"mode": "linear", "coordinate_transformation_mode": "half_pixel_symmetric"},
        {"scales": np.array([1, 1, 1.3, 0.8], np.float32)},
    ),
    ({"mode": "linear", "antialias": 1}, {"scales": np.array([1, 1, 0.5, 0.4], np.float32)}),
    (
        {"mode": "cubic", "exclude_outside": 1, "cubic_coeff_a": -0.5},
        {"scales": np.array([1, 1, 1.5, 2], np.float32)},
    ),
    ({"mode": "cubic", "antialias": 1}, {"sizes": np.array([1, 2, 2, 3], np.int64)}),
    (
        {"mode": "nearest", "axes": [3, 2], "keep_aspect_ratio_policy": "not_smaller"},
        {"sizes": np.array([7, 4], np.int64)},
    ),
    (
        {
            "mode": "linear",
            "coordinate_transformation_mode": "tf_crop_and_resize",
            "extrapolation_value": 5.0,
        },
        {
            "roi": np.array([0, 0, 0.2, -0.1, 1, 1, 0.9, 1.3], np.float32),
            "sizes": np.array([1, 2, 3, 5], np.int64),
        },
    ),
]


@pytest.mark.parametrize(("attrs", "inputs"), RESIZE_CASES)
@pytest.mark.parametrize("static", [True, False])
def test_resize_models(attrs: dict, inputs: dict, static: bool) -> None:
    """Constant scales/sizes import as graph.resize_d, run-time ones as graph.resize."""
    x = rand(1, 2, 4, 5)
    names = ["x"] + [k if k in inputs else "" for k in ("roi", "scales", "sizes")]
    while not names[-1]:
        names.pop()
    n = node("Resize", names, **attrs)
    feeds, consts = ({"x": x}, inputs) if static else ({"x": x, **inputs}, {})
    check(n, feeds, consts, opset=19)
    module = imported(n, feeds, consts, opset=19)
    assert ("graph.resize_d" if static else "graph.resize") in op_names(module)


def test_upsample_and_depth_space_models() -> None:
    x = rand(1, 8, 2, 3)
    check(
        node("Upsample", ["x", "s"], mode="nearest"),
        {"x": x},
        {"s": np.array([1, 1, 2, 3], np.float32)},
        opset=9,
    )
    for mode in ("DCR", "CRD"):
        check(node("DepthToSpace", ["x"], blocksize=2, mode=mode), {"x": x}, opset=13)
    check(node("SpaceToDepth", ["x"], blocksize=2), {"x": rand(1, 2, 4, 6)}, opset=13)


def test_resize_scale_inf_is_an_error_not_an_overflow() -> None:
    """make fuzz (seed 2026120119): `graph.resize_d` with a scale of inf made ge-opt and ge-run
    end in `internal error (OverflowError: cannot convert float infinity to integer)`."""
    from onnx import TensorProto, numpy_helper

    from gedialects.graph import resize_plan

    inf = np.float32(np.inf)
    graph = helper.make_graph(
        [helper.make_node("Upsample", ["x", "s"], ["y"], mode="nearest")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array([1, 1, 2, inf], np.float32), "s")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
    with pytest.raises(OnnxImportError, match="scale inf is not finite"):
        import_model(model)
    # graph.resize's run-time scales
    with pytest.raises(ValueError, match="scale inf is not finite"):
        resize_plan([1, 1, 2, 2], [], [1.0, 1.0, 2.0, float("inf")], [], [], "stretch")
    with pytest.raises(ValueError, match="scale nan is not finite"):
        resize_plan([1, 1, 2, 2], [], [1.0, float("nan")], [], [2, 3], "stretch")
