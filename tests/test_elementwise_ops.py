"""Elementwise, activation, comparison, logical and bitwise ops, Where and Cast.

Kernels are checked against hand-computed values (integer division, remainders, shifts, casts)
and against `onnx.reference.ReferenceEvaluator` through one-node ONNX models imported with
`import_model` and run at graph level, which also exercises the converters and the builders'
type inference. The erf kernel is checked against `math.erf`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    f16,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.test_value import create_ssa_value

from gedialects.base import GEOp
from gedialects.frontend.onnx import import_model
from gedialects.graph import (
    CastOp,
    ClipByValueOp,
    DivOp,
    EluOp,
    EqualOp,
    ExpOp,
    GeluOp,
    GraphOp,
    HardSigmoidOp,
    IsNanOp,
    LessOp,
    PowOp,
    PReluOp,
    SelectV2Op,
    XorOp,
)
from gedialects.interpreters.graph.elementwise import erf
from gedialects.interpreters.kernels import run_kernel
from gedialects.interpreters.run import run
from gedialects.tensors import tensor_type_of

Q = DYNAMIC_INDEX
RNG = np.random.default_rng(7)


def tensor(elem: Attribute, *dims: int) -> TensorType:
    return TensorType(elem, list(dims))


def value(t: Attribute):
    return create_ssa_value(t)


def kernel(ge_type: str, inputs: Sequence[np.ndarray], like: np.ndarray, **attrs: Attribute):
    """Runs a kernel whose single result has the dtype and shape of `like`."""
    (out,) = run_kernel(ge_type, inputs, attrs, [tensor_type_of(like)])
    return out


# --------------------------------------------------------------------------------------------
# One-node ONNX models: import, run at graph level, compare with the ONNX reference
# --------------------------------------------------------------------------------------------


def node_model(
    op_type: str,
    inputs: dict[str, np.ndarray],
    opset: int = 20,
    expected: np.ndarray | None = None,
    **attrs: object,
) -> onnx.ModelProto:
    """A model of one node with graph inputs `inputs` and one output `y` typed after
    `expected`, or else after the reference result."""
    node = helper.make_node(op_type, list(inputs), ["y"], **attrs)

    def build(out: onnx.ValueInfoProto) -> onnx.ModelProto:
        graph = helper.make_graph(
            [node],
            "g",
            [
                helper.make_tensor_value_info(
                    name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape
                )
                for name, a in inputs.items()
            ],
            [out],
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])

    if expected is None:
        untyped = build(helper.make_empty_tensor_value_info("y"))
        (expected,) = ReferenceEvaluator(untyped).run(None, inputs)
    ref = np.asarray(expected)
    return build(
        helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(ref.dtype), ref.shape)
    )


def imported_ops(model: onnx.ModelProto) -> list[Operation]:
    module = import_model(model)
    graph = next(op for op in module.walk() if isinstance(op, GraphOp))
    nodes = graph.body.block.ops
    return [op for op in nodes if isinstance(op, GEOp) and op.GE_TYPE not in ("Const", "NetOutput")]


def check_against_reference(
    op_type: str, inputs: dict[str, np.ndarray], opset: int = 20, **attrs: object
) -> np.ndarray:
    model = node_model(op_type, inputs, opset, **attrs)
    (expected,) = ReferenceEvaluator(model).run(None, inputs)
    got = run(import_model(model), inputs)["y"]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if got.dtype.kind in "iub":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True)
    return got


FLOATS = np.array([-3.5, -1.0, -0.5, -0.0, 0.25, 0.5, 1.0, 2.5, 7.0], dtype=np.float32)
UNIT = np.array([-0.9, -0.5, 0.0, 0.3, 0.99], dtype=np.float32)


@pytest.mark.parametrize(
    ("op_type", "x"),
    [
        ("Abs", FLOATS),
        ("Abs", np.array([-128, -3, 0, 5, 127], dtype=np.int8)),
        ("Neg", np.array([-5, 0, 7], dtype=np.int64)),
        ("Sign", np.array([-2.5, 0.0, 3.0, np.nan], dtype=np.float32)),
        ("Reciprocal", FLOATS[FLOATS != 0]),
        ("Sqrt", np.abs(FLOATS)),
        ("Exp", FLOATS),
        ("Log", np.abs(FLOATS) + 0.1),
        ("Erf", FLOATS),
        ("Ceil", FLOATS),
        ("Floor", FLOATS),
        ("Round", np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.6], dtype=np.float32)),
        ("Sin", FLOATS),
        ("Cos", FLOATS),
        ("Tan", UNIT),
        ("Asin", UNIT),
        ("Acos", UNIT),
        ("Atan", FLOATS),
        ("Sinh", FLOATS),
        ("Cosh", FLOATS),
        ("Asinh", FLOATS),
        ("Acosh", np.abs(FLOATS) + 1),
        ("Atanh", UNIT),
        ("Relu", FLOATS),
        ("Relu", np.array([-3, 0, 4], dtype=np.int32)),
        ("HardSwish", FLOATS),
        ("Softplus", np.array([-100.0, -1.0, 0.0, 1.0, 100.0], dtype=np.float32)),
        ("Softsign", FLOATS),
        ("Sigmoid", np.array([-100.0, -1.0, 0.0, 1.0, 100.0], dtype=np.float32)),
        ("Tanh", FLOATS),
        ("Mish", FLOATS),
        ("Not", np.array([True, False, True])),
        ("BitwiseNot", np.array([0, 1, 255], dtype=np.uint8)),
        ("IsNaN", np.array([np.nan, 1.0, np.inf], dtype=np.float32)),
        ("Exp", FLOATS.astype(np.float16)),
        ("Sigmoid", FLOATS.astype(np.float64)),
    ],
    ids=lambda v: v if isinstance(v, str) else str(getattr(v, "dtype", "")),
)
def test_unary_ops_match_the_onnx_reference(op_type: str, x: np.ndarray) -> None:
    check_against_reference(op_type, {"x": x.reshape(1, -1)})


@pytest.mark.parametrize(
    ("op_type", "attrs"),
    [
        ("LeakyRelu", {}),
        ("LeakyRelu", {"alpha": 0.3}),
        ("Elu", {"alpha": 0.5}),
        ("Selu", {}),
        ("Selu", {"alpha": 2.0, "gamma": 3.0}),
        ("Celu", {"alpha": 2.0}),
        ("HardSigmoid", {}),
        ("HardSigmoid", {"alpha": 0.5, "beta": 0.25}),
        ("Gelu", {}),
        ("Gelu", {"approximate": "tanh"}),
        ("ThresholdedRelu", {"alpha": 0.5}),
        ("Shrink", {"lambd": 1.0, "bias": 0.5}),
    ],
)
def test_activations_with_attributes_match_the_onnx_reference(
    op_type: str, attrs: dict[str, object]
) -> None:
    check_against_reference(op_type, {"x": FLOATS.reshape(3, 3)}, **attrs)


I32 = np.array([[-7, -6, 7, 6, 0]], dtype=np.int32)
I32_DIV = np.array([2, -4, 3, 4, -3], dtype=np.int32)


@pytest.mark.parametrize(
    ("op_type", "a", "b", "attrs"),
    [
        ("Add", FLOATS.reshape(3, 3), FLOATS[:3], {}),
        ("Sub", I32, I32_DIV, {}),
        ("Mul", np.array([200], dtype=np.uint8), np.array([2, 3], dtype=np.uint8), {}),
        ("Div", I32, I32_DIV, {}),
        ("Div", np.array([7, 255], dtype=np.uint8), np.array([2, 16], dtype=np.uint8), {}),
        ("Div", FLOATS.reshape(3, 3), np.array([2.0, -4.0, 0.5], dtype=np.float32), {}),
        ("Pow", FLOATS.reshape(3, 3), np.array([2.0], dtype=np.float32), {}),
        ("Pow", np.array([1, 2, 3], dtype=np.int64), np.array([2.0, 0.5, 3], np.float32), {}),
        ("Pow", np.array([2.0, 3.0], dtype=np.float32), np.array([3, -1], dtype=np.int64), {}),
        ("Mod", I32, I32_DIV, {}),
        ("Mod", I32, I32_DIV, {"fmod": 1}),
        ("Mod", FLOATS, np.float32(-1.5) * np.ones(9, np.float32), {"fmod": 1}),
        ("PRelu", FLOATS.reshape(1, 3, 3), np.array([0.1, 0.2, 0.3], np.float32), {}),
        ("PRelu", FLOATS.reshape(1, 3, 3), np.array([[0.1], [0.2], [0.3]], np.float32), {}),
        ("Equal", I32, I32_DIV, {}),
        ("Equal", np.array([True, False]), np.array([True]), {}),
        ("Less", FLOATS.reshape(3, 3), FLOATS[:3], {}),
        ("LessOrEqual", I32, I32_DIV, {}),
        ("Greater", FLOATS.reshape(3, 3), FLOATS[:3], {}),
        ("GreaterOrEqual", I32, I32_DIV, {}),
        ("And", np.array([[True], [False]]), np.array([True, False]), {}),
        ("Or", np.array([[True], [False]]), np.array([True, False]), {}),
        ("Xor", np.array([[True], [False]]), np.array([True, False]), {}),
        ("BitwiseAnd", I32, I32_DIV, {}),
        ("BitwiseOr", I32, I32_DIV, {}),
        ("BitwiseXor", I32, I32_DIV, {}),
        (
            "BitShift",
            np.array([1, 16, 255], np.uint8),
            np.array([1, 3, 9], np.uint8),
            {"direction": "LEFT"},
        ),
        (
            "BitShift",
            np.array([1, 16, 255], np.uint16),
            np.array([1, 3, 16], np.uint16),
            {"direction": "RIGHT"},
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_binary_ops_match_the_onnx_reference(
    op_type: str, a: np.ndarray, b: np.ndarray, attrs: dict[str, object]
) -> None:
    check_against_reference(op_type, {"a": a, "b": b}, **attrs)


@pytest.mark.parametrize("op_type", ["Sum", "Min", "Max", "Mean"])
def test_variadic_ops_are_broadcasting_chains(op_type: str) -> None:
    inputs = {
        "a": RNG.standard_normal((2, 1, 3)).astype(np.float32),
        "b": RNG.standard_normal((4, 1)).astype(np.float32),
        "c": RNG.standard_normal((3,)).astype(np.float32),
    }
    a, b, c = inputs.values()
    expected = {
        "Sum": a + b + c,
        "Min": np.minimum(np.minimum(a, b), c),
        "Max": np.maximum(np.maximum(a, b), c),
        "Mean": (a + b + c) / np.float32(3),  # the ONNX reference fails to broadcast here
    }[op_type]
    model = node_model(op_type, inputs, expected=expected)
    np.testing.assert_allclose(run(import_model(model), inputs)["y"], expected, rtol=1e-6)
    ops = imported_ops(model)
    chain = {"Sum": "Add", "Mean": "Add", "Min": "Minimum", "Max": "Maximum"}[op_type]
    assert [op.GE_TYPE for op in ops] == [chain, chain] + (["Div"] if op_type == "Mean" else [])


def test_variadic_op_with_one_input_is_that_input() -> None:
    x = FLOATS.reshape(3, 3)
    check_against_reference("Max", {"x": x})
    assert imported_ops(node_model("Sum", {"x": x})) == []


@pytest.mark.parametrize(
    ("x", "bounds"),
    [
        (FLOATS, (np.float32(-1.0), np.float32(2.0))),
        (FLOATS, (np.float32(-1.0), None)),
        (FLOATS, (None, np.float32(0.5))),
        (FLOATS, (np.float32(3.0), np.float32(1.0))),  # min > max: everything is max
        (np.array([-300, 5, 300], np.int16), (None, np.int16(10))),
        (np.array([0, 5, 255], np.uint8), (np.uint8(3), None)),
        (FLOATS, (None, None)),
    ],
)
def test_clip_with_optional_bounds(x: np.ndarray, bounds: tuple) -> None:
    inputs = {"x": x}
    names = ["x"]
    for name, bound in zip(("lo", "hi"), bounds, strict=True):
        if bound is not None:
            inputs[name] = np.asarray(bound)
        names.append(name if bound is not None else "")
    while names[-1] == "":
        names.pop()
    node = helper.make_node("Clip", names, ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in inputs.items()
        ],
        [helper.make_tensor_value_info("y", helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    (expected,) = ReferenceEvaluator(model).run(None, inputs)
    got = run(import_model(model), inputs)["y"]
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, expected)


def test_clip_before_opset_11_takes_attribute_bounds() -> None:
    """The importer upgrades opset 6 Clip (attributes) to inputs before conversion."""
    x = FLOATS
    node = helper.make_node("Clip", ["x"], ["y"], min=-1.0, max=0.5)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, x.shape)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    np.testing.assert_array_equal(run(import_model(model), {"x": x})["y"], np.clip(x, -1, 0.5))


def test_where_broadcasts_condition_and_branches() -> None:
    inputs = {
        "c": np.array([[True], [False]]),
        "a": np.arange(3, dtype=np.int64),
        "b": np.array(-1, dtype=np.int64),
    }
    got = check_against_reference("Where", inputs)
    np.testing.assert_array_equal(got, [[0, 1, 2], [-1, -1, -1]])


@pytest.mark.parametrize(
    ("negative", "positive", "ge_type", "expected"),
    [
        (1, 1, "IsInf", [True, True, False, False]),
        (0, 1, "IsPosInf", [False, True, False, False]),
        (1, 0, "IsNegInf", [True, False, False, False]),
        (0, 0, "Less", [False, False, False, False]),
    ],
)
def test_is_inf_directions(negative: int, positive: int, ge_type: str, expected: list) -> None:
    x = np.array([-np.inf, np.inf, np.nan, 1.0], dtype=np.float32)
    attrs = {"detect_negative": negative, "detect_positive": positive}
    got = check_against_reference("IsInf", {"x": x}, **attrs)
    np.testing.assert_array_equal(got, expected)
    assert [op.GE_TYPE for op in imported_ops(node_model("IsInf", {"x": x}, **attrs))] == [ge_type]


@pytest.mark.parametrize(
    ("x", "to"),
    [
        (np.array([-2.7, -0.5, 0.0, 1.9, 300.5], np.float32), onnx.TensorProto.INT32),
        (np.array([-2.7, 0.0, 1.9], np.float32), onnx.TensorProto.BOOL),
        (np.array([-2.7, 0.0, 65504.0], np.float32), onnx.TensorProto.FLOAT16),
        (np.array([True, False]), onnx.TensorProto.FLOAT),
        (np.array([-1, 0, 7], np.int64), onnx.TensorProto.DOUBLE),
        (np.array([1, 255], np.int32), onnx.TensorProto.UINT8),
    ],
)
def test_cast_matches_the_onnx_reference(x: np.ndarray, to: int) -> None:
    check_against_reference("Cast", {"x": x}, to=to)


def test_cast_like_imports_as_a_cast_to_the_target_type() -> None:
    inputs = {"x": np.array([1.5, -2.5], np.float32), "t": np.array([0], np.int64)}
    got = check_against_reference("CastLike", inputs)
    np.testing.assert_array_equal(got, [1, -2])
    (op,) = imported_ops(node_model("CastLike", inputs))
    assert isinstance(op, CastOp) and op.dst_type == i64


def test_cast_to_string_imports_as_a_cast_to_graph_string() -> None:
    """Cast to STRING is supported since string tensors exist (tests/test_strings.py checks the
    values against onnx's reference)."""
    x = np.array([1.0], np.float32)
    node = helper.make_node("Cast", ["x"], ["y"], to=onnx.TensorProto.STRING)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.STRING, x.shape)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    (op,) = [o for o in import_model(model).walk() if isinstance(o, CastOp)]
    assert str(op.dst_type) == "!graph.string"


# --------------------------------------------------------------------------------------------
# Kernels against hand-computed values
# --------------------------------------------------------------------------------------------


def test_integer_division_truncates_toward_zero() -> None:
    a = np.array([7, -7, 7, -7, 0], np.int32)
    b = np.array([2, 2, -2, -2, 5], np.int32)
    np.testing.assert_array_equal(kernel("Div", [a, b], a), [3, -3, -3, 3, 0])
    int_min = np.array([np.iinfo(np.int64).min + 1], np.int64)
    np.testing.assert_array_equal(kernel("Div", [int_min, np.array([1])], int_min), int_min)


def test_remainders_take_the_sign_of_divisor_or_dividend() -> None:
    a = np.array([7, -7, 7, -7], np.int64)
    b = np.array([3, 3, -3, -3], np.int64)
    np.testing.assert_array_equal(kernel("FloorMod", [a, b], a), [1, 2, -2, -1])
    np.testing.assert_array_equal(kernel("Mod", [a, b], a), [1, -1, 1, -1])
    f = np.array([5.5, -5.5], np.float16)
    np.testing.assert_array_equal(kernel("Mod", [f, np.float16([2, 2])], f), [1.5, -1.5])


def test_pow_keeps_the_base_dtype() -> None:
    base = np.array([2, 3, 4], np.int32)
    assert kernel("Pow", [base, np.array([0.5], np.float32)], base).tolist() == [1, 1, 2]
    assert kernel("Pow", [base, np.array([2, 0, -1], np.int64)], base).tolist() == [4, 1, 0]


def test_shifts_outside_the_bit_width() -> None:
    x = np.array([1, 1, 255, 255], np.uint8)
    n = np.array([7, 8, 1, 200], np.uint8)
    np.testing.assert_array_equal(kernel("LeftShift", [x, n], x), [128, 0, 254, 0])
    np.testing.assert_array_equal(kernel("RightShift", [x, n], x), [0, 0, 127, 0])
    s = np.array([-8, -8, 8], np.int32)
    k = np.array([1, 40, 40], np.int32)
    np.testing.assert_array_equal(kernel("RightShift", [s, k], s), [-4, -1, 0])


def test_exp_and_log_with_base_scale_and_shift() -> None:
    x = np.array([0.0, 1.0, 2.0], np.float32)
    attrs = {
        "base": FloatAttr(2.0, f32),
        "scale": FloatAttr(2.0, f32),
        "shift": FloatAttr(1.0, f32),
    }
    np.testing.assert_allclose(kernel("Exp", [x], x, **attrs), [2.0, 8.0, 32.0])
    attrs = {"base": FloatAttr(10.0, f32), "scale": FloatAttr(10.0, f32)}
    np.testing.assert_allclose(
        kernel("Log", [x + 1], x, **attrs), [1.0, math.log10(20), 1.0 + math.log10(3)]
    )


def test_kernels_use_the_ge_defaults_when_attrs_are_absent() -> None:
    """The ascend level passes only non-default properties."""
    x = np.array([-6.0, 0.0, 3.0], np.float32)
    np.testing.assert_allclose(kernel("HardSigmoid", [x], x), np.clip(x / 6 + 0.5, 0, 1), rtol=1e-6)
    np.testing.assert_array_equal(kernel("LeakyRelu", [x], x), [0.0, 0.0, 3.0])
    np.testing.assert_allclose(
        kernel("Gelu", [x], x, approximate=StringAttr("tanh")),
        0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))),
        rtol=1e-6,
        atol=1e-9,  # float32 op by op, as the exported graph: tanh(-4.8) rounds to -1, so -0.0
    )


def test_round_half_to_even_with_decimals() -> None:
    x = np.array([0.125, 0.375, 2.5, -2.5], np.float64)
    np.testing.assert_array_equal(
        kernel("Round", [x], x, decimals=IntegerAttr(2, i64)), [0.12, 0.38, 2.5, -2.5]
    )
    np.testing.assert_array_equal(kernel("Round", [x], x), [0.0, 0.0, 2.0, -2.0])


def test_erf_matches_math_erf() -> None:
    grid = np.concatenate([np.linspace(-6, 6, 2001), [1e-8, -1e-30, 0.0, np.inf, -np.inf]])
    want = np.array([math.erf(v) for v in grid])
    np.testing.assert_allclose(erf(grid), want, rtol=2e-7, atol=1e-15)
    assert np.isnan(erf(np.array([np.nan]))).all()


# --------------------------------------------------------------------------------------------
# Builders: result types
# --------------------------------------------------------------------------------------------


def test_comparisons_infer_an_i1_broadcast_type() -> None:
    op = LessOp(value(tensor(f32, 2, 1)), value(tensor(f32, Q, 3)))
    assert op.y.type == tensor(i1, 2, 3)
    op = EqualOp(value(tensor(i32, 3)), value(UnrankedTensorType(i32)))
    assert op.y.type == UnrankedTensorType(i1)
    op.verify()


def test_select_v2_broadcasts_all_three_operands() -> None:
    op = SelectV2Op(value(tensor(i1, 4, 1, 1)), value(tensor(f16, 2, 1)), value(tensor(f16, 3)))
    assert op.y.type == tensor(f16, 4, 2, 3)
    op.verify()


def test_pow_cast_predicates_and_prelu_types() -> None:
    pow_ = PowOp(value(tensor(i64, 3, 1)), value(tensor(f32, 4)))
    assert pow_.y.type == tensor(i64, 3, 4)
    cast = CastOp(value(tensor(f32, Q, 2)), f16)
    assert cast.y.type == tensor(f16, Q, 2)
    assert IsNanOp(value(tensor(f32, 5))).y.type == tensor(i1, 5)
    prelu = PReluOp(value(tensor(f32, 1, 3, 4)), value(tensor(f32, 3, 1)))
    assert prelu.y.type == tensor(f32, 1, 3, 4)
    for op in (pow_, cast, prelu):
        op.verify()


def test_builders_take_properties_as_keywords() -> None:
    x = value(tensor(f32, 2))
    elu = EluOp(x, alpha=2)
    assert elu.alpha == FloatAttr(2.0, f32) and elu.scale == FloatAttr(1.0, f32)
    assert GeluOp(x, approximate="tanh").approximate == StringAttr("tanh")
    assert ExpOp(x).base == FloatAttr(-1.0, f32)
    with pytest.raises(TypeError, match=r"'graph\.hard_sigmoid' has no property 'gamma'"):
        HardSigmoidOp(x, gamma=1.0)
    clip = ClipByValueOp(x, value(tensor(f32)), value(tensor(f32)))
    assert clip.y.type == tensor(f32, 2)
    div = DivOp(value(tensor(i32, Q, 1)), value(tensor(i32, 1, 5)))
    assert div.y.type == tensor(i32, Q, 5)
    xor = XorOp(value(tensor(i1, 3)), value(tensor(i1, 1)))
    assert xor.y.type == tensor(i1, 3)


# --------------------------------------------------------------------------------------------
# Graph level == ascend level (kernel tasks carry only the non-default properties)
# --------------------------------------------------------------------------------------------

COMPILED = """
graph.graph @main(%x: tensor<2x3xf32>, %i: tensor<3xi32>)
    -> (tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi32>) {
  %c = graph.cast %x dst_type i32 : (tensor<2x3xf32>) -> tensor<2x3xi32>
  %e = graph.exp %x base 2.0 scale 0.5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %g = graph.gelu %e approximate "tanh" : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %h = graph.hard_sigmoid %g alpha 0.2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %l = graph.less %c, %i : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
  %s = graph.select_v2 %l, %h, %x
      : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %d = graph.div %c, %i : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  graph.net_output %c, %s, %l, %d
      : tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xi1>, tensor<2x3xi32>
}
"""


def test_ge_compile_keeps_the_numbers_of_ops_with_properties() -> None:
    from gedialects import make_context
    from gedialects.passes.pipelines import CompilePipelinePass
    from tests.conftest import parse

    x = np.array([[-2.5, -0.5, 1.5], [3.7, 0.0, -7.9]], np.float32)
    inputs = {"x": x, "i": np.array([2, -1, 3], np.int32)}
    graph_level = run(parse(COMPILED), inputs)
    module = parse(COMPILED)
    CompilePipelinePass().apply(make_context(), module)
    ascend_level = run(module, inputs)
    assert graph_level.keys() == ascend_level.keys()
    for name, got in graph_level.items():
        np.testing.assert_array_equal(ascend_level[name], got)
    # Hand-computed: cast truncates, Div truncates, Less picks HardSigmoid(Gelu(2^(x/2))).
    np.testing.assert_array_equal(graph_level["output0"], [[-2, 0, 1], [3, 0, -7]])
    np.testing.assert_array_equal(graph_level["output3"], [[-1, 0, 0], [1, 0, -2]])
    e = 2.0 ** (0.5 * x[0, 0])
    gelu = 0.5 * e * (1 + math.tanh(math.sqrt(2 / math.pi) * (e + 0.044715 * e**3)))
    assert graph_level["output1"][0, 0] == pytest.approx(min(1, max(0, 0.2 * gelu + 0.5)))
    assert graph_level["output1"][1, 0] == pytest.approx(3.7)  # 3 < 2 is false: x
