"""FE's trans-node chain (issue 18): Reshape / TransposeD / Cast / TransData in GE's order,
the numbers before and after `ge-select-formats` (graph level and compiled), and the
elimination passes on the new kinds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType, f16, f32, i8
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.formats import with_format
from gedialects.interpreters.run import run
from gedialects.passes.trans_nodes import trans_steps

ROOT = Path(__file__).resolve().parent.parent
LIT = ROOT / "tests" / "lit" / "passes"
RNG = np.random.default_rng(1819)


def _parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def _t(elem: object, shape: tuple[int, ...], fmt: str = "", origin: str = "NCHW") -> TensorType:
    t = TensorType(elem, shape)  # pyright: ignore[reportArgumentType]
    if fmt:
        stored = with_format(t, fmt, origin)
        assert isinstance(stored, TensorType)
        return stored
    return t


# --------------------------------------------------------------------------------------------
# The chain: GE's order
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src", "dst", "kinds"),
    [
        # towards a heavy format: Reshape -> (TransposeD) -> Cast -> TransData
        (_t(f32, (2, 20, 5)), _t(f16, (2, 20, 5, 1), "NC1HWC0"), ["Reshape", "Cast", "TransData"]),
        (_t(f32, (1, 3, 4, 4)), _t(f16, (1, 3, 4, 4), "NC1HWC0"), ["Cast", "TransData"]),
        # a widening Cast runs after the TransData (IsInsertCastFirst), C0 16 on both sides
        (_t(f16, (1, 3, 4, 4)), _t(f32, (1, 3, 4, 4), "NC1HWC0"), ["TransData", "Cast"]),
        # ... but not where C0 changes (int8's 32): the Cast stays on the origin tensor
        (_t(f16, (1, 3, 4, 4)), _t(i8, (1, 3, 4, 4), "NC1HWC0"), ["Cast", "TransData"]),
        (_t(i8, (1, 3, 4, 4)), _t(f16, (1, 3, 4, 4), "NC1HWC0"), ["Cast", "TransData"]),
        # back: TransData -> Cast -> Reshape
        (_t(f16, (2, 20, 5, 1), "NC1HWC0"), _t(f32, (2, 20, 5)), ["TransData", "Reshape", "Cast"]),
        (_t(f32, (2, 20, 1, 1), "NC1HWC0"), _t(f16, (2, 20)), ["Cast", "TransData", "Reshape"]),
        # NCHW <-> NHWC storage of one tensor: a TransposeD, not a TransData
        (_t(f32, (1, 3, 4, 4)), _t(f32, (1, 3, 4, 4), "NHWC"), ["TransposeD"]),
        (_t(f32, (1, 3, 4, 4), "NHWC"), _t(f32, (1, 3, 4, 4)), ["TransposeD"]),
        (_t(f32, (1, 3, 4, 4), "NHWC"), _t(f16, (1, 3, 4, 4)), ["Cast", "TransposeD"]),
        (
            _t(f32, (1, 3, 4, 4), "NHWC"),
            _t(f32, (1, 3, 4, 4), "NC1HWC0"),
            ["TransposeD", "TransData"],
        ),
        # two heavy formats: current -> original, original -> current
        (
            _t(f32, (1, 3, 4, 4), "NC1HWC0"),
            _t(f32, (1, 3, 4, 4), "FRACTAL_Z"),
            ["TransData", "TransData"],
        ),
        # one storage, another dtype: one Cast
        (_t(f32, (1, 3, 4, 4), "NC1HWC0"), _t(f16, (1, 3, 4, 4), "NC1HWC0"), ["Cast"]),
        (_t(f32, (2, 3)), _t(f32, (2, 3)), []),
    ],
)
def test_trans_steps_follow_ge_insertion_order(
    src: TensorType, dst: TensorType, kinds: list[str]
) -> None:
    steps = trans_steps(src, dst, "NCHW")
    assert [s.kind for s in steps] == kinds
    if steps:
        assert steps[-1].result == dst


def test_trans_steps_refuse_other_element_counts() -> None:
    with pytest.raises(ValueError, match="element counts differ"):
        trans_steps(_t(f32, (2, 3, 5)), _t(f32, (2, 3, 4, 1), "NC1HWC0"), "NCHW")


# --------------------------------------------------------------------------------------------
# Numbers: before and after ge-select-formats, eliminated, compiled
# --------------------------------------------------------------------------------------------

CASES = {
    "force_fp16": {"x": (1, 3, 4, 4)},
    "batch_norm_ranks": {"x": (2, 20, 5), "v": (2, 20)},
    "user_nhwc": {"x": (1, 3, 4, 4)},
}


def _case_text(name: str) -> str:
    chunks = (LIT / "ge-select-formats.mlir").read_text().split("// -----")
    (text,) = [c for c in chunks if f"graph.graph @{name}(" in c]
    return text


def _feeds(name: str) -> dict[str, np.ndarray]:
    return {k: RNG.standard_normal(s).astype(np.float32) for k, s in CASES[name].items()}


def _eliminate(module: ModuleOp) -> None:
    from gedialects.passes.eliminate_trans_op_symmetry import EliminateTransOpSymmetryPass
    from gedialects.passes.merge_trans_op_breadth import MergeTransOpBreadthPass
    from gedialects.passes.merge_trans_op_depth import MergeTransOpDepthPass

    ctx = make_context()
    for p in (MergeTransOpBreadthPass(), EliminateTransOpSymmetryPass(), MergeTransOpDepthPass()):
        p.apply(ctx, module)
    module.verify()


def _kinds(module: ModuleOp) -> dict[str, int]:
    names = [o.name for o in module.walk()]
    return {k: names.count(f"graph.{k}") for k in ("trans_data", "cast", "transpose", "reshape")}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("mode", ["allow_fp32_to_fp16", "force_fp16"])
def test_select_formats_keeps_the_numbers(name: str, mode: str) -> None:
    """The interpreter's outputs after selection equal the graph's: exactly when no dtype
    changes, within float16 rounding under force_fp16; elimination changes nothing more."""
    from gedialects.passes.select_formats import SelectFormatsPass

    text = _case_text(name)
    feeds = _feeds(name)
    want = run(_parse(text), feeds)
    module = _parse(text)
    SelectFormatsPass(precision_mode=mode).apply(make_context(), module)
    module.verify()
    kinds = _kinds(module)
    assert kinds["trans_data"] > 0
    assert (kinds["cast"] > 0) == (mode == "force_fp16")
    assert (kinds["reshape"] > 0) == (name == "batch_norm_ranks")
    assert (kinds["transpose"] > 0) == (name == "user_nhwc")
    got = run(module, feeds)
    for key, value in want.items():
        assert got[key].dtype == value.dtype
        if mode == "force_fp16":
            np.testing.assert_allclose(got[key], value, rtol=2e-3, atol=2e-3)
        else:
            np.testing.assert_array_equal(got[key], value)
    _eliminate(module)
    again = run(module, feeds)
    for key, value in got.items():
        np.testing.assert_array_equal(again[key], value)


def _tool(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize(
    ("name", "pipeline"),
    [
        ("force_fp16", "ge-compile{precision-mode=force_fp16}"),
        ("batch_norm_ranks", "ge-compile"),
        ("batch_norm_ranks", "ge-compile{precision-mode=force_fp16}"),
        # a user storage format is read by ge-select-formats on the root graph's inputs
        ("user_nhwc", "ge-select-formats,ge-compile"),
    ],
)
def test_compiled_trans_nodes_give_the_graph_numbers(
    name: str, pipeline: str, tmp_path: Path
) -> None:
    """.mlir -> ge-opt -> .mlir -> ge-run: the compiled model (its Cast, Reshape,
    TransposeD and TransData tasks) gives the graph's outputs."""
    src = tmp_path / f"{name}.mlir"
    src.write_text(_case_text(name))
    out = tmp_path / "compiled.mlir"
    _tool("gedialects.tools.ge_opt", str(src), "-p", pipeline, "-o", str(out))
    text = out.read_text()
    kernels = {k: text.count(f'ascend.kernel "{k}"') for k in ("Cast", "Reshape", "Transpose")}
    if "force_fp16" in pipeline:
        assert kernels["Cast"] > 0
    if name == "batch_norm_ranks":
        assert kernels["Reshape"] > 0 or 'ascend.kernel "TransData"' in text
    if name == "user_nhwc":
        assert kernels["Transpose"] == 1  # the two readers' TransposeD merged (breadth)
    inputs = tmp_path / "in.npz"
    feeds: dict[str, np.ndarray] = _feeds(name)
    np.savez(str(inputs), **feeds)  # pyright: ignore[reportArgumentType]
    want, got = tmp_path / "want.npz", tmp_path / "got.npz"
    _tool("gedialects.tools.ge_run", str(src), "--inputs", str(inputs), "-o", str(want), "-q")
    _tool("gedialects.tools.ge_run", str(out), "--inputs", str(inputs), "-o", str(got), "-q")
    a, b = np.load(want), np.load(got)
    tol = 2e-3 if "force_fp16" in pipeline else 1e-6
    for key in a:
        np.testing.assert_allclose(b[key], a[key], rtol=tol, atol=tol)


# --------------------------------------------------------------------------------------------
# Elimination on the new kinds
# --------------------------------------------------------------------------------------------


def test_symmetry_cancels_the_new_kinds_where_exact() -> None:
    """TransposeD and Reshape round trips go, an exact Cast pair (f16 -> f32 -> f16) goes,
    f32 -> f16 -> f32 stays (it rounds), and the numbers are those of the graph."""
    from gedialects.passes.eliminate_trans_op_symmetry import eliminate_symmetry

    text = (LIT / "ge-eliminate-trans-op-symmetry.mlir").read_text()
    chunks = [c for c in text.split("// -----") if "@new_kinds" in c]
    (chunk,) = chunks
    feeds = {
        "x": RNG.standard_normal((1, 3, 4, 4)).astype(np.float32),
        "h": RNG.standard_normal((2, 20, 5)).astype(np.float16),
    }
    want = run(_parse(chunk), feeds)
    module = _parse(chunk)
    graph = next(o for o in module.walk() if o.name == "graph.graph")
    from gedialects.graph import GraphOp

    assert isinstance(graph, GraphOp)
    assert eliminate_symmetry(graph) == 6
    module.verify()
    assert _kinds(module) == {"trans_data": 0, "cast": 2, "transpose": 0, "reshape": 0}
    assert not any(o.name == "graph.const" for o in module.walk())  # shape Consts gone
    got = run(module, feeds)
    for key, value in want.items():
        np.testing.assert_array_equal(got[key], value)


def test_fold_trans_data_folds_a_weight_chain() -> None:
    """ge-fold-trans-data on its chain lit graph: the weight's Cast and TransData fold into
    one Const, the Cast of a Const read elsewhere stays, and the outputs stay."""
    from gedialects.graph import GraphOp
    from gedialects.passes.fold_trans_data import fold_trans_data

    text = (LIT / "ge-fold-trans-data-chain.mlir").read_text()
    feeds = {"x": RNG.standard_normal((1, 3, 4, 4)).astype(np.float16)}
    want = run(_parse(text), feeds)
    module = _parse(text)
    graph = next(o for o in module.walk() if isinstance(o, GraphOp))
    assert fold_trans_data(graph) == 2
    module.verify()
    assert _kinds(module)["cast"] == 1
    got = run(module, feeds)
    for key, value in want.items():
        np.testing.assert_array_equal(got[key], value)


def test_corpus_cnn_under_force_fp16_gives_onnxruntime_numbers(tmp_path: Path) -> None:
    """cnn.onnx -> ge-import -> ge-opt ge-compile{precision-mode=force_fp16} -> ge-run: the
    heavy ops in float16 (Cast tasks in the model) give onnxruntime's outputs to float16
    precision."""
    models = ROOT / "tests" / "models"
    imported, compiled = tmp_path / "cnn.mlir", tmp_path / "cnn.compiled.mlir"
    _tool("gedialects.tools.ge_import", str(models / "cnn.onnx"), "-o", str(imported))
    pipeline = "ge-compile{precision-mode=force_fp16}"
    _tool("gedialects.tools.ge_opt", str(imported), "-p", pipeline, "-o", str(compiled))
    text = compiled.read_text()
    assert 'ascend.kernel "Cast"' in text and "xf16, #graph.format<NC1HWC0" in text
    out = tmp_path / "out.npz"
    inputs = str(models / "cnn.inputs.npz")
    _tool("gedialects.tools.ge_run", str(compiled), "--inputs", inputs, "-o", str(out), "-q")
    got, want = np.load(out), np.load(models / "cnn.expected.npz")
    assert sorted(got) == sorted(want)
    for key in want:
        scale = float(np.abs(want[key]).max()) or 1.0
        np.testing.assert_allclose(got[key], want[key], rtol=1e-2, atol=1e-2 * scale)


def test_symmetry_keeps_a_reshape_pair_on_dynamic_dims() -> None:
    """Review finding: with `?` dims equal types are not equal shapes, so the pair stays and
    the second Reshape's run-time shape still decides the result ([2, 12] -> [3, 8])."""
    from gedialects.graph import GraphOp
    from gedialects.passes.eliminate_trans_op_symmetry import eliminate_symmetry

    text = (LIT / "ge-eliminate-trans-op-symmetry.mlir").read_text()
    (chunk,) = [c for c in text.split("// -----") if "@dynamic_reshapes" in c]
    feeds = {"x": np.arange(24, dtype=np.float32).reshape(2, 12), "s": np.array([3, 8])}
    module = _parse(chunk)
    graph = next(o for o in module.walk() if isinstance(o, GraphOp))
    assert eliminate_symmetry(graph) == 0
    (got,) = run(module, feeds).values()
    np.testing.assert_array_equal(got, feeds["x"].reshape(3, 8))
