"""GE's data-flow ops (issue 20): Stack / StackPush / StackPop / StackClose at the graph level
and after ge-compile, the stack's order under random stream schedules, and their errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.interpreters.entry import RunError
from gedialects.interpreters.run import run, run_entry
from gedialects.passes.pipelines import CompilePipelinePass

LIFO = """
graph.graph @main(%x: tensor<2xf32>, %y: tensor<2xf32>)
    -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %n = graph.const dense<-1> : tensor<i32>
  %h = graph.stack %n stack_name "s" : (tensor<i32>) -> tensor<i64>
  %a = graph.stack_push %h, %x : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  %y2 = graph.mul %y, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %b = graph.stack_push %h, %y2 : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  %top = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
  %c = graph.stack_push %h, %a : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  %p1 = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
  %p2 = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
  graph.stack_close %h : (tensor<i64>) -> ()
  %d = graph.sub %top, %p2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %d, %p1, %b : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
"""

INPUTS = {"x": np.array([1.0, 2.0], np.float32), "y": np.array([3.0, -4.0], np.float32)}


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def compile_text(text: str) -> ModuleOp:
    module = parse(text)
    CompilePipelinePass().apply(make_context(), module)
    module.verify()
    return module


def test_stack_is_last_in_first_out_at_the_graph_level() -> None:
    out = run(parse(LIFO), INPUTS)
    x, y = INPUTS["x"], INPUTS["y"]
    np.testing.assert_array_equal(out["output0"], y * y - x)
    np.testing.assert_array_equal(out["output1"], x)
    np.testing.assert_array_equal(out["output2"], y * y)


@pytest.mark.parametrize("seed", range(6))
def test_compiled_stack_tasks_keep_the_graph_order_on_every_schedule(seed: int) -> None:
    want = run(parse(LIFO), INPUTS)
    model = compile_text(LIFO)
    assert sum(op.name == "ascend.kernel" and "Stack" in str(op) for op in model.walk()) >= 7
    got = run_entry(model, INPUTS, schedule_seed=seed, check_uninitialized=True).outputs
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])


def test_each_run_has_its_own_stacks() -> None:
    """A stack lives for one run: two runs on one interpreter give the same numbers."""
    from gedialects.interpreters import make_interpreter

    model = compile_text(LIFO)
    interpreter = make_interpreter(model)
    first = run_entry(model, INPUTS, interpreter=interpreter).outputs
    again = run_entry(model, INPUTS, interpreter=interpreter).outputs
    for name in first:
        np.testing.assert_array_equal(first[name], again[name])


EMPTY = """
graph.graph @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %n = graph.const dense<0> : tensor<i32>
  %h = graph.stack %n stack_name "s" : (tensor<i32>) -> tensor<i64>
  %a = graph.stack_push %h, %x : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  %p1 = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
  %p2 = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
  graph.net_output %p2 : tensor<2xf32>
}
"""


PUSH = "graph.stack_push %h, %x : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>"


@pytest.mark.parametrize("compiled", [False, True])
def test_pop_of_an_empty_stack_is_one_line(compiled: bool) -> None:
    module = compile_text(EMPTY) if compiled else parse(EMPTY)
    with pytest.raises(RunError, match="StackPop: stack 's' is empty") as info:
        run(module, {"x": INPUTS["x"]})
    assert "\n" not in str(info.value)


def test_push_past_max_size_and_use_after_close_are_one_line() -> None:
    full = EMPTY.replace("dense<0>", "dense<1>").replace(
        "%p1 = graph.stack_pop %h",
        f"%a2 = {PUSH}\n  %p1 = graph.stack_pop %h",
    )
    with pytest.raises(RunError, match="stack 's' is full: it holds its max_size of 1"):
        run(parse(full), {"x": INPUTS["x"]})
    closed = EMPTY.replace(
        "%p2 = graph.stack_pop %h",
        "graph.stack_close %h : (tensor<i64>) -> ()\n  %p2 = graph.stack_pop %h",
    )
    with pytest.raises(RunError, match=r"StackPop: handle [0-9]+ is no open stack of this run"):
        run(parse(closed), {"x": INPUTS["x"]})


def test_pop_of_another_type_is_one_line() -> None:
    other = EMPTY.replace(
        "%p1 = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>",
        "%p1 = graph.stack_pop %h : (tensor<i64>) -> tensor<3xf32>",
    ).replace(
        "%p2 = graph.stack_pop %h",
        f"%p2 = {PUSH}\n  %p3 = graph.stack_pop %h",
    )
    with pytest.raises(
        RunError, match=r"the top of stack 's' is float32 \[2\], the pop returns tensor<3xf32>"
    ):
        run(parse(other), {"x": INPUTS["x"]})


CALLED = """
graph.graph @pop_twice(%h: tensor<i64>) -> tensor<2xf32> {
  %a = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
  %b = graph.stack_pop %h : (tensor<i64>) -> tensor<2xf32>
  %d = graph.sub %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %d : tensor<2xf32>
}
graph.graph @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %n = graph.const dense<-1> : tensor<i32>
  %h = graph.stack %n : (tensor<i32>) -> tensor<i64>
  %a = graph.stack_push %h, %x : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  %b = graph.stack_push %h, %y : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  %d = partition.partitioned_call @pop_twice(%h) : (tensor<i64>) -> tensor<2xf32>
  %after = graph.identity %h, %d : (tensor<i64>, tensor<2xf32>) -> tensor<i64>
  graph.stack_close %after : (tensor<i64>) -> ()
  graph.net_output %d : tensor<2xf32>
}
"""


@pytest.mark.parametrize("seed", range(3))
def test_handle_passed_into_a_subgraph(seed: int) -> None:
    """The pops run in the call; the close after it through a control edge (an Identity)."""
    want = run(parse(CALLED), INPUTS)["output0"]
    np.testing.assert_array_equal(want, INPUTS["y"] - INPUTS["x"])
    got = run_entry(compile_text(CALLED), INPUTS, schedule_seed=seed, check_uninitialized=True)
    np.testing.assert_array_equal(got.outputs["output0"], want)


def test_ge_run_reports_an_empty_pop_in_one_line(tmp_path: Path) -> None:
    source = tmp_path / "empty.mlir"
    source.write_text(EMPTY)
    done = subprocess.run(
        [sys.executable, "-m", "gedialects.tools.ge_run", str(source), "--random-inputs", "0"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: StackPop: stack 's' is empty: nothing was pushed to pop"
    ]


SPLIT = (Path(__file__).parent / "lit/passes/ge-partition-dynamic-shape-data-flow.mlir").read_text()
SPLIT_INPUTS = {"x": np.array([1.0, 2.0], np.float32), "k": np.array([-1.0, 3.0], np.float32)}


def test_data_flow_check_repartitions_a_split_stack() -> None:
    """GE's DynamicDataFlowPartitionerPass: the first clustering splits the stack between a
    known and an unknown cluster; after the check and the second clustering none is split."""
    from gedialects.graph import GraphOp
    from gedialects.passes.partition.dynamic_shape import (
        ShapeClassifier,
        analyse,
        analyse_with_data_flow,
        data_flow_groups,
        mixed_data_flow_ops,
    )

    module = parse(SPLIT)
    (graph,) = [g for g in module.ops if isinstance(g, GraphOp)]
    groups = data_flow_groups(graph)
    assert [[op.name for op in g] for g in groups] == [
        ["graph.stack", "graph.stack_push", "graph.stack_pop", "graph.stack_close"]
    ]
    first = analyse(graph, ShapeClassifier(module), 4)
    assert {op.name for op in mixed_data_flow_ops(first, groups)} == {
        "graph.stack",
        "graph.stack_push",
        "graph.stack_pop",
        "graph.stack_close",
    }
    final = analyse_with_data_flow(graph, ShapeClassifier(module), 4)
    assert mixed_data_flow_ops(final, groups) == []
    assert all("_force_unknown_shape" in op.attributes for op in groups[0])


@pytest.mark.parametrize("seed", range(4))
def test_repartitioned_stack_gives_the_graph_numbers(seed: int) -> None:
    want = run(parse(SPLIT), SPLIT_INPUTS)
    model = compile_text(SPLIT)
    assert any(op.name == "ascend.dynamic_kernel" and "StackPop" in str(op) for op in model.walk())
    got = run_entry(model, SPLIT_INPUTS, schedule_seed=seed, check_uninitialized=True).outputs
    for name in want:
        np.testing.assert_array_equal(got[name], want[name])


def test_numbers_after_every_stage_equal_the_graph_level() -> None:
    """Each ge-compile stage applied one by one keeps the stack's numbers (ascend stages under
    random schedules with the uninitialised-memory check)."""
    from gedialects.ascend import ModelOp
    from gedialects.interpreters.run import find_entry

    module = parse(LIFO)
    want = run(module, INPUTS)
    for number, stage in enumerate(CompilePipelinePass().passes()):
        stage.apply(make_context(), module)
        module.verify()
        is_model = isinstance(find_entry(module), ModelOp)
        got = run_entry(
            module,
            INPUTS,
            schedule_seed=number if is_model else None,
            check_uninitialized=is_model,
        ).outputs
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=stage.name)


STACK_IN_LOOP = """
graph.graph @cond(%i: tensor<i32>, %h: tensor<i64>, %x: tensor<2xf32>) -> tensor<i1> {
  %n = graph.const dense<3> : tensor<i32>
  %c = graph.less %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
  graph.net_output %c : tensor<i1>
}
graph.graph @body(%i: tensor<i32>, %h: tensor<i64>, %x: tensor<2xf32>)
    -> (tensor<i32>, tensor<i64>, tensor<2xf32>) {
  %one = graph.const dense<1> : tensor<i32>
  %i1 = graph.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %p = graph.stack_push %h, %x : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
  %x1 = graph.add %p, %p : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %i1, %h, %x1 : tensor<i32>, tensor<i64>, tensor<2xf32>
}
graph.graph @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %n = graph.const dense<-1> : tensor<i32>
  %h = graph.stack %n : (tensor<i32>) -> tensor<i64>
  %zero = graph.const dense<0> : tensor<i32>
  %r:3 = graph.while %zero, %h, %x cond @cond body @body
      : (tensor<i32>, tensor<i64>, tensor<2xf32>) -> (tensor<i32>, tensor<i64>, tensor<2xf32>)
  %after = graph.identity %h, %r#2 : (tensor<i64>, tensor<2xf32>) -> tensor<i64>
  %a = graph.stack_pop %after : (tensor<i64>) -> tensor<2xf32>
  %b = graph.stack_pop %after : (tensor<i64>) -> tensor<2xf32>
  %d = graph.sub %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %d, %r#2 : tensor<2xf32>, tensor<2xf32>
}
"""


@pytest.mark.parametrize("unknown", [False, True], ids=["static-while", "unknown-while"])
def test_pushes_in_a_loop_body_pop_after_the_loop(unknown: bool) -> None:
    """The handle carried through a While: each iteration pushes, the pops after the loop (a
    control edge from the loop's output) see them last in, first out; the loop lowered with
    labels (known) or as a dynamic control task running its body model (unknown)."""
    text = STACK_IN_LOOP
    if unknown:
        text = text.replace("body @body", "body @body {_force_unknown_shape = true}")
    x = np.array([1.0, -2.0], np.float32)
    want = run(parse(text), {"x": x})
    np.testing.assert_array_equal(want["output0"], 4 * x - 2 * x)  # last push 4x, then 2x
    model = compile_text(text)
    assert any(op.name == "ascend.dynamic_control" for op in model.walk()) == unknown
    for seed in range(3):
        got = run_entry(model, {"x": x}, schedule_seed=seed, check_uninitialized=True).outputs
        for name in want:
            np.testing.assert_array_equal(got[name], want[name])
