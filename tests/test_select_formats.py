"""Format selection, TransData insertion and elimination (issue 18 parts 3, 4): numbers never
change, heavy kernels give the NCHW numbers, memory is sized by GE's rule, and the corpus
models give the NCHW compile's outputs through the tools."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f16,
    f32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.base import int_array
from gedialects.formats import INPUT_DESC, FormatAttr, format_of, memory_size, with_format
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.interpreters.kernels import (
    FormattedInto,
    KernelInto,
    get_kernel,
    get_kernel_into,
    heavy_kernel_into,
    run_kernel,
)
from gedialects.interpreters.layouts import pack
from gedialects.interpreters.run import run
from gedialects.passes.eliminate_trans_op_symmetry import eliminate_symmetry
from gedialects.passes.merge_trans_op_breadth import merge_breadth
from gedialects.passes.merge_trans_op_depth import merge_depth
from gedialects.passes.select_formats import apply_formats, select_formats

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "tests" / "models"
RNG = np.random.default_rng(1818)


def _parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def _graph(module: ModuleOp) -> GraphOp:
    return next(o for o in module.walk() if isinstance(o, GraphOp))


# --------------------------------------------------------------------------------------------
# Heavy kernels: same numbers in their heavy formats
# --------------------------------------------------------------------------------------------


def _heavy_case(
    ge_type: str,
    attrs: dict[str, Attribute],
    ins: list[tuple[np.ndarray, str, str]],
    out: TensorType,
    out_fmt: str,
    origin: str,
) -> None:
    """Runs `ge_type` on plain inputs and on its inputs packed as `ins` say; compares."""
    plain_types = [TensorType(f32, a.shape) for a, _, _ in ins]
    (want,) = run_kernel(ge_type, [a for a, _, _ in ins], attrs, [out])
    stored_types = [with_format(t, fmt, o) for t, (_, fmt, o) in zip(plain_types, ins, strict=True)]
    stored = [pack(a, o, fmt, 16) for a, fmt, o in ins]
    rtype = with_format(out, out_fmt, origin)
    (got,) = run_kernel(ge_type, stored, {**attrs, INPUT_DESC: ArrayAttr(stored_types)}, [rtype])
    assert got.shape == tuple(rtype.get_shape()) if isinstance(rtype, TensorType) else False
    np.testing.assert_allclose(pack(want, origin, out_fmt, 16), got, rtol=1e-5, atol=1e-5)
    into = get_kernel_into(ge_type)
    if into is not None:  # the out-variant takes them too
        buf = np.empty(got.shape, got.dtype)
        into(stored, {**attrs, INPUT_DESC: ArrayAttr(stored_types)}, [rtype], [buf])
        np.testing.assert_allclose(buf, got, rtol=1e-6)


def test_conv2d_in_nc1hwc0_and_fractal_z_gives_the_nchw_numbers() -> None:
    x = RNG.standard_normal((2, 19, 5, 5)).astype(np.float32)
    w = RNG.standard_normal((20, 19, 3, 3)).astype(np.float32)
    attrs: dict[str, Attribute] = {
        "strides": int_array((1, 1, 1, 1)),
        "pads": int_array((1, 1, 1, 1)),
    }
    _heavy_case(
        "Conv2D",
        attrs,
        [(x, "NC1HWC0", "NCHW"), (w, "FRACTAL_Z", "NCHW")],
        TensorType(f32, (2, 20, 5, 5)),
        "NC1HWC0",
        "NCHW",
    )


@pytest.mark.parametrize("ge_type", ["MaxPoolV3", "AvgPoolV2"])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_pooling_in_nc1hwc0_gives_the_origin_numbers(ge_type: str, layout: str) -> None:
    shape = (2, 18, 6, 6) if layout == "NCHW" else (2, 6, 6, 18)
    x = RNG.standard_normal(shape).astype(np.float32)
    k = (1, 1, 2, 2) if layout == "NCHW" else (1, 2, 2, 1)
    out = (2, 18, 3, 3) if layout == "NCHW" else (2, 3, 3, 18)
    attrs: dict[str, Attribute] = {
        "ksize": int_array(k),
        "strides": int_array(k),
        "data_format": StringAttr(layout),
    }
    _heavy_case(ge_type, attrs, [(x, "NC1HWC0", layout)], TensorType(f32, out), "NC1HWC0", layout)


def test_batch_norm_in_nc1hwc0_gives_the_nchw_numbers() -> None:
    from xdsl.dialects.builtin import FloatAttr

    x = RNG.standard_normal((2, 20, 3, 3)).astype(np.float32)
    vecs = [RNG.standard_normal(20).astype(np.float32) for _ in range(4)]
    vecs[3] = (np.abs(vecs[3]) + 0.5).astype(np.float32)
    attrs: dict[str, Attribute] = {"epsilon": FloatAttr(1e-5, f32)}
    ins = [(x, "NC1HWC0", "NCHW")] + [(v, "ND", "ND") for v in vecs]
    _heavy_case("BatchNorm", attrs, ins, TensorType(f32, (2, 20, 3, 3)), "NC1HWC0", "NCHW")


@pytest.mark.parametrize("transpose", [False, True])
def test_matmul_in_fractal_nz_gives_the_nd_numbers(transpose: bool) -> None:
    a = RNG.standard_normal((20, 33)).astype(np.float32)
    b = RNG.standard_normal((7, 33) if transpose else (33, 7)).astype(np.float32)
    attrs: dict[str, Attribute] = {"transpose_x2": BoolAttr.from_bool(transpose)}
    _heavy_case(
        "MatMul",
        attrs,
        [(a, "FRACTAL_NZ", "ND"), (b, "FRACTAL_NZ", "ND")],
        TensorType(f32, (20, 7)),
        "FRACTAL_NZ",
        "ND",
    )


def test_batch_matmul_in_fractal_nz_gives_the_nd_numbers() -> None:
    a = RNG.standard_normal((3, 17, 5)).astype(np.float32)
    b = RNG.standard_normal((3, 5, 18)).astype(np.float32)
    _heavy_case(
        "BatchMatMulV2",
        {},
        [(a, "FRACTAL_NZ", "ND"), (b, "FRACTAL_NZ", "ND")],
        TensorType(f32, (3, 17, 18)),
        "FRACTAL_NZ",
        "ND",
    )


def _heavy_pair(ge_type: str) -> tuple[FormattedInto, KernelInto]:
    """`ge_type`'s heavy-format out-variant, and its out-variant through the adapter's
    unpack / plain kernel / pack path."""
    from gedialects.interpreters.graph import fused, nn, pooling

    formatted, plain = {
        "Conv2D": (nn.conv2d_into_formatted, nn.conv2d_into),
        "FusedConv2D": (fused.fused_conv2d_into_formatted, fused.fused_conv2d_into),
        "MaxPoolV3": (pooling.max_pool_v3_into_formatted, pooling.max_pool_v3_into),
    }[ge_type]
    return formatted, heavy_kernel_into(plain, get_kernel(ge_type))


@pytest.mark.parametrize(
    ("ge_type", "c", "o", "k", "stride", "pads", "dilation", "extra"),
    [
        ("Conv2D", 19, 20, 3, (1, 1), (1, 1, 1, 1), (1, 1), {}),
        ("Conv2D", 32, 16, 3, (2, 1), (0, 1, 2, 1), (1, 2), {}),
        ("Conv2D", 3, 32, 3, (2, 2), (1, 1, 1, 1), (1, 1), {}),
        ("Conv2D", 16, 33, 1, (2, 2), (0, 0, 0, 0), (1, 1), {}),
        ("FusedConv2D", 20, 18, 3, (1, 1), (1, 1, 1, 1), (1, 1), {"activation": "relu"}),
        ("FusedConv2D", 16, 16, 3, (1, 2), (1, 0, 0, 1), (2, 1), {"activation": "sigmoid"}),
        ("MaxPoolV3", 19, 19, 3, (2, 2), (1, 1, 1, 1), (1, 1), {}),
        ("MaxPoolV3", 32, 32, 2, (1, 2), (0, 1, 1, 0), (1, 1), {"ceil_mode": True}),
    ],
)
def test_heavy_format_out_variants_give_the_unpacking_numbers_bit_for_bit(
    ge_type: str,
    c: int,
    o: int,
    k: int,
    stride: tuple[int, int],
    pads: tuple[int, int, int, int],
    dilation: tuple[int, int],
    extra: dict[str, object],
) -> None:
    """Conv2D, FusedConv2D and MaxPoolV3 read and write NC1HWC0 themselves (no unpacked
    copy): the same bytes as unpacking, the plain kernel and packing, padded channels zero
    even when the input's padded lanes hold garbage."""
    from xdsl.dialects.builtin import IntegerAttr, i64

    from gedialects.graph import window_output_size

    n, h, w = 2, 9, 8
    x = RNG.standard_normal((n, c, h, w)).astype(np.float32)
    attrs: dict[str, Attribute] = {"pads": int_array(pads)}
    sizes = [
        window_output_size(s, k, st, d, pads[2 * i], pads[2 * i + 1], bool(extra.get("ceil_mode")))
        for i, (s, st, d) in enumerate(zip((h, w), stride, dilation, strict=True))
    ]
    if ge_type == "MaxPoolV3":
        attrs |= {"ksize": int_array((1, 1, k, k)), "strides": int_array((1, 1, *stride))}
        if extra.get("ceil_mode"):
            attrs["ceil_mode"] = IntegerAttr(1, i64)
        ins = [(x, "NC1HWC0", "NCHW")]
    else:
        attrs |= {"strides": int_array((1, 1, *stride)), "dilations": int_array((1, 1, *dilation))}
        if "activation" in extra:
            attrs["activation"] = StringAttr(str(extra["activation"]))
        filt = RNG.standard_normal((o, c, k, k)).astype(np.float32)
        bias = RNG.standard_normal(o).astype(np.float32)
        ins = [(x, "NC1HWC0", "NCHW"), (filt, "FRACTAL_Z", "NCHW"), (bias, "ND", "ND")]
    plain_types = [TensorType(f32, a.shape) for a, _, _ in ins]
    stored_types = [
        with_format(t, fmt, og) for t, (_, fmt, og) in zip(plain_types, ins, strict=True)
    ]
    stored = [pack(a, og, fmt, 16) for a, fmt, og in ins]
    stored[0][:, -1, ..., c % 16 or 16 :] = np.nan  # garbage in the padded lanes
    rtype = with_format(TensorType(f32, (n, o, *sizes)), "NC1HWC0", "NCHW")
    assert isinstance(rtype, TensorType)
    full = {**attrs, INPUT_DESC: ArrayAttr(stored_types)}
    formatted, unpacking = _heavy_pair(ge_type)
    got = np.full(tuple(rtype.get_shape()), 7.0, np.float32)
    want = np.full_like(got, -7.0)
    assert formatted(stored, full, stored_types, [rtype], [got])
    unpacking(stored, full, [rtype], [want])
    np.testing.assert_array_equal(got, want)


def test_conv2d_decoded_filter_cache_follows_the_stored_bytes() -> None:
    """The heavy-format Conv2D decodes a FRACTAL_Z filter once per stored array: a second
    call on the same array reuses it, the same array rewritten with other weights (an arena
    filled for another run) and a second array (another model) give their own numbers."""
    n, c, o, h, w = 2, 19, 20, 7, 6
    x = RNG.standard_normal((n, c, h, w)).astype(np.float32)
    filters = [RNG.standard_normal((o, c, 3, 3)).astype(np.float32) for _ in range(2)]
    bias = RNG.standard_normal(o).astype(np.float32)
    plain = [TensorType(f32, a.shape) for a in (x, filters[0], bias)]
    types = [
        with_format(t, fmt, "NCHW" if fmt != "ND" else "ND")
        for t, fmt in zip(plain, ("NC1HWC0", "FRACTAL_Z", "ND"), strict=True)
    ]
    rtype = with_format(TensorType(f32, (n, o, h, w)), "NC1HWC0", "NCHW")
    assert isinstance(rtype, TensorType)
    attrs: dict[str, Attribute] = {
        "pads": int_array((1, 1, 1, 1)),
        "strides": int_array((1, 1, 1, 1)),
        "dilations": int_array((1, 1, 1, 1)),
        INPUT_DESC: ArrayAttr(types),
    }
    formatted, unpacking = _heavy_pair("Conv2D")
    stored_x, stored_b = pack(x, "NCHW", "NC1HWC0", 16), pack(bias, "ND", "ND", 16)
    arena_filter = pack(filters[0], "NCHW", "FRACTAL_Z", 16)
    other_filter = pack(filters[1], "NCHW", "FRACTAL_Z", 16)

    def run(stored_filter: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ins = [stored_x, stored_filter, stored_b]
        got = np.full(tuple(rtype.get_shape()), 7.0, np.float32)
        want = np.full_like(got, -7.0)
        assert formatted(ins, attrs, types, [rtype], [got])
        unpacking(ins, attrs, [rtype], [want])
        return got, want

    first, want0 = run(arena_filter)
    again, _ = run(arena_filter)
    np.testing.assert_array_equal(first, want0)
    np.testing.assert_array_equal(again, want0)
    arena_filter[...] = other_filter
    rewritten, want1 = run(arena_filter)
    np.testing.assert_array_equal(rewritten, want1)
    assert not np.array_equal(rewritten, want0)
    second_model, want2 = run(other_filter)
    np.testing.assert_array_equal(second_model, want2)
    np.testing.assert_array_equal(second_model, want1)


# --------------------------------------------------------------------------------------------
# Memory: GE's size rule
# --------------------------------------------------------------------------------------------


def test_memory_size_follows_ge_rule_for_storage_formats() -> None:
    t = with_format(TensorType(f16, (1, 3, 4, 4)), "NC1HWC0", "NCHW")
    assert isinstance(t, TensorType) and tuple(t.get_shape()) == (1, 1, 4, 4, 16)
    assert memory_size(t, 512) == 544  # the research notes' example
    assert memory_size(TensorType(f16, (1, 3, 4, 4)), 96) == 96  # plain tensors unchanged


def test_compiled_arena_reserves_padded_storage() -> None:
    from gedialects.ascend import ModelOp
    from gedialects.passes.pipelines import CompilePipelinePass

    t5 = "tensor<1x1x4x4x16xf16, #graph.format<NC1HWC0 origin NCHW [1, 3, 4, 4]>>"
    text = f"""
    graph.graph @g(%x: tensor<1x3x4x4xf16>) -> tensor<1x3x4x4xf16> {{
      %y = graph.trans_data %x src_format "NCHW" dst_format "NC1HWC0"
          : (tensor<1x3x4x4xf16>) -> {t5}
      %r = graph.relu %y : ({t5}) -> {t5}
      %z = graph.trans_data %r src_format "NC1HWC0" dst_format "NCHW"
          : ({t5}) -> tensor<1x3x4x4xf16>
      graph.net_output %z : tensor<1x3x4x4xf16>
    }}
    """
    module = _parse(text)
    x = RNG.standard_normal((1, 3, 4, 4)).astype(np.float16)
    want = np.maximum(x, 0)
    CompilePipelinePass().apply(make_context(), module)
    model = next(o for o in module.walk() if isinstance(o, ModelOp))
    np.testing.assert_array_equal(next(iter(run(module, {"x": x}).values())), want)
    assert "#graph.format<NC1HWC0" in str(model)  # the lowering carries formats


def test_memory_plans_reserve_ge_sizes_for_storage_formats() -> None:
    """fp16 [1, 3, 4, 4] as 5HD is 512 bytes of storage, 544 by GE's rule: a second 512-byte
    block at alignment 512; the plain tensor of 512 bytes takes one."""
    from gedialects.passes.analysis.memory_plan import Slot, SlotKind, plan_without_reuse

    t5 = with_format(TensorType(f16, (1, 3, 4, 4)), "NC1HWC0", "NCHW")
    assert isinstance(t5, TensorType)
    plain = TensorType(f16, (1, 16, 4, 4))  # the same 512 bytes, no format
    for t, arena in ((t5, 1024), (plain, 512)):
        slot = Slot(t, SlotKind.FEATURE)
        assert slot.nbytes == 512
        plan = plan_without_reuse([slot], 512)
        plan.verify()
        assert plan.arena_size == arena


# --------------------------------------------------------------------------------------------
# Random format assignments + insertion + elimination never change the numbers
# --------------------------------------------------------------------------------------------

_OPS = ("relu", "sigmoid", "add", "conv", "pool", "cast")


def _random_graph(c: int, h: int, w: int, ops: list[str], weights: list[float]) -> str:
    lines = [f"graph.graph @g(%x: tensor<1x{c}x{h}x{w}xf32>) -> tensor<1x?x?x?xf32> {{"]
    cur, cur_c, cur_h, cur_w = "%x", c, h, w
    dtype = "f32"

    def t(cc: int, hh: int, ww: int, d: str = "f32") -> str:
        return f"tensor<1x{cc}x{hh}x{ww}x{d}>"

    for i, kind in enumerate(ops):
        n = i + 1
        v = f"%v{n}"
        a = t(cur_c, cur_h, cur_w, dtype)
        if kind in ("relu", "sigmoid"):
            lines.append(f"  {v} = graph.{kind} {cur} : ({a}) -> {a}")
        elif kind == "add":
            lines.append(f"  {v} = graph.add {cur}, {cur} : ({a}, {a}) -> {a}")
        elif kind == "cast":
            new = "f16" if dtype == "f32" else "f32"
            lines.append(
                f"  {v} = graph.cast {cur} dst_type {new} : ({a}) -> {t(cur_c, cur_h, cur_w, new)}"
            )
            dtype = new
        elif kind == "conv":
            oc = 1 + (i * 7 + cur_c) % 19
            wt = f"tensor<{oc}x{cur_c}x1x1x{dtype}>"
            lines.append(f"  %w{n} = graph.const dense<{weights[i % len(weights)]}> : {wt}")
            lines.append(
                f"  {v} = graph.conv2d {cur}, %w{n} strides [1, 1, 1, 1]"
                f" : ({a}, {wt}) -> {t(oc, cur_h, cur_w, dtype)}"
            )
            cur_c = oc
        elif kind == "pool":
            lines.append(
                f"  {v} = graph.max_pool_v3 {cur} ksize [1, 1, 1, 1] strides [1, 1, 1, 1]"
                f" : ({a}) -> {a}"
            )
        cur = v
    if dtype != "f32":
        a = t(cur_c, cur_h, cur_w, dtype)
        lines.append(f"  %out = graph.cast {cur} dst_type f32 : ({a}) -> {t(cur_c, cur_h, cur_w)}")
        cur = "%out"
    lines.append(f"  graph.net_output {cur} : {t(cur_c, cur_h, cur_w)}")
    lines.append("}")
    lines[0] = lines[0].replace("tensor<1x?x?x?xf32>", t(cur_c, cur_h, cur_w))
    return "\n".join(lines)


_AGNOSTIC_FORMATS = ("NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_NZ")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    c=st.integers(1, 20),
    h=st.integers(1, 4),
    w=st.integers(1, 4),
    ops=st.lists(st.sampled_from(_OPS), min_size=1, max_size=6),
    choices=st.lists(st.integers(0, 9), min_size=16, max_size=16),
    extra=st.lists(st.integers(0, 5), min_size=16, max_size=16),
)
def test_random_formats_insertion_and_elimination_never_change_numbers(
    c: int, h: int, w: int, ops: list[str], choices: list[int], extra: list[int]
) -> None:
    text = _random_graph(c, h, w, ops, [0.5, -0.25, 1.5])
    x = RNG.standard_normal((1, c, h, w)).astype(np.float32)
    want = next(iter(run(_parse(text), {"x": x}).values()))

    module = _parse(text)
    graph = _graph(module)
    have: dict[SSAValue, tuple[str, str]] = {}
    want_fmt: dict[tuple[Operation, int], tuple[str, str]] = {}
    ops_list = [o for o in graph.body.ops if not isinstance(o, NetOutputOp)]
    for k, op in enumerate(ops_list):
        choice = choices[k % len(choices)]
        if op.name in ("graph.conv2d", "graph.max_pool_v3"):
            if choice % 2:
                continue  # stays NCHW
            have[op.results[0]] = ("NC1HWC0", "NCHW")
            want_fmt[(op, 0)] = ("NC1HWC0", "NCHW")
            if op.name == "graph.conv2d":
                want_fmt[(op, 1)] = ("FRACTAL_Z", "NCHW")
        elif op.name in ("graph.relu", "graph.sigmoid", "graph.add", "graph.cast"):
            fmt = _AGNOSTIC_FORMATS[choice % len(_AGNOSTIC_FORMATS)]
            if fmt == "NCHW":
                continue
            have[op.results[0]] = (fmt, "NCHW")
            for i in range(len(op.operands)):
                want_fmt[(op, i)] = (fmt, "NCHW")
    inserted = apply_formats(graph, have, want_fmt, fold_weights=extra[0] % 2 == 0)
    # a random extra round trip on some edges, as FE's two-strategy insertion makes them
    for k, op in enumerate(list(graph.body.ops)):
        if extra[k % len(extra)] == 0 and op.results and isinstance(op.results[0].type, TensorType):
            t = op.results[0].type
            if format_of(t) is None and len(t.get_shape()) == 4:
                _round_trip_after(op)
    module.verify()
    got_inserted = np.asarray(next(iter(run(module, {"x": x}).values())))
    np.testing.assert_allclose(got_inserted, want, rtol=1e-3, atol=1e-3)
    before = _count(graph)
    merge_breadth(graph)
    eliminate_symmetry(graph)
    merge_depth(graph)
    module.verify()
    assert _count(graph) <= before
    got = np.asarray(next(iter(run(module, {"x": x}).values())))
    np.testing.assert_array_equal(got, got_inserted)
    assert inserted >= 0


def _round_trip_after(op: Operation) -> None:
    from xdsl.rewriter import InsertPoint, Rewriter

    from gedialects.graph import TransDataOp

    value = op.results[0]
    users = [u for u in value.uses]
    a = TransDataOp(value, src_format="NCHW", dst_format="NC1HWC0")
    b = TransDataOp(a, src_format="NC1HWC0", dst_format="NCHW")
    Rewriter.insert_op([a, b], InsertPoint.after(op))
    for use in users:
        use.operation.operands[use.index] = b.dst


def _count(graph: GraphOp) -> int:
    return sum(1 for o in graph.body.ops if o.name in ("graph.trans_data", "graph.cast"))


# --------------------------------------------------------------------------------------------
# Corpus models through the tools and files: formats change no output
# --------------------------------------------------------------------------------------------


def _tool(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize(
    ("model", "shape", "options"),
    [
        ("cnn", "", ""),
        ("mobilenet_block", "", ""),
        ("transformer", "tokens:2,8,32", "{allow-nz=true}"),
    ],
)
def test_corpus_model_in_heavy_formats_equals_the_nchw_compile(
    model: str, shape: str, options: str, tmp_path: Path
) -> None:
    """ge-import -> .mlir -> ge-opt ge-compile (AI Core's hooks select the formats) -> .mlir
    -> ge-run gives the outputs of `ge-compile{formats=false}`, the NCHW compile, whose
    arena is smaller (no padding) and which has no TransData."""
    imported = tmp_path / f"{model}.mlir"
    _tool(
        "gedialects.tools.ge_import", str(MODELS / f"{model}.onnx"), "-o", str(imported), cwd=ROOT
    )
    static = f'ge-infer-shapes{{input-shape="{shape}"}},ge-fold-constants,' if shape else ""
    plain = tmp_path / "plain.mlir"
    heavy = tmp_path / "heavy.mlir"
    _tool(
        "gedialects.tools.ge_opt",
        str(imported),
        "-p",
        static + "ge-compile{formats=false}",
        "-o",
        str(plain),
        cwd=ROOT,
    )
    _tool(
        "gedialects.tools.ge_opt",
        str(imported),
        "-p",
        static + "ge-compile" + options,
        "-o",
        str(heavy),
        cwd=ROOT,
    )
    text, nchw = heavy.read_text(), plain.read_text()
    assert 'ascend.kernel "TransData"' in text and "#graph.format<" in text
    assert "TransData" not in nchw and "#graph.format<" not in nchw
    assert _arena(text) > _arena(nchw)  # padded storage
    inputs = str(MODELS / f"{model}.inputs.npz")
    out_plain, out_heavy = tmp_path / "plain.npz", tmp_path / "heavy.npz"
    _tool(
        "gedialects.tools.ge_run",
        str(plain),
        "--inputs",
        inputs,
        "-o",
        str(out_plain),
        "-q",
        cwd=ROOT,
    )
    _tool(
        "gedialects.tools.ge_run",
        str(heavy),
        "--inputs",
        inputs,
        "-o",
        str(out_heavy),
        "-q",
        "--reference",
        str(MODELS / f"{model}.expected.npz"),
        cwd=ROOT,
    )
    a, b = np.load(out_plain), np.load(out_heavy)
    assert sorted(a) == sorted(b)
    for key in a:
        np.testing.assert_allclose(b[key], a[key], rtol=1e-5, atol=1e-5)


def _arena(model_text: str) -> int:
    import re

    found = re.search(r"arena_size (\d+)", model_text)
    assert found is not None
    return int(found.group(1))


def test_select_formats_counts_and_folds_weights() -> None:
    text = (
        (MODELS.parent / "lit" / "passes" / "ge-select-formats.mlir")
        .read_text()
        .split("// -----")[0]
    )
    module = _parse(text)
    graph = _graph(module)
    assert select_formats(graph) == 3  # input, weight (folded) and output
    module.verify()
    names = [o.name for o in graph.body.ops]
    assert names.count("graph.trans_data") == 2 and names.count("graph.const") == 1
    const = next(o for o in graph.body.ops if o.name == "graph.const")
    enc = format_of(const.results[0].type)
    assert isinstance(enc, FormatAttr) and enc.fmt == "FRACTAL_Z"


def test_fuse_keeps_numbers_on_storage_format_nodes() -> None:
    """Conv2D + BatchNorm in NC1HWC0 with a folded FRACTAL_Z filter: ge-fuse leaves them (the
    filter's storage bytes are not OIHW weights) and the numbers stay."""
    from gedialects.passes.fusion.fuse import FusePass

    text = """
    graph.graph @g(%x: tensor<1x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
      %w = graph.const dense<[[[[0.5]], [[-1.0]], [[2.0]]], [[[1.0]], [[0.25]], [[-0.5]]],
          [[[1.5]], [[1.0]], [[0.0]]], [[[-2.0]], [[0.5]], [[1.0]]]]> : tensor<4x3x1x1xf32>
      %s = graph.const dense<[1.0, 2.0, 0.5, -1.0]> : tensor<4xf32>
      %o = graph.const dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
      %m = graph.const dense<[0.0, 1.0, -1.0, 0.5]> : tensor<4xf32>
      %v = graph.const dense<[1.0, 4.0, 0.25, 2.0]> : tensor<4xf32>
      %c = graph.conv2d %x, %w strides [1, 1, 1, 1]
          : (tensor<1x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<1x4x4x4xf32>
      %y = graph.batch_norm %c, %s, %o, %m, %v epsilon 1.0e-05
          : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
          -> tensor<1x4x4x4xf32>
      graph.net_output %y : tensor<1x4x4x4xf32>
    }
    """
    x = RNG.standard_normal((1, 3, 4, 4)).astype(np.float32)
    want = next(iter(run(_parse(text), {"x": x}).values()))
    module = _parse(text)
    select_formats(_graph(module))
    FusePass().apply(make_context(), module)
    module.verify()
    assert any(o.name == "graph.batch_norm" for o in module.walk())  # not fused in 5HD
    got = next(iter(run(module, {"x": x}).values()))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_fold_trans_data_keeps_the_numbers() -> None:
    """ge-fold-trans-data on its lit graph: the weights' TransData go, the outputs stay."""
    from gedialects.passes.fold_trans_data import fold_trans_data

    text = (MODELS.parent / "lit" / "passes" / "ge-fold-trans-data.mlir").read_text()
    x = RNG.standard_normal((1, 3, 4, 4)).astype(np.float32)
    want = run(_parse(text), {"x": x})
    module = _parse(text)
    assert fold_trans_data(_graph(module)) == 2
    module.verify()
    assert [o.name for o in module.walk()].count("graph.trans_data") == 2
    got = run(module, {"x": x})
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-6)


@pytest.mark.parametrize("case", [0, 1, 2])
def test_formats_across_subgraph_boundaries_keep_the_numbers(case: int) -> None:
    """ge-select-formats on PartitionedCall / If / While graphs (both If branches taken):
    the interpreter's outputs equal the graph's before selection."""
    from gedialects.passes.select_formats import SelectFormatsPass

    text = (
        (MODELS.parent / "lit" / "pipelines" / "formats-subgraphs.mlir")
        .read_text()
        .split("// -----")[case]
    )
    x = RNG.standard_normal((1, 3, 4, 4)).astype(np.float32)
    feeds: list[dict[str, np.ndarray]] = [{"x": x}]
    if case == 1:
        feeds = [{"p": np.array(v, np.int32), "x": x} for v in (0, 1)]
    module = _parse(text)
    SelectFormatsPass().apply(make_context(), module)
    module.verify()
    assert any(format_of(a.type) for o in module.walk() for a in o.results)
    for inputs in feeds:
        want = run(_parse(text), inputs)
        got = run(module, inputs)
        for key, value in want.items():
            np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("model", ["cnn", "mobilenet_block"])
def test_every_ge_compile_stage_keeps_the_onnxruntime_numbers(model: str) -> None:
    """Each stage of ge-compile (format selection in AI Core's hooks included) run one by
    one, as ge-opt runs them: after every stage the interpreter gives onnxruntime's outputs."""
    from gedialects.frontend.onnx import import_model
    from gedialects.passes.pipelines import CompilePipelinePass, expand_pipelines

    module = import_model(MODELS / f"{model}.onnx")
    inputs = dict(np.load(MODELS / f"{model}.inputs.npz"))
    expected = dict(np.load(MODELS / f"{model}.expected.npz"))
    ctx = make_context()
    names = []
    for stage in expand_pipelines([CompilePipelinePass()]):
        stage.apply(ctx, module)
        module.verify()
        names.append(stage.name)
        got = run(module, inputs)
        assert sorted(got) == sorted(expected), stage.name
        for key, value in expected.items():
            np.testing.assert_allclose(got[key], value, rtol=1e-4, atol=1e-5, err_msg=stage.name)
    assert "ge-optimize-subgraphs" in names and "ge-optimize-whole-graph" in names
    assert "#graph.format<" in str(module)


def test_trans_data_names_follow_the_nodes_they_join() -> None:
    """A TransData is named after its consumer's input, else its producer's output, so the
    names stay unique once engine subgraphs merge back and a gear branch's TransData carry the
    branch's postfix (the symbolic gear compile relies on it); GE's `trans_TransData_<n>` is
    left for an edge between unnamed nodes."""
    text = """
    graph.graph @named(%x: tensor<1x3x4x4xf16>, %w: tensor<8x3x1x1xf16>) -> tensor<1x8x4x4xf16> {
      %c = graph.conv2d %x, %w strides [1, 1, 1, 1] {node_name = "conv_ascend_mbatch_batch_2"}
          : (tensor<1x3x4x4xf16>, tensor<8x3x1x1xf16>) -> tensor<1x8x4x4xf16>
      graph.net_output %c : tensor<1x8x4x4xf16>
    }
    """
    module = Parser(make_context(), text).parse_module()
    (graph,) = [op for op in module.ops if isinstance(op, GraphOp)]
    select_formats(graph, fold_weights=False)
    module.verify()
    names = [
        op.attributes["node_name"].data
        for op in graph.body.ops
        if op.name == "graph.trans_data" and isinstance(op.attributes["node_name"], StringAttr)
    ]
    assert names == [
        "conv_ascend_mbatch_batch_2_TransData_in0",
        "conv_ascend_mbatch_batch_2_TransData_in1",
        "conv_ascend_mbatch_batch_2_TransData_out0",
    ]
