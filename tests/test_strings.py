"""String tensors (GE DT_STRING): `!graph.string`, `#graph.strings` constants, numpy unicode
arrays in the interpreter and in npz (never pickled objects), the ONNX importer's STRING
tensors, and the command-line tools on real string values."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from gedialects import make_context
from gedialects.frontend.onnx import OnnxImportError, import_model
from gedialects.graph import ConstOp
from gedialects.interpreters.run import RunError, run
from gedialects.strings import STRING, StringsAttr
from gedialects.tensors import const_from_numpy, numpy_from_dense
from tests.conftest import run_tool

AWKWARD = ['a"b\\', "é€\U0001f600", "", "x\x00y", "\x00", "tab\tnl\n\x7f", "\\00"]
"""Quotes, backslashes, non-ASCII (also beyond the BMP), empty, NULs, controls, an escape's
spelling."""


def _module_text(values: list[str]) -> str:
    attr = StringsAttr(values, TensorType(STRING, [len(values)]))
    const = ConstOp(attr)
    import io

    from xdsl.printer import Printer

    out = io.StringIO()
    Printer(stream=out).print_attribute(const.value)
    t = f"tensor<{len(values)}x!graph.string>"
    return (
        f"graph.graph @g() -> ({t}) {{\n  %c = graph.const {out.getvalue()}\n"
        f"  graph.net_output %c : {t}\n}}\n"
    )


def _parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def test_strings_round_trip_custom_generic_custom_exactly() -> None:
    module = _parse(_module_text(AWKWARD))
    module.verify()
    const = next(op for op in module.walk() if isinstance(op, ConstOp))
    assert isinstance(const.value, StringsAttr)
    assert const.value.strings == tuple(AWKWARD)
    custom = str(module)
    import io

    from xdsl.printer import Printer

    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    generic = _parse(out.getvalue())
    assert str(generic) == custom
    again = next(op for op in generic.walk() if isinstance(op, ConstOp))
    assert isinstance(again.value, StringsAttr) and again.value.strings == tuple(AWKWARD)


def test_numpy_bridge_is_unicode_and_splats_broadcast() -> None:
    array = np.array([["ab", "é"], ["", "x\x00y"]])
    attr = const_from_numpy(array)
    assert isinstance(attr, StringsAttr) and attr.type == TensorType(STRING, [2, 2])
    back = numpy_from_dense(attr)
    assert back.dtype.kind == "U" and back.tolist() == array.tolist()
    splat = numpy_from_dense(StringsAttr(["z"], TensorType(STRING, [3])))
    assert splat.tolist() == ["z", "z", "z"]


def test_lone_surrogate_is_refused() -> None:
    with pytest.raises(VerifyException, match="not valid Unicode"):
        StringsAttr(["\ud800"], TensorType(STRING, [1])).verify()


def _equal_model(strings: list[str]) -> onnx.ModelProto:
    data = [s.encode() for s in strings]
    const = helper.make_tensor("c", TensorProto.STRING, [len(strings)], data)  # pyright: ignore[reportArgumentType]
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["k"], value=const),
            helper.make_node("Equal", ["x", "k"], ["y"]),
        ],
        "eq",
        [helper.make_tensor_value_info("x", TensorProto.STRING, [len(strings)])],
        [
            helper.make_tensor_value_info("y", TensorProto.BOOL, [len(strings)]),
            helper.make_tensor_value_info("k", TensorProto.STRING, [len(strings)]),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


def test_import_string_constant_and_equal_run_on_unicode_arrays() -> None:
    module = import_model(_equal_model(AWKWARD[:4]))
    x = np.array(['a"b\\', "e", "", "x\x00y"])
    got = run(module, {"x": x})
    assert got["y"].tolist() == [True, False, True, True]
    assert got["k"].dtype.kind == "U" and got["k"].tolist() == AWKWARD[:4]
    with pytest.raises(RunError, match="has dtype float32"):
        run(module, {"x": np.zeros(4, np.float32)})


def test_string_initializer_that_is_not_utf8_is_refused() -> None:
    model = _equal_model(["a"])
    model.graph.node[0].attribute[0].t.string_data[0] = b"\xff"
    with pytest.raises(OnnxImportError, match="initializer 'c': 'utf-8' codec can't decode"):
        import_model(model)


def test_tools_carry_strings_through_files(tmp_path: Path) -> None:
    onnx.save(_equal_model(AWKWARD[:3]), tmp_path / "m.onnx")
    np.savez(tmp_path / "in.npz", x=np.array(['a"b\\', "é€\U0001f600", "no"]))
    done = run_tool("ge-import", "m.onnx", "-o", "m.mlir", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "#graph.strings<" in (tmp_path / "m.mlir").read_text()
    done = run_tool("ge-opt", "m.mlir", "-o", "m2.mlir", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = run_tool("ge-run", "m2.mlir", "--inputs", "in.npz", "-o", "out.npz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "out.npz", allow_pickle=False) as out:
        assert out["y"].tolist() == [True, True, False]
        assert out["k"].dtype.kind == "U" and out["k"].tolist() == AWKWARD[:3]


def test_object_arrays_in_npz_are_refused(tmp_path: Path) -> None:
    onnx.save(_equal_model(["a"]), tmp_path / "m.onnx")
    np.savez(tmp_path / "in.npz", x=np.array(["a"], dtype=object))
    assert run_tool("ge-import", "m.onnx", "-o", "m.mlir", cwd=tmp_path).returncode == 0
    done = run_tool("ge-run", "m.mlir", "--inputs", "in.npz", cwd=tmp_path)
    assert done.returncode == 1
    assert "object arrays are not supported" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
