"""Stateful graphs (issue 20): variables kept by the session across runs, the writers, and the
errors of bad variables."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.interpreters.entry import RunError
from gedialects.interpreters.run import run
from gedialects.interpreters.variables import VariableStore

STEP = """
graph.graph @main(%x: tensor<2xf32>) -> (tensor<2xf32> {node_name = "y"}) {
  %w = graph.variable "w" = dense<[0.5, -1.0]> : tensor<2xf32>
  %c = graph.variable "c" = dense<0> : tensor<i32>
  %one = graph.const dense<1> : tensor<i32>
  %y = graph.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %d = graph.mul %y, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_sub %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %c1 = graph.assign_add %c, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  graph.net_output %y : tensor<2xf32>
}
"""


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def numpy_steps(x: np.ndarray, w: np.ndarray, n: int) -> tuple[np.ndarray, list[np.ndarray]]:
    ys = []
    for _ in range(n):
        y = (x * w).astype(np.float32)
        ys.append(y)
        w = (w - y * x).astype(np.float32)
    return w, ys


@pytest.mark.parametrize("compiled", [True, False])
def test_variables_persist_across_runs_of_one_store(compiled: bool) -> None:
    module = parse(STEP)
    store = VariableStore()
    x = np.array([0.25, 0.5], np.float32)
    from gedialects.interpreters.run import run_entry

    ys = [
        run_entry(module, {"x": x}, variables=store, compiled=compiled).outputs["y"]
        for _ in range(3)
    ]
    w, expected = numpy_steps(x, np.array([0.5, -1.0], np.float32), 3)
    np.testing.assert_array_equal(store.get("w"), w)
    assert int(store.get("c")) == 3
    for got, want in zip(ys, expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_a_fresh_store_starts_from_the_initial_values() -> None:
    module = parse(STEP)
    x = np.array([0.25, 0.5], np.float32)
    first = run(module, {"x": x})
    again = run(module, {"x": x})
    np.testing.assert_array_equal(first["y"], again["y"])


def test_user_value_replaces_the_initial_value() -> None:
    module = parse(STEP)
    store = VariableStore()
    store.set("w", np.array([2.0, 3.0], np.float32))
    out = run(module, {"x": np.full(2, 0.5, np.float32)}, variables=store)
    np.testing.assert_array_equal(out["y"], [1.0, 1.5])
    np.testing.assert_array_equal(store.get("w"), [1.5, 2.25])


def test_variable_read_before_initialisation_is_one_line() -> None:
    module = parse(STEP.replace("= dense<[0.5, -1.0]> : tensor<2xf32>", ": tensor<2xf32>"))
    with pytest.raises(RunError) as info:
        run(module, {"x": np.ones(2, np.float32)})
    message = str(info.value)
    assert "\n" not in message
    assert 'reads the variable "w" before it is initialised' in message


def test_assign_initialises_a_variable_without_value() -> None:
    module = parse("""
graph.graph @init(%v: tensor<3xi32>) -> tensor<3xi32> {
  %c = graph.variable "c" : tensor<3xi32>
  %c1 = graph.assign %c, %v : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  graph.net_output %c1 : tensor<3xi32>
}
""")
    store = VariableStore()
    out = run(module, {"v": np.array([1, 2, 3], np.int32)}, variables=store)
    np.testing.assert_array_equal(out["output0"], [1, 2, 3])
    np.testing.assert_array_equal(store.get("c"), [1, 2, 3])


def test_variables_shared_by_two_graphs_of_a_module() -> None:
    module = parse("""
graph.graph @bump() -> tensor<i64> {
  %c = graph.variable "n" = dense<10> : tensor<i64>
  %one = graph.const dense<1> : tensor<i64>
  %c1 = graph.assign_add %c, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  graph.net_output %c1 : tensor<i64>
}
graph.graph @peek() -> tensor<i64> {
  %c = graph.ref_data "n" : tensor<i64>
  graph.net_output %c : tensor<i64>
}
""")
    store = VariableStore()
    run(module, {}, entry="bump", variables=store)
    run(module, {}, entry="bump", variables=store)
    assert int(run(module, {}, entry="peek", variables=store)["output0"]) == 12


def test_integer_assign_add_wraps_in_the_variable_dtype() -> None:
    module = parse("""
graph.graph @g() -> tensor<i8> {
  %c = graph.variable "c" = dense<127> : tensor<i8>
  %one = graph.const dense<1> : tensor<i8>
  %c1 = graph.assign_add %c, %one : (tensor<i8>, tensor<i8>) -> tensor<i8>
  graph.net_output %c1 : tensor<i8>
}
""")
    store = VariableStore()
    assert int(run(module, {}, variables=store)["output0"]) == -128
    assert store.get("c").dtype == np.int8


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (np.zeros(3, np.float32), "variable 'w' is float32 [2], the value given is float32 [3]"),
        (np.zeros(2, np.float64), "variable 'w' is float32 [2], the value given is float64 [2]"),
    ],
)
def test_setting_a_variable_of_another_shape_or_dtype_is_one_line(
    value: np.ndarray, expected: str
) -> None:
    from gedialects.graph import variable_types

    store = VariableStore()
    with pytest.raises(RunError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        store.update({"w": value}, variable_types(parse(STEP)))


def test_setting_an_unknown_variable_is_one_line() -> None:
    from gedialects.graph import variable_types

    with pytest.raises(RunError, match=r"unknown variable 'v' \(the module's variables: c, w\)"):
        VariableStore().update({"v": np.zeros(2, np.float32)}, variable_types(parse(STEP)))
