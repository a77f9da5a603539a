"""gedialects.Session: GE's graph API over the compiler and the interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from xdsl.dialects.builtin import ModuleOp

from gedialects.session import (
    ExecutionError,
    GearMismatchError,
    GEError,
    GraphError,
    GraphIdError,
    InputError,
    OptionError,
    Session,
)
from tests.conftest import ROOT, parse

MODELS = ROOT / "tests" / "models"
CNN = MODELS / "cnn.onnx"

ADD = """
graph.graph @main(%x: tensor<2x3xf32> {node_name = "x"}, %y: tensor<3xf32> {node_name = "y"})
    -> (tensor<2x3xf32> {node_name = "sum"}) {
  %s = graph.add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  graph.net_output %s : tensor<2x3xf32>
}
"""

GATHER = """
graph.graph @main(%x: tensor<4xf32> {node_name = "x"}, %i: tensor<2xi32> {node_name = "i"})
    -> (tensor<2xf32> {node_name = "y"}) {
  %y = graph.gather_v2d %x, %i axis 0 : (tensor<4xf32>, tensor<2xi32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
"""


def _npz(name: str) -> dict[str, np.ndarray]:
    with np.load(MODELS / name) as data:
        return {k: data[k] for k in data.files}


def _ort(path: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Reference outputs: onnxruntime when installed (`bench` extra), else onnx's own
    reference evaluator, so `make test` needs neither onnxruntime nor torch."""
    try:
        import onnxruntime as ort
    except ImportError:
        import onnx
        from onnx.reference import ReferenceEvaluator

        model = onnx.load(str(path))
        names = [o.name for o in model.graph.output]
        return dict(zip(names, ReferenceEvaluator(model).run(None, inputs), strict=True))
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, inputs), strict=True))


def _add_inputs() -> dict[str, np.ndarray]:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    return {"x": x, "y": np.array([1, 2, 3], dtype=np.float32)}


# --- whole models against onnxruntime ---------------------------------------------------------


def test_cnn_equals_onnxruntime_at_the_ascend_level() -> None:
    inputs, expected = _npz("cnn.inputs.npz"), _npz("cnn.expected.npz")
    session = Session()
    session.add_graph(0, CNN)
    out = session.run_graph(0, inputs)
    assert session.level(0) == "ascend"
    np.testing.assert_allclose(out["logits"], _ort(CNN, inputs)["logits"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["logits"], expected["logits"], rtol=1e-4, atol=1e-5)
    # positional inputs and the onnxruntime-style call give the same numbers
    (positional,) = session.run(None, dict(inputs))
    np.testing.assert_array_equal(positional, session.run_graph(0, [inputs["image"]])["logits"])


def test_model_proto_and_module_inputs() -> None:
    inputs = _npz("cnn.inputs.npz")
    session = Session()
    session.add_graph(1, onnx.load(CNN))
    module = parse(ADD)
    session.add_graph(2, module)
    session.add_graph(3, ADD)
    assert session.graph_ids == (1, 2, 3)
    assert session.input_names(1) == ("image",) and session.output_names(1) == ("logits",)
    np.testing.assert_allclose(
        session.run_graph(1, inputs)["logits"], _npz("cnn.expected.npz")["logits"], atol=1e-5
    )
    want = _add_inputs()["x"] + _add_inputs()["y"]
    np.testing.assert_array_equal(session.run_graph(2, _add_inputs())["sum"], want)
    np.testing.assert_array_equal(session.run_graph(3, _add_inputs())["sum"], want)
    assert isinstance(session.module(2), ModuleOp) and session.module(2) is not module


def test_mlir_path(tmp_path: Path) -> None:
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    session = Session()
    session.add_graph(0, path)
    session.add_graph(1, str(path))
    assert session.run(["sum"], _add_inputs(), graph_id=1)[0].shape == (2, 3)


def test_dynamic_batch_gears_equal_onnxruntime() -> None:
    """ONNX model -> dynamic batch {1, 4} -> runs at both gears; outputs equal onnxruntime."""
    inputs, expected = _npz("cnn.inputs.npz"), _npz("cnn.expected.npz")
    image = inputs["image"]
    other = np.random.default_rng(1).standard_normal(image.shape).astype(np.float32)
    session = Session()
    session.add_graph(7, CNN, {"ge.inputShape": "image:-1,3,16,16", "ge.dynamicBatchSize": "1,4"})
    assert session.gear_count(7) == 2
    assert session.gear_dims(7) == ({"image": (1, 3, 16, 16)}, {"image": (4, 3, 16, 16)})
    assert session.gear_info(7) is not None and session.gear_info(7).gears == ((1,), (4,))
    one = session.run_graph(7, {"image": image[:1]})["logits"]
    np.testing.assert_allclose(one, expected["logits"][:1], rtol=1e-4, atol=1e-5)
    four = session.run_graph(7, {"image": np.concatenate([image, other])})["logits"]
    want = np.concatenate([expected["logits"], _ort(CNN, {"image": other})["logits"]])
    np.testing.assert_allclose(four, want, rtol=1e-4, atol=1e-5)
    assert session.level(7) == "ascend"
    assert "ge-expand-multibatch" in session.stages(7)
    assert "ascend.label_switch_by_index" in session.stages(7)["ge-plan-memory"]
    with pytest.raises(GearMismatchError, match=r"^E13025: .*\[2\].*\[\[1\], \[4\]\]") as e:
        session.run_graph(7, {"image": image})
    assert e.value.code == "E13025"


def test_hybrid_mode_runs_an_off_gear_shape() -> None:
    """Transformer (dynamic batch and sequence): gears {1, 3} at sequence 5, hybrid mode;
    batch 2 is no gear and runs the graph compiled without gears."""
    path = MODELS / "transformer.onnx"
    options = {
        "ge.inputShape": "tokens:-1,5,32",
        "ge.dynamicDims": "1;3",
        "ge.dynamicNodeType": "1",
        "ge.compileHybridMode": "1",
    }
    session = Session(options)
    session.add_graph(0, path)
    rng = np.random.default_rng(0)
    three = _npz("transformer_b3_s5.inputs.npz")
    out = session.run_graph(0, three)["encoded"]
    np.testing.assert_allclose(out, _npz("transformer_b3_s5.expected.npz")["encoded"], atol=1e-4)
    off = {"tokens": rng.standard_normal((2, 5, 32)).astype(np.float32)}
    np.testing.assert_allclose(
        session.run_graph(0, off)["encoded"], _ort(path, off)["encoded"], rtol=1e-4, atol=1e-4
    )
    plain = Session({k: v for k, v in options.items() if k != "ge.compileHybridMode"})
    plain.add_graph(0, path)
    with pytest.raises(GearMismatchError, match="E13025"):
        plain.run_graph(0, off)


def test_data_dependent_shapes_run_as_dynamic_tasks() -> None:
    path = MODELS / "nonzero.onnx"
    inputs = _npz("nonzero.inputs.npz")
    session = Session({"ge.exec.static_model_ops_lower_limit": "2"})
    session.add_graph(0, path)
    out = session.run_graph(0, inputs)
    assert session.level(0) == "ascend"
    assert "partition.partitioned_call" in session.stages(0)["ge-partition-dynamic-shape"]
    assert 'ascend.dynamic_kernel "NonZero"' in session.stages(0)["ge-plan-memory"]
    for name, want in _ort(path, inputs).items():
        np.testing.assert_allclose(out[name], want, rtol=1e-5, atol=1e-6)


# --- stages, compile, options reaching the passes ---------------------------------------------


def test_stages_in_order_and_lazy_compile() -> None:
    session = Session()
    session.add_graph(0, ADD)
    assert session._graphs[0].compiled is None  # not compiled before a run or a query
    session.run_graph(0, _add_inputs())
    stages = session.stages(0)
    assert list(stages) == [
        "import",
        "ge-infer-shapes",
        "ge-verify-graph",
        "ge-convert-for-to-while",
        "ge-normalize-conds",
        "ge-fuse-quant",
        "ge-fold-constants",
        "ge-optimize-original-graph",
        "ge-place-engines",
        "ge-update-hostcpu-engine",
        "ge-place-engines (2)",
        "ge-partition-engine",
        "ge-optimize-subgraphs",
        "ge-merge-engine-partitions",
        "ge-optimize-whole-graph",
        "ge-convert-graph-to-ascend",
        "ge-assign-streams",
        "ge-plan-memory",
    ]
    assert "graph.add" in stages["import"] and "ascend.model" not in stages["import"]
    assert "_engine_name" in stages["ge-place-engines"]
    assert "ascend.model" in stages["ge-plan-memory"]
    compiled = session.module(0)
    session.compile_graph(0)  # compiling twice is a no-op
    assert session.module(0) is compiled


def test_options_reach_the_passes() -> None:
    def arena(options: dict[str, str]) -> str:
        session = Session(options)
        session.add_graph(0, CNN)
        return session.stages(0)["ge-plan-memory"]

    reuse, no_reuse = arena({}), arena({"ge.exec.disableReuseMemory": "1"})
    assert reuse != no_reuse
    multi = Session()
    multi.add_graph(0, CNN)
    assert "stream 1" in multi.stages(0)["ge-assign-streams"]
    single = Session({"ge.enableSingleStream": "true"})
    single.add_graph(0, CNN)
    assert "stream 1" not in single.stages(0)["ge-assign-streams"]
    capped = Session({"ge.streamMaxParallelNum": "AIcoreEngine:1,DNN_VM_AICPU:1"})
    capped.add_graph(0, CNN)
    np.testing.assert_allclose(
        capped.run_graph(0, _npz("cnn.inputs.npz"))["logits"],
        _npz("cnn.expected.npz")["logits"],
        atol=1e-5,
    )


def test_graph_options_override_session_options() -> None:
    session = Session({"ge.exec.disableReuseMemory": "1"})
    session.add_graph(0, CNN, {"ge.exec.disableReuseMemory": "0"})
    other = Session()
    other.add_graph(0, CNN)
    assert session.stages(0)["ge-plan-memory"] == other.stages(0)["ge-plan-memory"]


def test_input_shape_pins_unknown_dims() -> None:
    session = Session()
    session.add_graph(0, MODELS / "transformer.onnx", {"ge.inputShape": "tokens:3,5,32"})
    out = session.run_graph(0, _npz("transformer_b3_s5.inputs.npz"))
    assert session.level(0) == "ascend"
    np.testing.assert_allclose(
        out["encoded"], _npz("transformer_b3_s5.expected.npz")["encoded"], atol=1e-4
    )


def test_remove_graph() -> None:
    session = Session()
    session.add_graph(0, ADD)
    session.remove_graph(0)
    assert session.graph_ids == ()
    with pytest.raises(GraphIdError, match="graph id 0 was not added"):
        session.run_graph(0, _add_inputs())
    session.add_graph(0, ADD)  # the id is free again


# --- errors -----------------------------------------------------------------------------------


def test_unknown_option() -> None:
    with pytest.raises(OptionError, match=r"unknown session option 'ge\.noSuchOption'"):
        Session({"ge.noSuchOption": "1"})
    with pytest.raises(OptionError, match="unknown graph option 'inputShape'"):
        Session().add_graph(0, ADD, {"inputShape": "x:2,3"})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"ge.exec.disableReuseMemory": "yes"}, "ge.exec.disableReuseMemory is invalid.*0 or 1"),
        ({"ge.compileHybridMode": "2"}, "ge.compileHybridMode is invalid"),
        ({"ge.enableSingleStream": "1"}, "true or false"),
        ({"ge.exec.static_model_ops_lower_limit": "-2"}, r"\[-1, INT64_MAX\]"),
        ({"ge.exec.static_model_ops_lower_limit": "x"}, "static_model_ops_lower_limit"),
        ({"ge.streamMaxParallelNum": "AIcoreEngine,8"}, "ENGINE:N"),
        ({"ge.streamMaxParallelNum": "AIcoreEngine:0"}, "N >= 1"),
        ({"ge.inputShape": 3}, "option values are strings"),
    ],
)
def test_bad_option_values(options: dict, message: str) -> None:
    with pytest.raises(OptionError, match=message) as e:
        Session(options)
    assert e.value.code == "E10001"
    assert str(e.value).startswith("E10001: ")


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"ge.dynamicBatchSize": "1,4"}, "E10004"),
        ({"ge.inputShape": "image:-1,3,16,16", "ge.dynamicBatchSize": "4"}, "E10035"),
        (
            {
                "ge.inputShape": "image:-1,3,16,16",
                "ge.dynamicBatchSize": "1,2",
                "ge.dynamicDims": "1;2",
            },
            "E10009",
        ),
        ({"ge.inputShape": "image:-1,3,16,16", "ge.dynamicBatchSize": "1,a"}, "E10003"),
    ],
)
def test_bad_gear_options_carry_ge_codes(options: dict[str, str], code: str) -> None:
    with pytest.raises(OptionError, match=f"^{code}: ") as e:
        Session().add_graph(0, CNN, options)
    assert e.value.code == code


def test_gear_option_naming_no_graph_input() -> None:
    session = Session()
    session.add_graph(0, CNN, {"ge.inputShape": "data:-1,3,16,16", "ge.dynamicBatchSize": "1,2"})
    with pytest.raises(OptionError, match=r"^E10016: Op name data .*inputs of @main_graph: image"):
        session.compile_graph(0)


@pytest.mark.parametrize("graph_id", [-1, "0", 1.5, True])
def test_bad_graph_ids(graph_id: object) -> None:
    with pytest.raises(GraphIdError, match="graph id must be an integer >= 0"):
        Session().add_graph(graph_id, ADD)  # type: ignore[arg-type]


def test_graph_id_errors() -> None:
    session = Session()
    with pytest.raises(GraphIdError, match=r"graph id 3 was not added \(added: none\)"):
        session.compile_graph(3)
    session.add_graph(3, ADD)
    with pytest.raises(GraphIdError, match="graph id 3 is already added"):
        session.add_graph(3, ADD)
    for call in (session.stages, session.gear_count, session.remove_graph, session.level):
        with pytest.raises(GraphIdError, match=r"graph id 4 was not added \(added: 3\)"):
            call(4)
    session.add_graph(4, ADD)
    with pytest.raises(GraphIdError, match="run needs graph_id: the session holds 2 graphs"):
        session.run(None, _add_inputs())


def test_graph_errors(tmp_path: Path) -> None:
    session = Session()
    with pytest.raises(GraphError, match="cannot parse the IR"):
        session.add_graph(0, "graph.graph @g( {")
    with pytest.raises(GraphError, match=r"missing\.onnx"):
        session.add_graph(0, tmp_path / "missing.onnx")
    with pytest.raises(GraphError, match=r"cannot read .*missing\.mlir"):
        session.add_graph(0, str(tmp_path / "missing.mlir"))
    with pytest.raises(GraphError, match="not int"):
        session.add_graph(0, 42)
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    with pytest.raises(GraphError, match=r"bad\.onnx"):
        session.add_graph(0, bad)
    assert session.graph_ids == ()


BAD_RELU = """builtin.module {
  graph.graph @main(%x: tensor<2xf32>) -> (tensor<2xi8>) {
    %y = graph.relu %x {node_name = "relu1"} : (tensor<2xf32>) -> tensor<2xi8>
    graph.net_output %y : tensor<2xi8>
  }
}
"""


def test_add_graph_verifier_error_names_file_line_col_and_op(tmp_path: Path) -> None:
    """Issue 16: a verifier error of an .mlir file given to add_graph is located as ge-run
    locates it (file:line:col, the op's SSA and GE names), in one line."""
    bad = tmp_path / "bad.mlir"
    bad.write_text(BAD_RELU)
    with pytest.raises(GraphError) as info:
        Session().add_graph(1, str(bad))
    message = str(info.value)
    assert message.startswith(f"{bad}:3:10: error: 'graph.relu' op %y (node_name \"relu1\"): ")
    assert "differs from the operand type" in message
    assert "\n" not in message


def test_add_graph_verifier_error_of_ir_text_is_located_in_the_text() -> None:
    with pytest.raises(GraphError, match=r"^<graph text>:3:10: error: 'graph.relu' op %y"):
        Session().add_graph(1, BAD_RELU)


def test_compile_error_is_a_graph_error() -> None:
    session = Session()
    session.add_graph(0, ADD, {"ge.inputShape": "x:5,3;y:3"})
    with pytest.raises(GraphError, match=r"^ge-infer-shapes: input-shape dim 0 of 'x' is 5"):
        session.compile_graph(0)


def test_input_errors() -> None:
    session = Session()
    session.add_graph(0, ADD)
    good = _add_inputs()
    cases = [
        ({**good, "z": good["x"]}, "unknown input 'z' for @main"),
        ({"x": good["x"]}, "missing input 'y'"),
        (
            {**good, "x": good["x"].astype(np.float64)},
            "input 'x' has dtype float64.*expects float32",
        ),
        ({**good, "y": np.zeros(4, np.float32)}, r"input 'y' has shape \[4\].*expects \[3\]"),
        ({**good, "y": [1.0, 2.0, 3.0]}, "input 'y' is a list; pass a numpy array"),
        ([good["x"]], "1 positional inputs given, the graph takes 2 \\(x, y\\)"),
        (good["x"], "inputs must be a dict of arrays keyed by name or a list"),
    ]
    for inputs, message in cases:
        with pytest.raises(InputError, match=message):
            session.run_graph(0, inputs)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"unknown output 'total' \(outputs of graph 0: sum\)"):
        session.run(["total"], good)


def test_execution_error() -> None:
    session = Session()
    session.add_graph(0, GATHER)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(
        session.run(["y"], {"x": x, "i": np.array([3, 1], np.int32)})[0], [3, 1]
    )
    with pytest.raises(ExecutionError):
        session.run_graph(0, {"x": x, "i": np.array([7, 0], np.int32)})


def test_every_error_is_a_ge_error() -> None:
    for cls in (
        OptionError,
        GraphIdError,
        GraphError,
        InputError,
        GearMismatchError,
        ExecutionError,
    ):
        assert issubclass(cls, GEError)
    assert issubclass(GearMismatchError, InputError)


def test_import_gedialects_stays_cheap() -> None:
    code = (
        "import sys, gedialects; assert 'gedialects.session' not in sys.modules; "
        "assert 'numpy' not in sys.modules; "
        "S = gedialects.Session; assert S.__module__ == 'gedialects.session'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
