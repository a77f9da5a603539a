"""The ONNX importer: signatures, initializers, names, external data, every bad-input case, and
the `ge-import` / `ge-opt x.onnx` command lines."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, UnrankedTensorType, f32, i64

from gedialects.base import NODE_NAME
from gedialects.frontend.onnx import OnnxImportError, import_model, max_opset
from gedialects.graph import ConstOp, GraphOp
from gedialects.interpreters.run import run
from gedialects.tensors import numpy_from_dense
from tests.conftest import parse, run_tool

OPSET = 17


def vi(name: str, elem: int, shape: list | None) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    initializers: list[onnx.TensorProto] = (),  # type: ignore[assignment]
    *,
    opset: int = OPSET,
    name: str = "net",
    **kwargs: object,
) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], **kwargs)


def graph_of(module: ModuleOp) -> GraphOp:
    (op,) = module.ops
    assert isinstance(op, GraphOp)
    return op


def add_relu(**kwargs: object) -> onnx.ModelProto:
    """y = relu(x * w + b), z = x + 1 with named nodes; w, b and one are initializers."""
    w = numpy_helper.from_array(np.array([0.5, -1.0, 2.0], np.float32), "w")
    b = numpy_helper.from_array(np.array([-1, 0, 1], dtype=np.float32), "b")
    one = numpy_helper.from_array(np.ones((), np.float32), "one")
    nodes = [
        helper.make_node("Mul", ["x", "w"], ["xw"], name="scale"),
        helper.make_node("Add", ["xw", "b"], ["pre"], name="bias"),
        helper.make_node("Relu", ["pre"], ["y"], name="act"),
        helper.make_node("Add", ["x", "one"], ["z"], name="plus_one"),
    ]
    return model(
        nodes,
        [vi("x", TensorProto.FLOAT, [2, 3])],
        [vi("y", TensorProto.FLOAT, [2, 3]), vi("z", TensorProto.FLOAT, [2, 3])],
        [w, b, one],
        **kwargs,
    )


def reference(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w = np.array([0.5, -1.0, 2.0], np.float32)
    y = np.maximum(x * w + np.array([-1, 0, 1], np.float32), 0)
    return y, x + 1


# --------------------------------------------------------------------------------------------
# Signature, names, types
# --------------------------------------------------------------------------------------------


def test_inputs_outputs_and_names() -> None:
    module = import_model(add_relu())
    module.verify()
    g = graph_of(module)
    assert g.sym_name.data == "net"
    assert g.input_names == ("x",)
    assert g.output_names == ("y", "z")
    assert g.function_type.inputs.data == (TensorType(f32, [2, 3]),)
    assert g.function_type.outputs.data == (TensorType(f32, [2, 3]), TensorType(f32, [2, 3]))
    names = {op.attributes[NODE_NAME].data for op in g.body.block.ops if NODE_NAME in op.attributes}
    assert {"scale", "bias", "act", "plus_one", "w", "b", "one"} <= names
    x = np.array([[1, -2, 3], [0.5, 0, -1]], np.float32)
    y, z = reference(x)
    out = run(module, {"x": x})
    np.testing.assert_allclose(out["y"], y, rtol=1e-6)
    np.testing.assert_array_equal(out["z"], z)


def test_graph_name_option_and_sanitizing() -> None:
    assert graph_of(import_model(add_relu(), graph_name="mine")).sym_name.data == "mine"
    odd = add_relu()
    odd.graph.name = "torch-jit export!"
    assert graph_of(import_model(odd)).sym_name.data == "torch-jit_export"
    odd.graph.name = "!!!"
    assert graph_of(import_model(odd)).sym_name.data == "main"
    odd.graph.name = "1st"
    assert graph_of(import_model(odd)).sym_name.data == "g_1st"


def test_dim_param_missing_dims_and_no_shape() -> None:
    x = vi("x", TensorProto.FLOAT, ["batch", 3])
    x.type.tensor_type.shape.dim.add()  # neither dim_value nor dim_param
    u = vi("u", TensorProto.INT64, None)
    m = model(
        [helper.make_node("Identity", ["x"], ["y"]), helper.make_node("Identity", ["u"], ["v"])],
        [x, u],
        [vi("y", TensorProto.FLOAT, ["batch", 3, None]), vi("v", TensorProto.INT64, None)],
    )
    g = graph_of(import_model(m))
    xt, ut = g.function_type.inputs.data
    assert isinstance(xt, TensorType)
    assert str(xt) == "tensor<?x3x?xf32>"
    assert ut == UnrankedTensorType(i64)
    assert g.function_type.outputs.data == (xt, ut)
    out = run(import_model(m), {"x": np.ones((5, 3, 2), np.float32), "u": np.arange(4)})
    assert out["y"].shape == (5, 3, 2)
    np.testing.assert_array_equal(out["v"], np.arange(4))


def reshape_to_input_shape(declared: list | None, elem: int = TensorProto.FLOAT) -> onnx.ModelProto:
    """y = Reshape(x, s), `s` a graph input: inference knows y's rank only."""
    return model(
        [helper.make_node("Reshape", ["x", "s"], ["y"])],
        [vi("x", TensorProto.FLOAT, [2, 6]), vi("s", TensorProto.INT64, [2])],
        [vi("y", elem, declared)],
    )


def test_declared_output_dims_refine_the_inferred_ones() -> None:
    """onnxruntime's MergeShapeInfo: a graph output gets the declared dims where inference
    left `?` (the detector's `boxes`, `[?, 4]`), and runs to the same numbers."""
    module = import_model(reshape_to_input_shape(["n", 3]))
    module.verify()
    g = graph_of(module)
    assert str(g.function_type.outputs.data[0]) == "tensor<?x3xf32>"
    assert "-> tensor<?x3xf32>" in str(module)  # the reshape's own result, not only the graph's
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    out = run(module, {"x": x, "s": np.array([4, 3])})
    np.testing.assert_array_equal(out["y"], x.reshape(4, 3))
    # a declaration that knows nothing more changes nothing
    for declared in (["a", "b"], None):
        g = graph_of(import_model(reshape_to_input_shape(declared)))
        assert str(g.function_type.outputs.data[0]) == "tensor<?x?xf32>"


def test_declared_dim_the_data_decides_stays_unknown() -> None:
    """NonZero's count is the data's: a declared `[2, 3]` (true of one input, as in ONNX's
    node tests) would not verify, so the output stays `[2, ?]` and compiles."""
    m = model(
        [helper.make_node("NonZero", ["x"], ["y"])],
        [vi("x", TensorProto.BOOL, [2, 2])],
        [vi("y", TensorProto.INT64, [2, 3])],
    )
    module = import_model(m)
    module.verify()
    assert str(graph_of(module).function_type.outputs.data[0]) == "tensor<2x?xi64>"
    out = run(module, {"x": np.array([[True, False], [True, True]])})
    np.testing.assert_array_equal(out["y"], [[0, 1, 1], [0, 0, 1]])


def test_declared_output_that_contradicts_inference_is_ignored_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A Shape chain our inference evaluates (onnx's checker does not): the declared `[3, 4]`
    contradicts the inferred `[2, 6]`, which is kept, as onnxruntime keeps it."""
    m = model(
        [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Reshape", ["x", "s"], ["y"])],
        [vi("x", TensorProto.FLOAT, [2, 6])],
        [vi("y", TensorProto.FLOAT, [3, 4])],
    )
    with caplog.at_level("WARNING", logger="gedialects"):
        g = graph_of(import_model(m))
    assert str(g.function_type.outputs.data[0]) == "tensor<2x6xf32>"
    (record,) = [r for r in caplog.records if "declared" in r.getMessage()]
    assert record.getMessage() == (
        "graph output 'y' is declared tensor<3x4xf32> but inferred tensor<2x6xf32>: kept "
        "the inferred type"
    )


@pytest.mark.parametrize(
    ("elem", "text"),
    [
        (TensorProto.FLOAT16, "f16"),
        (TensorProto.DOUBLE, "f64"),
        (TensorProto.BOOL, "i1"),
        (TensorProto.INT8, "i8"),
        (TensorProto.INT16, "i16"),
        (TensorProto.INT32, "i32"),
        (TensorProto.UINT8, "ui8"),
        (TensorProto.UINT16, "ui16"),
        (TensorProto.UINT32, "ui32"),
        (TensorProto.UINT64, "ui64"),
    ],
)
def test_dtype_mapping(elem: int, text: str) -> None:
    m = model(
        [helper.make_node("Identity", ["x"], ["y"])], [vi("x", elem, [2])], [vi("y", elem, [2])]
    )
    (t,) = graph_of(import_model(m)).function_type.inputs.data
    assert str(t) == f"tensor<2x{text}>"


def test_unnamed_nodes_get_op_type_names() -> None:
    m = model(
        [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Relu", ["a"], ["y"])],
        [vi("x", TensorProto.FLOAT, [2])],
        [vi("y", TensorProto.FLOAT, [2])],
    )
    g = graph_of(import_model(m))
    names = [op.attributes[NODE_NAME] for op in g.body.block.ops if NODE_NAME in op.attributes]
    assert names == [StringAttr("Relu_0"), StringAttr("Relu_1")]
    assert [n.name for n in m.graph.node] == ["", ""], "the caller's model must not change"


# --------------------------------------------------------------------------------------------
# Initializers and constants
# --------------------------------------------------------------------------------------------


def test_initializers_become_named_consts_at_first_use() -> None:
    g = graph_of(import_model(add_relu()))
    ops = list(g.body.block.ops)
    consts = {op.attributes[NODE_NAME].data: op for op in ops if isinstance(op, ConstOp)}
    assert set(consts) == {"w", "b", "one"}
    np.testing.assert_array_equal(
        numpy_from_dense(consts["w"].value), np.array([0.5, -1.0, 2.0], np.float32)
    )
    # Created lazily: `one` (used by the last node only) comes after the relu.
    order = [op.attributes[NODE_NAME].data for op in ops if NODE_NAME in op.attributes]
    assert order.index("w") < order.index("scale") < order.index("act") < order.index("one")


def test_unused_initializer_is_dropped_and_outputs_can_be_inputs_or_initializers() -> None:
    w = numpy_helper.from_array(np.array([1, 2], np.int64), "w")
    unused = numpy_helper.from_array(np.zeros(3, np.float32), "unused")
    m = model(
        [],
        [vi("x", TensorProto.FLOAT, [2])],
        [vi("x", TensorProto.FLOAT, [2]), vi("w", TensorProto.INT64, [2])],
        [w, unused],
    )
    module = import_model(m)
    g = graph_of(module)
    assert g.output_names == ("x", "w")
    assert len([op for op in g.body.block.ops if isinstance(op, ConstOp)]) == 1
    out = run(module, {"x": np.array([3, 4], np.float32)})
    np.testing.assert_array_equal(out["x"], [3, 4])
    np.testing.assert_array_equal(out["w"], [1, 2])


def test_ir3_lists_initializers_as_inputs() -> None:
    m = add_relu(ir_version=3, opset=8)
    for name, shape in (("w", [3]), ("b", [3]), ("one", [])):
        m.graph.input.append(vi(name, TensorProto.FLOAT, shape))
    module = import_model(m)
    assert graph_of(module).input_names == ("x",)
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(run(module, {"x": x})["y"], reference(x)[0], rtol=1e-6)


def test_constant_node_forms() -> None:
    nodes = [
        helper.make_node(
            "Constant",
            [],
            ["t"],
            name="ct",
            value=numpy_helper.from_array(np.array([[1, 2]], np.int32)),
        ),
        helper.make_node("Constant", [], ["f"], name="cf", value_float=2.5),
        helper.make_node("Constant", [], ["fs"], name="cfs", value_floats=[1.0, 2.0]),
        helper.make_node("Constant", [], ["i"], name="ci", value_int=7),
        helper.make_node("Constant", [], ["is"], name="cis", value_ints=[3, 4, 5]),
        helper.make_node(
            "Constant",
            [],
            ["s"],
            name="cs",
            sparse_value=helper.make_sparse_tensor(
                numpy_helper.from_array(np.array([5.0, 6.0], np.float32), "v"),
                numpy_helper.from_array(np.array([1, 3], np.int64), "i"),
                [4],
            ),
        ),
    ]
    outs = [
        vi("t", TensorProto.INT32, [1, 2]),
        vi("f", TensorProto.FLOAT, []),
        vi("fs", TensorProto.FLOAT, [2]),
        vi("i", TensorProto.INT64, []),
        vi("is", TensorProto.INT64, [3]),
        vi("s", TensorProto.FLOAT, [4]),
    ]
    module = import_model(model(nodes, [], outs))
    out = run(module, {})
    np.testing.assert_array_equal(out["t"], np.array([[1, 2]], np.int32))
    assert out["t"].dtype == np.int32
    assert out["f"].dtype == np.float32 and out["f"] == np.float32(2.5)
    np.testing.assert_array_equal(out["fs"], [1.0, 2.0])
    assert out["i"].dtype == np.int64 and out["i"] == 7
    np.testing.assert_array_equal(out["is"], [3, 4, 5])
    np.testing.assert_array_equal(out["s"], [0, 5, 0, 6])
    names = [
        op.attributes[NODE_NAME].data
        for op in graph_of(module).body.block.ops
        if NODE_NAME in op.attributes
    ]
    assert names == ["ct", "cf", "cfs", "ci", "cis", "cs"]


def test_external_data(tmp_path: Path) -> None:
    weights = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    m = model(
        [helper.make_node("Identity", ["w"], ["y"])],
        [],
        [vi("y", TensorProto.FLOAT, [64, 64])],
        [numpy_helper.from_array(weights, "w")],
    )
    path = tmp_path / "sub" / "model.onnx"
    path.parent.mkdir()
    onnx.save(m, path, save_as_external_data=True, location="weights.bin", size_threshold=0)
    assert (path.parent / "weights.bin").stat().st_size == weights.nbytes
    out = run(import_model(path), {})
    np.testing.assert_array_equal(out["y"], weights)
    (path.parent / "weights.bin").unlink()
    with pytest.raises(OnnxImportError, match="cannot load external data"):
        import_model(path)


def test_older_opset_is_upgraded() -> None:
    m = model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [vi("x", TensorProto.FLOAT, [3])],
        [vi("y", TensorProto.FLOAT, [3])],
        opset=6,
    )
    out = run(import_model(m), {"x": np.array([-1, 0, 2], np.float32)})
    np.testing.assert_array_equal(out["y"], [0, 0, 2])


def test_opset6_prelu_slope_is_per_channel() -> None:
    """Opset 6 applied a [C] slope along axis 1; the upgrade must keep that meaning."""
    slope = np.array([0.1, 0.2, 0.3], np.float32)
    m = model(
        [helper.make_node("PRelu", ["x", "slope"], ["y"])],
        [vi("x", TensorProto.FLOAT, [2, 3, 4])],
        [vi("y", TensorProto.FLOAT, [2, 3, 4])],
        [numpy_helper.from_array(slope, "slope")],
        opset=6,
    )
    x = -np.ones((2, 3, 4), np.float32)
    out = run(import_model(m), {"x": x})["y"]
    np.testing.assert_allclose(out, x * slope[None, :, None])


def test_import_time_of_large_weights_and_many_nodes() -> None:
    """24 MB of weights and 5k nodes import in well under the time printing them would take."""
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.standard_normal((256, 256)).astype(np.float32), f"w{i}")
        for i in range(96)
    ]
    nodes = [helper.make_node("Identity", [f"w{i}"], [f"o{i}"]) for i in range(96)]
    prev = "x"
    for i in range(5000):
        nodes.append(helper.make_node("Relu", [prev], [f"r{i}"]))
        prev = f"r{i}"
    outs = [vi(f"o{i}", TensorProto.FLOAT, [256, 256]) for i in range(96)]
    m = model(
        nodes, [vi("x", TensorProto.FLOAT, [4])], [*outs, vi(prev, TensorProto.FLOAT, [4])], inits
    )
    start = time.thread_time()  # this thread's CPU: wall time fails on a loaded machine
    module = import_model(m)
    assert time.thread_time() - start < 10
    assert len(list(graph_of(module).body.block.ops)) == 96 + 5000 + 1


# --------------------------------------------------------------------------------------------
# Bad input: one-line OnnxImportErrors
# --------------------------------------------------------------------------------------------


def _error(source: object) -> str:
    with pytest.raises(OnnxImportError) as info:
        import_model(source)  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message
    return message


def _with_bytes(proto: onnx.ModelProto, old: bytes, new: bytes) -> onnx.ModelProto:
    """The model with the string `old` replaced everywhere on the wire (protobuf refuses to
    set a string that is not UTF-8, but parses one)."""
    data = proto.SerializeToString()
    assert old in data
    edited = onnx.ModelProto()
    edited.ParseFromString(data.replace(old, new))
    return edited


@pytest.mark.parametrize(
    ("old", "expected"),
    [
        (b"act", "node 2 name is not UTF-8"),
        (b"plus_one", "node 3 name is not UTF-8"),
        (b"pre", "node 1 output 0 is not UTF-8"),  # also node 2's input: the first use names it
        (b"net", "graph name is not UTF-8"),
    ],
)
def test_onnx_non_utf8_name_is_an_import_error(old: bytes, expected: str) -> None:
    bad = _with_bytes(add_relu(), old, old[:1] + b"\xff" + old[2:])
    assert _error(bad).endswith(f": {expected}")


def test_onnx_non_utf8_string_attribute_is_an_import_error() -> None:
    proto = add_relu()
    proto.graph.node[2].attribute.append(helper.make_attribute("mode", b"r\xfflu"))
    assert _error(proto) == "'net': node 2 attribute 'mode' is not UTF-8"
    proto.graph.node[2].attribute[0].CopyFrom(helper.make_attribute("modes", [b"a", b"\xfe"]))
    assert _error(proto) == "'net': node 2 attribute 'modes' is not UTF-8"


def test_ge_import_non_utf8_node_name_is_one_line(tmp_path: Path) -> None:
    src = tmp_path / "m.onnx"
    onnx.save(_with_bytes(add_relu(), b"act", b"a\xfft"), src)
    result = run_tool("ge-import", str(src), "-o", str(tmp_path / "out.mlir"))
    assert result.returncode == 1
    assert result.stderr == f"error: '{src}': node 2 name is not UTF-8\n"
    assert not (tmp_path / "out.mlir").exists()


def test_truncated_file(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    data = add_relu().SerializeToString()
    path.write_bytes(data[: len(data) // 2])
    assert _error(path).startswith(f"'{path}' is not an ONNX model: ")


def test_not_onnx(tmp_path: Path) -> None:
    path = tmp_path / "m.onnx"
    path.write_text("graph.graph @main() {}\n")
    assert _error(path).startswith(f"'{path}' is not an ONNX model: ")
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    assert _error(empty) == f"'{empty}' is not an ONNX model: it has no IR version"
    assert _error(tmp_path / "missing.onnx").startswith("cannot read ")


def unsupported_node() -> onnx.NodeProto:
    """Bernoulli (opset 15): random draws, which the importer does not convert."""
    return helper.make_node("Bernoulli", ["x"], ["y"], name="decode")


def test_unsupported_op_names_op_node_and_opset() -> None:
    m = model(
        [unsupported_node()],
        [vi("x", TensorProto.FLOAT, [4])],
        [vi("y", TensorProto.FLOAT, None)],
        opset=20,
    )
    assert _error(m) == ("node 'decode' (Bernoulli, opset 20): unsupported ONNX op type Bernoulli")


def test_unsupported_dtypes(monkeypatch: pytest.MonkeyPatch) -> None:
    from gedialects.frontend.onnx import importer

    m = model(
        [helper.make_node("Identity", ["x"], ["y"])],
        [vi("x", TensorProto.BFLOAT16, [2])],
        [vi("y", TensorProto.BFLOAT16, [2])],
    )
    assert _error(m) == "graph input 'x' has unsupported dtype BFLOAT16"
    s = model(
        [helper.make_node("Identity", ["w"], ["y"])],
        [],
        [vi("y", TensorProto.STRING, [1])],
        [numpy_helper.from_array(np.array(["a"], dtype=object), "w")],
    )
    imported = import_model(s)  # STRING is supported: a #graph.strings constant
    assert '#graph.strings<["a"] : tensor<1x!graph.string>>' in str(imported)
    c = model(
        [
            helper.make_node(
                "Constant",
                [],
                ["y"],
                name="c8",
                value=helper.make_tensor("v", TensorProto.FLOAT8E4M3FN, [1], [1.0]),
            )
        ],
        [],
        [vi("y", TensorProto.FLOAT8E4M3FN, [1])],
    )
    # The checker's type inference rejects it; without the checker, the Constant converter does.
    assert "c8" in _error(c) and "float8e4m3fn" in _error(c)
    monkeypatch.setattr(importer, "check_model", lambda model, label: None)
    assert _error(c) == (
        "node 'c8' (Constant, opset 17): value attribute 'value' has unsupported dtype FLOAT8E4M3FN"
    )


def test_sequence_input_is_rejected() -> None:
    seq = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, [2])
    m = model(
        [helper.make_node("Identity", ["s"], ["y"])],
        [seq],
        [helper.make_tensor_sequence_value_info("y", TensorProto.FLOAT, [2])],
    )
    assert _error(m) == "graph input 's' is a sequence; only tensors are supported"


def test_missing_initializer_and_undefined_names() -> None:
    m = model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [vi("x", TensorProto.FLOAT, [2])],
        [vi("y", TensorProto.FLOAT, [2])],
    )
    assert _error(m) == (
        "node 'add' (Add, opset 17) uses 'w', which is no graph input, initializer or node output"
    )
    no_output = model([], [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])])
    assert "'y'" in _error(no_output)


def test_nodes_out_of_topological_order() -> None:
    m = model(
        [
            helper.make_node("Relu", ["a"], ["y"], name="second"),
            helper.make_node("Relu", ["x"], ["a"], name="first"),
        ],
        [vi("x", TensorProto.FLOAT, [2])],
        [vi("y", TensorProto.FLOAT, [2])],
    )
    assert _error(m) == (
        "node 'second' (Relu, opset 17) uses 'a' before the node that produces it; "
        "ONNX nodes must be in topological order"
    )


def test_graph_output_not_produced_when_the_checker_is_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gedialects.frontend.onnx import importer

    monkeypatch.setattr(importer, "check_model", lambda model, label: None)
    no_output = model([], [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])])
    assert _error(no_output) == "graph output 'y' is no graph input, initializer or node output"
    unnamed = model(
        [helper.make_node("Relu", ["x"], ["a"]), helper.make_node("Relu", ["b"], ["y"])],
        [vi("x", TensorProto.FLOAT, [2])],
        [vi("y", TensorProto.FLOAT, [2])],
    )
    assert _error(unnamed).startswith("node 'Relu_1' (Relu, opset 17) uses 'b', ")


def test_opset_out_of_range() -> None:
    m = add_relu(opset=max_opset() + 1)
    assert f"opset {max_opset() + 1}" in _error(m)
    old = model(
        [helper.make_node("Identity", ["x"], ["y"])],
        [vi("x", TensorProto.FLOAT, [2])],
        [vi("y", TensorProto.FLOAT, [2])],
        opset=1,
    )
    old.ir_version = 3
    assert graph_of(import_model(old)).input_names == ("x",)


def test_failed_opset_upgrade_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from onnx import version_converter

    def refuse(model: onnx.ModelProto, version: int) -> onnx.ModelProto:
        raise RuntimeError("No Adapter From Version $6 for Relu\nmore")

    monkeypatch.setattr(version_converter, "convert_version", refuse)
    assert _error(add_relu(opset=6, name="old")) == (
        "'old' uses ai.onnx opset 6; opsets 11 to "
        f"{max_opset()} are supported and onnx.version_converter could not convert it: "
        "No Adapter From Version $6 for Relu"
    )


def test_bad_model_for_a_builder_names_the_node(monkeypatch: pytest.MonkeyPatch) -> None:
    from gedialects.frontend.onnx import importer

    monkeypatch.setattr(importer, "check_model", lambda model, label: None)
    m = model(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")],
        [vi("x", TensorProto.FLOAT, [2, 3]), vi("w", TensorProto.FLOAT, [4, 5])],
        [vi("y", TensorProto.FLOAT, [2, 5])],
    )
    # The checker's shape inference would reject it first; without it, the builder does.
    assert _error(m).startswith("node 'mm' (MatMul, opset 17): ")


# --------------------------------------------------------------------------------------------
# Command lines
# --------------------------------------------------------------------------------------------


def test_ge_import_prints_and_writes(tmp_path: Path) -> None:
    src = tmp_path / "m.onnx"
    onnx.save(add_relu(), src)
    printed = run_tool("ge-import", str(src))
    assert printed.returncode == 0, printed.stderr
    assert 'graph.graph @net(%x: tensor<2x3xf32> {node_name = "x"})' in printed.stdout
    out = tmp_path / "m.mlir"
    written = run_tool("ge-import", str(src), "-o", str(out), "--graph-name", "g")
    assert written.returncode == 0 and written.stdout == ""
    module = parse(out.read_text())
    assert graph_of(module).sym_name.data == "g"
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(run(module, {"x": x})["y"], reference(x)[0], rtol=1e-6)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.mlir", "m.onnx"]


@pytest.mark.parametrize("case", ["truncated", "text", "unsupported", "missing"])
def test_ge_import_errors_are_one_line_and_write_nothing(tmp_path: Path, case: str) -> None:
    src = tmp_path / "m.onnx"
    if case == "truncated":
        data = add_relu().SerializeToString()
        src.write_bytes(data[: len(data) - 7])
    elif case == "text":
        src.write_text("not a model")
    elif case == "unsupported":
        onnx.save(
            model(
                [unsupported_node()],
                [vi("x", TensorProto.FLOAT, [4])],
                [vi("y", TensorProto.FLOAT, None)],
                opset=20,
            ),
            src,
        )
    out = tmp_path / "out.mlir"
    result = run_tool("ge-import", str(src), "-o", str(out))
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == (["m.onnx"] if case != "missing" else [])


def test_ge_opt_compiles_onnx_and_levels_agree(tmp_path: Path) -> None:
    src = tmp_path / "m.onnx"
    onnx.save(add_relu(), src)
    graph_ir = tmp_path / "g.mlir"
    ascend_ir = tmp_path / "a.mlir"
    assert run_tool("ge-opt", str(src), "-o", str(graph_ir)).returncode == 0
    compiled = run_tool("ge-opt", str(src), "-p", "ge-compile", "-o", str(ascend_ir))
    assert compiled.returncode == 0, compiled.stderr
    assert "ascend.model" in ascend_ir.read_text()
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    for ir, out in ((graph_ir, "g.npz"), (ascend_ir, "a.npz")):
        r = run_tool(
            "ge-run", str(ir), "--inputs", str(tmp_path / "in.npz"), "-o", str(tmp_path / out), "-q"
        )
        assert r.returncode == 0, r.stderr
    g, a = np.load(tmp_path / "g.npz"), np.load(tmp_path / "a.npz")
    for name in ("y", "z"):
        np.testing.assert_array_equal(g[name], a[name])
    np.testing.assert_allclose(g["y"], reference(x)[0], rtol=1e-5)


def test_ge_opt_onnx_on_stdin_and_errors(tmp_path: Path) -> None:
    import subprocess
    import sys

    src = tmp_path / "m.onnx"
    onnx.save(add_relu(), src)
    ge_opt = str(Path(sys.executable).parent / "ge-opt")
    with src.open("rb") as f:
        r = subprocess.run(
            [ge_opt, "-f", "onnx"], stdin=f, capture_output=True, text=True, timeout=120
        )
    assert r.returncode == 0, r.stderr
    assert "graph.graph @net" in r.stdout
    bad = tmp_path / "bad.onnx"
    bad.write_text("nope")
    r = run_tool("ge-opt", str(bad))
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "is not an ONNX model" in r.stderr
