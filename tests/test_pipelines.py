"""Issue 15 part 2: one compile pipeline. The Session, `ge-atc` and `ge-opt -p ge-compile`
build their compilation from `CompilePipelinePass.passes()`, so they give the same stages, the
same IR after each and the same numbers; `--time-passes` reports each stage."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.interpreters.run import run
from gedialects.passes.pipelines import CompilePipelinePass, expand_pipelines
from gedialects.runtime.compile import DYNAMIC_STAGE_SUFFIX, compile_pipeline, stage_key
from gedialects.session import Session
from gedialects.tools import ge_atc, ge_import, ge_opt

MODELS = Path(__file__).parent / "models"

HYBRID_OPTIONS = {
    "ge.inputShape": "tokens:-1,5,32",
    "ge.dynamicDims": "1;3",
    "ge.dynamicNodeType": "1",
    "ge.compileHybridMode": "1",
}

CASES = {
    # name: (model, Session options, ge-atc flags, ge-compile options, input sets)
    "cnn": ("cnn.onnx", {}, [], "", ["cnn.inputs.npz"]),
    "mobilenet-block": (
        "mobilenet_block.onnx",
        {},
        [],
        "",
        ["mobilenet_block.inputs.npz"],
    ),
    "nonzero-dynamic": ("nonzero.onnx", {}, [], "", ["nonzero.inputs.npz"]),
    "transformer-gears-hybrid": (
        "transformer.onnx",
        HYBRID_OPTIONS,
        ["--input_shape=tokens:-1,5,32", "--dynamic_dims=1;3", "--hybrid"],
        'input-shape="tokens:-1,5,32" dynamic-dims="1;3" hybrid=true',
        ["transformer_b3_s5.inputs.npz", "off-gear batch 2"],
    ),
}


def _inputs(spec: str) -> dict[str, np.ndarray]:
    if spec == "off-gear batch 2":
        rng = np.random.default_rng(15)
        return {"tokens": rng.standard_normal((2, 5, 32)).astype(np.float32)}
    with np.load(MODELS / spec) as data:
        return {name: data[name] for name in data.files}


def _parse(path: Path) -> ModuleOp:
    module = Parser(make_context(), path.read_text(), str(path)).parse_module()
    module.verify()
    return module


def _ge_opt(tmp_path: Path, model: str, options: str, *flags: str) -> Path:
    """import -> .mlir -> ge-opt -p ge-compile{options} -> .mlir, as a user runs it."""
    graph, out = tmp_path / "graph.mlir", tmp_path / "compiled.mlir"
    assert ge_import.main([str(MODELS / model), "-o", str(graph)]) == 0
    spec = f"ge-compile{{{options}}}" if options else "ge-compile"
    assert ge_opt.main([str(graph), "-p", spec, "-o", str(out), *flags]) == 0
    return out


@pytest.mark.parametrize("case", list(CASES))
def test_session_ge_atc_and_ge_opt_give_the_same_numbers(case: str, tmp_path: Path) -> None:
    model, options, atc_flags, compile_options, input_sets = CASES[case]
    session = Session(options)
    session.add_graph(0, MODELS / model)
    out = tmp_path / "atc"
    assert ge_atc.main([f"--model={MODELS / model}", f"--output={out}", *atc_flags]) == 0
    atc = _parse(tmp_path / "atc.mlir")
    opt = _parse(_ge_opt(tmp_path, model, compile_options))
    for spec in input_sets:
        inputs = _inputs(spec)
        want = session.run_graph(0, inputs)
        for name, result in (("ge-atc", run(atc, inputs)), ("ge-opt", run(opt, inputs))):
            assert list(result) == list(want), name
            for key in want:
                np.testing.assert_array_equal(result[key], want[key], err_msg=f"{name} {key}")
        if not spec.startswith("off-gear"):
            with np.load(MODELS / spec.replace(".inputs.", ".expected.")) as expected:
                for key in expected.files:
                    np.testing.assert_allclose(want[key], expected[key], rtol=1e-4, atol=1e-4)


def _between(text: str) -> dict[str, str]:
    """`--print-between-passes` output -> stage name -> the IR printed after it."""
    parts = re.split(r"^IR after (\S+):\n", text, flags=re.M)
    out: dict[str, str] = {}
    for name, ir in zip(parts[1::2], parts[2::2], strict=True):
        out[stage_key(name, out)] = ir.rstrip()
    return out


VARIABLE_STAGES = (
    "ge-split-variables-into-subgraphs",
    "ge-prepare-variables",
    "ge-delete-variable-refs",
)


@pytest.mark.parametrize("case", ["cnn", "transformer-gears-hybrid"])
def test_session_stages_are_the_ge_opt_stages(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Session records the IR after each stage of the same pipeline ge-opt runs: same
    names in the same order, the same IR after each (the last one is ge-opt's output)."""
    model, options, _, compile_options, _ = CASES[case]
    session = Session(options)
    session.add_graph(0, MODELS / model)
    stages = session.stages(0)
    # Hybrid mode: the Session compiles the gear graph and the graph without gears apart (two
    # workers, as GE); the gear graph's stages are ge-opt's without `hybrid`, the dynamic
    # graph's the same list without the gear expansion.
    dynamic = [
        k.removesuffix(DYNAMIC_STAGE_SUFFIX) for k in stages if k.endswith(DYNAMIC_STAGE_SUFFIX)
    ]
    stages = {k: v for k, v in stages.items() if not k.endswith(DYNAMIC_STAGE_SUFFIX)}
    if dynamic:
        assert dynamic == [k for k in stages if k not in ("import", "ge-expand-multibatch")]
        compile_options = compile_options.replace(" hybrid=true", "")
    capsys.readouterr()
    out = _ge_opt(tmp_path, model, compile_options, "--print-between-passes")
    printed = _between(capsys.readouterr().out)
    last = next(reversed(stages))
    printed[last] = out.read_text().rstrip()
    session_stages = {k: v.rstrip() for k, v in stages.items() if k != "import"}
    if case == "cnn":  # static: the Session's partition-static=false skips the stage's marks
        assert "ge-partition-dynamic-shape" not in session_stages
        del printed["ge-partition-dynamic-shape"]
        mark = re.compile(r" attributes \{_dynamic_shape_partitioned = false\}")
        printed = {name: mark.sub("", ir) for name, ir in printed.items()}
    # no node has `_stage_level`: the Session skips the stage partition, which changes nothing
    assert "ge-partition-stage" not in session_stages
    assert printed.pop("ge-partition-stage") == printed["ge-optimize-original-graph"]
    # no variables: the Session skips the variable passes, which change nothing
    for name in VARIABLE_STAGES:
        assert name not in session_stages
        names = list(printed)
        assert printed.pop(name) == printed[names[names.index(name) - 1]], name
    assert list(session_stages) == list(printed)
    for name, ir in session_stages.items():
        assert ir == printed[name], name


def test_session_compiles_with_the_ge_compile_stage_list() -> None:
    """`compile_pipeline` maps GE options onto ge-compile; the stages are its passes()."""
    pipeline = compile_pipeline(
        HYBRID_OPTIONS
        | {"ge.exec.disableReuseMemory": "1", "ge.enableSingleStream": "true"}
        | {"ge.streamMaxParallelNum": "AIcoreEngine:2,DNN_VM_AICPU:1"}
    )
    assert isinstance(pipeline, CompilePipelinePass)
    assert not pipeline.hybrid and pipeline.dynamic_dims == "1;3"  # hybrid: compile_graph
    assert not pipeline.memory_reuse and not pipeline.multi_stream
    assert pipeline.max_streams == 3 and not pipeline.partition_static
    names = [p.name for p in expand_pipelines([pipeline])]
    assert names[:2] == ["ge-expand-multibatch", "ge-infer-shapes"]
    assert names[-1] == "ge-plan-memory" and "ge-sink-loop" not in names
    slice_names = [p.name for p in compile_pipeline(HYBRID_OPTIONS, gears=False).passes()]
    assert slice_names == names[1:]


def test_time_passes_reports_each_stage_with_percentages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _ge_opt(tmp_path, "cnn.onnx", "", "--time-passes")
    report = capsys.readouterr().err
    rows = re.findall(r"^\s+(\d+\.\d{4}) \(\s*(\d+\.\d)%\)  (.+)$", report, flags=re.M)
    names = [name for _, _, name in rows]
    keys: dict[str, str] = {}  # a stage that runs twice is `name (2)`
    for p in CompilePipelinePass().passes():
        keys[stage_key(p.name, keys)] = p.name
    stages = list(keys)
    want = ["Parser", "'ge-compile' Pipeline", *(f"  {s}" for s in stages), "Output", "Total"]
    assert names == want
    seconds = {name: float(t) for t, _, name in rows}
    total = seconds["Total"]
    assert total > 0 and rows[-1][1] == "100.0"
    top = seconds["Parser"] + seconds["'ge-compile' Pipeline"] + seconds["Output"]
    assert abs(top - total) < 5e-4 * 3
    assert abs(sum(seconds[f"  {s}"] for s in stages) - seconds["'ge-compile' Pipeline"]) < 5e-3
    assert f"Total Execution Time: {total:.4f} seconds" in report


def test_hybrid_without_gears_is_refused_before_any_stage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph = tmp_path / "graph.mlir"
    assert ge_import.main([str(MODELS / "cnn.onnx"), "-o", str(graph)]) == 0
    assert (
        ge_opt.main([str(graph), "-p", "ge-compile{hybrid=true}", "-o", str(tmp_path / "o")]) == 1
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"{graph}: error: ge-compile: hybrid needs gears: give dynamic-batch-size, "
        "dynamic-image-size or dynamic-dims"
    ]
