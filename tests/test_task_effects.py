"""The task-effects interface: every ascend task op declares what it touches (`TaskOp.EFFECTS`),
the declaration matches its properties, and a task type defined here, outside the dialect, is
verified, planned, scheduled, costed and run through that declaration alone."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

import numpy as np
import pytest
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, StringAttr, TensorType
from xdsl.dialects.builtin import f32 as F32
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, prop_def
from xdsl.traits import MemoryEffectKind, get_effects
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from gedialects.ascend import (
    Ascend,
    BufferAttr,
    DynBufferAttr,
    EffectSpec,
    EventOp,
    InputOp,
    KernelOp,
    ModelOp,
    OutputOp,
    StreamOp,
    TaskEffects,
    TaskOp,
    _i64,
)
from gedialects.base import RTS_ENGINE
from gedialects.interpreters.ascend import (
    AscendFunctions,
    AscendRuntimeError,
    execute_model,
    run_state,
)
from gedialects.passes.analysis.task_graph import TaskGraph
from gedialects.passes.assign_streams import assign_model
from gedialects.passes.plan_memory import plan_model
from gedialects.target import cost_model
from gedialects.target.cost_model import CostModel, TaskCost
from tests.conftest import parse

F = "tensor<4xf32>"
EVERY_TASK = f"""
ascend.model @every arena_size 8192 weight_size 0 {{
  ascend.stream 0 engine "AIcoreEngine"
  ascend.stream 1 engine "AIcoreEngine"
  ascend.event 0
  ascend.input "x" arena[0] : {F}
  ascend.input "i" arena[512] : tensor<i32>
  ascend.output "y" dyn[1] : tensor<?xf32>
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0
      ins(arena[0] : {F}) outs(arena[1024] : {F})
  ascend.memcpy_async stream 0 arena[1024] : {F} to dyn[0] : tensor<?xf32>
  ascend.dynamic_kernel "Add" "a" engine "AIcoreEngine" stream 0
      ins(dyn[0] : tensor<?xf32>, arena[1024] : {F}) outs(dyn[1] : tensor<?xf32>)
  ascend.dynamic_control "If" "c" engine "DNN_VM_GE_LOCAL" stream 0
      ins(arena[512] : tensor<i32>, dyn[1] : tensor<?xf32>) outs(dyn[2] : tensor<?xf32>)
      attrs {{then_branch = @every, else_branch = @every}}
  ascend.label_switch_by_index arena[512] : tensor<i32> labels [1, 2] stream 0
  ascend.label_set 1 stream 0
  ascend.label_goto 2 stream 0
  ascend.label_set 2 stream 0
  ascend.stream_active 1 stream 0
  ascend.event_record 0 stream 1
  ascend.event_wait 0 stream 0
  ascend.stage @stage "s" level 0 stream 0 after() ins(arena[0] : {F}) outs(arena[1536] : {F})
      sync()
  ascend.end_graph stream 0
}}
ascend.model @stage arena_size 1024 weight_size 0 {{
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "a" arena[0] : {F}
  ascend.output "b" arena[512] : {F}
  ascend.kernel "Relu" "r" engine "AIcoreEngine" stream 0
      ins(arena[0] : {F}) outs(arena[512] : {F})
}}
"""


def every_task() -> list[TaskOp]:
    model = parse(EVERY_TASK).body.block.first_op
    assert isinstance(model, ModelOp)
    return model.tasks()


def _buffers_of(value: Attribute) -> list[BufferAttr | DynBufferAttr]:
    if isinstance(value, BufferAttr | DynBufferAttr):
        return [value]
    if isinstance(value, ArrayAttr):
        return [b for b in value.data if isinstance(b, BufferAttr | DynBufferAttr)]
    return []


def test_every_task_op_class_of_the_dialect_declares_its_effects() -> None:
    classes = {op for op in Ascend.operations if issubclass(op, TaskOp)}
    assert len(classes) == 12
    assert classes == {type(t) for t in every_task()}, "add the new task op to EVERY_TASK"
    for cls in classes:
        assert isinstance(getattr(cls, "EFFECTS", None), EffectSpec), cls.name
        for prop in cls.EFFECTS.props:
            assert prop in cls.get_irdl_definition().properties, (cls.name, prop)


def test_effects_match_each_task_op_properties() -> None:
    for task in every_task():
        effects = task.effects()
        props = {n: v for n, v in task.properties.items() if n != "stream"}
        # every buffer property is read or written, with the property it comes from
        declared = Counter(
            (*zip(effects.in_props, effects.ins, strict=True),
             *zip(effects.out_props, effects.outs, strict=True))
        )  # fmt: skip
        held = Counter((n, b) for n, v in props.items() for b in _buffers_of(v))
        assert declared == held, task.describe()
        assert len(effects.in_roles) == len(effects.ins)
        assert len(effects.out_roles) == len(effects.outs)
        assert effects.reads == tuple(b for b in effects.ins if isinstance(b, BufferAttr))
        assert effects.writes == tuple(b for b in effects.outs if isinstance(b, BufferAttr))
        assert effects.dyn_reads == tuple(
            b.slot.data for b in effects.ins if isinstance(b, DynBufferAttr)
        )
        # every event, label and stream number is one of the declared effects
        numbers = Counter(
            n
            for k, v in props.items()
            if k != "level"  # a stage's pipeline level, no event, label or stream
            for n in (
                (v.value.data,)
                if isinstance(v, IntegerAttr)
                else v.get_values()
                if isinstance(v, DenseArrayBase)
                else ()
            )
        )
        effect_numbers = Counter(
            (*effects.records, *effects.waits, *effects.labels, *effects.jumps, *effects.activates)
        )
        assert numbers == effect_numbers, task.describe()
        for name in ("engine", "kernel"):
            value = props.get(name)
            assert getattr(effects, name) == (
                value.data if isinstance(value, StringAttr) else None
            ), task.describe()


def test_effects_name_what_ge_task_types_do() -> None:
    by_name = {t.name: t.effects() for t in every_task()}
    assert by_name["ascend.kernel"].engine == "AIcoreEngine"
    assert by_name["ascend.kernel"].kernel == "Relu"
    assert by_name["ascend.memcpy_async"].in_roles == ("source",)
    assert by_name["ascend.memcpy_async"].dyn_writes == (0,)
    assert by_name["ascend.dynamic_kernel"].hybrid
    assert by_name["ascend.dynamic_kernel"].dyn_reads == (0,)
    assert by_name["ascend.label_switch_by_index"].conditional
    assert by_name["ascend.label_switch_by_index"].jumps == (1, 2)
    assert not by_name["ascend.label_goto"].conditional
    assert by_name["ascend.stream_active"].activates == (1,)
    assert by_name["ascend.event_record"].sync_only
    assert by_name["ascend.event_wait"].waits == (0,)
    assert by_name["ascend.end_graph"].ends_stream
    assert not by_name["ascend.kernel"].control and by_name["ascend.label_set"].control
    assert by_name["ascend.stage"].engine is None  # the runtime's: GE's KnownNodeTask
    assert by_name["ascend.stage"].in_props == ("inputs",)


def test_effects_cache_follows_a_rewrite_of_the_buffers() -> None:
    task = next(t for t in every_task() if isinstance(t, KernelOp))
    before = task.effects()
    assert task.effects() is before  # cached
    task.map_buffers(
        lambda b: BufferAttr(b.offset.data + 4096, b.type) if isinstance(b, BufferAttr) else b
    )
    after = task.effects()
    assert [b.offset_value for b in after.ins] == [4096]
    assert [b.offset_value for b in after.outs] == [5120]
    assert [b.offset_value for b in task.outputs.data] == [5120]


def test_xdsl_memory_effects_keep_every_task_alive() -> None:
    """xDSL's generic view: every task has effects, with a write, so dce deletes none."""
    module = parse(EVERY_TASK)
    model = module.body.block.first_op
    assert isinstance(model, ModelOp)
    for task in model.tasks():
        effects = get_effects(task)
        assert effects, task.describe()
        assert any(e.kind == MemoryEffectKind.WRITE for e in effects), task.describe()
    kernel = get_effects(model.tasks()[0])
    assert kernel is not None
    assert {(e.kind, e.resource.name()) for e in kernel} == {
        (MemoryEffectKind.READ, "ascend.arena"),
        (MemoryEffectKind.WRITE, "ascend.arena"),
        (MemoryEffectKind.WRITE, "ascend.control"),
    }
    count = len(model.tasks())
    from xdsl.context import Context

    DeadCodeElimination().apply(Context(), module)
    assert len(model.tasks()) == count


# --------------------------------------------------------------------------------------------
# A task type defined outside the dialect: one op class, one impl, one cost entry.
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ToyDoubleOp(TaskOp):
    """A test task: writes twice its source into its destination (a runtime task, no engine)."""

    name = "test.toy_double"

    src = prop_def(BufferAttr)
    dst = prop_def(BufferAttr)

    EFFECTS: ClassVar[EffectSpec] = EffectSpec(
        reads=(("src", "source"),), writes=(("dst", "destination"),)
    )

    def __init__(self, stream: int, src: BufferAttr, dst: BufferAttr) -> None:
        super().__init__(properties={"stream": _i64(stream), "src": src, "dst": dst})


@irdl_op_definition
class ToyTwoWaitsOp(TaskOp):
    """A test task that waits on two events (its effects override `effects()`): more than the
    interpreter's scheduler supports."""

    name = "test.toy_two_waits"

    first = prop_def(IntegerAttr)
    second = prop_def(IntegerAttr)

    EFFECTS: ClassVar[EffectSpec] = EffectSpec(waits="first")

    def __init__(self, stream: int) -> None:
        super().__init__(properties={"stream": _i64(stream), "first": _i64(0), "second": _i64(1)})

    def effects(self) -> TaskEffects:
        return TaskEffects(waits=(self.first.value.data, self.second.value.data))


@register_impls
class ToyFunctions(InterpreterFunctions):
    @impl(ToyDoubleOp)
    def run_toy_double(
        self, interpreter: Interpreter, op: ToyDoubleOp, args: PythonValues
    ) -> tuple:
        state = run_state(interpreter)
        spec = state.plan.kernels[op]
        (src,), (dst,) = spec.inputs, spec.outputs
        if state.memory is not None:
            state.error = state.memory.read(src.offset, src.nbytes, str(op.src), op.describe())
        value = (src.view(state.arena) * 2).astype(dst.dtype)
        state.arena[dst.offset : dst.offset + dst.nbytes] = value.tobytes()
        if state.memory is not None:
            state.memory.write(dst.offset, dst.nbytes, str(op.dst), op.describe())
        return ()


TOY_US = 7.0


def _toy_model() -> ModelOp:
    t = TensorType(F32, [4])

    def kernel(kind: str, engine: str, ins: list[int], out: int) -> KernelOp:
        return KernelOp(
            kind, kind.lower(), engine, 0, [BufferAttr(o, t) for o in ins], [BufferAttr(out, t)]
        )

    # Distinct offsets, as the lowering leaves them: ge-plan-memory packs them.
    return ModelOp(
        "toy",
        1 << 16,
        0,
        [
            StreamOp(0, "AIcoreEngine"),
            EventOp(0),
            InputOp("x", BufferAttr(0, t)),
            OutputOp("y", BufferAttr(512, t)),
            kernel("Relu", "AIcoreEngine", [0], 4096),
            ToyDoubleOp(0, BufferAttr(4096, t), BufferAttr(8192, t)),
            kernel("Abs", "DNN_VM_AICPU", [0], 12288),
            kernel("Neg", "AIcoreEngine", [8192], 16384),
            kernel("Add", "AIcoreEngine", [16384, 12288], 512),
        ],
    )


@pytest.fixture
def toy_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = lambda costs, task, effects: TaskCost(TOY_US, 0.0, 2 * effects.reads[0].nbytes)  # noqa: E731
    monkeypatch.setitem(cost_model.TASK_COSTS, ToyDoubleOp.name, entry)


def test_new_task_type_is_planned_scheduled_and_run_through_its_effects(toy_cost: None) -> None:
    model = _toy_model()
    model.verify()
    graph = TaskGraph.of(model)
    toy = next(p for p, t in enumerate(graph.tasks) if isinstance(t, ToyDoubleOp))
    assert [b.offset_value for b in graph.reads[toy]] == [4096]
    assert [b.offset_value for b in graph.writes[toy]] == [8192]

    stats = plan_model(model)
    assert stats.tensors == 4 and stats.arena < 1 << 16
    toy_op = next(t for t in model.tasks() if isinstance(t, ToyDoubleOp))
    # The planner moved the toy's buffers and kept its source live until it ran.
    assert toy_op.src.offset_value != 4096 or toy_op.dst.offset_value != 8192
    relu = model.tasks()[0]
    assert isinstance(relu, KernelOp)
    assert relu.outputs.data[0] == toy_op.src
    assert toy_op.src.offset_value != toy_op.dst.offset_value

    streams = assign_model(model, max_streams=4)
    assert streams.streams == 2  # the AI CPU kernel runs on a stream of its own
    model.verify()
    assert CostModel().duration(toy_op) == TOY_US

    x = np.array([-2.0, -1.0, 1.0, 3.0], np.float32)
    expected = -(2 * np.maximum(x, 0)) + np.abs(x)
    interpreter = Interpreter(model)
    interpreter.register_implementations(AscendFunctions())
    interpreter.register_implementations(ToyFunctions())
    for seed in (None, 1, 2, 3):
        run = execute_model(
            model,
            {"x": x},
            interpreter=interpreter,
            schedule_seed=seed,
            check_uninitialized=True,
            timing=True,
        )
        np.testing.assert_array_equal(run.outputs["y"], expected)
        timeline = run.stats.timeline
        assert timeline is not None
        span = next(s for s in timeline.spans if s.name == "test.toy_double")
        assert span.duration == TOY_US and span.engine == RTS_ENGINE


def test_new_task_type_without_a_cost_entry_is_a_clear_error() -> None:
    model = _toy_model()
    toy_op = next(t for t in model.tasks() if isinstance(t, ToyDoubleOp))
    with pytest.raises(ValueError, match=r"no cost entry for 'test\.toy_double'"):
        CostModel().duration(toy_op)


def test_task_waiting_on_two_events_is_refused_by_the_interpreter() -> None:
    t = TensorType(F32, [4])
    model = ModelOp(
        "waits",
        1024,
        0,
        [StreamOp(0, "AIcoreEngine"), InputOp("x", BufferAttr(0, t)), ToyTwoWaitsOp(0)],
    )
    with pytest.raises(AscendRuntimeError, match="waits on 2 events; the interpreter supports one"):
        execute_model(model, {"x": np.zeros(4, np.float32)})
