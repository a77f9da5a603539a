"""Fusion passes keep the numbers (interpreter before vs after on the lit graphs, the example and
the PyTorch-exported models), cut kernel tasks after ge-compile, are idempotent, and refuse
what is not legal (lossy casts, intermediates with other users)."""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    Float16Type,
    IntegerType,
    ModuleOp,
    Signedness,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import PassFailedException

from gedialects import make_context
from gedialects.base import is_static
from gedialects.frontend.onnx import import_model
from gedialects.graph import GraphOp, ReluOp, TanhOp
from gedialects.graph.elementwise import AddOp, MulOp
from gedialects.interpreters.run import run
from gedialects.passes import get_all_passes
from gedialects.passes.fusion.fuse import FUSIONS, FusePass
from gedialects.passes.fusion.fuse_casts import is_exact_conversion
from gedialects.passes.fusion.matching import ByOpType, RootWorklist, rewrite_with, root_type
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.passes.translation_validation import check_pass_keeps_numbers
from gedialects.tensors import numpy_dtype
from tests.conftest import EXAMPLES, ROOT, parse

LIT = ROOT / "tests" / "lit" / "passes"
MODELS = ROOT / "tests" / "models"
PASS_NAMES = sorted(n for n in get_all_passes() if n.startswith(("ge-fuse", "ge-fold-identity")))


def make_pass(name: str) -> ModulePass:
    return get_all_passes()[name]()()


def lit_file(name: str) -> Path:
    return LIT / f"{name}.mlir"


def lit_cases(name: str) -> list[tuple[str, ModuleOp]]:
    """The splits of a pass's lit file whose graphs can run on random inputs."""
    cases = []
    for chunk in lit_file(name).read_text().split("// -----"):
        module = parse(chunk)
        (graph,) = [op for op in module.ops if isinstance(op, GraphOp)]
        if all(is_static(t) for t in graph.function_type.inputs.data):
            cases.append((graph.sym_name.data, module))
    return cases


def op_counts(module: ModuleOp) -> Counter[str]:
    return Counter(op.name for op in module.walk() if op.name.startswith("graph."))


def kernel_tasks(module: ModuleOp) -> int:
    """Kernel tasks after `ge-compile` without its own fusion stage (so fusion is measured)
    and without format selection (whose TransData count depends on which ops are left)."""
    lowered = module.clone()
    CompilePipelinePass(fusion=False, formats=False).apply(make_context(), lowered)
    return sum(1 for op in lowered.walk() if op.name == "ascend.kernel")


# --------------------------------------------------------------------------------------------
# Numbers before and after each pass
# --------------------------------------------------------------------------------------------


def test_every_fusion_pass_has_a_lit_file() -> None:
    assert PASS_NAMES, "no fusion passes registered"
    for name in PASS_NAMES:
        assert lit_file(name).is_file(), name
    kinds = {n.removeprefix("ge-fuse-").removeprefix("ge-fold-") for n in PASS_NAMES}
    assert kinds - {"ge-fuse"} == set(FUSIONS)


@pytest.mark.parametrize("name", PASS_NAMES)
def test_pass_keeps_the_numbers_of_its_lit_graphs(name: str) -> None:
    """Each runnable case of the pass's lit file computes the same outputs after the pass,
    and at least one of them was rewritten (so the check compared something)."""
    changed = 0
    for case, module in lit_cases(name):
        result = check_pass_keeps_numbers(module, make_pass(name), seeds=(0, 1))
        changed += op_counts(result.after) != op_counts(module)
        assert result.runs == 2, case
    assert changed, f"{name} rewrote none of its lit graphs"


@pytest.mark.parametrize("name", PASS_NAMES)
def test_pass_keeps_the_numbers_of_the_example(name: str) -> None:
    module = parse((EXAMPLES / "conv_block.mlir").read_text())
    check_pass_keeps_numbers(module, make_pass(name))


def test_ge_fuse_on_the_example_cuts_kernel_tasks() -> None:
    module = parse((EXAMPLES / "conv_block.mlir").read_text())
    after = check_pass_keeps_numbers(module, FusePass()).after
    counts = op_counts(after)
    assert counts["graph.fused_conv2d"] == 1 and counts["graph.fused_mul_add"] == 1
    assert counts["graph.batch_norm"] == 1, "conv1 feeds the skip Mul too: bn1 must stay"
    assert kernel_tasks(after) == kernel_tasks(module) - 2


# --------------------------------------------------------------------------------------------
# PyTorch-exported models
# --------------------------------------------------------------------------------------------


def npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


@cache
def static_model(name: str) -> ModuleOp:
    """The model imported with the static input shapes of its recorded inputs."""
    import onnx

    proto = onnx.load(str(MODELS / f"{name}.onnx"))
    inputs = npz(MODELS / f"{name}.inputs.npz")
    for vi in proto.graph.input:
        for dim, size in zip(vi.type.tensor_type.shape.dim, inputs[vi.name].shape, strict=True):
            dim.Clear()
            dim.dim_value = size
    return import_model(proto)


# what ge-fuse must produce in each model (all of them lose kernel tasks)
MODEL_FUSIONS = {
    "cnn": {"graph.fused_conv2d": 2},
    "mlp": {"graph.layer_norm_v3": 1, "graph.gelu": 1, "graph.fused_mat_mul": 1},
    "transformer": {"graph.fused_mat_mul": 1},
    "mobilenet_block": {"graph.fused_conv2d": 2},
}
GONE = ("graph.batch_norm", "graph.erf", "graph.tanh", "graph.hard_sigmoid", "graph.reduce_mean")


@pytest.mark.parametrize("name", sorted(MODEL_FUSIONS))
def test_ge_fuse_on_exported_models(name: str) -> None:
    """ge-fuse keeps onnxruntime's outputs, produces the fused ops, removes the decomposed
    ones, and ge-compile then emits fewer kernel tasks."""
    if not (MODELS / f"{name}.onnx").is_file():
        pytest.skip(f"tests/models/{name}.onnx is not checked in")
    module = static_model(name)
    inputs = npz(MODELS / f"{name}.inputs.npz")
    result = check_pass_keeps_numbers(module, FusePass(), inputs=inputs, seeds=())
    got, want = run(result.after, inputs), npz(MODELS / f"{name}.expected.npz")
    for key, ref in want.items():
        np.testing.assert_allclose(got[key], ref, rtol=1e-4, atol=1e-5, err_msg=key)
    counts = op_counts(result.after)
    for op, count in MODEL_FUSIONS[name].items():
        assert counts[op] >= count, (op, counts)
    assert not any(counts[op] for op in GONE), counts
    before, after = kernel_tasks(module), kernel_tasks(result.after)
    assert after < before, f"{name}: {before} -> {after} kernel tasks"


@pytest.mark.parametrize("name", sorted(MODEL_FUSIONS))
def test_ge_fuse_is_idempotent(name: str) -> None:
    if not (MODELS / f"{name}.onnx").is_file():
        pytest.skip(f"tests/models/{name}.onnx is not checked in")
    once = static_model(name).clone()
    FusePass().apply(make_context(), once)
    twice = once.clone()
    FusePass().apply(make_context(), twice)
    assert str(twice) == str(once)


def test_disabled_kinds_are_left_alone() -> None:
    if not (MODELS / "mobilenet_block.onnx").is_file():
        pytest.skip("tests/models/mobilenet_block.onnx is not checked in")
    module = static_model("mobilenet_block").clone()
    FusePass(disable=("conv-bn", "conv-activation")).apply(make_context(), module)
    counts = op_counts(module)
    assert counts["graph.batch_norm"] == 4 and counts["graph.fused_conv2d"] == 0
    assert counts["graph.hard_swish"] == 1  # hard-swish was not disabled


def test_unknown_kind_is_an_error() -> None:
    with pytest.raises(PassFailedException, match="unknown fusion kind 'relu'"):
        FusePass(disable=("relu",)).apply(make_context(), ModuleOp([]))


# --------------------------------------------------------------------------------------------
# Legality
# --------------------------------------------------------------------------------------------


def all_values(t: Attribute) -> np.ndarray:
    """Every value of a small element type, or a spread of hard cases for the big ones."""
    dtype = numpy_dtype(t)
    if isinstance(t, IntegerType) and t.width.data <= 16:
        info = np.iinfo(dtype) if t.width.data > 1 else None
        if info is None:
            return np.array([False, True])
        return np.arange(info.min, info.max + 1).astype(dtype)
    if isinstance(t, Float16Type):
        return np.arange(2**16, dtype=np.uint16).view(np.float16)
    rng = np.random.default_rng(0)
    if isinstance(t, IntegerType):
        info = np.iinfo(dtype)
        edges = np.array([info.min, info.max, 2**24 + 1, -(2**24) - 1, 0], dtype=np.int64)
        edges = edges[(edges >= info.min) & (edges <= info.max)]
        return np.concatenate([edges, rng.integers(info.min, info.max, 1000)]).astype(dtype)
    special = np.array([0.1, 1 / 3, 65504.0, 1e-8, 3e38, np.inf, -np.inf], dtype=dtype)
    return np.concatenate([special, rng.standard_normal(1000).astype(dtype) * 1e3])


UI8 = IntegerType(8, Signedness.UNSIGNED)
TYPES = [i1, i8, UI8, i16, i32, f16, f32, f64]


@pytest.mark.parametrize("src", TYPES, ids=str)
@pytest.mark.parametrize("dst", TYPES, ids=str)
def test_exact_conversion_table_matches_numpy(src: Attribute, dst: Attribute) -> None:
    """`is_exact_conversion(A, B)` iff numpy's A -> B keeps every A value (all values of the
    small types, hard cases and samples of i32/f32/f64), compared as float64 numbers."""
    values = all_values(src)
    with np.errstate(all="ignore"):
        converted = values.astype(numpy_dtype(dst)).astype(np.float64)
    same = np.array_equal(converted, values.astype(np.float64), equal_nan=True)
    assert same == is_exact_conversion(src, dst), f"{src} -> {dst}: numpy keeps values: {same}"


def test_a_value_used_elsewhere_blocks_the_fusion_that_would_create_a_cycle() -> None:
    """Fusing `m = x * y` into `z = m + relu(m)` would make the fused op read relu(m), which
    reads m, which the fused op computes: a cycle. `m` has another user, so nothing moves."""
    text = """
    graph.graph @g(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
      %m = graph.mul %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %r = graph.relu %m : (tensor<4xf32>) -> tensor<4xf32>
      %z = graph.add %m, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      graph.net_output %z : tensor<4xf32>
    }"""
    module = parse(text)
    after = check_pass_keeps_numbers(module, FusePass()).after
    assert str(after) == str(module)


def test_fused_ops_verify_after_every_pass_on_all_lit_graphs() -> None:
    """Including the cases with unknown dims that cannot run on random inputs."""
    for name in PASS_NAMES:
        for chunk in lit_file(name).read_text().split("// -----"):
            if re.search(r"RUN: not ", chunk):
                continue
            module = parse(chunk)
            make_pass(name).apply(make_context(), module)
            module.verify()


def test_conv_bn_folding_matches_the_formula() -> None:
    """The folded weights and bias of the lit case, computed independently in float64."""
    (_, module) = lit_cases("ge-fuse-conv-bn")[0]
    make_pass("ge-fuse-conv-bn").apply(make_context(), module)
    consts = {
        op.attributes["node_name"].data: op.value
        for op in module.walk()
        if op.name == "graph.const" and "node_name" in op.attributes
    }
    from gedialects.tensors import numpy_from_dense

    s = np.array([1.0, 2.0]) / np.sqrt(np.array([3.0, 0.0]) + 1.0)
    weight = numpy_from_dense(consts["conv/bn_weight"]).reshape(-1)
    bias = numpy_from_dense(consts["conv/bn_bias"])
    np.testing.assert_array_equal(weight, np.array([2.0, 3.0]) * s)
    np.testing.assert_array_equal(bias, (np.array([1.0, -1.0]) - 1.0) * s + [0.5, 0.0])


def test_fused_mat_mul_infers_the_batched_product_type() -> None:
    from gedialects.graph import FusedMatMulOp

    text = """
    graph.graph @g(%a: tensor<3x1x4x8xf32>, %b: tensor<5x16x8xf32>) -> () {
      graph.net_output
    }"""
    module = parse(text)
    (graph,) = module.ops
    a, b = graph.body.block.args
    op = FusedMatMulOp(a, b, activation="relu", adj_x2=True)
    assert str(op.y.type) == "tensor<3x5x4x16xf32>"
    assert op.infer_types() == (op.y.type,)
    op.verify()


# --------------------------------------------------------------------------------------------
# Regression: gelu-overflow (tests/fuzz/regressions/gelu_fusion_differs_where_unfused_gelu_...)
# --------------------------------------------------------------------------------------------

GELU_ERF = """
  %c = graph.const dense<{sqrt2}> : tensor<{t}>
  %a = graph.div %x, %c : (tensor<9x{t}>, tensor<{t}>) -> tensor<9x{t}>
  %f = graph.erf %a : (tensor<9x{t}>) -> tensor<9x{t}>"""
GELU_TANH = """
  %sq = graph.mul %x, %x : (tensor<9x{t}>, tensor<9x{t}>) -> tensor<9x{t}>
  %cube = graph.mul %x, %sq : (tensor<9x{t}>, tensor<9x{t}>) -> tensor<9x{t}>
  %k = graph.const dense<{k}> : tensor<{t}>
  %kc = graph.mul %cube, %k : (tensor<9x{t}>, tensor<{t}>) -> tensor<9x{t}>
  %s = graph.add %x, %kc : (tensor<9x{t}>, tensor<9x{t}>) -> tensor<9x{t}>
  %beta = graph.const dense<{beta}> : tensor<{t}>
  %in = graph.mul %s, %beta : (tensor<9x{t}>, tensor<{t}>) -> tensor<9x{t}>
  %f = graph.tanh %in : (tensor<9x{t}>) -> tensor<9x{t}>"""
GELU_OUTER = """
  %one = graph.const dense<1.0> : tensor<{t}>
  %b = graph.add %f, %one : (tensor<9x{t}>, tensor<{t}>) -> tensor<9x{t}>
  %m = graph.mul %x, %b : (tensor<9x{t}>, tensor<9x{t}>) -> tensor<9x{t}>
  %half = graph.const dense<0.5> : tensor<{t}>
  %y = graph.mul %m, %half : (tensor<9x{t}>, tensor<{t}>) -> tensor<9x{t}>
  graph.net_output %y : tensor<9x{t}>
}}"""


@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])  # f16 constants never match
def test_gelu_fusion_keeps_overflow_of_the_unfused_gelu_near_the_float_limit(
    dtype: type[np.floating], approximate: str
) -> None:
    """The fused Gelu overflows, gives inf and NaN exactly where the exported ops do: before
    the fix it computed `0.5 * x` first (and in float64), finite where `x * (1 + erf)` is inf."""
    t = {np.float32: "f32", np.float64: "f64"}[dtype]
    d = np.dtype(dtype)
    consts = {
        "t": t,
        "sqrt2": repr(float(d.type(np.sqrt(2)))),
        "k": repr(float(d.type(0.044715))),
        "beta": repr(float(d.type(np.sqrt(2 / np.pi)))),
    }
    body = (GELU_ERF if approximate == "none" else GELU_TANH) + GELU_OUTER
    text = f"graph.graph @gelu(%x: tensor<9x{t}>) -> tensor<9x{t}> {{" + body.format(**consts)
    module = parse(f"builtin.module {{\n{text}\n}}")
    big = float(np.finfo(d).max)
    x = np.array([big, -big, big * 0.6, big * 0.49, np.inf, -np.inf, np.nan, -13.0, 1.5], dtype=d)
    result = check_pass_keeps_numbers(module, make_pass("ge-fuse-gelu"), inputs={"x": x}, seeds=())
    assert op_counts(result.after)["graph.gelu"] == 1
    (got,), (want,) = run(result.after, {"x": x}).values(), run(module, {"x": x}).values()
    assert got.dtype == d and np.array_equal(got, want, equal_nan=True), (got, want)
    assert np.isinf(want[[0, 2]]).all() and np.isfinite(want[3]), want  # x * 2 overflowed


def test_fusion_applier_offers_an_op_only_its_own_type_s_patterns_in_order() -> None:
    """`ByOpType` (rewrite_with's applier) skips exactly the patterns whose isinstance check
    would return (their root type, read from `@op_type_rewrite_pattern`), tries the others in
    the list's order and stops at the first that rewrites; untyped patterns see every op."""
    seen: list[tuple[str, str]] = []

    class OnAdd(RewritePattern):
        @op_type_rewrite_pattern
        def match_and_rewrite(self, op: AddOp, rewriter: PatternRewriter) -> None:
            seen.append(("add", op.name))

    class OnMul(RewritePattern):
        @op_type_rewrite_pattern
        def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
            seen.append(("mul", op.name))

    class Any(RewritePattern):
        def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
            seen.append(("any", op.name))

    assert root_type(OnAdd()) is AddOp and root_type(OnMul()) is MulOp
    assert root_type(Any()) is None
    for kind, make in FUSIONS.items():  # every fusion pattern is typed or tried on every op
        for p in make():
            root = root_type(p)
            roots = root if isinstance(root, tuple) else () if root is None else (root,)
            assert all(issubclass(r, Operation) for r in roots), kind
    module = parse(
        "builtin.module {\n"
        "graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %a = graph.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
        "  %m = graph.mul %a, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
        "  graph.net_output %m : tensor<2xf32>\n"
        "}\n}"
    )
    on_mul, any_op, on_add = OnMul(), Any(), OnAdd()
    applier = ByOpType([on_mul, any_op, on_add])
    PatternRewriteWalker(applier).rewrite_module(module)
    assert applier.by_type[AddOp] == [any_op, on_add]
    assert applier.by_type[MulOp] == [on_mul, any_op]
    adds = [s for s in seen if s[1] == "graph.add"]
    muls = [s for s in seen if s[1] == "graph.mul"]
    assert adds == [("any", "graph.add"), ("add", "graph.add")]
    assert muls == [("mul", "graph.mul"), ("any", "graph.mul")]


def test_rewrite_with_offers_patterns_only_the_ops_they_root_at() -> None:
    """`rewrite_with`'s worklist (`RootWorklist`) drops the ops no pattern roots at: a pattern
    with `ROOTS` sees its types only, and the walker still reaches every op of those types
    (the IR and the rewrites are what xDSL's own worklist gives)."""
    seen: list[str] = []

    class OnMulOrAdd(RewritePattern):
        ROOTS = (MulOp, AddOp)

        def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
            seen.append(op.name)

    module = parse(
        "builtin.module {\n"
        "graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %a = graph.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
        "  %r = graph.relu %a : (tensor<2xf32>) -> tensor<2xf32>\n"
        "  %m = graph.mul %r, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
        "  graph.net_output %m : tensor<2xf32>\n"
        "}\n}"
    )
    pattern = OnMulOrAdd()
    assert root_type(pattern) == (MulOp, AddOp)
    worklist = RootWorklist(ByOpType([pattern]))
    for op in module.walk(reverse=True):  # as the walker fills it: popped in block order
        worklist.push(op)
    kept: list[str] = []
    while worklist:
        kept.append(worklist.pop().name)
    assert kept == ["graph.add", "graph.mul"]
    rewrite_with(module, [pattern])
    assert seen == ["graph.add", "graph.mul"]


def test_anchored_pattern_sits_out_until_a_rewrite_makes_its_anchor() -> None:
    """A pattern with `ANCHORS` is not tried on a module without one of them (`ByOpType`),
    and is tried again as soon as another pattern's rewrite makes one: the walk still ends
    at a fixed point of all the patterns."""
    tried: list[str] = []

    class ReluToTanh(RewritePattern):
        @op_type_rewrite_pattern
        def match_and_rewrite(self, op: ReluOp, rewriter: PatternRewriter) -> None:
            rewriter.replace_matched_op(TanhOp(op.x))

    class MulOfTanhToAdd(RewritePattern):
        ANCHORS = (TanhOp,)

        @op_type_rewrite_pattern
        def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
            tried.append(op.name)
            if isinstance(op.x1.owner, TanhOp):
                rewriter.replace_matched_op(AddOp(op.x1, op.x2))

    def module(activation: str) -> ModuleOp:
        return parse(
            "builtin.module {\n"
            "graph.graph @g(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
            f"  %r = graph.{activation} %x : (tensor<2xf32>) -> tensor<2xf32>\n"
            "  %m = graph.mul %r, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>\n"
            "  graph.net_output %m : tensor<2xf32>\n"
            "}\n}"
        )

    still = module("sigmoid")
    rewrite_with(still, [ReluToTanh(), MulOfTanhToAdd()])
    assert tried == [] and op_counts(still)["graph.mul"] == 1  # no Tanh: never tried
    woken = module("relu")
    rewrite_with(woken, [ReluToTanh(), MulOfTanhToAdd()])
    counts = op_counts(woken)
    assert tried and counts["graph.tanh"] == 1 and counts["graph.add"] == 1, counts
    assert counts["graph.mul"] == 0 and counts["graph.relu"] == 0, counts
