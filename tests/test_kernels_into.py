"""Out-variant kernels (`@kernel_into`): bit for bit the numbers of their kernel, written into
preallocated outputs, and the checks `run_kernel_into` makes of those outputs."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, BoolAttr, TensorType, f32
from xdsl.ir import Attribute

from gedialects.interpreters.kernels import (
    KernelError,
    get_kernel_into,
    kernel_into,
    kernel_into_types,
    known_failure,
    run_kernel,
    run_kernel_into,
)
from gedialects.tensors import tensor_type_of

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

Case = tuple[str, list[np.ndarray], dict[str, Attribute], np.dtype]


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


def _transposed(prefix: str) -> dict[str, Attribute]:
    return {f"{prefix}_x1": BoolAttr.from_bool(True), f"{prefix}_x2": BoolAttr.from_bool(True)}


CASES = _cases()


def _result_type(
    ge_type: str, inputs: Sequence[np.ndarray], attrs: dict, dtype: np.dtype
) -> TensorType:
    """The static type of the kernel's result, found by running it with an unranked type."""
    (ref,) = run_kernel(ge_type, inputs, attrs, [_unranked(dtype)])
    return tensor_type_of(np.empty(ref.shape, dtype))


def _unranked(dtype: np.dtype) -> Attribute:
    from xdsl.dialects.builtin import UnrankedTensorType

    return UnrankedTensorType(tensor_type_of(np.empty((), dtype)).element_type)


@pytest.mark.parametrize(("ge_type", "inputs", "attrs", "dtype"), CASES)
def test_out_variant_equals_kernel_bit_for_bit(
    ge_type: str, inputs: list[np.ndarray], attrs: dict[str, Attribute], dtype: np.dtype
) -> None:
    assert get_kernel_into(ge_type) is not None
    rtype = _result_type(ge_type, inputs, attrs, dtype)
    with np.errstate(all="ignore"):
        (want,) = run_kernel(ge_type, inputs, attrs, [rtype])
    out = np.full(want.shape, 77, dtype=want.dtype)
    with np.errstate(all="ignore"):
        run_kernel_into(ge_type, inputs, attrs, [rtype], [out])
    assert out.dtype == want.dtype
    assert out.tobytes() == want.tobytes(), f"{ge_type}: {out} != {want}"


def test_every_out_variant_has_a_case() -> None:
    """A new out-variant without a bit-for-bit case here fails this test."""
    covered = {case[0] for case in CASES}
    assert set(kernel_into_types()) <= covered, set(kernel_into_types()) - covered


@pytest.mark.parametrize("ge_type", ["Relu", "Add", "MatMul", "Sigmoid"])
def test_out_variant_over_its_own_input(ge_type: str) -> None:
    """The arena may give a result the buffer of an input that dies at the op."""
    x = _x((4, 4), np.float32)
    inputs = [x, x.copy()] if ge_type in ("Add", "MatMul") else [x]
    rtype = tensor_type_of(x)
    (want,) = run_kernel(ge_type, inputs, {}, [rtype])
    run_kernel_into(ge_type, inputs, {}, [rtype], [x])
    assert x.tobytes() == want.tobytes()


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
