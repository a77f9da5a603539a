"""Control flow at the ascend level (issue 17 part 5): GE's label makers for known shapes, the
hybrid CONTROL_OP task for unknown ones; numbers before and after ge-compile, under random
stream schedules and the uninitialised-memory check, in both executors; memory across back
edges; ge-sink-loop around a model with loops; ONNX backend If/Loop/Scan cases compiled."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from gedialects import make_context
from gedialects.ascend import (
    DynamicControlOp,
    EventRecordOp,
    LabelSetOp,
    LabelSwitchByIndexOp,
    ModelOp,
    StreamActiveOp,
)
from gedialects.frontend.onnx import import_model
from gedialects.interpreters import make_interpreter
from gedialects.interpreters.ascend.compiled import PLAIN
from gedialects.interpreters.ascend.functions import program_for
from gedialects.interpreters.run import RunError, run, run_entry
from gedialects.passes.analysis.task_graph import TaskGraph
from gedialects.passes.pipelines import CompilePipelinePass
from gedialects.passes.verify_model import check_memory
from tests.conftest import ROOT, parse, run_tool
from tests.test_compiled_executor import both
from tests.test_control_flow import COND_BODY, IF_WHILE, X, _for, _main
from tests.test_control_flow_models import MODELS
from tests.test_models import assert_outputs_match, expected_of, inputs_of
from tests.test_partition_control_flow import MODEL_CASES

SEEDS = (None, 1, 7, 2024)


def compile_module(text: str, **options: object) -> ModuleOp:
    module = parse(text)
    CompilePipelinePass(**options).apply(make_context(), module)  # type: ignore[arg-type]
    module.verify()
    return module


def same_everywhere(text: str, inputs: Mapping[str, np.ndarray], **options: object) -> ModuleOp:
    """The graph level's outputs equal the compiled model's, in both executors, under several
    schedules and with the uninitialised-memory check; the plan passes ge-verify-model."""
    expected = run(parse(text), inputs, entry="main")
    module = compile_module(text, **options)
    model = next(m for m in module.ops if isinstance(m, ModelOp) and m.sym_name.data == "main")
    check_memory(model)
    for seed in SEEDS:
        for compiled in (True, False):
            got = run_entry(
                module,
                inputs,
                entry="main",
                schedule_seed=seed,
                check_uninitialized=True,
                compiled=compiled,
            ).outputs
            assert got.keys() == expected.keys()
            for name, value in expected.items():
                np.testing.assert_array_equal(got[name], value, err_msg=f"{name} seed {seed}")
    return module


def _main_model_of(module: ModuleOp) -> ModelOp:
    """The root model of an imported ONNX model (named after its graph)."""
    called = {
        name
        for m in module.ops
        if isinstance(m, ModelOp)
        for t in m.tasks()
        if isinstance(t, DynamicControlOp)
        for attr in DynamicControlOp.SUBGRAPHS[t.kernel.data]
        for name in t.subgraph(attr)
    }
    return next(m for m in module.ops if isinstance(m, ModelOp) and m.sym_name.data not in called)


def _main_model(module: ModuleOp) -> ModelOp:
    return next(m for m in module.ops if isinstance(m, ModelOp) and m.sym_name.data == "main")


@pytest.mark.parametrize("cond", [True, False])
@pytest.mark.parametrize("start", [0, 2, 5])
def test_if_and_while_compiled_match_graph_level(cond: bool, start: int) -> None:
    inputs = {"i": np.array(start, np.int32), "x": X, "c": np.array(cond)}
    module = same_everywhere(IF_WHILE, inputs)
    switches = [t for t in _main_model(module).tasks() if isinstance(t, LabelSwitchByIndexOp)]
    assert [list(t.labels.get_values()) for t in switches] == [[1, 0], [5, 4]]


@pytest.mark.parametrize(("start", "limit", "delta"), [(0, 5, 1), (5, 0, -2), (1, 1, 1), (0, 7, 3)])
def test_for_compiled_matches_graph_level(start: int, limit: int, delta: int) -> None:
    same_everywhere(_for(start, limit, delta), {"x": X})


def test_single_stream_and_no_reuse_variants_match() -> None:
    inputs = {"i": np.array(1, np.int32), "x": X, "c": np.array(True)}
    same_everywhere(IF_WHILE, inputs, multi_stream=False)
    same_everywhere(IF_WHILE, inputs, memory_reuse=False)


# A body with temporaries and a carried value read at its very end: any reuse of the carried
# bytes inside the loop would change the numbers (the loop runs several times).
LIVE = (
    _main(
        """
  %r, %y, %keep = graph.while %i, %x, %x cond @cond body @live
      : (tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>)
  graph.net_output %y, %keep : tensor<2xf32>, tensor<2xf32>""",
        "%i: tensor<i32>, %x: tensor<2xf32>",
        "tensor<2xf32>, tensor<2xf32>",
    ).replace(
        "graph.graph @cond(%i: tensor<i32>, %x: tensor<2xf32>)",
        "graph.graph @cond(%i: tensor<i32>, %x: tensor<2xf32>, %k: tensor<2xf32>)",
    )
    + """
graph.graph @live(%i: tensor<i32>, %x: tensor<2xf32>, %k: tensor<2xf32>)
    -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %a = graph.exp %x : (tensor<2xf32>) -> tensor<2xf32>
  %b = graph.neg %a : (tensor<2xf32>) -> tensor<2xf32>
  %c = graph.relu %b : (tensor<2xf32>) -> tensor<2xf32>
  %d = graph.add %c, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %e = graph.mul %d, %k : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %j, %e, %k : tensor<i32>, tensor<2xf32>, tensor<2xf32>
}
"""
)


def test_value_live_around_the_back_edge_is_never_reused_inside_the_loop() -> None:
    module = same_everywhere(LIVE.replace("@cond", "@cond3"), {"i": np.array(0, np.int32), "x": X})
    model = _main_model(module)
    graph = TaskGraph.of(model)
    (loop,) = [s for s in graph.spans if s.loop]
    inside = range(loop.first_pos, loop.last_pos + 1)
    # every buffer the loop touches: no two of different values share bytes
    touched = {
        (b.offset_value, b.nbytes) for p in inside for b in (*graph.reads[p], *graph.writes[p])
    }
    weight = model.weight_size.value.data
    ranges = sorted(r for r in touched if r[0] >= weight)
    for (a, n), (b, _) in itertools.pairwise(ranges):
        assert a + n <= b or a == b, f"loop buffers [{a}, {a + n}) and [{b}, ...) overlap"


def test_sink_loop_around_a_model_with_loops() -> None:
    """ge-sink-loop adds its own loop around the While's (labels after the model's own)."""
    inputs = {"i": np.array(0, np.int32), "x": X, "c": np.array(False)}
    module = same_everywhere(IF_WHILE, inputs, iterations_per_loop=3)
    model = _main_model(module)
    assert model.attributes["iterations_per_loop"].value.data == 3  # type: ignore[union-attr]
    labels = {label for t in model.tasks() for label in t.effects().labels}
    assert model.attributes["label_num"].value.data == max(labels) + 1  # type: ignore[union-attr]


def test_raw_int32_cond_other_than_one_reads_as_true_when_compiled() -> None:
    """An int32 cond GE's CondPass keeps as it is: 5 and -1 select then, as at graph level."""
    text = _main(
        """
  %a = graph.if %c, %x then_branch @then else_branch @else
      : (tensor<i32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %a : tensor<2xf32>""",
        "%x: tensor<2xf32>, %c: tensor<i32>",
        "tensor<2xf32>",
    )
    for c in (5, -1, 0, 1):
        same_everywhere(text, {"x": X, "c": np.array(c, np.int32)})


# --------------------------------------------------------------------------------------------
# Unknown shapes: GE's hybrid CONTROL_OP task, the subgraphs as models of dynamic tasks
# --------------------------------------------------------------------------------------------

DYNAMIC = (
    COND_BODY.replace("2xf32", "?xf32")
    + """
graph.graph @main(%i: tensor<i32>, %x: tensor<?xf32>, %c: tensor<i1>)
    -> (tensor<i32> {node_name = "n"}, tensor<?xf32> {node_name = "w"}) {
  %a = graph.if %c, %x then_branch @then else_branch @else
      : (tensor<i1>, tensor<?xf32>) -> tensor<?xf32>
  %r, %y = graph.while %i, %a cond @cond body @body
      : (tensor<i32>, tensor<?xf32>) -> (tensor<i32>, tensor<?xf32>)
  graph.net_output %r, %y : tensor<i32>, tensor<?xf32>
}
"""
)


@pytest.mark.parametrize("length", [1, 3])
@pytest.mark.parametrize("cond", [True, False])
def test_unknown_shape_control_flow_runs_as_dynamic_control_tasks(length: int, cond: bool) -> None:
    x = np.linspace(-1, 1, length).astype(np.float32)
    inputs = {"i": np.array(1, np.int32), "x": x, "c": np.array(cond)}
    module = same_everywhere(DYNAMIC, inputs)
    tasks = [t for t in _main_model(module).tasks() if isinstance(t, DynamicControlOp)]
    assert [t.kernel.data for t in tasks] == ["If", "While"]
    models = {m.sym_name.data for m in module.ops if isinstance(m, ModelOp)}
    assert {"then", "else", "cond", "body"} <= models


def test_dynamic_while_over_the_loop_bound_is_a_one_line_error() -> None:
    module = compile_module(DYNAMIC)
    inputs = {"i": np.array(0, np.int32), "x": X, "c": np.array(True)}
    with pytest.raises(RunError, match="ran more than 1 iterations") as info:
        run_entry(module, inputs, entry="main", max_loop_iterations=1)
    assert "\n" not in str(info.value).strip()


def test_dynamic_control_through_the_tools(tmp_path: Path) -> None:
    """ge-opt -p ge-compile -> .mlir -> ge-run, as processes, on the unknown-shape model."""
    (tmp_path / "g.mlir").write_text(DYNAMIC)
    np.savez(tmp_path / "in.npz", i=np.array(0, np.int32), x=X, c=np.array(False))
    steps = [
        ("ge-opt", str(tmp_path / "g.mlir"), "-p", "ge-compile", "-o", str(tmp_path / "c.mlir")),
        ("ge-run", str(tmp_path / "c.mlir"), "--entry", "main", "--inputs",
         str(tmp_path / "in.npz"), "-q", "-o", str(tmp_path / "out.npz"),
         "--check-uninitialized", "--schedule-seed", "9"),
    ]  # fmt: skip
    for step in steps:
        done = run_tool(*step)
        assert done.returncode == 0, done.stderr
    out = np.load(tmp_path / "out.npz")
    np.testing.assert_array_equal(out["w"], -X * 8)
    assert 'ascend.dynamic_control "While"' in (tmp_path / "c.mlir").read_text()


# --------------------------------------------------------------------------------------------
# ONNX backend If / Loop / Scan cases, compiled (docs/onnx.md lists them)
# --------------------------------------------------------------------------------------------


def _docs_table() -> dict[str, tuple[str, str, str]]:
    """docs/onnx.md's status table of the If / Loop / Scan / Range backend cases: case ->
    (op, graph level, compiled)."""
    text = (ROOT / "docs" / "onnx.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`test_") and cells[1] in CONTROL_OPS:
            rows[cells[0].strip("`")] = (cells[1], cells[2], cells[3])
    return rows


CONTROL_OPS = ("If", "Loop", "Scan", "Range")
DOCS_TABLE = _docs_table()


def test_docs_table_lists_every_control_flow_backend_case() -> None:
    import gedialects.tools.onnx_conformance as oc

    cases = {c.name: c.op for c in oc.load_cases() if c.op in CONTROL_OPS}
    assert {name: row[0] for name, row in DOCS_TABLE.items()} == cases


@pytest.mark.parametrize("name", sorted(DOCS_TABLE))
def test_onnx_backend_control_flow_case_has_its_docs_status(name: str) -> None:
    """Each case passes at graph level and after ge-compile, or is skipped, as the table in
    docs/onnx.md says."""
    import gedialects.tools.onnx_conformance as oc

    (case,) = [c for c in oc.load_cases([name]) if c.name == name]
    result = oc.run_case(case, compile_too=True)
    _, graph_level, compiled = DOCS_TABLE[name]
    assert graph_level == compiled, "a case the npz contract carries passes in both modes"
    assert result.status == {"pass": "PASS", "skip": "SKIP"}[compiled], result.detail


def test_onnx_loop_case_through_files_compiled() -> None:
    """ge-import -> ge-opt -p ge-compile -> ge-run through files (the tools' main in process)."""
    import gedialects.tools.onnx_conformance as oc

    (case,) = [c for c in oc.load_cases(["test_loop11"]) if c.name == "test_loop11"]
    result = oc.run_case(case, compile_too=True, files="main")
    assert result.status == "PASS", result.detail


def _parallel_branch(name: str, op: str) -> str:
    t = "tensor<64x64xf32>"
    return f"""
graph.graph @{name}(%x: {t}, %w: {t}) -> {t} {{
  %a = graph.matmul %x, %w : ({t}, {t}) -> {t}
  %b = graph.matmul %w, %x : ({t}, {t}) -> {t}
  %c = graph.{op} %a : ({t}) -> {t}
  %d = graph.{op} %b : ({t}) -> {t}
  %e = graph.add %c, %d : ({t}, {t}) -> {t}
  graph.net_output %e : {t}
}}"""


PARALLEL_IF = (
    _parallel_branch("then", "relu")
    + _parallel_branch("else", "neg")
    + """
graph.graph @main(%c: tensor<i1>, %x: tensor<64x64xf32>, %w: tensor<64x64xf32>)
    -> tensor<64x64xf32> {
  %r = graph.if %c, %x, %w then_branch @then else_branch @else
      : (tensor<i1>, tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  graph.net_output %r : tensor<64x64xf32>
}"""
)


@pytest.mark.parametrize("cond", [True, False])
def test_if_branches_run_on_streams_they_activate(cond: bool) -> None:
    """GE's Then/ElseStreamActive: each branch's parallel half runs on a stream the branch
    starts right after its label_set, joined by an event before it leaves."""
    rng = np.random.default_rng(0)
    inputs = {
        "c": np.array(cond),
        "x": rng.standard_normal((64, 64)).astype(np.float32),
        "w": rng.standard_normal((64, 64)).astype(np.float32),
    }
    model = _main_model(same_everywhere(PARALLEL_IF, inputs))
    names = [t.name.removeprefix("ascend.") for t in model.tasks() if t.stream.value.data == 0]
    for label in (0, 1):
        at = next(i for i, t in enumerate(model.tasks()) if t.effects().labels == (label,))
        assert model.tasks()[at + 1].name == "ascend.stream_active"
    assert names.count("stream_active") == 2 and names.count("event_wait") == 2


# --------------------------------------------------------------------------------------------
# The compiled executor's binder of `ascend.dynamic_control` against the generic dispatch
# --------------------------------------------------------------------------------------------


def test_dynamic_control_tasks_are_bound_steps_of_the_compiled_program() -> None:
    """Each If / While task is a step of the program (subgraph models resolved once), not
    the IMPL fallback that runs `run_dynamic_control` through the interpreter."""
    module = compile_module(DYNAMIC)
    model = _main_model(module)
    interpreter = make_interpreter(module)
    program = program_for(interpreter, model)
    plan = program.plan
    kinds = [
        (task.kernel.data, program.decoded[i][pc].kind)
        for i, tasks in enumerate(plan.tasks)
        for pc, task in enumerate(tasks)
        if isinstance(task, DynamicControlOp)
    ]
    assert kinds == [("If", PLAIN), ("While", PLAIN)]


@pytest.mark.parametrize("case", sorted(MODEL_CASES))
def test_control_flow_models_with_dynamic_control_equal_the_generic_dispatch(case: str) -> None:
    """The three PyTorch models compiled with their `?` axes (their If / Loop / Scan become
    dynamic control tasks): the compiled executor's outputs and trace equal the step-by-step
    dispatch's bit for bit, under random schedules and the uninitialised-memory check, and
    both match onnxruntime."""
    module = import_model(MODELS / f"{MODEL_CASES[case]}.onnx")
    CompilePipelinePass().apply(make_context(), module)
    assert any(isinstance(t, DynamicControlOp) for t in _main_model_of(module).tasks())
    for seed in (None, 3):
        both(module, inputs_of(case), schedule_seed=seed, check_uninitialized=True)
    assert_outputs_match(run_entry(module, inputs_of(case)).outputs, expected_of(case))


@pytest.mark.parametrize(
    ("body", "start", "bound", "message"),
    [
        ("@body", 0, 1, "ran more than 1 iterations"),
        ("@stuck", 0, None, "makes no progress"),
    ],
)
def test_dynamic_control_errors_are_the_same_line_in_both_executors(
    body: str, start: int, bound: int | None, message: str
) -> None:
    module = compile_module(DYNAMIC.replace("body @body", f"body {body}"))
    inputs = {"i": np.array(start, np.int32), "x": X, "c": np.array(True)}
    lines = set()
    for engine in (True, False):
        with pytest.raises(RunError, match=message) as info:
            run_entry(module, inputs, entry="main", max_loop_iterations=bound, compiled=engine)
        assert "\n" not in str(info.value).strip()
        lines.add(str(info.value))
    assert len(lines) == 1, lines


# --------------------------------------------------------------------------------------------
# Streams inside While bodies and conds (GE's EnterStreamActive and CondStreamActive)
# --------------------------------------------------------------------------------------------

T64 = "tensor<64x64xf32>"


def _two_chains(x: str, w: str, out: str) -> str:
    """Two independent MatMul -> Tanh chains of `x` joined by an Add into `out`."""
    return f"""
  %{out}_p = graph.matmul %{x}, %{w} : ({T64}, {T64}) -> {T64}
  %{out}_p2 = graph.tanh %{out}_p : ({T64}) -> {T64}
  %{out}_q = graph.matmul %{x}, %{x} : ({T64}, {T64}) -> {T64}
  %{out}_q2 = graph.sigmoid %{out}_q : ({T64}) -> {T64}
  %{out} = graph.add %{out}_p2, %{out}_q2 : ({T64}, {T64}) -> {T64}"""


def _while_model(names: list[str], wide_cond: bool = False) -> str:
    """Whiles one after the other (`names`), each `i < 3` times x = chains(x) with a body of
    two parallel chains; `wide_cond` adds two chains to the cond (their sum must be finite)."""
    carried = f"(tensor<i32>, {T64}, {T64})"
    cond_work = ""
    cond_out = "%c"
    if wide_cond:
        cond_work = (
            _two_chains("x", "w", "s")
            + f"""
  %axes = graph.const dense<[0, 1]> : tensor<2xi64>
  %sum = graph.reduce_sum %s, %axes : ({T64}, tensor<2xi64>) -> tensor<f32>
  %big = graph.const dense<1.0e30> : tensor<f32>
  %ok = graph.less %sum, %big : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %both = graph.logical_and %c, %ok : (tensor<i1>, tensor<i1>) -> tensor<i1>"""
        )
        cond_out = "%both"
    text = f"""
graph.graph @wcond(%i: tensor<i32>, %x: {T64}, %w: {T64}) -> tensor<i1> {{
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>{cond_work}
  graph.net_output {cond_out} : tensor<i1>
}}
graph.graph @wbody(%i: tensor<i32>, %x: {T64}, %w: {T64}) -> {carried} {{
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>{_two_chains("x", "w", "y")}
  graph.net_output %j, %y, %w : tensor<i32>, {T64}, {T64}
}}
graph.graph @main(%i: tensor<i32>, %x: {T64}, %w: {T64}) -> {T64} {{"""
    value = "x"
    for name in names:
        text += f"""
  %{name}_i, %{name}, %{name}_w = graph.while %i, %{value}, %w cond @wcond body @wbody
      {{node_name = "{name}"}} : {carried} -> {carried}"""
        value = name
    return text + f"\n  graph.net_output %{value} : {T64}\n}}\n"


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {
        "i": np.array(0, np.int32),
        "x": (rng.standard_normal((64, 64)) / 8).astype(np.float32),
        "w": (rng.standard_normal((64, 64)) / 8).astype(np.float32),
    }


def _activated_regions(model: ModelOp) -> list[tuple[int, list[int]]]:
    """Per label_set followed by stream_active tasks: the label and the streams started."""
    tasks = list(model.tasks())
    found: list[tuple[int, list[int]]] = []
    for k, task in enumerate(tasks):
        if isinstance(task, LabelSetOp):
            started = []
            for after in tasks[k + 1 :]:
                if not isinstance(after, StreamActiveOp):
                    break
                started.append(after.active_stream.value.data)
            if started:
                found.append((task.label.value.data, started))
    return found


def _check_activated_streams_end_joined(model: ModelOp) -> None:
    """Every stream a While region starts ends with an event record that stream 0 waits for
    before the region jumps: it has ended when its stream_active runs again."""
    tasks = list(model.tasks())
    for _, streams in _activated_regions(model):
        for s in streams:
            last = [t for t in tasks if t.stream.value.data == s][-1]
            assert isinstance(last, EventRecordOp), last.describe()


@pytest.mark.parametrize("iterations_per_loop", [1, 3])
def test_while_body_runs_on_streams_it_activates(iterations_per_loop: int) -> None:
    """GE's EnterStreamActive: the body's parallel chain runs on a stream the body starts
    right after its label_set, joined before the goto back; the numbers equal the graph
    level's under random schedules, with the uninitialised-memory check, in both executors,
    and once more sunk (the stream is started again in every iteration of both loops)."""
    text = _while_model(["loop"])
    module = same_everywhere(text, _inputs(), iterations_per_loop=iterations_per_loop)
    model = _main_model(module)
    assert [label for label, _ in _activated_regions(model)] == [1]  # the body label L+1
    _check_activated_streams_end_joined(model)


def test_while_cond_with_parallel_work_runs_on_streams_it_activates() -> None:
    """GE's CondStreamActive: a cond with two chains starts a stream after its own label."""
    module = same_everywhere(_while_model(["loop"], wide_cond=True), _inputs())
    model = _main_model(module)
    assert [label for label, _ in _activated_regions(model)] == [0, 1]
    _check_activated_streams_end_joined(model)


@pytest.mark.parametrize("iterations_per_loop", [1, 3])
def test_two_whiles_with_activated_bodies_are_proven_and_match(iterations_per_loop: int) -> None:
    """Two Whiles one after the other on one stream, each body on streams of its own: the
    plan passes ge-verify-model (the second body's streams are ordered against the first
    loop's tasks, also inside a sunk loop around both) and gives the graph level's numbers."""
    module = same_everywhere(
        _while_model(["a", "b"]), _inputs(), iterations_per_loop=iterations_per_loop
    )
    model = _main_model(module)
    assert [label for label, _ in _activated_regions(model)] == [1, 4]
    _check_activated_streams_end_joined(model)


# A While body with an If beside a parallel chain: the If (its switch, labels and branches) is one
# unit of the body, which may run on a stream the body starts.
WHILE_WITH_IF = """
graph.graph @wcond(%i: tensor<i32>, %x: T64, %w: T64) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @then(%x: T64, %w: T64) -> T64 {
  %y = graph.matmul %x, %w : (T64, T64) -> T64
  %z = graph.tanh %y : (T64) -> T64
  graph.net_output %z : T64
}
graph.graph @else(%x: T64, %w: T64) -> T64 {
  %y = graph.matmul %w, %x : (T64, T64) -> T64
  %z = graph.sigmoid %y : (T64) -> T64
  graph.net_output %z : T64
}
graph.graph @wbody(%i: tensor<i32>, %x: T64, %w: T64) -> (tensor<i32>, T64, T64) {
  %one = graph.const dense<1> : tensor<i32>
  %j = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %two = graph.const dense<2> : tensor<i32>
  %m = graph.mod %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %a = graph.if %m, %x, %w then_branch @then else_branch @else
      : (tensor<i32>, T64, T64) -> T64
  %q = graph.matmul %x, %x : (T64, T64) -> T64
  %q2 = graph.sigmoid %q : (T64) -> T64
  %y = graph.add %a, %q2 : (T64, T64) -> T64
  graph.net_output %j, %y, %w : tensor<i32>, T64, T64
}
graph.graph @main(%i: tensor<i32>, %x: T64, %w: T64) -> T64 {
  %r_i, %r, %r_w = graph.while %i, %x, %w cond @wcond body @wbody {node_name = "loop"}
      : (tensor<i32>, T64, T64) -> (tensor<i32>, T64, T64)
  graph.net_output %r : T64
}
""".replace("T64", T64)


@pytest.mark.parametrize("iterations_per_loop", [1, 3])
def test_while_body_with_an_if_runs_on_streams_it_activates(iterations_per_loop: int) -> None:
    """Both branches run (the If takes i mod 2) over three iterations: same numbers as the
    graph level everywhere, the If's control flow whole on one stream."""
    module = same_everywhere(WHILE_WITH_IF, _inputs(), iterations_per_loop=iterations_per_loop)
    model = _main_model(module)
    assert [label for label, _ in _activated_regions(model)] == [1]
    _check_activated_streams_end_joined(model)
    switches = [t for t in model.tasks() if isinstance(t, LabelSwitchByIndexOp)]
    graph = TaskGraph.of(model)
    (inner,) = [c for c in graph.cases if graph.in_loop(c.head) is not None]
    streams = {
        graph.stream[p] for p in range(inner.head, inner.tail + 1) if graph.effects[p].control
    }
    assert len(streams) == 1 and len(switches) == 2 + (iterations_per_loop > 1)
