"""The graph program's buffer pool (`interpreters.graph.program`): out-variants write into
buffers kept between runs, and a buffer goes back only when nothing else holds it."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter

from gedialects.frontend.onnx import import_model
from gedialects.graph import GraphOp
from gedialects.interpreters import kernels, make_interpreter
from gedialects.interpreters.graph import program_for
from gedialects.interpreters.graph.program import GraphProgram
from gedialects.interpreters.run import run


def _model() -> onnx.ModelProto:
    """r = Relu(x); v = Reshape(r) (a view of r's buffer, live after r's last reader);
    n = Neg(x) and a = Abs(x), out-variants of r's shape that would take r's buffer were it
    given back; y = Add(n, a) (n's and a's buffers do go back)."""
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Reshape", ["r", "shape"], ["v"]),
        helper.make_node("Neg", ["x"], ["n"]),
        helper.make_node("Abs", ["x"], ["a"]),
        helper.make_node("Add", ["n", "a"], ["s"]),
        helper.make_node("Neg", ["s"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "pool",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])],
        [
            helper.make_tensor_value_info("v", TensorProto.FLOAT, [6, 4]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 6]),
        ],
        [numpy_helper.from_array(np.array([6, 4], np.int64), "shape")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _want(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.maximum(x, 0).reshape(6, 4), -(-x + np.abs(x))


def test_a_view_keeps_its_buffer_out_of_the_pool() -> None:
    module = import_model(_model())
    interpreter = make_interpreter(module)
    rng = np.random.default_rng(0)
    for _ in range(3):
        x = rng.standard_normal((4, 6)).astype(np.float32)
        got = run(module, {"x": x}, interpreter=interpreter)
        v, y = _want(x)
        np.testing.assert_array_equal(got["v"], v)
        np.testing.assert_array_equal(got["y"], y)


def test_outputs_of_a_run_are_not_reused_by_the_next() -> None:
    module = import_model(_model())
    interpreter = make_interpreter(module)
    rng = np.random.default_rng(1)
    x1, x2 = (rng.standard_normal((4, 6)).astype(np.float32) for _ in range(2))
    first = run(module, {"x": x1}, interpreter=interpreter)
    kept = {k: v.copy() for k, v in first.items()}
    second = run(module, {"x": x2}, interpreter=interpreter)
    for k in kept:
        np.testing.assert_array_equal(first[k], kept[k])
        assert not np.shares_memory(first[k], second[k])
    np.testing.assert_array_equal(second["y"], _want(x2)[1])


def _program(module: ModuleOp, interpreter: Interpreter) -> GraphProgram:
    graph = next(op for op in module.walk() if isinstance(op, GraphOp))
    program = program_for(interpreter, graph)
    assert program is not None
    return program


def test_freed_buffers_go_back_and_a_viewed_one_does_not() -> None:
    """n's and a's buffers go back after Add, y takes one of them, s's goes back after y: two
    4x6 buffers in the pool after a run, and not r's, which the view v (an output) holds."""
    module = import_model(_model())
    interpreter = make_interpreter(module)
    run(module, {"x": np.ones((4, 6), np.float32)}, interpreter=interpreter)
    (pool,) = _program(module, interpreter).pools
    assert [(shape, len(free)) for (shape, _), free in pool.items()] == [((4, 6), 2)]


def test_swapping_an_out_variant_on_the_kernels_module_reaches_the_graph_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The program looks out-variants up on `kernels` (as the ascend binders do), so what
    swaps them there (bench_scale's no-op harness, a profiler) runs at both levels."""
    called: list[str] = []
    real = kernels.get_kernel_into

    def spy(ge_type: str) -> kernels.KernelInto | None:
        fn = real(ge_type)
        if fn is None:
            return None

        def into(*args: Any) -> None:
            called.append(ge_type)
            fn(*args)

        return into

    monkeypatch.setattr(kernels, "get_kernel_into", spy)
    module = import_model(_model())
    x = np.ones((4, 6), np.float32)
    got = run(module, {"x": x}, interpreter=make_interpreter(module))
    np.testing.assert_array_equal(got["y"], _want(x)[1])
    assert sorted(called) == ["Abs", "Add", "Neg", "Neg", "Relu"]
