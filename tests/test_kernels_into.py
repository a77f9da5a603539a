"""Out-variant kernels (`@kernel_into`): bit for bit the numbers of their kernel, written into
preallocated outputs, and the checks `run_kernel_into` makes of those outputs."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BoolAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    f16,
    f32,
    i64,
)
from xdsl.ir import Attribute

from gedialects.base import int_array
from gedialects.formats import with_format
from gedialects.interpreters.kernels import (
    ALIAS_SAFE_INTO,
    KernelError,
    get_kernel_into,
    kernel_into,
    kernel_into_types,
    known_failure,
    run_kernel,
    run_kernel_into,
)
from gedialects.tensors import tensor_type_of

ROOT = Path(__file__).resolve().parent.parent
RNG = np.random.default_rng(14)


def _x(shape: tuple[int, ...], dtype: type, lo: float = -4.0, hi: float = 4.0) -> np.ndarray:
    return RNG.uniform(lo, hi, size=shape).astype(dtype)


FLOATS = (np.float32, np.float16, np.float64)
UNARY_FLOAT = [
    "Relu",
    "Sigmoid",
    "Tanh",
    "Reciprocal",
    "Sqrt",
    "Erf",
    "Ceil",
    "Floor",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Sinh",
    "Cosh",
    "Asinh",
    "Acosh",
    "Atanh",
]
UNARY_ANY = ("Abs", "Neg", "Sign", "Relu")
BINARY = ("Add", "Mul", "Sub", "Maximum", "Minimum", "Div")

Case = tuple[str, list[np.ndarray], Mapping[str, Attribute], np.dtype | tuple[np.dtype, ...]]


def _cases() -> list[Case]:
    """(op type, inputs, attrs, result dtype): the result dtype is the first input's, as GE's
    type inference gives, so mixed-dtype cases exercise the cast into the output."""
    cases: list[Case] = []
    for op in UNARY_FLOAT:
        for dt in FLOATS:
            cases.append((op, [_x((3, 5), dt)], {}, np.dtype(dt)))
    for op in UNARY_ANY:
        for dt in (np.int32, np.int8, np.float32):
            cases.append((op, [_x((4, 3), dt, -9, 9)], {}, np.dtype(dt)))
    for op in BINARY:
        for dt in (*FLOATS, np.int32, np.int64):
            lo, hi = (1.0, 9.0) if op == "Div" else (-9.0, 9.0)
            a, row = _x((3, 4), dt, -9, 9), _x((4,), dt, lo, hi)
            col, b = _x((3, 1), dt, -9, 9), _x((3, 4), dt, lo, hi)
            cases.append((op, [a, row], {}, np.dtype(dt)))
            cases.append((op, [col, row], {}, np.dtype(dt)))
            cases.append((op, [a, b], {}, np.dtype(dt)))
            cases.append((op, [a, np.asarray(row[1])], {}, np.dtype(dt)))
        # mixed dtypes: computed in the promoted type, cast into the first input's
        cases.append(
            (op, [_x((3, 4), np.int8, 1, 9) * 15, _x((4,), np.int16, 1, 9)], {}, np.dtype(np.int8))
        )
        cases.append(
            (op, [_x((3, 4), np.float16), _x((3, 4), np.float32, 1, 3)], {}, np.dtype(np.float16))
        )
    for dt in FLOATS:
        a, b, bias = _x((6, 5), dt), _x((5, 7), dt), _x((7,), dt)
        cases.append(("MatMul", [a, b], {}, np.dtype(dt)))
        cases.append(("MatMul", [a, b, bias], {}, np.dtype(dt)))
        cases.append(("MatMul", [a.T.copy(), b.T.copy()], _transposed("transpose"), np.dtype(dt)))
        cases.append(("BatchMatMulV2", [_x((2, 6, 5), dt), b], {}, np.dtype(dt)))
        cases.append(
            ("BatchMatMulV2", [_x((2, 6, 5), dt), _x((2, 5, 7), dt), bias], {}, np.dtype(dt))
        )
        cases.append(
            (
                "BatchMatMulV2",
                [_x((3, 1, 5, 6), dt), _x((4, 7, 5), dt)],
                _transposed("adj"),
                np.dtype(dt),
            )
        )
        cases.append(("BatchMatMulV2", [_x((5,), dt), _x((2, 5, 7), dt)], {}, np.dtype(dt)))
    for dt in (np.float32, np.float16):
        x, w, bias = _x((2, 4, 9, 8), dt), _x((6, 2, 3, 2), dt), _x((6,), dt)
        cases.append(("Conv2D", [x, w], _conv_attrs((2, 1), (0, 2, 1, 0), (2, 3), 2), np.dtype(dt)))
        cases.append(
            ("Conv2D", [x, w, bias], _conv_attrs((1, 1), (1, 1, 1, 1), (1, 1), 2), np.dtype(dt))
        )
    nhwc = _conv_attrs((2, 2), (1, 1, 1, 1), (1, 1), 1, "NHWC")
    cases.append(
        (
            "Conv2D",
            [_x((2, 8, 9, 3), np.float32), _x((3, 3, 3, 5), np.float32)],
            nhwc,
            np.dtype(np.float32),
        )
    )
    one_by_one = _conv_attrs((1, 1), (0, 0, 0, 0), (1, 1), 1)
    cases.append(
        (
            "Conv2D",
            [_x((2, 4, 5, 5), np.float32), _x((3, 4, 1, 1), np.float32)],
            one_by_one,
            np.dtype(np.float32),
        )
    )
    for dt in (np.float32, np.int32, np.float16):
        cases.append(
            (
                "MaxPoolV3",
                [_x((2, 3, 7, 8), dt, -9, 9)],
                _pool_attrs((3, 2), (2, 2), (1, 0, 1, 1), True),
                np.dtype(dt),
            )
        )
    cases.append(
        (
            "MaxPoolV3",
            [_x((2, 7, 8, 3), np.float32)],
            _pool_attrs((3, 3), (2, 1), (1, 1, 0, 1), False, "NHWC"),
            np.dtype(np.float32),
        )
    )
    for dt in FLOATS:
        x = _x((3, 6), dt)
        for approximate in ("none", "tanh"):
            cases.append(("Gelu", [x], {"approximate": StringAttr(approximate)}, np.dtype(dt)))
        params = [_x((4,), dt), _x((4,), dt), _x((4,), dt), _x((4,), dt, 0.5, 2)]
        cases.append(("BatchNorm", [_x((2, 4, 3, 5), dt), *params], {}, np.dtype(dt)))
        axis = {"begin_norm_axis": IntegerAttr(-1, i64)}
        ln = [_x((2, 3, 8), dt), _x((8,), dt), _x((8,), dt)]
        cases.append(("LayerNormV3", ln, axis, (np.dtype(dt),) * 3))
        axes = {"axes": int_array((-1,))}
        cases.append(("SoftmaxV2", [_x((2, 3, 8), dt)], axes, np.dtype(dt)))
        cases.append(("SoftmaxV2", [_x((2, 8, 3), dt).transpose(0, 2, 1)], axes, np.dtype(dt)))
        cases.append(
            ("FusedMulAdd", [_x((3, 4), dt), _x((4,), dt), _x((3, 1), dt)], {}, np.dtype(dt))
        )
        for activation in ("relu", "sigmoid", "gelu", "gelu_tanh", "relu6", "clip", "hard_swish"):
            act: dict[str, Attribute] = {"activation": StringAttr(activation)}
            if activation == "clip":
                act |= {"clip_min": FloatAttr(-0.5, f32), "clip_max": FloatAttr(1.5, f32)}
            conv = _conv_attrs((1, 1), (1, 1, 1, 1), (1, 1), 1) | act
            x, w, b = _x((2, 3, 6, 5), dt), _x((4, 3, 3, 3), dt), _x((4,), dt)
            cases.append(("FusedConv2D", [x, w, b], conv, np.dtype(dt)))
            a, m, bias = _x((2, 5, 6), dt), _x((6, 7), dt), _x((7,), dt)
            cases.append(("FusedMatMul", [a, m, bias], act, np.dtype(dt)))
    # a bias that promotes the product (float64 onto float32)
    cases.append(
        (
            "MatMul",
            [_x((6, 5), np.float32), _x((5, 7), np.float32), _x((7,), np.float64)],
            {},
            np.dtype(np.float32),
        )
    )
    cases.append(
        (
            "MatMul",
            [_x((6, 5), np.int32, -9, 9), _x((5, 7), np.int32, -9, 9)],
            {},
            np.dtype(np.int32),
        )
    )
    return cases


def _conv_attrs(
    strides: tuple[int, int],
    pads: tuple[int, int, int, int],
    dilations: tuple[int, int],
    groups: int,
    data_format: str = "NCHW",
) -> dict[str, Attribute]:
    full = (lambda hw: (1, *hw, 1)) if data_format == "NHWC" else (lambda hw: (1, 1, *hw))
    return {
        "strides": int_array(full(strides)),
        "pads": int_array(pads),
        "dilations": int_array(full(dilations)),
        "groups": IntegerAttr(groups, i64),
        "data_format": StringAttr(data_format),
    }


def _pool_attrs(
    ksize: tuple[int, int],
    strides: tuple[int, int],
    pads: tuple[int, int, int, int],
    ceil_mode: bool,
    data_format: str = "NCHW",
    dilations: tuple[int, int] = (1, 1),
) -> dict[str, Attribute]:
    full = (lambda hw: (1, *hw, 1)) if data_format == "NHWC" else (lambda hw: (1, 1, *hw))
    return {
        "ksize": int_array(full(ksize)),
        "strides": int_array(full(strides)),
        "pads": int_array(pads),
        "dilations": int_array(full(dilations)),
        "ceil_mode": BoolAttr.from_bool(ceil_mode),
        "data_format": StringAttr(data_format),
    }


def _transposed(prefix: str) -> dict[str, Attribute]:
    return {f"{prefix}_x1": BoolAttr.from_bool(True), f"{prefix}_x2": BoolAttr.from_bool(True)}


CASES = _cases()


def _result_types(
    ge_type: str, inputs: Sequence[np.ndarray], attrs: dict, dtypes: tuple[np.dtype, ...]
) -> list[Attribute]:
    """The static types of the kernel's results, found by running it with unranked types."""
    refs = run_kernel(ge_type, inputs, attrs, [_unranked(dt) for dt in dtypes])
    return [tensor_type_of(np.empty(ref.shape, dt)) for ref, dt in zip(refs, dtypes, strict=True)]


def _unranked(dtype: np.dtype) -> Attribute:
    from xdsl.dialects.builtin import UnrankedTensorType

    return UnrankedTensorType(tensor_type_of(np.empty((), dtype)).element_type)


@pytest.mark.parametrize(("ge_type", "inputs", "attrs", "dtype"), CASES)
def test_out_variant_equals_kernel_bit_for_bit(
    ge_type: str,
    inputs: list[np.ndarray],
    attrs: dict[str, Attribute],
    dtype: np.dtype | tuple[np.dtype, ...],
) -> None:
    assert get_kernel_into(ge_type) is not None
    dtypes = dtype if isinstance(dtype, tuple) else (dtype,)
    with np.errstate(all="ignore"):
        rtypes = _result_types(ge_type, inputs, attrs, dtypes)
        wants = run_kernel(ge_type, inputs, attrs, rtypes)
    outs = [np.full(want.shape, 77, dtype=want.dtype) for want in wants]
    with np.errstate(all="ignore"):
        run_kernel_into(ge_type, inputs, attrs, rtypes, outs)
    for out, want in zip(outs, wants, strict=True):
        assert out.dtype == want.dtype
        assert out.tobytes() == want.tobytes(), f"{ge_type}: {out} != {want}"


TRANS_DATA = [
    # (origin shape, element type, src format, dst format)
    ((2, 3, 5, 4), f32, "NCHW", "NC1HWC0"),  # a padded channel block
    ((2, 32, 3, 3), f32, "NCHW", "NC1HWC0"),  # whole blocks
    ((1, 20, 2, 3), f16, "NCHW", "NC1HWC0"),  # both
    ((2, 3, 5, 4), f32, "NC1HWC0", "NCHW"),
    ((2, 32, 3, 3), f32, "NC1HWC0", "NCHW"),
    ((1, 20, 2, 3), f16, "NC1HWC0", "NCHW"),
    ((2, 3, 5, 4), f32, "NCHW", "NHWC"),  # through the kernel and a copy
]


@pytest.mark.parametrize(("shape", "element", "src", "dst"), TRANS_DATA)
def test_trans_data_out_variant_equals_kernel_bit_for_bit(
    shape: tuple[int, ...], element: Attribute, src: str, dst: str
) -> None:
    """TransData's out-variant (a strided copy per channel block) gives the kernel's bytes,
    zeros in the padded channels of an NC1HWC0 result included, over an output that held
    other bytes."""
    plain = TensorType(element, shape)
    packed = with_format(plain, "NC1HWC0", "NCHW")
    dtype = np.float32 if element == f32 else np.float16
    x = RNG.standard_normal(shape).astype(dtype)
    if src == "NC1HWC0":
        (x,) = run_kernel("TransData", [x], _formats("NCHW", "NC1HWC0"), [packed])
    rtype = (
        packed
        if dst == "NC1HWC0"
        else TensorType(
            element,
            np.empty(shape).transpose((0, 2, 3, 1) if dst == "NHWC" else (0, 1, 2, 3)).shape,
        )
    )
    attrs = _formats(src, dst)
    (want,) = run_kernel("TransData", [x], attrs, [rtype])
    out = np.full(want.shape, 77, want.dtype)
    run_kernel_into("TransData", [x], attrs, [rtype], [out])
    assert out.tobytes() == want.tobytes()


def _formats(src: str, dst: str) -> dict[str, Attribute]:
    return {"src_format": StringAttr(src), "dst_format": StringAttr(dst)}


def test_every_out_variant_has_a_case() -> None:
    """A new out-variant without a bit-for-bit case here fails this test."""
    covered = {case[0] for case in CASES} | {"TransData"}
    assert set(kernel_into_types()) <= covered, set(kernel_into_types()) - covered


ALIASING = [
    ("Relu", {}),
    ("Add", {}),
    ("Sub", {}),
    ("Mul", {}),
    ("Div", {}),
    ("Maximum", {}),
    ("Minimum", {}),
    ("MatMul", {}),
    ("Sigmoid", {}),
    ("Tanh", {}),
    ("Erf", {}),
    ("Gelu", {"approximate": StringAttr("none")}),
    ("Gelu", {"approximate": StringAttr("tanh")}),
    ("FusedMatMul", {"activation": StringAttr("gelu")}),
]


@pytest.mark.parametrize(("ge_type", "attrs"), ALIASING)
def test_out_variant_over_its_own_input(ge_type: str, attrs: dict[str, Attribute]) -> None:
    """The arena may give a result the buffer of an input that dies at the op (the memory
    plan does so for the elementwise kernels), or the first step's output may be read later:
    the result is still the kernel's."""
    x = _x((4, 4), np.float32)
    binary = ("Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "MatMul", "FusedMatMul")
    inputs = [x, x.copy()] if ge_type in binary else [x]
    rtype = tensor_type_of(x)
    (want,) = run_kernel(ge_type, inputs, attrs, [rtype])
    run_kernel_into(ge_type, inputs, attrs, [rtype], [x])
    assert x.tobytes() == want.tobytes()


def test_alias_safe_out_variants_are_tested_over_their_own_input() -> None:
    """The compiled executor runs these in place (output = an input's bytes)."""
    assert {ge_type for ge_type, _ in ALIASING} >= ALIAS_SAFE_INTO


def test_op_without_out_variant_is_run_and_copied() -> None:
    assert get_kernel_into("Softplus") is None
    x = _x((2, 3), np.float32)
    out = np.empty_like(x)
    run_kernel_into("Softplus", [x], {}, [tensor_type_of(x)], [out])
    np.testing.assert_array_equal(out, run_kernel("Softplus", [x], {}, [tensor_type_of(x)])[0])


def test_output_of_wrong_shape_is_refused() -> None:
    x = _x((2, 3), np.float32)
    with pytest.raises(
        KernelError, match=r"given an output float32\[3, 2\], its result type says float32\[2, 3\]"
    ):
        run_kernel_into("Relu", [x], {}, [tensor_type_of(x)], [np.empty((3, 2), np.float32)])


def test_output_of_wrong_dtype_is_refused() -> None:
    x = _x((2, 3), np.float32)
    with pytest.raises(KernelError, match=r"given an output float16\[2, 3\]"):
        run_kernel_into("Relu", [x], {}, [tensor_type_of(x)], [np.empty((2, 3), np.float16)])


def test_wrong_number_of_outputs_is_refused() -> None:
    x = _x((2, 3), np.float32)
    with pytest.raises(KernelError, match="given 2 outputs, expected 1"):
        run_kernel_into("Relu", [x], {}, [tensor_type_of(x)], [x.copy(), x.copy()])


def test_dynamic_result_type_is_refused() -> None:
    x = _x((2, 3), np.float32)
    with pytest.raises(KernelError, match="has no static shape"):
        run_kernel_into("Relu", [x], {}, [TensorType(f32, [DYNAMIC_INDEX, 3])], [x.copy()])


@pytest.mark.parametrize("ge_type", ["Add", "Div"])
def test_inputs_are_not_broadcast_up_to_a_larger_output(ge_type: str) -> None:
    """numpy would fill a [2, 3] output from [3] + [3]; the kernel's result is [3]."""
    a = _x((3,), np.float32)
    out = np.empty((2, 3), np.float32)
    with pytest.raises(KernelError, match=r"inputs \[3\] and \[3\] do not broadcast to \[2, 3\]"):
        run_kernel_into(ge_type, [a, a], {}, [tensor_type_of(out)], [out])


def test_inputs_that_do_not_broadcast_keep_numpys_message() -> None:
    out = np.empty((3,), np.float32)
    with pytest.raises(ValueError) as info:
        run_kernel_into(
            "Add",
            [np.ones(3, np.float32), np.ones(4, np.float32)],
            {},
            [tensor_type_of(out)],
            [out],
        )
    assert known_failure(info.value) == "broadcast of [3] and [4]"


def test_matmul_output_of_other_shape_is_refused() -> None:
    a, b = _x((2, 3), np.float32), _x((3, 4), np.float32)
    out = np.empty((5, 2, 4), np.float32)
    with pytest.raises(
        KernelError, match=r"produced shape \[2, 4\], its result type says \[5, 2, 4\]"
    ):
        run_kernel_into("BatchMatMulV2", [a, b], {}, [tensor_type_of(out)], [out])


def test_out_variant_registered_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="out-variant kernel for GE type 'Relu' registered twice"):
        kernel_into("Relu")(lambda inputs, attrs, types, outputs: None)


# --------------------------------------------------------------------------------------------
# Conv2D as GEMM and pooling by taps, against direct loop definitions
# --------------------------------------------------------------------------------------------


def _naive_window_positions(
    size: int, k: int, st: int, d: int, pb: int, out: int
) -> list[list[int]]:
    """Per output position, the input indices of its window taps (may be outside x)."""
    return [[o * st + t * d - pb for t in range(k)] for o in range(out)]


GEOMETRIES = [
    # (H, W, kh, kw, strides, pads, dilations)
    (9, 8, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1)),
    (9, 8, 3, 2, (2, 3), (0, 2, 1, 0), (2, 1)),
    (5, 6, 2, 2, (1, 2), (3, 3, 2, 4), (1, 1)),  # taps that read only padding
    (7, 7, 5, 1, (3, 1), (2, 2, 0, 0), (1, 1)),
    (4, 4, 1, 1, (2, 2), (0, 0, 0, 0), (1, 1)),
]


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("groups", [1, 2])
def test_conv_gemm_matches_the_direct_sum(geometry: tuple, groups: int) -> None:
    h, w, kh, kw, strides, pads, dilations = geometry
    x, wt = _x((2, 4, h, w), np.float64), _x((6, 4 // groups, kh, kw), np.float64)
    oh = (h + pads[0] + pads[1] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (w + pads[2] + pads[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    rows = _naive_window_positions(h, kh, strides[0], dilations[0], pads[0], oh)
    cols = _naive_window_positions(w, kw, strides[1], dilations[1], pads[2], ow)
    want = np.zeros((2, 6, oh, ow))
    og, cg = 6 // groups, 4 // groups
    for oc, i, j in itertools.product(range(6), range(oh), range(ow)):
        g = oc // og
        for ic, p, q in itertools.product(range(cg), range(kh), range(kw)):
            r, c = rows[i][p], cols[j][q]
            if 0 <= r < h and 0 <= c < w:
                want[:, oc, i, j] += x[:, g * cg + ic, r, c] * wt[oc, ic, p, q]
    attrs = _conv_attrs(strides, pads, dilations, groups)
    out = np.empty(want.shape)
    run_kernel_into("Conv2D", [x, wt], attrs, [tensor_type_of(out)], [out])
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("geometry", GEOMETRIES)
@pytest.mark.parametrize("ceil_mode", [False, True])
def test_pooling_by_taps_matches_the_direct_windows(geometry: tuple, ceil_mode: bool) -> None:
    """Max and average (exclusive and not) pooling against windows read one cell at a time;
    ceil_mode's extra end windows and cells are never counted."""
    from gedialects.graph import window_output_size

    h, w, kh, kw, strides, pads, dilations = geometry
    if (
        max(pads[0], pads[1]) >= dilations[0] * (kh - 1) + 1
        or max(pads[2], pads[3]) >= dilations[1] * (kw - 1) + 1
    ):
        pytest.skip("a pad as large as the window: ONNX pooling refuses it")
    x = _x((2, 3, h, w), np.float64)
    oh = window_output_size(h, kh, strides[0], dilations[0], pads[0], pads[1], ceil_mode)
    ow = window_output_size(w, kw, strides[1], dilations[1], pads[2], pads[3], ceil_mode)
    rows = _naive_window_positions(h, kh, strides[0], dilations[0], pads[0], oh)
    cols = _naive_window_positions(w, kw, strides[1], dilations[1], pads[2], ow)
    want_max = np.full((2, 3, oh, ow), -np.inf)
    want_sum = np.zeros((2, 3, oh, ow))
    inside = np.zeros((oh, ow))
    padded = np.zeros((oh, ow))
    for i, j in itertools.product(range(oh), range(ow)):
        for r, c in itertools.product(rows[i], cols[j]):
            if 0 <= r < h and 0 <= c < w:
                want_max[:, :, i, j] = np.maximum(want_max[:, :, i, j], x[:, :, r, c])
                want_sum[:, :, i, j] += x[:, :, r, c]
                inside[i, j] += 1
            if -pads[0] <= r < h + pads[1] and -pads[2] <= c < w + pads[3]:
                padded[i, j] += 1
    attrs = _pool_attrs((kh, kw), strides, pads, ceil_mode, dilations=dilations)
    out = np.empty(want_max.shape)
    run_kernel_into("MaxPoolV3", [x], attrs, [tensor_type_of(out)], [out])
    np.testing.assert_array_equal(out, want_max)
    for exclusive, count in ((True, inside), (False, padded)):
        avg_attrs = {**attrs, "exclusive": BoolAttr.from_bool(exclusive)}
        (got,) = run_kernel("AvgPoolV2", [x], avg_attrs, [tensor_type_of(out)])
        np.testing.assert_allclose(got, want_sum / count, rtol=1e-12)


def test_scipy_is_imported_only_when_an_erf_runs() -> None:
    """`ge-opt` and loading every kernel leave scipy unloaded (start-up time); Erf loads it."""
    code = "\n".join(
        [
            "import os, sys",
            "import numpy as np",
            "from gedialects.tools.ge_opt import main",
            "from gedialects.interpreters.kernels import kernel_types, run_kernel",
            "from gedialects.tensors import tensor_type_of",
            "sys.argv = ['ge-opt', 'tests/lit/dialects/graph/activation.mlir', '-o', os.devnull]",
            "try:",
            "    main()",
            "except SystemExit as e:",
            "    assert not e.code, e.code",
            "assert 'Erf' in kernel_types() and 'Gelu' in kernel_types()",
            "assert 'scipy' not in sys.modules, 'scipy loaded at start-up'",
            "x = np.ones(3, np.float32)",
            "run_kernel('Erf', [x], {}, [tensor_type_of(x)])",
            "assert 'scipy.special' in sys.modules",
        ]
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_scratch_is_checked_against_the_memory_budget() -> None:
    from gedialects import budget
    from gedialects.interpreters.kernels import scratch

    with (
        budget.max_memory_set("2M"),
        pytest.raises(budget.MemoryBudgetError, match="im2col scratch float32"),
    ):
        scratch("im2col", (1 << 20,), np.float32)


def test_scratch_is_reused_per_key_and_kept_apart_between_keys() -> None:
    from gedialects.interpreters.kernels import scratch

    a = scratch("test-a", (4, 4), np.float32)
    again = scratch("test-a", (2, 3), np.float64)
    other = scratch("test-b", (4, 4), np.float32)
    assert np.shares_memory(a, again)
    assert not np.shares_memory(a, other)
    assert again.shape == (2, 3) and again.dtype == np.float64


def test_conv_with_a_budget_too_small_for_its_columns_is_refused() -> None:
    """Conv's columns (C*K times x) are sized from the input: the budget check names them."""
    from gedialects import budget

    x, w = np.ones((1, 64, 64, 64), np.float32), np.ones((8, 64, 3, 3), np.float32)
    attrs = _conv_attrs((1, 1), (1, 1, 1, 1), (1, 1), 1)
    out = np.empty((1, 8, 64, 64), np.float32)
    with (
        budget.max_memory_set("8M"),
        pytest.raises(budget.MemoryBudgetError, match="im2col scratch"),
    ):
        run_kernel_into("Conv2D", [x, w], attrs, [tensor_type_of(out)], [out])
