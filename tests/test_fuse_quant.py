"""`ge-fuse-quant` keeps the numbers: random QDQ convolutions and matrix products computed by
the fused int8 kernels are bit-exact to the integer reference (exact int32 accumulator, one
rounding by deq_scale) and within the float graph's error bound of the exact QDQ value; a
QDQ CNN built with onnx.helper runs to onnxruntime's numbers through the tools (ge-import ->
ge-opt -> ge-run) fused, and after ge-compile with the int8 products on AI Core."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from gedialects import make_context
from gedialects.frontend.onnx import import_model
from gedialects.interpreters.graph.nn import conv_nd
from gedialects.interpreters.run import run
from gedialects.passes.fusion.fuse_quant import FuseQuantPass
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.tensors import dense_from_numpy
from tests.conftest import parse, run_tool

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
    float_bias: np.ndarray | None = None,
) -> None:
    """The fused result is bit-exact to its integer reference (the exact int32 accumulator
    times float32 `x_scale * w_scale`, rounded once to float32, plus a float bias in
    float32); both it and the float graph are within the roundings of k-term float32 sums
    of the exact QDQ value."""
    assert after.dtype == np.float32 == before.dtype
    reference = (integer * deq_scale.astype(np.float64)).astype(np.float32)
    if float_bias is not None:
        reference = reference + float_bias
    if relu:
        reference = np.maximum(reference, np.float32(0))
    np.testing.assert_array_equal(after, reference)
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
        "bias": draw(st.sampled_from(["none", "qdq", "float"])),
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
    bf = np.zeros((1, o, 1, 1))
    float_bias = None
    if case["bias"] == "qdq":
        b, _, bl = bias_lines(rng, sx, sw, o)
        lines += bl
        bf = (b.astype(np.float64) * (np.float64(np.float32(sx) * sw))).reshape(1, -1, 1, 1)
    elif case["bias"] == "float":
        float_bias = rng.uniform(-1, 1, o).astype(np.float32).reshape(1, -1, 1, 1)
        lines.append(const("b", float_bias.reshape(-1)))
        bf = float_bias.astype(np.float64)
    if case["bias"] != "none":
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
    exact = conv_nd(xf, wf, **window) + bf
    terms = conv_nd(np.abs(xf), np.abs(wf), **window) + np.abs(bf)
    if case["relu"]:
        exact = np.maximum(exact, 0.0)
    shifted = xq.astype(np.float64) - zero
    integer = conv_nd(shifted, w.astype(np.float64), **window) + b.reshape(1, -1, 1, 1)
    deq_scale = (np.float32(sx) * sw).reshape(1, -1, 1, 1)
    taps = c // g * k * k + 1
    check_numbers(before, after, integer, deq_scale, exact, terms, taps, case["relu"], float_bias)


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
    st.sampled_from([(), (2,), (2, 3)]),
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
    batch: tuple[int, ...],
) -> None:
    """MatMul (2-D activation) and BatchMatMulV2 (a batch of them, ONNX MatMul's [B, S, K])
    by a [K, N] or [N, K] weight."""
    rng = np.random.default_rng(seed)
    zero = min(zero, 127) if signed else zero
    xq, qt, lines, sx = activation(rng, signed, zero, (*batch, m, k))
    shape = (n, k) if transposed else (k, n)
    w, sw, wl = weight_lines(rng, shape, 0 if transposed else 1, per_channel)
    lines += wl
    yt = tensor((*batch, m, n), "f32")
    operands, types = "%x, %w", f"{tensor((*batch, m, k), 'f32')}, {tensor(shape, 'f32')}"
    b = np.zeros(n, dtype=np.int32)
    if bias:
        b, _, bl = bias_lines(rng, sx, sw, n)
        lines += bl
        operands, types = operands + ", %b", types + f", {tensor((n,), 'f32')}"
    name, flag = ("batch_mat_mul_v2", " adj_x2") if batch else ("matmul", " transpose_x2")
    flag = f"{flag} true" if transposed else ""
    lines.append(f"  %y = graph.{name} {operands}{flag} : ({types}) -> {yt}")
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


# --------------------------------------------------------------------------------------------
# A QDQ CNN through the tools, against onnxruntime
# --------------------------------------------------------------------------------------------


def qdq_cnn(rng: np.random.Generator) -> onnx.ModelProto:
    """x -> Q(uint8, zero point 128) -> DQ -> Conv(3x3, pad 1, per-channel int8 W, QDQ int32
    bias) -> Relu -> Q -> DQ -> Flatten -> Q -> DQ -> Gemm(transB, per-channel int8 W, QDQ
    bias): the QDQ form of a quantised CNN (onnxruntime's quantize_static writes this)."""
    c_in, c_out, hw, n_out = 3, 4, 6, 5
    sx, s1 = np.float32(0.02), np.float32(0.05)
    w1 = rng.integers(-127, 128, (c_out, c_in, 3, 3)).astype(np.int8)
    sw1 = rng.uniform(0.002, 0.01, c_out).astype(np.float32)
    w2 = rng.integers(-127, 128, (n_out, c_out * hw * hw)).astype(np.int8)
    sw2 = rng.uniform(0.001, 0.004, n_out).astype(np.float32)
    arrays = {
        "sx": np.array(sx),
        "zx": np.array(128, dtype=np.uint8),
        "w1": w1,
        "sw1": sw1,
        "zw1": np.zeros(c_out, dtype=np.int8),
        "b1": rng.integers(-500, 500, c_out).astype(np.int32),
        "sb1": sx * sw1,
        "s1": np.array(s1),
        "z1": np.array(0, dtype=np.uint8),
        "w2": w2,
        "sw2": sw2,
        "b2": rng.integers(-500, 500, n_out).astype(np.int32),
        "sb2": s1 * sw2,
    }
    node = helper.make_node
    nodes = [
        node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
        node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
        node("DequantizeLinear", ["w1", "sw1", "zw1"], ["w1d"], axis=0),
        node("DequantizeLinear", ["b1", "sb1"], ["b1d"], axis=0),
        node("Conv", ["xd", "w1d", "b1d"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        node("Relu", ["c"], ["r"]),
        node("QuantizeLinear", ["r", "s1", "z1"], ["rq"]),
        node("DequantizeLinear", ["rq", "s1", "z1"], ["rd"]),
        node("Flatten", ["rd"], ["f"]),
        node("QuantizeLinear", ["f", "s1", "z1"], ["fq"]),
        node("DequantizeLinear", ["fq", "s1", "z1"], ["fd"]),
        node("DequantizeLinear", ["w2", "sw2"], ["w2d"], axis=0),
        node("DequantizeLinear", ["b2", "sb2"], ["b2d"], axis=0),
        node("Gemm", ["fd", "w2d", "b2d"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "qdq_cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, c_in, hw, hw])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, n_out])],
        [numpy_helper.from_array(v, k) for k, v in arrays.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model


QDQ_TOL = ("--rtol", "1e-5", "--atol", "1e-5")
"""The outputs are ~10; float32 roundings of the Gemm's 144-term sums, no quantisation step
(an off-by-one Quantize would show as ~5e-3)."""


@pytest.fixture(scope="module")
def qdq_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The model, its inputs, and onnxruntime's outputs with its own QDQ fusions (QLinearConv,
    ...: ort.npz) and without any graph optimisation (ortref.npz)."""
    import onnxruntime as ort

    root = tmp_path_factory.mktemp("qdq")
    rng = np.random.default_rng(0)
    onnx.save(qdq_cnn(rng), root / "cnn.onnx")
    x = rng.uniform(-2.5, 2.5, (2, 3, 6, 6)).astype(np.float32)
    np.savez(root / "in.npz", x=x)
    levels = {
        "ort": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
        "ortref": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    }
    for name, level in levels.items():
        options = ort.SessionOptions()
        options.graph_optimization_level = level
        session = ort.InferenceSession(
            str(root / "cnn.onnx"), options, providers=["CPUExecutionProvider"]
        )
        (y,) = session.run(None, {"x": x})
        np.savez(root / f"{name}.npz", y=np.asarray(y))
    return root


def ort_fusions_agree(root: Path) -> bool:
    """Whether onnxruntime's fused QLinearConv path gives its own unoptimised numbers here: on
    a host with AVX2 but no VNNI, MLAS's u8s8 kernels add int8 products in pairs with int16
    saturation (vpmaddubsw), which moves this model's output by ~1.04; the unoptimised run
    (ortref) is exact on every host."""
    fused, plain = np.load(root / "ort.npz")["y"], np.load(root / "ortref.npz")["y"]
    return bool(np.allclose(fused, plain, rtol=1e-5, atol=1e-5))


def op_names(path: Path) -> list[str]:
    return re.findall(r"(graph\.[a-z_0-9]+|ascend\.kernel \"[A-Za-z0-9]+\")", path.read_text())


@pytest.mark.parametrize("reference", ["ort", "ortref"])
def test_qdq_cnn_through_the_tools(qdq_files: Path, reference: str) -> None:
    """ge-import -> .mlir -> ge-opt ge-fuse-quant -> .mlir -> ge-run, and ge-opt ge-compile
    -> ge-run: both fused (two AscendDequant, the ReLU as relu_flag, the products int8 on AI
    Core), both to onnxruntime's numbers."""
    root = qdq_files
    if reference == "ort" and not ort_fusions_agree(root):
        pytest.skip("onnxruntime's fused QLinearConv disagrees with its own unoptimised run here")
    imported, fused, compiled = root / "g.mlir", root / "f.mlir", root / "c.mlir"
    done = run_tool("ge-import", str(root / "cnn.onnx"), "-o", str(imported))
    assert done.returncode == 0, done.stderr
    for passes, out in (("ge-fuse-quant", fused), ("ge-compile", compiled)):
        done = run_tool("ge-opt", str(imported), "-p", passes, "-o", str(out))
        assert done.returncode == 0, done.stderr
    ops = op_names(fused)
    assert ops.count("graph.ascend_dequant") == 2 and "graph.relu" not in ops
    assert ops.count("graph.ascend_anti_quant_v2") == 1  # the one before Flatten
    kernels = [n for n in op_names(compiled) if n.startswith("ascend.kernel")]
    assert kernels.count('ascend.kernel "AscendDequant"') == 2
    text = compiled.read_text()
    for ge_type in ("Conv2D", "MatMul"):
        assert f'ascend.kernel "{ge_type}" ' in text
        assert 'engine "DNN_VM_AICPU"' not in text
    for ir in (imported, fused, compiled):
        result = run_tool(
            "ge-run", str(ir), "--inputs", str(root / "in.npz"),
            "--reference", str(root / f"{reference}.npz"), "-q", *QDQ_TOL,
        )  # fmt: skip
        assert result.returncode == 0, f"{ir.name}: {result.stdout}{result.stderr}"
        assert "MATCH: all" in result.stdout


def test_qdq_cnn_in_memory_is_fused_and_keeps_the_numbers(qdq_files: Path) -> None:
    """The imported module, fused by ge-compile, against the unfused import (same inputs)."""
    module = import_model(qdq_files / "cnn.onnx")
    x = np.load(qdq_files / "in.npz")["x"]
    expected = run(module, {"x": x})["y"]
    compiled = module.clone()
    CompilePipelinePass().apply(make_context(), compiled)
    assert str(compiled).count('ascend.kernel "AscendDequant"') == 2
    np.testing.assert_allclose(run(compiled, {"x": x})["y"], expected, rtol=1e-5, atol=1e-5)


def test_qdq_cnn_through_ge_atc(qdq_files: Path) -> None:
    """ge-atc (ONNX -> .om, ge-compile inside) -> ge-run: fused, to onnxruntime's numbers
    (its fused run where it agrees with its unoptimised one, see `ort_fusions_agree`)."""
    out = qdq_files / "atc"
    reference = "ort" if ort_fusions_agree(qdq_files) else "ortref"
    done = run_tool(
        "ge-atc", f"--model={qdq_files / 'cnn.onnx'}", "--framework=5", f"--output={out}"
    )
    assert done.returncode == 0, done.stderr
    result = run_tool(
        "ge-run", f"{out}.om", "--inputs", str(qdq_files / "in.npz"),
        "--reference", str(qdq_files / f"{reference}.npz"), "-q", *QDQ_TOL,
    )  # fmt: skip
    assert result.returncode == 0, f"{result.stdout}{result.stderr}"
    assert "MATCH: all" in result.stdout


def test_ge_compile_fuses_only_when_quant_fusion_is_on(qdq_files: Path) -> None:
    """`disable-fusion=quant` and `fusion=false` leave the QDQ graph as it is (it still runs
    to the same numbers); by default the two products are int8."""
    module = import_model(qdq_files / "cnn.onnx")
    x = np.load(qdq_files / "in.npz")["x"]
    expected = np.load(qdq_files / "ortref.npz")["y"]
    pipelines = (
        (CompilePipelinePass(), 2),
        (CompilePipelinePass(disable_fusion=("quant",)), 0),
        (CompilePipelinePass(fusion=False), 0),
    )
    for pipeline, dequants in pipelines:
        compiled = module.clone()
        pipeline.apply(make_context(), compiled)
        assert str(compiled).count('ascend.kernel "AscendDequant"') == dequants, pipeline
        np.testing.assert_allclose(run(compiled, {"x": x})["y"], expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("k", "fused"), [(60000, True), (70000, False)])
def test_a_product_whose_int32_sum_may_overflow_is_not_fused(k: int, fused: bool) -> None:
    """Review finding: the int8 product wraps its int32 accumulator where the float QDQ graph
    does not; 255 * sum|w| + |b| must stay below 2**31 (60,000 terms of 127 do, 70,000 do
    not), and an unfused graph keeps the float numbers."""
    rng = np.random.default_rng(k)
    xq = np.full((1, k), 255, dtype=np.uint8)
    xq[0, ::7] = rng.integers(0, 256, xq[0, ::7].shape)
    w = np.full((k, 1), 127, dtype=np.int8)
    lines = [
        const("sx", np.array(0.5, dtype=np.float32)),
        dequant("x", "xq", tensor((1, k), "ui8"), "sx", "tensor<f32>"),
        const("wq", w),
        const("sw", np.array(0.25, dtype=np.float32)),
        dequant("w", "wq", tensor((k, 1), "i8"), "sw", "tensor<f32>"),
    ]
    yt = tensor((1, 1), "f32")
    lines.append(
        f"  %y = graph.matmul %x, %w : ({tensor((1, k), 'f32')}, {tensor((k, 1), 'f32')}) -> {yt}"
    )
    text = "\n".join(
        [
            f"graph.graph @g(%xq: {tensor((1, k), 'ui8')}) -> {yt} {{",
            *lines,
            f"  graph.net_output %y : {yt}",
            "}",
        ]
    )
    before, after, ir = run_both(text, {"xq": xq})
    assert ("graph.ascend_dequant" in ir) is fused
    exact = xq.astype(np.float64).sum() * 127 * 0.5 * 0.25
    # the int8 product is exact before its one float32 rounding; a float32 sum of k terms is
    # within k * 2**-24 of the exact value
    np.testing.assert_allclose(after, [[exact]], rtol=1e-6 if fused else k * EPS32)
    np.testing.assert_allclose(before, [[exact]], rtol=k * EPS32)
