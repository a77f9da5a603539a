"""`ge-fuse-quant` keeps the numbers: random QDQ convolutions and matrix products computed by
the fused int8 kernels are within two float32 roundings of the exact value, at least as close
as the unfused float graph; a QDQ CNN built with onnx.helper runs to onnxruntime's numbers
through the tools (ge-import -> ge-opt -> ge-run) fused, and after ge-compile on AI Core."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gedialects import make_context
from gedialects.interpreters.graph.nn import conv_nd
from gedialects.interpreters.run import run
from gedialects.passes.fusion.fuse_quant import FuseQuantPass
from gedialects.tensors import dense_from_numpy
from tests.conftest import parse

EPS32 = 2.0**-24
"""float32's unit roundoff."""


def const(name: str, array: np.ndarray) -> str:
    return f"  %{name} = graph.const {dense_from_numpy(np.array(array, order='C'))}"


def tensor(shape: tuple[int, ...], elem: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}{elem}>"


def dequant(name: str, q: str, qt: str, scale: str, st_: str, axis: int | None = None) -> str:
    ax = "" if axis is None else f" axis {axis}"
    ft = qt.rsplit("x", 1)[0] + "xf32>"
    return f"  %{name} = graph.ascend_anti_quant_v2 %{q}, %{scale}{ax} : ({qt}, {st_}) -> {ft}"


def scales(rng: np.random.Generator, n: int) -> np.ndarray:
    return (2.0 ** rng.uniform(-9, -2, n) * rng.uniform(1, 2, n)).astype(np.float32)


def activation(rng: np.random.Generator, signed: bool, zero: int, shape: tuple[int, ...]):
    """x_q, its element type, the x DQ lines (scale, zero point as offset) and x's scale."""
    dtype, elem = (np.int8, "i8") if signed else (np.uint8, "ui8")
    info = np.iinfo(dtype)
    xq = rng.integers(info.min, info.max + 1, shape).astype(dtype)
    sx = scales(rng, 1)[0]
    qt = tensor(shape, elem)
    lines = [const("sx", np.array(sx, dtype=np.float32))]
    if zero:
        lines.append(const("ox", np.array(-zero, dtype=np.float32)))
        ft = tensor(shape, "f32")
        lines.append(
            f"  %x = graph.ascend_anti_quant_v2 %xq, %sx, %ox : ({qt}, tensor<f32>, tensor<f32>)"
            f" -> {ft}"
        )
    else:
        lines.append(dequant("x", "xq", qt, "sx", "tensor<f32>"))
    return xq, qt, lines, sx


def weight_lines(
    rng: np.random.Generator, shape: tuple[int, ...], axis: int, per_channel: bool
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    w = rng.integers(-127, 128, shape).astype(np.int8)
    sw = scales(rng, shape[axis] if per_channel else 1)
    wt = tensor(shape, "i8")
    lines = [const("wq", w)]
    if per_channel:
        lines += [const("sw", sw), dequant("w", "wq", wt, "sw", tensor(sw.shape, "f32"), axis)]
    else:
        lines += [const("sw", sw[0]), dequant("w", "wq", wt, "sw", "tensor<f32>")]
    return w, sw, lines


def bias_lines(rng: np.random.Generator, sx: np.float32, sw: np.ndarray, n: int):
    """ONNX QDQ's bias: int32 of scale x_scale * w_scale (float32, as exporters compute it)."""
    b = rng.integers(-2000, 2001, n).astype(np.int32)
    sb = np.broadcast_to(np.float32(sx) * sw, (n,)).astype(np.float32)
    lines = [
        const("bq", b),
        const("sb", sb),
        dequant("b", "bq", tensor((n,), "i32"), "sb", tensor((n,), "f32"), 0),
    ]
    return b, sb, lines


def run_both(text: str, inputs: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, str]:
    module = parse(text)
    before = run(module, inputs)["output0"]
    fused = module.clone()
    FuseQuantPass().apply(make_context(), fused)
    fused.verify()
    after = run(fused, inputs)["output0"]
    return before, after, str(fused)


def check_numbers(
    before: np.ndarray,
    after: np.ndarray,
    integer: np.ndarray,
    deq_scale: np.ndarray,
    exact: np.ndarray,
    terms: np.ndarray,
    k: int,
    relu: bool = False,
) -> None:
    """The fused result is bit-exact to its integer reference (the exact int32 accumulator
    times float32 `x_scale * w_scale`, rounded once to float32); both it and the float graph
    are within the roundings of k-term float32 sums of the exact QDQ value."""
    assert after.dtype == np.float32 == before.dtype
    reference = integer * deq_scale.astype(np.float64)
    if relu:
        reference = np.maximum(reference, 0.0)
    np.testing.assert_array_equal(after, reference.astype(np.float32))
    bound = (k + 3) * EPS32 * terms + 1e-300
    assert np.all(np.abs(before.astype(np.float64) - exact) <= bound)
    assert np.all(np.abs(after.astype(np.float64) - exact) <= bound)


@st.composite
def conv_cases(draw: st.DrawFn) -> dict[str, object]:
    groups = draw(st.sampled_from([1, 2]))
    return {
        "seed": draw(st.integers(0, 2**31)),
        "signed": draw(st.booleans()),
        "zero": draw(st.sampled_from([0, 1, 37, 128])),
        "n": draw(st.integers(1, 2)),
        "cg": draw(st.integers(1, 3)),
        "og": draw(st.integers(1, 3)),
        "groups": groups,
        "hw": draw(st.integers(3, 6)),
        "k": draw(st.integers(1, 3)),
        "stride": draw(st.integers(1, 2)),
        "pad": draw(st.integers(0, 1)),
        "per_channel": draw(st.booleans()),
        "bias": draw(st.booleans()),
        "relu": draw(st.booleans()),
    }


@settings(max_examples=30)
@given(conv_cases())
def test_fused_conv_matches_the_qdq_graph(case: dict) -> None:
    rng = np.random.default_rng(case["seed"])
    g, n, hw, k, s, p = (case[key] for key in ("groups", "n", "hw", "k", "stride", "pad"))
    c, o = case["cg"] * g, case["og"] * g
    zero = case["zero"] if not case["signed"] else min(case["zero"], 127)
    xq, qt, lines, sx = activation(rng, case["signed"], zero, (n, c, hw, hw))
    w, sw, wl = weight_lines(rng, (o, c // g, k, k), 0, case["per_channel"])
    lines += wl
    out = (hw + 2 * p - k) // s + 1
    yt = tensor((n, o, out, out), "f32")
    operands, types = "%x, %w", f"{tensor((n, c, hw, hw), 'f32')}, {tensor(w.shape, 'f32')}"
    b = np.zeros(o, dtype=np.int32)
    if case["bias"]:
        b, _, bl = bias_lines(rng, sx, sw, o)
        lines += bl
        operands, types = operands + ", %b", types + f", {tensor((o,), 'f32')}"
    lines.append(
        f"  %c = graph.conv2d {operands} strides [1, 1, {s}, {s}] pads [{p}, {p}, {p}, {p}]"
        f" groups {g} : ({types}) -> {yt}"
    )
    result = "c"
    if case["relu"]:
        lines.append(f"  %r = graph.relu %c : ({yt}) -> {yt}")
        result = "r"
    text = "\n".join(
        [f"graph.graph @g(%xq: {qt}) -> {yt} {{", *lines, f"  graph.net_output %{result} : {yt}"]
    )
    before, after, fused = run_both(text + "\n}", {"xq": xq})
    assert "graph.ascend_dequant" in fused and "ascend_anti_quant_v2" not in fused
    assert ("offset_x" in fused) == bool(zero)
    window = {"strides": [s, s], "pads": [p] * 4, "dilations": [1, 1], "groups": g}
    xf = (xq.astype(np.float64) - zero) * np.float64(sx)
    wf = w.astype(np.float64) * sw.astype(np.float64).reshape(-1, 1, 1, 1)
    bf = (b.astype(np.float64) * (np.float64(np.float32(sx) * sw))).reshape(1, -1, 1, 1)
    exact = conv_nd(xf, wf, **window) + bf
    terms = conv_nd(np.abs(xf), np.abs(wf), **window) + np.abs(bf)
    if case["relu"]:
        exact = np.maximum(exact, 0.0)
    shifted = xq.astype(np.float64) - zero
    integer = conv_nd(shifted, w.astype(np.float64), **window) + b.reshape(1, -1, 1, 1)
    deq_scale = (np.float32(sx) * sw).reshape(1, -1, 1, 1)
    check_numbers(before, after, integer, deq_scale, exact, terms, c // g * k * k + 1, case["relu"])


@settings(max_examples=30)
@given(
    st.integers(0, 2**31),
    st.booleans(),
    st.sampled_from([0, 5, 128]),
    st.integers(1, 4),
    st.integers(1, 9),
    st.integers(1, 5),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_fused_matmul_matches_the_qdq_graph(
    seed: int,
    signed: bool,
    zero: int,
    m: int,
    k: int,
    n: int,
    transposed: bool,
    per_channel: bool,
    bias: bool,
) -> None:
    rng = np.random.default_rng(seed)
    zero = min(zero, 127) if signed else zero
    xq, qt, lines, sx = activation(rng, signed, zero, (m, k))
    shape = (n, k) if transposed else (k, n)
    w, sw, wl = weight_lines(rng, shape, 0 if transposed else 1, per_channel)
    lines += wl
    yt = tensor((m, n), "f32")
    operands, types = "%x, %w", f"{tensor((m, k), 'f32')}, {tensor(shape, 'f32')}"
    b = np.zeros(n, dtype=np.int32)
    if bias:
        b, _, bl = bias_lines(rng, sx, sw, n)
        lines += bl
        operands, types = operands + ", %b", types + f", {tensor((n,), 'f32')}"
    flag = " transpose_x2 true" if transposed else ""
    lines.append(f"  %y = graph.matmul {operands}{flag} : ({types}) -> {yt}")
    text = "\n".join(
        [f"graph.graph @g(%xq: {qt}) -> {yt} {{", *lines, f"  graph.net_output %y : {yt}", "}"]
    )
    before, after, fused = run_both(text, {"xq": xq})
    assert "graph.ascend_dequant" in fused and "ascend_anti_quant_v2" not in fused
    wk = (w.T if transposed else w).astype(np.float64) * sw.astype(np.float64)
    xf = (xq.astype(np.float64) - zero) * np.float64(sx)
    bf = b.astype(np.float64) * np.float64(np.float32(sx) * sw)
    exact = xf @ wk + bf
    integer = (xq.astype(np.float64) - zero) @ (w.T if transposed else w).astype(np.float64) + b
    terms = np.abs(xf) @ np.abs(wk) + np.abs(bf)
    check_numbers(before, after, integer, np.float32(sx) * sw, exact, terms, k + 1)
