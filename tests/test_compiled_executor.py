"""The compiled executors (issue 14 part 3) against the step-by-step dispatch through xDSL's
interpreter that every run used before (`compiled=False`, kept as the reference): outputs bit
for bit, the same first line of every error, the same trace, under several schedule seeds and
with `check_uninitialized`, on the corpus models compiled with ge-compile, on every ascend
model of the lit tests and examples, and at the graph level on the imported corpus."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.parser import Parser

from gedialects import make_context
from gedialects.ascend import (
    BufferAttr,
    DynamicKernelOp,
    DynBufferAttr,
    InputOp,
    KernelOp,
    ModelOp,
    OutputOp,
    StreamOp,
)
from gedialects.graph import GraphOp
from gedialects.interpreters import make_interpreter
from gedialects.interpreters.ascend import AscendFunctions, AscendRuntimeError, execute_model
from gedialects.interpreters.ascend.functions import program_for
from gedialects.interpreters.run import RunError, random_inputs, run_entry, signature
from tests.conftest import ROOT
from tests.test_models import CASES, compiled, imported, inputs_of, static_module

SEEDS = (None, 1, 7, 2024)
F32 = TensorType(f32, [4])


def outcome(fn: Callable[[], dict[str, np.ndarray]]) -> tuple[str, object]:
    """What a run gave: its outputs as (name, dtype, shape, bytes), or its error's first line."""
    try:
        outputs = fn()
    except Exception as e:  # any error: both engines must raise the same
        return ("error", type(e).__name__ + ": " + str(e).strip().splitlines()[0])
    return (
        "outputs",
        sorted((k, v.dtype.str, v.shape, v.tobytes()) for k, v in outputs.items()),
    )


def both(module: ModuleOp, inputs: dict[str, np.ndarray], **options: object) -> None:
    """The compiled run and the reference run agree: outputs bit for bit (or the error), and
    for an ascend model the executed trace."""
    runs = {}
    for engine in (True, False):
        result: dict[str, object] = {}

        def go(engine: bool = engine, result: dict[str, object] = result) -> dict:
            r = run_entry(module, inputs, compiled=engine, **options)  # type: ignore[arg-type]
            result["trace"] = r.stats.trace if r.stats is not None else None
            return r.outputs

        runs[engine] = (outcome(go), result.get("trace"))
    assert runs[True] == runs[False]


# --------------------------------------------------------------------------------------------
# Corpus models, compiled with ge-compile
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_executor_equals_reference_on_corpus_models(case: str) -> None:
    inputs = inputs_of(case)
    module = compiled(static_module(CASES[case], inputs))
    for seed in SEEDS:
        for check in (False, True):
            both(module, inputs, schedule_seed=seed, check_uninitialized=check)
    both(module, inputs, timing=True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_compiled_graph_program_equals_xdsl_walk_on_corpus_models(case: str) -> None:
    both(imported(CASES[case]), inputs_of(case))


def test_compiled_executor_on_dynamic_shapes_equals_reference() -> None:
    """The transformer without pinned shapes: every task dynamic, two input shapes."""
    module = compiled(imported("transformer"))
    for case in ("transformer", "transformer_b3_s5"):
        for seed in (None, 3):
            both(module, inputs_of(case), schedule_seed=seed, check_uninitialized=True)


# --------------------------------------------------------------------------------------------
# Every ascend model of the lit tests and examples (valid or not, as far as they parse)
# --------------------------------------------------------------------------------------------


def _parsed(path: Path, chunk: str) -> ModuleOp | None:
    try:
        module = Parser(make_context(), chunk, str(path)).parse_module()
        module.verify()
    except Exception:  # an invalid input: a parse or verifier test, nothing to run
        return None
    return module


def _ascend_chunks() -> list[tuple[str, int]]:
    """(file, chunk) of every `// -----` chunk of a lit test or example with a valid model."""
    found = []
    paths = [*(ROOT / "tests" / "lit").rglob("*.mlir"), *(ROOT / "examples").rglob("*.mlir")]
    for path in sorted(paths):
        text = path.read_text()
        if "ascend.model" not in text:
            continue
        for k, chunk in enumerate(text.split("// -----")):
            if "ascend.model" in chunk and _parsed(path, chunk) is not None:
                found.append((str(path.relative_to(ROOT)), k))
    return found


def test_lit_corpus_has_models_to_run() -> None:
    assert len(_ascend_chunks()) >= 40


@pytest.mark.parametrize(("path", "chunk"), _ascend_chunks())
def test_compiled_executor_equals_reference_on_lit_models(path: str, chunk: int) -> None:
    module = _parsed(ROOT / path, (ROOT / path).read_text().split("// -----")[chunk])
    assert module is not None
    for model in [op for op in module.walk() if isinstance(op, ModelOp)]:
        try:
            inputs = random_inputs(signature(model), 0)
        except RunError:
            continue  # dynamic inputs need real data
        for seed in SEEDS:
            for check in (False, True):
                both(
                    module,
                    inputs,
                    schedule_seed=seed,
                    check_uninitialized=check,
                    entry=model.sym_name.data,
                )


# --------------------------------------------------------------------------------------------
# The arena, bound once and reused
# --------------------------------------------------------------------------------------------


def _buf(offset: int) -> BufferAttr:
    return BufferAttr(offset, F32)


def _model(ops: list) -> ModelOp:
    return ModelOp("m", 1 << 12, 0, [StreamOp(0, "AIcoreEngine"), *ops])


def test_reused_arena_starts_zero_and_gives_each_run_its_own_outputs() -> None:
    """A second run on one interpreter reuses the bound arena: it is zeroed (a byte no task
    writes reads 0, as in a fresh arena) and the outputs are copies, not views of it."""
    model = _model(
        [
            InputOp("x", _buf(0)),
            OutputOp("y", _buf(512)),
            OutputOp("untouched", _buf(1024)),
            KernelOp("Relu", "relu", "AIcoreEngine", 0, [_buf(0)], [_buf(512)]),
        ]
    )
    interpreter = Interpreter(ModuleOp([]))
    interpreter.register_implementations(AscendFunctions())
    a = np.array([-1, 2, -3, 4], np.float32)
    first = execute_model(model, {"x": a}, interpreter=interpreter).outputs
    second = execute_model(model, {"x": -a}, interpreter=interpreter).outputs
    np.testing.assert_array_equal(first["y"], np.maximum(a, 0))
    np.testing.assert_array_equal(second["y"], np.maximum(-a, 0))
    np.testing.assert_array_equal(second["untouched"], np.zeros(4, np.float32))
    assert len(program_for(interpreter, model).spare) == 1  # one arena, bound once


def test_dynamic_heap_beyond_the_bound_arena_binds_the_steps_again() -> None:
    """A dynamic value that does not fit the arena's room moves the run to a larger arena in
    the middle of the run; the steps after it see the new one."""
    module = compiled(imported("nonzero"))
    (model,) = module.ops
    assert isinstance(model, ModelOp)
    inputs = inputs_of("nonzero")
    interpreter = Interpreter(module)
    interpreter.register_implementations(AscendFunctions())
    program = program_for(interpreter, model)
    program.capacity = 0  # no room: the first dynamic value grows the arena
    got = execute_model(model, inputs, interpreter=interpreter, compiled=True).outputs
    want = execute_model(model, inputs, compiled=False).outputs
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name].tobytes() == want[name].tobytes()
    assert len(program.spare[0].data) > model.arena_size.value.data


def test_overridden_task_impl_runs_instead_of_the_compiled_step() -> None:
    """An interpreter whose `@impl` of a task type is not AscendFunctions' own runs that impl:
    the executor compiles only the semantics it knows."""
    calls: list[str] = []

    @register_impls
    class Counting(InterpreterFunctions):
        @impl(KernelOp)
        def run_kernel(self, interpreter: Interpreter, op: KernelOp, args: PythonValues) -> tuple:
            calls.append(op.node_name.data)
            return ()

    model = _model(
        [
            InputOp("x", _buf(0)),
            OutputOp("y", _buf(512)),
            KernelOp("Relu", "relu", "AIcoreEngine", 0, [_buf(0)], [_buf(512)]),
        ]
    )
    interpreter = Interpreter(ModuleOp([]))
    interpreter.register_implementations(AscendFunctions())
    interpreter.register_implementations(Counting(), override=True)
    out = execute_model(model, {"x": np.ones(4, np.float32)}, interpreter=interpreter)
    assert calls == ["relu"]
    np.testing.assert_array_equal(out.outputs["y"], np.zeros(4, np.float32))


def test_kernel_failure_names_the_task_in_both_engines() -> None:
    model = _model(
        [
            InputOp("x", _buf(0)),
            OutputOp("y", BufferAttr(512, TensorType(F32.element_type, [3]))),
            KernelOp(
                "Add",
                "add",
                "AIcoreEngine",
                0,
                [_buf(0), BufferAttr(64, TensorType(F32.element_type, [3]))],
                [BufferAttr(512, TensorType(F32.element_type, [3]))],
            ),
        ]
    )
    messages = set()
    for engine in (True, False):
        with pytest.raises(AscendRuntimeError) as info:
            execute_model(model, {"x": np.ones(4, np.float32)}, compiled=engine)
        messages.add(str(info.value).splitlines()[0])
    (message,) = messages
    assert message == "'ascend.kernel' \"add\" (Add): broadcast of [4] and [3]"


def test_graph_program_is_decoded_once_per_interpreter() -> None:
    from gedialects.interpreters.graph import program_for as graph_program

    module = imported("mlp")
    (graph,) = module.ops
    assert isinstance(graph, GraphOp)
    interpreter = make_interpreter(module)
    inputs = inputs_of("mlp")
    first = run_entry(module, inputs, interpreter=interpreter).outputs
    program = graph_program(interpreter, graph)
    assert program is not None
    second = run_entry(module, inputs, interpreter=interpreter).outputs
    assert graph_program(interpreter, graph) is program
    for name in first:
        assert first[name].tobytes() == second[name].tobytes()


def test_dynamic_buffers_keep_their_reference_semantics() -> None:
    """A dynamic kernel task runs its `@impl` in the compiled executor (its buffers are
    placed at run time): same outputs and dynamic peak as the reference."""
    dyn = DynBufferAttr(0, TensorType(F32.element_type, [-1]))
    model = _model(
        [
            InputOp("x", _buf(0)),
            OutputOp("y", dyn),
            DynamicKernelOp("Relu", "relu", "AIcoreEngine", 0, [_buf(0)], [dyn]),
        ]
    )
    x = np.array([-1, 2, -3, 4], np.float32)
    runs = [execute_model(model, {"x": x}, compiled=engine) for engine in (True, False)]
    assert runs[0].outputs["y"].tobytes() == runs[1].outputs["y"].tobytes()
    assert runs[0].stats.dynamic_peak == runs[1].stats.dynamic_peak > 0
    assert runs[0].stats.trace == runs[1].stats.trace


@pytest.mark.parametrize("flag", [[], ["--schedule-seed", "5"], ["--check-uninitialized"]])
def test_ge_run_of_compiled_model_through_the_tools(tmp_path: Path, flag: list[str]) -> None:
    """As a user runs it: ge-opt compiles the ONNX model to a file, ge-run runs that file."""
    from tests.conftest import run_tool

    models = ROOT / "tests" / "models"
    lowered = tmp_path / "cnn.mlir"
    done = run_tool("ge-opt", str(models / "cnn.onnx"), "-p", "ge-compile", "-o", str(lowered))
    assert done.returncode == 0, done.stderr
    ran = run_tool("ge-run", str(lowered), "--inputs", str(models / "cnn.inputs.npz"), *flag)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip()


# --------------------------------------------------------------------------------------------
# The checks the fast paths of a dynamic task keep (DynRef.conforms, bind_kernel's casts)
# --------------------------------------------------------------------------------------------


def test_dynamic_value_must_have_the_static_dims_of_its_buffer() -> None:
    from gedialects.interpreters.ascend.plan import DynRef

    ref = DynRef(0, np.dtype(np.float32), (-1, 8, -1), TensorType(f32, [-1, 8, -1]))
    assert ref.conforms((0, 8, 3)) and ref.conforms((5, 8, 1))
    assert not ref.conforms((5, 7, 1)) and not ref.conforms((5, 8)) and not ref.conforms(())
    anyrank = DynRef(0, np.dtype(np.float32), None, TensorType(f32, [4]))
    assert anyrank.conforms(()) and anyrank.conforms((1, 2, 3, 4, 5))


@pytest.mark.parametrize("results", [1, 2])
def test_bound_kernel_checks_count_dtype_and_static_shape(
    results: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one-result fast path of `bind_kernel` refuses and casts as the general one does."""
    from gedialects.interpreters import kernels

    returned: list[tuple[np.ndarray, ...]] = []
    monkeypatch.setattr(kernels, "get_kernel", lambda _: lambda *_: returned[-1])
    types = [TensorType(f32, [2, 3])] * results
    run = kernels.bind_kernel("Fake", types)
    returned.append((np.ones((2, 3), np.float64),) * results)
    out = run([], {})
    assert [(a.dtype, a.shape) for a in out] == [(np.dtype(np.float32), (2, 3))] * results
    returned.append((np.ones((3, 2), np.float32),) * results)
    with pytest.raises(kernels.KernelError, match=r"produced shape \[3, 2\], .* says \[2, 3\]"):
        run([], {})
    returned.append((np.ones((2, 3), np.float32),) * (results + 1))
    with pytest.raises(kernels.KernelError, match=f"returned {results + 1} outputs, expected"):
        run([], {})


def test_placing_a_value_without_its_buffers_static_dims_is_an_error() -> None:
    from gedialects.interpreters.ascend.memory import DynamicHeap, RunState
    from gedialects.interpreters.ascend.plan import DynRef, Plan

    ref = DynRef(3, np.dtype(np.float32), (-1, 2), TensorType(f32, [-1, 2]))
    state = RunState(Plan.__new__(Plan), bytearray(1024), heap=DynamicHeap(1024))
    error = state.place(ref, np.ones((4, 3), np.float32), "'ascend.dynamic_kernel' \"k\"")
    assert str(error) == (
        f"'ascend.dynamic_kernel' \"k\" produced shape (4, 3) for {ref.describe()}, "
        "whose static dims it must have"
    )
    assert state.dyn == {} and state.heap is not None and state.heap.top == 1024
