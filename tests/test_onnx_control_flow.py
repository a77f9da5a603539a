"""ONNX If / Loop / Scan import: GE's outer-scope capture, the Loop -> While design, errors,
checked against onnxruntime at graph level and through the tools."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from gedialects.frontend.onnx import OnnxImportError, import_model
from gedialects.graph.control import IfOp, WhileOp
from gedialects.graph.structure import GraphOp
from gedialects.interpreters.run import RunError, run
from tests.conftest import run_tool

F = TensorProto.FLOAT


def _model(graph: onnx.GraphProto, opset: int = 13) -> onnx.ModelProto:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """onnxruntime's outputs (a `test` extra: onnx's reference evaluator gets Loop captures
    and Scan axes wrong, so it cannot stand in here)."""
    import onnxruntime as ort

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _nested_if_model() -> onnx.ModelProto:
    """y = c1 ? (c2 ? b*a : a) : a+b, the inner If reading `b` two levels up."""
    inner_then = helper.make_graph(
        [helper.make_node("Mul", ["b", "a"], ["it"])],
        "inner_then",
        [],
        [helper.make_tensor_value_info("it", F, [2])],
    )
    inner_else = helper.make_graph(
        [helper.make_node("Identity", ["a"], ["ie"])],
        "inner_else",
        [],
        [helper.make_tensor_value_info("ie", F, [2])],
    )
    then = helper.make_graph(
        [helper.make_node("If", ["c2"], ["t"], then_branch=inner_then, else_branch=inner_else)],
        "then",
        [],
        [helper.make_tensor_value_info("t", F, [2])],
    )
    els = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", F, [2])],
    )
    graph = helper.make_graph(
        [helper.make_node("If", ["c1"], ["y"], then_branch=then, else_branch=els, name="top")],
        "nested_if",
        [
            helper.make_tensor_value_info("c1", TensorProto.BOOL, []),
            helper.make_tensor_value_info("c2", TensorProto.BOOL, [1]),
            helper.make_tensor_value_info("b", F, [2]),
            helper.make_tensor_value_info("a", F, [2]),
        ],
        [helper.make_tensor_value_info("y", F, [2])],
    )
    return _model(graph)


@pytest.mark.parametrize(("c1", "c2"), [(True, True), (True, False), (False, True)])
def test_if_captures_outer_names_sorted_at_any_depth(c1: bool, c2: bool) -> None:
    model = _nested_if_model()
    module = import_model(model)
    graphs = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    top = next(op for op in graphs["nested_if"].walk() if isinstance(op, IfOp))
    # GE's adapter: the captured names in sorted order (a before b; c2 for the inner If)
    assert [v.name_hint for v in top.inputs] == ["a", "b", "c2"]
    then = graphs[top.then_branch.root_reference.data]
    assert then.input_names == ("a", "b", "c2")
    assert [d.data["_parent_node_index"].value.data for d in then.arg_attrs.data] == [1, 2, 3]
    feeds = {
        "c1": np.array(c1),
        "c2": np.array([c2]),
        "b": np.array([2.0, 3.0], np.float32),
        "a": np.array([5.0, 7.0], np.float32),
    }
    out = run(module, feeds)
    np.testing.assert_array_equal(out["y"], _ort(model, feeds)[0])


def _loop_model(
    with_trip: bool = True, with_cond: bool = True, cond_type: int = 9
) -> onnx.ModelProto:
    """for i < M while cond: acc = acc + x * i; keep = acc > limit; scan out acc, i."""
    body = helper.make_graph(
        [
            helper.make_node("Cast", ["i"], ["fi"], to=F),
            helper.make_node("Mul", ["x", "fi"], ["xi"]),
            helper.make_node("Add", ["acc_in", "xi"], ["acc_out"]),
            helper.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0),
            helper.make_node("Less", ["total", "limit"], ["keep"]),
            helper.make_node("Identity", ["acc_out"], ["scan_acc"]),
            helper.make_node("Identity", ["i"], ["scan_i"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", F, [2]),
        ],
        [
            helper.make_tensor_value_info("keep", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", F, [2]),
            helper.make_tensor_value_info("scan_acc", F, [2]),
            helper.make_tensor_value_info("scan_i", TensorProto.INT64, []),
        ],
    )
    inputs = [
        helper.make_tensor_value_info("M", TensorProto.INT64, []),
        helper.make_tensor_value_info("cond", cond_type, []),
        helper.make_tensor_value_info("acc0", F, [2]),
        helper.make_tensor_value_info("x", F, [2]),
        helper.make_tensor_value_info("limit", F, []),
    ]
    node = helper.make_node(
        "Loop",
        ["M" if with_trip else "", "cond" if with_cond else "", "acc0"],
        ["acc", "accs", "iters"],
        body=body,
        name="loop",
    )
    keep = [v for v in inputs if (v.name != "M" or with_trip) and (v.name != "cond" or with_cond)]
    graph = helper.make_graph(
        [node],
        "loop_graph",
        keep,
        [
            helper.make_tensor_value_info("acc", F, [2]),
            helper.make_tensor_value_info("accs", F, [None, 2]),
            helper.make_tensor_value_info("iters", TensorProto.INT64, [None]),
        ],
    )
    return _model(graph)


@pytest.mark.parametrize(("trip", "limit"), [(5, 100.0), (5, 10.0), (0, 100.0), (1, 0.0)])
def test_loop_matches_onnxruntime(trip: int, limit: float) -> None:
    model = _loop_model()
    module = import_model(model)
    loop = next(op for op in module.walk() if isinstance(op, WhileOp))
    assert len(loop.inputs) == 3 + 1 + 2 + 2  # iter, cond, M; acc; 2 scan accumulators; x, limit
    feeds = {
        "M": np.array(trip, np.int64),
        "cond": np.array(True),
        "acc0": np.array([1.0, 2.0], np.float32),
        "x": np.array([1.0, 3.0], np.float32),
        "limit": np.array(limit, np.float32),
    }
    out = run(module, feeds)
    for name, expected in zip(("acc", "accs", "iters"), _ort(model, feeds), strict=True):
        assert out[name].dtype == expected.dtype
        np.testing.assert_array_equal(out[name], expected, err_msg=name)


def test_loop_without_trip_count_stops_on_its_cond() -> None:
    model = _loop_model(with_trip=False)
    feeds = {
        "cond": np.array(True),
        "acc0": np.array([1.0, 2.0], np.float32),
        "x": np.array([1.0, 3.0], np.float32),
        "limit": np.array(30.0, np.float32),
    }
    out = run(import_model(model), feeds)
    np.testing.assert_array_equal(out["accs"], _ort(model, feeds)[1])


def test_loop_with_m_and_cond_both_empty_is_the_bound_error() -> None:
    """ONNX: no M and no cond is an infinite loop (the body's cond is ignored then); the run
    stops at the loop bound with one line instead of hanging."""
    module = import_model(_loop_model(with_trip=False, with_cond=False))
    feeds = {
        "acc0": np.array([1.0, 2.0], np.float32),
        "x": np.array([1.0, 3.0], np.float32),
        "limit": np.array(1.0, np.float32),
    }
    with pytest.raises(RunError, match=r"'graph.while' .* ran more than 50 iterations"):
        run(module, feeds, max_loop_iterations=50)


def _convert_unchecked(model: onnx.ModelProto) -> None:
    """The converters alone, without onnx.checker first: the checks of our own that guard
    models the checker does not fully infer (over FULL_CHECK_NODE_LIMIT nodes)."""
    from gedialects.frontend.onnx.importer import _Importer

    _Importer(model, 13, "g").build()


def test_loop_cond_of_the_wrong_type_is_a_one_line_error() -> None:
    model = _loop_model(cond_type=TensorProto.FLOAT)
    with pytest.raises(OnnxImportError) as info:
        import_model(model)  # onnx.checker's type inference refuses it first
    assert "\n" not in str(info.value) and "Loop" in str(info.value)
    with pytest.raises(OnnxImportError) as info:
        _convert_unchecked(model)
    assert str(info.value) == (
        "node 'loop' (Loop, opset 13): cond has type tensor<f32>; ONNX Loop takes i1"
    )


def test_loop_body_output_of_another_element_type_is_refused() -> None:
    """A body whose output does not match its loop-carried input (float carried, int out)."""
    model = _loop_model()
    body = model.graph.node[0].attribute[0].g
    body.node.append(helper.make_node("Cast", ["acc_out"], ["acc_int"], to=TensorProto.INT32))
    body.output[1].CopyFrom(helper.make_tensor_value_info("acc_int", TensorProto.INT32, [2]))
    with pytest.raises(OnnxImportError) as info:
        import_model(model)
    assert "\n" not in str(info.value) and "Loop" in str(info.value)
    with pytest.raises(OnnxImportError) as info:
        _convert_unchecked(model)
    assert str(info.value) == (
        "node 'loop' (Loop, opset 13): body output for loop-carried value 3 is "
        "tensor<2xi32> but the value is tensor<2xf32>; a loop-carried value keeps its "
        "element type"
    )


def test_sequence_typed_branch_output_names_the_type() -> None:
    then = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["a"], ["s"])],
        "then",
        [],
        [helper.make_tensor_sequence_value_info("s", F, [2])],
    )
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=then)],
        "seq_if",
        [
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("a", F, [2]),
        ],
        [helper.make_tensor_sequence_value_info("y", F, [2])],
    )
    with pytest.raises(OnnxImportError, match="is a sequence; only tensors are supported"):
        import_model(_model(graph))


def _scan_model(reverse: int) -> onnx.ModelProto:
    body = helper.make_graph(
        [
            helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
            helper.make_node("Mul", ["s_out", "x_t"], ["y_t"]),
        ],
        "scan_body",
        [
            helper.make_tensor_value_info("s_in", F, [3]),
            helper.make_tensor_value_info("x_t", F, [3]),
        ],
        [
            helper.make_tensor_value_info("s_out", F, [3]),
            helper.make_tensor_value_info("y_t", F, [3]),
        ],
    )
    node = helper.make_node(
        "Scan",
        ["s0", "xs"],
        ["s", "ys"],
        body=body,
        num_scan_inputs=1,
        scan_input_axes=[1],
        scan_input_directions=[reverse],
        scan_output_axes=[1],
        scan_output_directions=[reverse],
    )
    graph = helper.make_graph(
        [node],
        "scan_graph",
        [
            helper.make_tensor_value_info("s0", F, [3]),
            helper.make_tensor_value_info("xs", F, [3, 4]),
        ],
        [
            helper.make_tensor_value_info("s", F, [3]),
            helper.make_tensor_value_info("ys", F, [3, 4]),
        ],
    )
    return _model(graph, opset=16)


@pytest.mark.parametrize("reverse", [0, 1])
def test_scan_axes_and_directions_match_onnxruntime(reverse: int) -> None:
    model = _scan_model(reverse)
    rng = np.random.default_rng(7)
    feeds = {
        "s0": rng.standard_normal(3).astype(np.float32),
        "xs": rng.standard_normal((3, 4)).astype(np.float32),
    }
    out = run(import_model(model), feeds)
    for name, expected in zip(("s", "ys"), _ort(model, feeds), strict=True):
        np.testing.assert_allclose(out[name], expected, rtol=1e-6, err_msg=name)


def test_loop_through_the_tools(tmp_path: Path) -> None:
    """ge-import -> .mlir -> ge-opt (shape inference, constant folding) -> .mlir -> ge-run, and
    ge-opt -p ge-compile -> .mlir -> ge-run."""
    model = _loop_model()
    onnx.save(model, tmp_path / "loop.onnx")
    feeds = {
        "M": np.array(4, np.int64),
        "cond": np.array(True),
        "acc0": np.array([1.0, 2.0], np.float32),
        "x": np.array([1.0, 3.0], np.float32),
        "limit": np.array(100.0, np.float32),
    }
    np.savez(tmp_path / "in.npz", **feeds)
    steps = [
        ("ge-import", str(tmp_path / "loop.onnx"), "-o", str(tmp_path / "g.mlir")),
        (
            "ge-opt",
            str(tmp_path / "g.mlir"),
            "-p",
            "ge-infer-shapes,ge-normalize-conds,ge-fold-constants",
            "-o",
            str(tmp_path / "o.mlir"),
        ),
        (
            "ge-run",
            str(tmp_path / "o.mlir"),
            "--inputs",
            str(tmp_path / "in.npz"),
            "-q",
            "-o",
            str(tmp_path / "out.npz"),
        ),
    ]
    for step in steps:
        done = run_tool(*step)
        assert done.returncode == 0, done.stderr
    out = np.load(tmp_path / "out.npz")
    for name, expected in zip(("acc", "accs", "iters"), _ort(model, feeds), strict=True):
        np.testing.assert_array_equal(out[name], expected, err_msg=name)
    text = (tmp_path / "o.mlir").read_text()
    assert "graph.while" in text and "_parent_node_index" in text
    assert "<-1x" not in text  # test_imported_loop_prints_parseable_dynamic_dims
    # and compiled: ge-opt -p ge-compile -> .mlir -> ge-run (GE's label makers), as processes
    compiled = tmp_path / "c.mlir"
    for step in (
        ("ge-opt", str(tmp_path / "g.mlir"), "-p", "ge-compile", "-o", str(compiled)),
        ("ge-run", str(compiled), "--inputs", str(tmp_path / "in.npz"), "-q", "-o",
         str(tmp_path / "cout.npz"), "--check-uninitialized", "--schedule-seed", "5"),
    ):  # fmt: skip
        done = run_tool(*step)
        assert done.returncode == 0, done.stderr
    assert 'ascend.dynamic_control "While"' in compiled.read_text()  # a growing scan output
    out = np.load(tmp_path / "cout.npz")
    for name, expected in zip(("acc", "accs", "iters"), _ort(model, feeds), strict=True):
        np.testing.assert_array_equal(out[name], expected, err_msg=name)


def test_loop_body_if_reads_outer_scope_two_levels_up() -> None:
    """A Loop body whose If branches read `w`, a main-graph input: captured through the Loop
    and the If (outer-scope capture at any depth)."""
    then = helper.make_graph(
        [helper.make_node("Mul", ["acc_in", "w"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", F, [2])],
    )
    els = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "w"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", F, [2])],
    )
    body = helper.make_graph(
        [
            helper.make_node("Mod", ["i", "two"], ["odd"]),
            helper.make_node("Cast", ["odd"], ["is_odd"], to=TensorProto.BOOL),
            helper.make_node("If", ["is_odd"], ["acc_out"], then_branch=then, else_branch=els),
            helper.make_node("Identity", ["c"], ["c_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_in", F, [2]),
        ],
        [
            helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("acc_out", F, [2]),
        ],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["M", "", "acc0"], ["acc"], body=body)],
        "nested",
        [
            helper.make_tensor_value_info("M", TensorProto.INT64, []),
            helper.make_tensor_value_info("acc0", F, [2]),
            helper.make_tensor_value_info("w", F, [2]),
        ],
        [helper.make_tensor_value_info("acc", F, [2])],
        initializer=[helper.make_tensor("two", TensorProto.INT64, [], [2])],
    )
    model = _model(graph)
    feeds = {
        "M": np.array(5, np.int64),
        "acc0": np.array([1.0, -1.0], np.float32),
        "w": np.array([2.0, 0.5], np.float32),
    }
    module = import_model(model)
    inner = [op for op in module.walk() if isinstance(op, IfOp)]
    assert len(inner) == 1 and [v.name_hint for v in inner[0].inputs] == ["acc_in", "w"]
    np.testing.assert_array_equal(run(module, feeds)["acc"], _ort(model, feeds)[0])


def test_range_bounds_and_unsqueeze_axes_of_one_element_import() -> None:
    """ONNX's expanded AffineGrid feeds Range a one-element limit and Unsqueeze a scalar
    axis, which onnxruntime and the reference take (the cases failed once If imported)."""
    i64 = TensorProto.INT64
    graph = helper.make_graph(
        [
            helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
            helper.make_node("Unsqueeze", ["r", "axis"], ["y"]),
        ],
        "one_element",
        [helper.make_tensor_value_info("limit", i64, [1])],
        [helper.make_tensor_value_info("y", i64, None)],
        initializer=[
            helper.make_tensor("start", i64, [], [1]),
            helper.make_tensor("delta", i64, [], [2]),
            helper.make_tensor("axis", i64, [], [0]),
        ],
    )
    model = _model(graph)
    feeds = {"limit": np.array([8], np.int64)}
    got = run(import_model(model), feeds)
    np.testing.assert_array_equal(next(iter(got.values())), _ort(model, feeds)[0])


def _scan8_model(direction: int, with_lens: bool, clip_body: bool = False) -> onnx.ModelProto:
    """Scan-8 over [batch 2, sequence 3, 2]: s += x_t (clipped to [0, 10] by an opset-8 Clip
    when `clip_body`), y_t = s * x_t; `sequence_lens` optional."""
    nodes = [helper.make_node("Add", ["s_in", "x_t"], ["s_sum"])]
    if clip_body:
        nodes.append(helper.make_node("Clip", ["s_sum"], ["s_out"], min=0.0, max=10.0))
    else:
        nodes.append(helper.make_node("Identity", ["s_sum"], ["s_out"]))
    nodes.append(helper.make_node("Mul", ["s_out", "x_t"], ["y_t"]))
    body = helper.make_graph(
        nodes,
        "scan8_body",
        [
            helper.make_tensor_value_info("s_in", F, [2]),
            helper.make_tensor_value_info("x_t", F, [2]),
        ],
        [
            helper.make_tensor_value_info("s_out", F, [2]),
            helper.make_tensor_value_info("y_t", F, [2]),
        ],
    )
    inputs = [
        helper.make_tensor_value_info("init", F, [2, 2]),
        helper.make_tensor_value_info("x", F, [2, 3, 2]),
    ]
    if with_lens:
        inputs.insert(0, helper.make_tensor_value_info("lens", TensorProto.INT64, [2]))
    node = helper.make_node(
        "Scan",
        ["lens" if with_lens else "", "init", "x"],
        ["final", "ys"],
        name="scan8",
        body=body,
        num_scan_inputs=1,
        directions=[direction],
    )
    graph = helper.make_graph(
        [node],
        "scan8_graph",
        inputs,
        [
            helper.make_tensor_value_info("final", F, [2, 2]),
            helper.make_tensor_value_info("ys", F, [2, 3, 2]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])
    model.ir_version = 4
    return model


@pytest.mark.parametrize("direction", [0, 1])
@pytest.mark.parametrize("lens", [None, [3, 3], [3, 1], [1, 2]])
def test_scan8_batch_axis_and_sequence_lens_match_onnxruntime(
    direction: int, lens: list[int] | None
) -> None:
    """Scan-8 is a batch Loop around a Scan-9 (onnx.version_converter's adapter would drop
    the batch axis): shorter sequences stop early, their scan outputs are zero-padded."""
    model = _scan8_model(direction, lens is not None, clip_body=True)
    feeds = {
        "init": np.array([[0.5, 1.0], [-1.0, 2.0]], np.float32),
        "x": np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 3,
    }
    if lens is not None:
        feeds["lens"] = np.array(lens, np.int64)
    module = import_model(model)
    out = run(module, feeds)
    for name, expected in zip(("final", "ys"), _ort(model, feeds), strict=True):
        np.testing.assert_allclose(out[name], expected, rtol=1e-6, err_msg=name)
    text = str(module)
    assert "scan8" not in text.split("graph.graph")[0]  # no private domain leaks
    assert text.count("graph.while") >= 2  # the batch loop around the scan


def test_scan8_body_ops_are_upgraded_from_opset_8() -> None:
    """The body's opset-8 Clip (min/max attributes) is converted to opset 11 (inputs) like the
    rest of the model: clipping takes effect."""
    model = _scan8_model(0, False, clip_body=True)
    feeds = {
        "init": np.array([[9.0, -5.0], [0.0, 0.0]], np.float32),
        "x": np.full((2, 3, 2), 2.0, np.float32),
    }
    out = run(import_model(model), feeds)
    np.testing.assert_allclose(out["final"], [[10.0, 4.0], [6.0, 6.0]])


def test_scan8_scan_input_without_sequence_axis_is_a_one_line_error() -> None:
    model = _scan8_model(0, False)
    model.graph.input[1].CopyFrom(helper.make_tensor_value_info("x", F, [2]))
    model.graph.output[1].CopyFrom(helper.make_tensor_value_info("ys", F, None))
    with pytest.raises(OnnxImportError) as err:
        import_model(model)
    assert "Scan-8 takes [batch, sequence, ...]" in str(err.value)
    assert "\n" not in str(err.value)


def test_scan8_through_the_tools(tmp_path: Path) -> None:
    """ge-import of an opset-8 Scan -> .mlir -> ge-run, to onnxruntime's numbers."""
    model = _scan8_model(1, True)
    onnx.save(model, tmp_path / "scan8.onnx")
    feeds = {
        "lens": np.array([2, 3], np.int64),
        "init": np.zeros((2, 2), np.float32),
        "x": np.arange(12, dtype=np.float32).reshape(2, 3, 2),
    }
    np.savez(tmp_path / "in.npz", **feeds)
    for step in [
        ("ge-import", str(tmp_path / "scan8.onnx"), "-o", str(tmp_path / "g.mlir")),
        (
            "ge-run",
            str(tmp_path / "g.mlir"),
            "--inputs",
            str(tmp_path / "in.npz"),
            "-q",
            "-o",
            str(tmp_path / "out.npz"),
        ),
    ]:
        done = run_tool(*step)
        assert done.returncode == 0, done.stderr
    out = np.load(tmp_path / "out.npz")
    for name, expected in zip(("final", "ys"), _ort(model, feeds), strict=True):
        np.testing.assert_array_equal(out[name], expected, err_msg=name)


def test_nested_scan8_reading_its_outer_body_matches_onnxruntime() -> None:
    """A Scan-8 inside a Scan-8 body whose body reads `w`, a value of the outer body: both
    bodies are upgraded on their own, the outer-scope name survives as an extra input of the
    inner body's wrapper model and is captured again on import."""
    inner = helper.make_graph(
        [
            helper.make_node("Mul", ["xi", "w"], ["m"]),
            helper.make_node("Add", ["si", "m"], ["so"]),
            helper.make_node("Identity", ["so"], ["yo"]),
        ],
        "inner",
        [helper.make_tensor_value_info("si", F, [2]), helper.make_tensor_value_info("xi", F, [2])],
        [helper.make_tensor_value_info("so", F, [2]), helper.make_tensor_value_info("yo", F, [2])],
    )
    outer = helper.make_graph(
        [
            helper.make_node("Unsqueeze", ["s"], ["s1"], axes=[0]),
            helper.make_node("Unsqueeze", ["x"], ["x1"], axes=[0]),
            helper.make_node("Unsqueeze", ["x1"], ["x2"], axes=[0]),
            helper.make_node("Identity", ["x"], ["w"]),
            helper.make_node("Scan", ["", "s1", "x2"], ["f1", "y1"], body=inner, num_scan_inputs=1),
            helper.make_node("Squeeze", ["f1"], ["f"], axes=[0]),
            helper.make_node("Identity", ["f"], ["y"]),
        ],
        "outer",
        [helper.make_tensor_value_info("s", F, [2]), helper.make_tensor_value_info("x", F, [2])],
        [helper.make_tensor_value_info("f", F, [2]), helper.make_tensor_value_info("y", F, [2])],
    )
    node = helper.make_node(
        "Scan", ["", "init", "xs"], ["fin", "ys"], body=outer, num_scan_inputs=1
    )
    graph = helper.make_graph(
        [node],
        "nested_scan8",
        [
            helper.make_tensor_value_info("init", F, [2, 2]),
            helper.make_tensor_value_info("xs", F, [2, 3, 2]),
        ],
        [
            helper.make_tensor_value_info("fin", F, [2, 2]),
            helper.make_tensor_value_info("ys", F, [2, 3, 2]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])
    model.ir_version = 4
    feeds = {
        "init": np.ones((2, 2), np.float32),
        "xs": np.arange(12, dtype=np.float32).reshape(2, 3, 2),
    }
    out = run(import_model(model), feeds)
    for name, expected in zip(("fin", "ys"), _ort(model, feeds), strict=True):
        np.testing.assert_allclose(out[name], expected, rtol=1e-6, err_msg=name)
