"""Stateful graphs (issue 20): variables kept by the session across runs, the writers, and the
errors of bad variables."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, StringAttr
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


# --------------------------------------------------------------------------------------------
# The ascend level: the variable region, sunk loops, the Session, the tools
# --------------------------------------------------------------------------------------------

TRAIN = Path(__file__).parent.parent / "examples" / "train_step.mlir"


def training_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return (
        rng.standard_normal((8, 3)).astype(np.float32),
        rng.standard_normal((8, 1)).astype(np.float32),
    )


def numpy_training(x: np.ndarray, t: np.ndarray, steps: int) -> dict[str, np.ndarray]:
    """The update of examples/train_step.mlir in numpy, float32 throughout."""
    w = np.array([[0.5], [-0.25], [1.0]], np.float32)
    b = np.zeros(1, np.float32)
    lr, scale = np.float32(0.1), np.float32(0.25)
    for _ in range(steps):
        e = (x @ w + b) - t
        g = e * scale
        w = w - (x.T @ g) * lr
        b = b - g.sum(axis=0) * lr
    return {"w": w, "b": b}


def compile_text(text: str, iterations: int = 1) -> ModuleOp:
    from gedialects.passes.pipelines import CompilePipelinePass

    module = parse(text)
    CompilePipelinePass(iterations_per_loop=iterations).apply(make_context(), module)
    module.verify()
    return module


@pytest.mark.parametrize("seed", [None, 0, 1, 2])
@pytest.mark.parametrize("compiled", [True, False])
def test_sunk_training_step_applies_ten_updates_in_one_launch(
    seed: int | None, compiled: bool
) -> None:
    from gedialects.interpreters.run import run_entry

    module = compile_text(TRAIN.read_text(), iterations=10)
    x, t = training_data()
    store = VariableStore()
    run_entry(
        module,
        {"x": x, "t": t},
        variables=store,
        schedule_seed=seed,
        check_uninitialized=seed is not None,
        compiled=compiled,
    )
    want = numpy_training(x, t, 10)
    for name in ("w", "b"):
        np.testing.assert_allclose(store.get(name), want[name], rtol=1e-6, atol=1e-7)
    graph_store = VariableStore()  # ten graph-level runs give the very same bits
    graph = parse(TRAIN.read_text())
    for _ in range(10):
        run(graph, {"x": x, "t": t}, variables=graph_store)
    for name in ("w", "b"):
        np.testing.assert_array_equal(store.get(name), graph_store.get(name))


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_compiled_model_keeps_variables_across_runs_like_the_graph(seed: int) -> None:
    from gedialects.interpreters.run import run_entry

    module, graph = compile_text(STEP), parse(STEP)
    x = np.array([0.25, 0.5], np.float32)
    model_store, graph_store = VariableStore(), VariableStore()
    for _ in range(3):
        a = run_entry(
            module, {"x": x}, variables=model_store, schedule_seed=seed, check_uninitialized=True
        ).outputs
        g = run(graph, {"x": x}, variables=graph_store)
        np.testing.assert_array_equal(a["y"], g["y"])
    for name in ("w", "c"):
        np.testing.assert_array_equal(model_store.get(name), graph_store.get(name))
    assert int(model_store.get("c")) == 3


def test_model_variable_read_before_initialisation_is_one_line() -> None:
    module = compile_text(STEP.replace("= dense<[0.5, -1.0]> : tensor<2xf32>", ": tensor<2xf32>"))
    with pytest.raises(RunError) as info:
        run(module, {"x": np.ones(2, np.float32)})
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(
        "'ascend.model' @main reads the variable \"w\" before it is initialised"
    )


def test_model_assign_first_initialises_the_variable() -> None:
    text = """
graph.graph @init(%v: tensor<3xi32>) -> tensor<3xi32> {
  %c = graph.variable "c" : tensor<3xi32>
  %c1 = graph.assign %c, %v : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  graph.net_output %c1 : tensor<3xi32>
}
"""
    from gedialects.interpreters.run import run_entry

    store = VariableStore()
    v = np.array([4, 5, 6], np.int32)
    out = run_entry(
        compile_text(text), {"v": v}, variables=store, check_uninitialized=True, schedule_seed=1
    ).outputs
    np.testing.assert_array_equal(out["output0"], v)
    np.testing.assert_array_equal(store.get("c"), v)


def test_session_keeps_variables_across_run_graph_and_reads_and_writes_them() -> None:
    from gedialects import Session
    from gedialects.errors import InputError

    session = Session()
    session.add_graph(1, str(TRAIN))
    x, t = training_data()
    assert session.variable_names() == ("b", "w")
    with pytest.raises(InputError, match="variable 'w' has no value yet"):
        session.read_variable("w")
    for _ in range(4):
        session.run_graph(1, {"x": x, "t": t})
    want = numpy_training(x, t, 4)
    np.testing.assert_allclose(session.read_variable("w"), want["w"], rtol=1e-6, atol=1e-7)
    session.write_variable("w", np.zeros((3, 1), np.float32))
    session.write_variable("b", np.zeros(1, np.float32))
    loss = session.run_graph(1, {"x": x, "t": t})["loss"]
    np.testing.assert_allclose(loss, np.mean(t * t), rtol=1e-6)
    with pytest.raises(InputError, match=r"variable 'w' is float32 \[3,1\], the value given"):
        session.write_variable("w", np.zeros(3, np.float32))
    with pytest.raises(InputError, match=r"unknown variable 'v' \(the session's variables: b, w\)"):
        session.write_variable("v", np.zeros(3, np.float32))
    with pytest.raises(InputError, match="pass a numpy array, not list"):
        session.write_variable("w", [[0.0], [0.0], [0.0]])  # type: ignore[arg-type]


def test_training_step_through_files_matches_ten_numpy_steps(tmp_path: Path) -> None:
    """The way users run it: ge-opt ge-compile{iterations-per-loop=10} -> .mlir -> ge-run."""
    x, t = training_data()
    np.savez(tmp_path / "in.npz", x=x, t=t)
    model = tmp_path / "train.mlir"
    env = {**os.environ, "PYTHONPATH": str(TRAIN.parent.parent)}
    subprocess.run(
        [sys.executable, "-m", "gedialects.tools.ge_opt", str(TRAIN), "-p",
         "ge-compile{iterations-per-loop=10}", "-o", str(model)],
        check=True, env=env,
    )  # fmt: skip
    for launch in (1, 2):
        given = ["--variables", str(tmp_path / "after.npz")] if launch == 2 else []
        subprocess.run(
            [sys.executable, "-m", "gedialects.tools.ge_run", str(model), "--inputs",
             str(tmp_path / "in.npz"), *given, "--dump-variables", str(tmp_path / "next.npz"),
             "-q", "--check-uninitialized", "--schedule-seed", str(launch)],
            check=True, env=env,
        )  # fmt: skip
        os.replace(tmp_path / "next.npz", tmp_path / "after.npz")
        after = np.load(tmp_path / "after.npz")
        want = numpy_training(x, t, 10 * launch)
        for name in ("w", "b"):
            np.testing.assert_allclose(after[name], want[name], rtol=1e-5, atol=1e-6)


def test_tutorial_training_step_is_the_example_file() -> None:
    """docs/tutorial.md's block writes examples/train_step.mlir, which these tests compile."""
    tutorial = (TRAIN.parent.parent / "docs" / "tutorial.md").read_text()
    assert "```mlir file=train_step.mlir\n" + TRAIN.read_text() + "```" in tutorial


AGAIN = """
graph.graph @bump() -> tensor<2xf32> {
  %v = graph.variable "v" : tensor<2xf32>
  %one = graph.const dense<1.0> : tensor<2xf32>
  %v1 = graph.assign_add %v, %one : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %v1 : tensor<2xf32>
}
graph.graph @again(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = graph.variable "v" = dense<[0.0, 5.0]> : tensor<2xf32>
  %before = graph.mul %a, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b1 = partition.partitioned_call @bump() : () -> tensor<2xf32>
  %b = graph.ref_data "v" : tensor<2xf32>
  %s = graph.add %before, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %s : tensor<2xf32>
}
"""


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_variable_read_again_after_a_call_that_writes_it(seed: int) -> None:
    from gedialects.interpreters.run import run_entry

    x = np.array([2.0, 3.0], np.float32)
    graph_store, model_store = VariableStore(), VariableStore()
    module = compile_text(AGAIN)
    for run_index in range(3):
        g = run(parse(AGAIN), {"x": x}, entry="again", variables=graph_store)["output0"]
        a = run_entry(
            module,
            {"x": x},
            variables=model_store,
            schedule_seed=seed,
            check_uninitialized=True,
        ).outputs["output0"]
        v = np.array([0.0, 5.0], np.float32) + run_index
        np.testing.assert_array_equal(g, v * x + v + 1)
        np.testing.assert_array_equal(a, g)


@pytest.mark.parametrize("text", [TRAIN.read_text(), AGAIN, STEP], ids=["train", "again", "step"])
def test_numbers_after_every_stage_equal_the_graph_level(text: str) -> None:
    """Each stage of ge-compile, applied one by one: three runs on one store give the graph
    level's outputs and variables (ascend stages under random schedules, memory checked)."""
    from gedialects.ascend import ModelOp
    from gedialects.interpreters.run import find_entry, random_inputs, run_entry, signature
    from gedialects.passes.pipelines import CompilePipelinePass

    entry = "again" if "@again" in text else None
    module = parse(text)
    inputs = random_inputs(signature(find_entry(module, entry)), 0)

    def three_runs(m: ModuleOp, seed: int) -> tuple[list[dict[str, np.ndarray]], dict]:
        store = VariableStore()
        is_model = isinstance(find_entry(m, entry), ModelOp)
        outs = [
            run_entry(
                m,
                inputs,
                entry,
                variables=store,
                schedule_seed=seed + k if is_model else None,
                check_uninitialized=is_model,
            ).outputs
            for k in range(3)
        ]
        return outs, store.snapshot()

    want_outs, want_vars = three_runs(module, 0)
    for number, stage in enumerate(CompilePipelinePass(iterations_per_loop=1).passes()):
        stage.apply(make_context(), module)
        module.verify()
        outs, variables = three_runs(module, 10 * number)
        for got, want in zip(outs, want_outs, strict=True):
            for name in want:
                np.testing.assert_allclose(got[name], want[name], rtol=1e-6, err_msg=stage.name)
        assert sorted(variables) == sorted(want_vars), stage.name
        for name in want_vars:
            np.testing.assert_allclose(variables[name], want_vars[name], rtol=1e-6)


SPLIT = """
graph.graph @then(%a: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.mul %a, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @else(%a: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.sub %a, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @cond(%i: tensor<i32>, %w: tensor<2xf32>, %s: tensor<2xf32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %w: tensor<2xf32>, %s: tensor<2xf32>)
    -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %i1 = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %s1 = graph.add %s, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %i1, %w, %s1 : tensor<i32>, tensor<2xf32>, tensor<2xf32>
}
graph.graph @main(%c: tensor<i1>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %y = graph.if %c, %x, %w then_branch @then else_branch @else
      : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %zero = graph.const dense<0> : tensor<i32>
  %r:3 = graph.while %zero, %w, %x cond @cond body @body
      : (tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>)
  %d = graph.mul %r#1, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_sub %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y, %r#2 : tensor<2xf32>, tensor<2xf32>
}
"""


@pytest.mark.parametrize("cond", [True, False])
def test_split_variables_into_subgraphs_keeps_the_numbers(cond: bool) -> None:
    from gedialects.interpreters.run import run_entry
    from gedialects.passes.split_variables import SplitVariablesIntoSubgraphsPass

    inputs = {"c": np.array(cond), "x": np.array([0.5, -1.0], np.float32)}
    split = parse(SPLIT)
    SplitVariablesIntoSubgraphsPass().apply(make_context(), split)
    split.verify()
    copies = [op for op in split.walk() if op.name == "graph.variable"]
    assert len(copies) == 5  # main's, a copy in each branch and in the body, one after the loop
    compiled = compile_text(str(split))
    stores = [VariableStore() for _ in range(3)]
    for run_index in range(3):
        want = run(parse(SPLIT), inputs, variables=stores[0])
        got = run(split, inputs, variables=stores[1])
        model = run_entry(
            compiled, inputs, variables=stores[2], schedule_seed=run_index, check_uninitialized=True
        ).outputs
        for name in want:
            np.testing.assert_array_equal(got[name], want[name])
            np.testing.assert_array_equal(model[name], want[name])
    np.testing.assert_array_equal(stores[1].get("w"), stores[0].get("w"))
    np.testing.assert_array_equal(stores[2].get("w"), stores[0].get("w"))


def test_variable_refs_inserted_and_deleted_keep_the_numbers() -> None:
    from gedialects.graph import AssignAddOp, AssignOp, AssignSubOp, MulOp
    from gedialects.interpreters.run import run_entry
    from gedialects.passes.delete_variable_refs import DeleteVariableRefsPass
    from gedialects.passes.prepare_variables import PrepareVariablesPass, ref_ports

    assert all(ref_ports(t) == {0: 0} for t in (AssignOp, AssignAddOp, AssignSubOp))
    assert ref_ports(MulOp) == {}
    x, t = training_data()
    prepared = parse(TRAIN.read_text())
    PrepareVariablesPass().apply(make_context(), prepared)
    prepared.verify()
    assert sum(op.name == "graph.variable_ref" for op in prepared.walk()) == 2
    deleted = parse(str(prepared))
    DeleteVariableRefsPass().apply(make_context(), deleted)
    deleted.verify()
    writers = [op for op in deleted.walk() if op.name == "graph.assign_sub"]
    assert [w.attributes["ref_var_src_var_name"] for w in writers] == [
        StringAttr("w"),
        StringAttr("b"),
    ]
    stores = [VariableStore() for _ in range(4)]
    model = compile_text(str(deleted))
    for k in range(3):
        run(parse(TRAIN.read_text()), {"x": x, "t": t}, variables=stores[0])
        run(prepared, {"x": x, "t": t}, variables=stores[1])
        run(deleted, {"x": x, "t": t}, variables=stores[2])
        run_entry(model, {"x": x, "t": t}, variables=stores[3], schedule_seed=k)
    for store in stores[1:]:
        for name in ("w", "b"):
            np.testing.assert_array_equal(store.get(name), stores[0].get(name))


UNKNOWN_WRITER = """
graph.graph @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %y = graph.mul %x, %w : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %y1 = graph.abs %y : (tensor<2xf32>) -> tensor<2xf32>
  %y2 = graph.neg %y1 : (tensor<2xf32>) -> tensor<2xf32>
  %y3 = graph.abs %y2 : (tensor<2xf32>) -> tensor<2xf32>
  %y4 = graph.neg %y3 : (tensor<2xf32>) -> tensor<2xf32>
  %a = graph.relu %x {_force_unknown_shape = true} : (tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_add %w, %a {_force_unknown_shape = true}
      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %z = graph.mul %w1, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y4, %z : tensor<2xf32>, tensor<2xf32>
}
"""


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_writer_in_an_unknown_shape_partition_writes_the_variable(seed: int) -> None:
    """The AssignAdd runs as a dynamic kernel in an unknown partition (beside a known one) and
    its result lands in the variable's bytes: three runs on one store equal the graph level."""
    from gedialects.interpreters.run import run_entry

    model = compile_text(UNKNOWN_WRITER)
    tasks = [op for op in model.walk() if "AssignAdd" in str(op) and op.name.startswith("ascend.")]
    assert [t.name for t in tasks if t.name != "ascend.model"] == ["ascend.dynamic_kernel"]
    assert any(op.name == "ascend.kernel" for op in model.walk())  # a known partition too
    x = np.array([0.5, -1.0], np.float32)
    graph_store, model_store = VariableStore(), VariableStore()
    for k in range(3):
        want = run(parse(UNKNOWN_WRITER), {"x": x}, variables=graph_store)
        got = run_entry(
            model, {"x": x}, variables=model_store, schedule_seed=seed + k, check_uninitialized=True
        ).outputs
        for name in want:
            np.testing.assert_array_equal(got[name], want[name])
    np.testing.assert_array_equal(model_store.get("w"), graph_store.get("w"))
    np.testing.assert_array_equal(graph_store.get("w"), np.array([2.5, 2.0], np.float32))


REF_THROUGH_CALLS = """
graph.graph @bump(%w: tensor<2xf32>, %d: tensor<2xf32>) -> tensor<2xf32> {
  %w1 = graph.assign_add %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}
graph.graph @then(%w: tensor<2xf32>, %d: tensor<2xf32>) -> tensor<2xf32> {
  %w1 = graph.assign_sub %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %w1 : tensor<2xf32>
}
graph.graph @else(%w: tensor<2xf32>, %d: tensor<2xf32>) -> tensor<2xf32> {
  %y = graph.mul %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @main(%c: tensor<i1>, %x: tensor<2xf32>)
    -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %y = partition.partitioned_call @bump(%w, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %y2 = graph.mul %y, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %v = graph.ref_data "w" : tensor<2xf32>
  %z = graph.if %c, %v, %x then_branch @then else_branch @else
      : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %u = graph.ref_data "w" : tensor<2xf32>
  %r = graph.mul %u, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y2, %z, %r : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
"""

REF_THROUGH_WHILE = """
graph.graph @cond(%i: tensor<i32>, %w: tensor<2xf32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %w: tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %i1 = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %d = graph.const dense<[0.5, 0.25]> : tensor<2xf32>
  %w1 = graph.assign_add %w, %d : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %i1, %w1 : tensor<i32>, tensor<2xf32>
}
graph.graph @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %zero = graph.const dense<0> : tensor<i32>
  %r:2 = graph.while %zero, %w cond @cond body @body
      : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>)
  %y = graph.mul %r#1, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %u = graph.ref_data "w" : tensor<2xf32>
  graph.net_output %y, %u : tensor<2xf32>, tensor<2xf32>
}
"""


@pytest.mark.parametrize(
    ("text", "inputs", "final"),
    [
        (REF_THROUGH_CALLS, {"c": np.array(True)}, [1.0, 2.0]),  # + x in @bump, - x in @then
        (REF_THROUGH_CALLS, {"c": np.array(False)}, [2.5, -1.0]),  # + x, three runs
        (REF_THROUGH_WHILE, {}, [5.5, 4.25]),  # + [0.5, 0.25], three iterations, three runs
    ],
    ids=["call-and-if-then", "call-and-if-else", "while"],
)
def test_variable_written_through_a_subgraph_data_input(
    text: str, inputs: dict[str, np.ndarray], final: list[float]
) -> None:
    """A variable passed into a PartitionedCall, an If or a While and written there through the
    subgraph's Data (a ref its caller feeds): the graph level writes the session's variable,
    and ge-compile (ge-split-variables-into-subgraphs copies the variable into the subgraph)
    gives the same outputs and variable over three runs, under random schedules."""
    from gedialects.interpreters.run import run_entry

    inputs = {**inputs, "x": np.array([0.5, -1.0], np.float32)}
    model = compile_text(text)
    graph_store, model_store = VariableStore(), VariableStore()
    for k in range(3):
        want = run(parse(text), inputs, variables=graph_store)
        got = run_entry(
            model, inputs, variables=model_store, schedule_seed=k, check_uninitialized=True
        ).outputs
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    np.testing.assert_array_equal(model_store.get("w"), graph_store.get("w"))
    np.testing.assert_array_equal(graph_store.get("w"), np.array(final, np.float32))


@pytest.mark.parametrize("text", [REF_THROUGH_CALLS, REF_THROUGH_WHILE], ids=["calls", "while"])
def test_refs_through_subgraph_data_after_every_stage(text: str) -> None:
    """The every-stage check of the graphs that write a variable through a subgraph input."""
    test_numbers_after_every_stage_equal_the_graph_level(text)


ENGINE_RW = """
graph.graph @main(%x: tensor<2xf32>) -> (tensor<2xf32> {node_name = "o"}) {
  %w = graph.variable "w" = dense<[0.5, -1.0]> : tensor<2xf32> {node_name = "w"}
  %y = graph.mul %x, %w {_engine_name = "AIcoreEngine"}
      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_sub %w, %y {_engine_name = "DNN_VM_AICPU"}
      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %z = graph.relu %w1 {_engine_name = "AIcoreEngine"} : (tensor<2xf32>) -> tensor<2xf32>
  %w2 = graph.assign_add %w1, %z {_engine_name = "AIcoreEngine"}
      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %v = graph.variable "w" = dense<[0.5, -1.0]> : tensor<2xf32> {node_name = "w_again"}
  %o = graph.mul %v, %y {_engine_name = "AIcoreEngine"}
      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %o : tensor<2xf32>
}
"""

ENGINE_ORDER = """
graph.graph @main(%x: tensor<2xf32>) -> (tensor<2xf32> {node_name = "r"}) {
  %w = graph.variable "w" = dense<[1.0, 2.0]> : tensor<2xf32>
  %b = graph.neg %x {_engine_name = "DNN_VM_AICPU"} : (tensor<2xf32>) -> tensor<2xf32>
  %r = graph.mul %x, %w {_engine_name = "AIcoreEngine"}
      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %w1 = graph.assign_add %w, %b {_engine_name = "DNN_VM_AICPU"}
      : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
"""


def engine_subgraphs(module: ModuleOp) -> list[str]:
    from gedialects.base import ENGINE_NAME
    from gedialects.graph import GraphOp

    found = []
    for g in module.ops:
        engine = g.attributes.get(ENGINE_NAME) if isinstance(g, GraphOp) else None
        if isinstance(engine, StringAttr):
            found.append(engine.data)
    return found


def lower_partitioned(text: str) -> ModuleOp:
    """The engine-partitioned graph lowered as it is, without the merge (End/PlaceHolder pairs
    become slots; the variable copies name the variable's memory)."""
    from gedialects.passes.assign_streams import AssignStreamsPass
    from gedialects.passes.convert_graph_to_ascend import ConvertGraphToAscendPass
    from gedialects.passes.partition.engine import PartitionEnginePass
    from gedialects.passes.plan_memory import PlanMemoryPass

    module = parse(text)
    for stage in (
        PartitionEnginePass(),
        ConvertGraphToAscendPass(),
        AssignStreamsPass(),
        PlanMemoryPass(),
    ):
        stage.apply(make_context(), module)
    module.verify()
    return module


@pytest.mark.parametrize(
    "text", [ENGINE_RW, ENGINE_ORDER, STEP, AGAIN], ids=["rw", "order", "step", "again"]
)
def test_engine_partition_of_a_stateful_graph_keeps_the_numbers(text: str) -> None:
    """ge-partition-engine cuts a graph with variables into AI Core / AI CPU subgraphs (no
    longer left whole); three runs on one store of the partitioned graph, of the merged one,
    of ge-compile's model and of the partitioned graph lowered without the merge (random
    schedules) equal the unpartitioned graph's."""
    from gedialects.interpreters.run import find_entry, random_inputs, run_entry, signature
    from gedialects.passes.partition.engine import PartitionEnginePass
    from gedialects.passes.partition.merge_engine_partitions import MergeEnginePartitionsPass

    entry = "again" if "@again" in text else None
    inputs = random_inputs(signature(find_entry(parse(text), entry)), 1)

    def three_runs(m: ModuleOp, seed: int | None) -> tuple[list[dict], dict]:
        store = VariableStore()
        outs = [
            run_entry(
                m, inputs, entry, variables=store, schedule_seed=None if seed is None else seed + k,
                check_uninitialized=seed is not None,
            ).outputs
            for k in range(3)
        ]  # fmt: skip
        return outs, store.snapshot()

    want = three_runs(parse(text), None)
    partitioned = parse(text)
    PartitionEnginePass().apply(make_context(), partitioned)
    partitioned.verify()
    engines = engine_subgraphs(partitioned)
    assert "AIcoreEngine" in engines
    assert "DNN_VM_AICPU" in engines or text in (STEP, AGAIN)
    got = [three_runs(partitioned, None)]
    MergeEnginePartitionsPass().apply(make_context(), partitioned)
    partitioned.verify()
    assert not engine_subgraphs(partitioned)
    got.append(three_runs(partitioned, None))
    model = compile_text(text)
    got += [three_runs(model, seed) for seed in (0, 7)]
    got.append(three_runs(lower_partitioned(text), 3))
    for outs, variables in got:
        for out, expected in zip(outs, want[0], strict=True):
            for name in expected:
                np.testing.assert_array_equal(out[name], expected[name])
        assert sorted(variables) == sorted(want[1])
        for name in want[1]:
            np.testing.assert_array_equal(variables[name], want[1][name])


def test_engine_order_needs_the_control_edge() -> None:
    """The Mul reads the variable before the AssignAdd (AI CPU, whose subgraph ranks first):
    the partitioned graph runs the AI Core subgraph first, so the Mul sees the old value."""
    from gedialects.passes.partition.engine import PartitionEnginePass

    module = parse(ENGINE_ORDER)
    PartitionEnginePass().apply(make_context(), module)
    x = np.array([0.5, -1.0], np.float32)
    store = VariableStore()
    first = run(module, {"x": x}, variables=store)["r"]
    np.testing.assert_array_equal(first, x * np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(store.get("w"), np.array([0.5, 3.0], np.float32))


def test_engine_partitioned_stateful_graph_through_files(tmp_path: Path) -> None:
    """ge-opt -p ge-compile -o x.mlir, then ge-run x.mlir twice (the second run starting from
    the first's variables) under random schedules: outputs and variables equal two runs of
    the graph level."""
    source = tmp_path / "rw.mlir"
    source.write_text(ENGINE_RW)
    model = tmp_path / "x.mlir"
    env = {**os.environ, "PYTHONPATH": str(TRAIN.parent.parent)}
    subprocess.run(
        [sys.executable, "-m", "gedialects.tools.ge_opt", str(source), "-p", "ge-compile",
         "-o", str(model)],
        check=True, env=env,
    )  # fmt: skip
    x = np.array([0.25, -2.0], np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    store = VariableStore()
    for launch in (1, 2):
        want = run(parse(ENGINE_RW), {"x": x}, variables=store)
        np.savez(tmp_path / "ref.npz", o=want["o"])
        given = ["--variables", str(tmp_path / "after.npz")] if launch == 2 else []
        subprocess.run(
            [sys.executable, "-m", "gedialects.tools.ge_run", str(model), "--inputs",
             str(tmp_path / "in.npz"), *given, "--dump-variables", str(tmp_path / "next.npz"),
             "--reference", str(tmp_path / "ref.npz"), "--rtol", "0", "--atol", "0", "-q",
             "--check-uninitialized", "--schedule-seed", str(launch)],
            check=True, env=env,
        )  # fmt: skip
        os.replace(tmp_path / "next.npz", tmp_path / "after.npz")
        np.testing.assert_array_equal(np.load(tmp_path / "after.npz")["w"], store.get("w"))


def random_stateful_graph(seed: int) -> str:
    """A random graph of two variables: reads of each variable's current ref value, writers
    chained on it (AssignAdd / AssignSub / Assign), reads again by a second graph.variable,
    compute ops on AI Core or AI CPU; valid by construction (a writer takes the current ref
    value and no older one is used after it)."""
    rng = np.random.default_rng(seed)
    t = "tensor<2xf32>"
    engines = ("AIcoreEngine", "DNN_VM_AICPU")
    inits = {"a": "dense<[0.5, -1.0]>", "b": "dense<[2.0, 0.25]>"}
    lines = [f"graph.graph @main(%x: {t}) -> ({t}, {t}) {{"]
    head: dict[str, str] = {}
    for name, init in inits.items():
        lines.append(f'  %{name}0 = graph.variable "{name}" = {init} : {t}')
        head[name] = f"%{name}0"
    plain = ["%x"]
    for count in range(1, int(rng.integers(7, 15))):
        kind = rng.choice(["compute", "compute", "write", "reread"])
        engine = engines[int(rng.integers(2))]
        var = "ab"[int(rng.integers(2))]
        pool = plain + list(head.values())
        if kind == "compute":
            op = rng.choice(["add", "sub", "mul", "relu", "neg"])
            p, q = (pool[int(rng.integers(len(pool)))] for _ in range(2))
            if op in ("relu", "neg"):
                lines.append(
                    f'  %v{count} = graph.{op} {p} {{_engine_name = "{engine}"}} : ({t}) -> {t}'
                )
            else:
                lines.append(
                    f'  %v{count} = graph.{op} {p}, {q} {{_engine_name = "{engine}"}}'
                    f" : ({t}, {t}) -> {t}"
                )
            plain.append(f"%v{count}")
        elif kind == "write":
            op = rng.choice(["assign_add", "assign_sub", "assign"])
            value = plain[int(rng.integers(len(plain)))]
            lines.append(
                f'  %w{count} = graph.{op} {head[var]}, {value} {{_engine_name = "{engine}"}}'
                f" : ({t}, {t}) -> {t}"
            )
            head[var] = f"%w{count}"
        else:
            lines.append(f'  %r{count} = graph.variable "{var}" = {inits[var]} : {t}')
            head[var] = f"%r{count}"
    lines.append(f"  graph.net_output {plain[-1]}, {head['a']} : {t}, {t}")
    lines.append("}")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(24))
def test_random_stateful_graphs_partition_and_merge_keep_the_numbers(seed: int) -> None:
    """Random reads, writes and reads again of two variables over AI Core and AI CPU: three
    runs on one store of the engine-partitioned graph, of the merged one and of the
    partitioned one lowered without the merge (random schedules) equal the unpartitioned
    graph's outputs and variables; every fourth also through ge-compile."""
    from gedialects.interpreters.run import run_entry
    from gedialects.passes.partition.engine import PartitionEnginePass
    from gedialects.passes.partition.merge_engine_partitions import MergeEnginePartitionsPass

    text = random_stateful_graph(seed)
    x = np.array([0.75, -0.5], np.float32)

    def three_runs(m: ModuleOp, schedule: int | None = None) -> tuple[list[dict], dict]:
        store = VariableStore()
        outs = [
            run_entry(m, {"x": x}, variables=store, schedule_seed=schedule).outputs
            for _ in range(3)
        ]
        return outs, store.snapshot()

    want = three_runs(parse(text))
    module = parse(text)
    PartitionEnginePass().apply(make_context(), module)
    module.verify()
    got = [three_runs(module)]
    MergeEnginePartitionsPass().apply(make_context(), module)
    module.verify()
    got.append(three_runs(module))
    got.append(three_runs(lower_partitioned(text), seed))
    if seed % 4 == 0:
        got.append(three_runs(compile_text(text), seed))
    for outs, variables in got:
        for out, expected in zip(outs, want[0], strict=True):
            for name in expected:
                np.testing.assert_array_equal(out[name], expected[name], err_msg=text)
        for name in want[1]:
            np.testing.assert_array_equal(variables[name], want[1][name], err_msg=text)


def test_session_runs_an_engine_partitioned_stateful_graph_twice() -> None:
    """The Session compiles ENGINE_RW (AI Core and AI CPU subgraphs, now partitioned) and its
    second run sees the variable the first one wrote: outputs and `w` equal the graph level."""
    from gedialects import Session

    session = Session()
    session.add_graph(1, ENGINE_RW)
    store = VariableStore()
    x = np.array([0.25, -2.0], np.float32)
    for _ in range(2):
        got = session.run_graph(1, {"x": x})
        want = run(parse(ENGINE_RW), {"x": x}, variables=store)
        np.testing.assert_array_equal(got["o"], want["o"])
        np.testing.assert_array_equal(session.read_variable("w"), store.get("w"))
    assert not np.array_equal(store.get("w"), np.array([0.5, -1.0], np.float32))


def test_remembered_ref_roots_equal_the_walk_in_any_order() -> None:
    """`ref_roots_fixed` (which keeps ge-partition-engine linear on long writer chains: a
    chain of 2,000 AssignAdds took 30 s, 4,000 now take about 1.5 s) gives every value the
    root the plain walk gives, whatever order the values are asked in."""
    from gedialects.graph.variables import ref_root, ref_roots_fixed

    t = "tensor<2xf32>"
    lines = [f"graph.graph @main(%x: {t}) -> ({t}, {t}) {{"]
    lines.append(f'  %a0 = graph.variable "a" = dense<1.0> : {t}')
    lines.append(f'  %b0 = graph.variable "b" = dense<2.0> : {t}')
    for k in range(1, 60):
        v = "ab"[k % 2]
        lines.append(
            f"  %{v}{k} = graph.assign_add %{v}{k - 2 if k > 1 else 0}, %x : ({t}, {t}) -> {t}"
        )
    lines.append(f"  graph.net_output %a58, %b59 : {t}, {t}")
    lines.append("}")
    module = parse("\n".join(lines))
    values = [r for op in module.walk() for r in op.results] + [
        a for op in module.walk() for r in op.regions for b in r.blocks for a in b.args
    ]
    want = {v: ref_root(v) for v in values}
    for order in (values, values[::-1], values[1::2] + values[::2]):
        with ref_roots_fixed():
            assert {v: ref_root(v) for v in order} == want
    out = next(op for op in module.walk() if op.name == "graph.net_output")
    roots = [want[v].owner for v in out.operands]
    assert [getattr(r, "variable", None) for r in roots] == ["a", "b"]
