"""The ascend interpreter: arena semantics, stream scheduling, events, labels and run errors.

Kernel tasks use test-only kernels (`Test*`) registered below, so these tests do not depend on
the graph-level kernel library.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    f16,
    f32,
    f64,
    i1,
    i32,
)
from xdsl.interpreter import Interpreter
from xdsl.ir import Attribute
from xdsl.utils.exceptions import InterpretationError, VerifyException

from gedialects.ascend import (
    BufferAttr,
    EndGraphOp,
    EventOp,
    EventRecordOp,
    EventWaitOp,
    InputOp,
    KernelOp,
    LabelGotoOp,
    LabelSetOp,
    LabelSwitchByIndexOp,
    MemcpyAsyncOp,
    ModelOp,
    OutputOp,
    StreamOp,
    WeightOp,
)
from gedialects.interpreters.ascend import (
    AscendFunctions,
    AscendRuntimeError,
    configure,
    execute_model,
    last_stats,
    run_model,
)
from gedialects.interpreters.kernels import kernel, kernel_types
from gedialects.tensors import dense_from_numpy
from tests.conftest import parse


@kernel("TestAddOne")
def _add_one(
    inputs: Sequence[np.ndarray], attrs: Mapping[str, Attribute], types: Sequence[Attribute]
) -> tuple[np.ndarray, ...]:
    return (inputs[0] + 1,)


@kernel("TestAdd")
def _add(
    inputs: Sequence[np.ndarray], attrs: Mapping[str, Attribute], types: Sequence[Attribute]
) -> tuple[np.ndarray, ...]:
    return (inputs[0] + inputs[1],)


@kernel("TestScale")
def _scale(
    inputs: Sequence[np.ndarray], attrs: Mapping[str, Attribute], types: Sequence[Attribute]
) -> tuple[np.ndarray, ...]:
    factor = attrs["factor"]
    assert isinstance(factor, FloatAttr)
    return (inputs[0] * factor.value.data,)


@kernel("TestSwap")
def _swap(
    inputs: Sequence[np.ndarray], attrs: Mapping[str, Attribute], types: Sequence[Attribute]
) -> tuple[np.ndarray, ...]:
    return (inputs[1], inputs[0])


V4 = TensorType(f32, [4])
ENGINE = "AIcoreEngine"


def buf(offset: int, t: TensorType = V4) -> BufferAttr:
    return BufferAttr(offset, t)


def add_one(name: str, stream: int, src: int, dst: int) -> KernelOp:
    return KernelOp("TestAddOne", name, ENGINE, stream, [buf(src)], [buf(dst)])


def model(ops: list, arena: int = 4096, weights: int = 0, streams: int = 1) -> ModelOp:
    """A verified model inside a module, with streams 0..streams-1 declared first."""
    decls = [StreamOp(s, ENGINE) for s in range(streams)]
    m = ModelOp("main", arena, weights, [*decls, *ops])
    ModuleOp([m]).verify()
    return m


X = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)


# --------------------------------------------------------------------------------------------
# Buffers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("element", "nbytes"),
    [
        (f16, 12),
        (f32, 24),
        (f64, 48),
        (i1, 6),
        (i32, 24),
        (IntegerType(4), 6),
        (IntegerType(12), 12),
    ],
)
def test_buffer_byte_size(element: Attribute, nbytes: int) -> None:
    buffer = BufferAttr.get(64, TensorType(element, [2, 3]))
    assert (buffer.offset_value, buffer.nbytes, buffer.end) == (64, nbytes, 64 + nbytes)
    assert buffer.tensor_type == TensorType(element, [2, 3])


def test_weight_builder_takes_an_offset_or_a_buffer() -> None:
    value = dense_from_numpy(X)
    assert WeightOp(16, value).buffer == WeightOp(BufferAttr(16, V4), value).buffer == buf(16)


# --------------------------------------------------------------------------------------------
# Single stream: kernels, weights, memcpy
# --------------------------------------------------------------------------------------------


def test_single_stream_kernel_chain() -> None:
    m = model(
        [
            InputOp("x", buf(0)),
            OutputOp("y", buf(32)),
            add_one("a", 0, 0, 16),
            KernelOp(
                "TestScale", "s", ENGINE, 0, [buf(16)], [buf(16)], {"factor": FloatAttr(3.0, f32)}
            ),
            add_one("b", 0, 16, 32),
        ]
    )
    run = execute_model(m, {"x": X})
    np.testing.assert_array_equal(run.outputs["y"], (X + 1) * 3 + 1)
    assert run.stats.tasks_per_stream == {0: 3}
    assert run.stats.trace == [(0, 0), (0, 1), (0, 2)]


def test_weights_are_loaded_before_the_tasks() -> None:
    w = np.array([10.0, 20.0, 30.0, 40.0], dtype=np.float32)
    m = model(
        [
            WeightOp(0, dense_from_numpy(w)),
            InputOp("x", buf(1024)),
            OutputOp("y", buf(2048)),
            KernelOp("TestAdd", "add", ENGINE, 0, [buf(1024), buf(0)], [buf(2048)]),
        ],
        weights=1024,
    )
    np.testing.assert_array_equal(run_model(m, {"x": X})["y"], X + w)


def test_splat_weight_fills_its_buffer() -> None:
    m = parse(
        """ascend.model @main arena_size 64 weight_size 16 {
          ascend.stream 0 engine "AIcoreEngine"
          ascend.weight arena[0] = dense<2.5> : tensor<4xf32>
          ascend.output "y" arena[16] : tensor<4xf32>
          ascend.memcpy_async stream 0 arena[0] : tensor<4xf32> to arena[16] : tensor<4xf32>
        }"""
    )
    model_op = m.body.block.first_op
    assert isinstance(model_op, ModelOp)
    np.testing.assert_array_equal(run_model(model_op, {})["y"], np.full(4, 2.5, np.float32))


def test_memcpy_copies_bytes_between_types_of_equal_size() -> None:
    as_int = TensorType(i32, [4])
    m = model(
        [
            InputOp("x", buf(0)),
            OutputOp("bits", buf(64, as_int)),
            MemcpyAsyncOp(0, buf(0), buf(64, as_int)),
        ]
    )
    np.testing.assert_array_equal(run_model(m, {"x": X})["bits"], X.view(np.int32))


def test_outputs_may_alias_inputs() -> None:
    # TestSwap writes both outputs over its own inputs: results are written after the kernel.
    m = model(
        [
            InputOp("a", buf(0)),
            InputOp("b", buf(16)),
            OutputOp("a2", buf(0)),
            OutputOp("b2", buf(16)),
            KernelOp("TestSwap", "swap", ENGINE, 0, [buf(0), buf(16)], [buf(0), buf(16)]),
        ]
    )
    out = run_model(m, {"a": X, "b": -X})
    np.testing.assert_array_equal(out["a2"], -X)
    np.testing.assert_array_equal(out["b2"], X)


def test_overlapping_buffers_change_the_result() -> None:
    # A memory plan that puts a live tensor where another one is written must show in the numbers
    # (the interpreter proves the plan); the verifier refuses such a plan before it runs.
    def chain(tmp2: int) -> ModelOp:
        decls = [StreamOp(0, ENGINE)]
        ops = [
            InputOp("x", buf(0)),
            OutputOp("y", buf(64)),
            add_one("t1", 0, 0, 16),
            add_one("t2", 0, 0, tmp2),
            KernelOp("TestAdd", "sum", ENGINE, 0, [buf(16), buf(tmp2)], [buf(64)]),
        ]
        m = ModelOp("main", 4096, 0, [*decls, *ops])
        ModuleOp([m])
        return m

    good = chain(32)
    good.parent_op().verify()  # type: ignore[union-attr]
    np.testing.assert_array_equal(run_model(good, {"x": X})["y"], 2 * X + 2)
    bad = chain(8)
    with pytest.raises(VerifyException, match=r'"t2" output arena\[8\].*straddles .*"x"'):
        bad.parent_op().verify()  # type: ignore[union-attr]
    overlapped = run_model(bad, {"x": X})["y"]
    assert not np.array_equal(overlapped, 2 * X + 2)


def test_outputs_are_copies_and_runs_start_from_a_zeroed_arena() -> None:
    m = model(
        [
            InputOp("x", buf(0)),
            OutputOp("y", buf(16)),
            OutputOp("untouched", buf(32)),
            add_one("a", 0, 0, 16),
        ]
    )
    interpreter = Interpreter(ModuleOp([]))
    interpreter.register_implementations(AscendFunctions())
    first = execute_model(m, {"x": X}, interpreter=interpreter).outputs
    first["y"][:] = 99
    second = execute_model(m, {"x": X}, interpreter=interpreter).outputs
    np.testing.assert_array_equal(second["y"], X + 1)
    np.testing.assert_array_equal(second["untouched"], np.zeros(4, np.float32))


def test_call_op_takes_inputs_in_declaration_order() -> None:
    m = model(
        [
            InputOp("b", buf(16)),
            InputOp("a", buf(0)),
            OutputOp("diff", buf(64)),
            OutputOp("b_plus_one", buf(32)),
            KernelOp("TestAdd", "add", ENGINE, 0, [buf(0), buf(16)], [buf(64)]),
            add_one("inc", 0, 16, 32),
        ]
    )
    module = m.parent_op()
    assert isinstance(module, ModuleOp)
    interpreter = Interpreter(module)
    interpreter.register_implementations(AscendFunctions())
    total, inc = interpreter.call_op("main", (X, 10 * X))
    np.testing.assert_array_equal(total, 11 * X)
    np.testing.assert_array_equal(inc, X + 1)
    stats = last_stats(interpreter)
    assert stats is not None and stats.steps == 2


MATMUL_RELU = """
ascend.model @main arena_size 4096 weight_size 1024 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.weight arena[0] = dense<[[1.0, -2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  ascend.input "x" arena[1024] : tensor<1x2xf32>
  ascend.output "y" arena[2048] : tensor<1x2xf32>
  ascend.kernel "MatMul" "mm1" engine "AIcoreEngine" stream 0 \
ins(arena[1024] : tensor<1x2xf32>, arena[0] : tensor<2x2xf32>) \
outs(arena[1536] : tensor<1x2xf32>) attrs {transpose_x2 = true}
  ascend.kernel "Relu" "relu1" engine "AIcoreEngine" stream 0 \
ins(arena[1536] : tensor<1x2xf32>) outs(arena[2048] : tensor<1x2xf32>)
  ascend.end_graph stream 0
}
"""


@pytest.mark.skipif(
    not {"MatMul", "Relu"} <= set(kernel_types()), reason="graph kernels not available"
)
def test_textual_model_with_library_kernels() -> None:
    module = parse(MATMUL_RELU.replace("\\\n", ""))
    m = module.body.block.first_op
    assert isinstance(m, ModelOp)
    x = np.array([[1.0, 1.0]], dtype=np.float32)
    w = np.array([[1.0, -2.0], [3.0, 4.0]], dtype=np.float32)
    np.testing.assert_array_equal(run_model(m, {"x": x})["y"], np.maximum(x @ w.T, 0))


# --------------------------------------------------------------------------------------------
# Streams and events
# --------------------------------------------------------------------------------------------


def producer_consumer(with_event: bool) -> ModelOp:
    """Stream 1 computes t = x + 1; stream 0 computes y = t + 1, ordered by event 0 or not."""
    sync_record = [EventRecordOp(0, 1)] if with_event else []
    sync_wait = [EventWaitOp(0, 0)] if with_event else []
    return model(
        [
            EventOp(0),
            InputOp("x", buf(0)),
            OutputOp("y", buf(32)),
            *sync_wait,
            add_one("consumer", 0, 16, 32),
            add_one("producer", 1, 0, 16),
            *sync_record,
        ],
        streams=2,
    )


def test_event_orders_two_streams_under_every_schedule() -> None:
    m = producer_consumer(with_event=True)
    for seed in [None, *range(50)]:
        run = execute_model(m, {"x": X}, schedule_seed=seed)
        np.testing.assert_array_equal(run.outputs["y"], X + 2, err_msg=f"seed {seed}")
        assert run.stats.tasks_per_stream == {0: 2, 1: 2}


def test_missing_event_gives_a_wrong_result_under_some_schedule() -> None:
    m = producer_consumer(with_event=False)
    results = {seed: run_model(m, {"x": X}, schedule_seed=seed)["y"] for seed in range(50)}
    wrong = [s for s, y in results.items() if not np.array_equal(y, X + 2)]
    right = [s for s, y in results.items() if np.array_equal(y, X + 2)]
    assert wrong and right
    # The deterministic policy runs stream 0 first: the consumer reads zeros.
    np.testing.assert_array_equal(run_model(m, {"x": X})["y"], np.ones(4, np.float32))


def test_random_schedules_interleave_streams() -> None:
    m = producer_consumer(with_event=False)
    orders = {
        tuple(s for s, _ in execute_model(m, {"x": X}, schedule_seed=seed).stats.trace)
        for seed in range(30)
    }
    assert orders == {(0, 1), (1, 0)}


def test_wait_consumes_the_event() -> None:
    # Two waits on one event recorded once: the second wait can never proceed.
    m = model(
        [
            EventOp(0),
            EventRecordOp(0, 1),
            EventWaitOp(0, 0),
            EventWaitOp(0, 0),
        ],
        streams=2,
    )
    with pytest.raises(AscendRuntimeError, match="stream 0 waits on event 0"):
        run_model(m, {})


def test_deadlock_names_each_blocked_stream_and_its_event() -> None:
    m = model(
        [
            EventOp(0),
            EventOp(1),
            EventWaitOp(1, 0),
            EventRecordOp(0, 0),
            EventWaitOp(0, 1),
            EventRecordOp(1, 1),
        ],
        streams=2,
    )
    with pytest.raises(AscendRuntimeError) as info:
        run_model(m, {})
    assert str(info.value) == (
        "'ascend.model' @main deadlocks: stream 0 waits on event 1, stream 1 waits on event 0"
    )
    assert isinstance(info.value, InterpretationError)


def test_end_graph_finishes_its_stream() -> None:
    m = model(
        [
            InputOp("x", buf(0)),
            OutputOp("y", buf(16)),
            add_one("a", 0, 0, 16),
            EndGraphOp(0),
            add_one("after_end", 0, 16, 16),
        ]
    )
    run = execute_model(m, {"x": X})
    np.testing.assert_array_equal(run.outputs["y"], X + 1)
    assert run.stats.trace == [(0, 0), (0, 1)]


# --------------------------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------------------------

INDEX = TensorType(i32, [])


def switch_model() -> ModelOp:
    """y = x + 1 for index 0, y = x + 2 for index 1 (branches of a Case, by labels)."""
    return model(
        [
            InputOp("index", buf(0, INDEX)),
            InputOp("x", buf(16)),
            OutputOp("y", buf(32)),
            LabelSwitchByIndexOp(buf(0, INDEX), [10, 20], 0),
            LabelSetOp(10, 0),
            add_one("then", 0, 16, 32),
            LabelGotoOp(30, 0),
            LabelSetOp(20, 0),
            add_one("else1", 0, 16, 48),
            add_one("else2", 0, 48, 32),
            LabelSetOp(30, 0),
        ]
    )


@pytest.mark.parametrize(("index", "expected", "steps"), [(0, X + 1, 5), (1, X + 2, 5)])
def test_label_switch_chooses_each_branch(index: int, expected: np.ndarray, steps: int) -> None:
    run = execute_model(switch_model(), {"index": np.array(index, np.int32), "x": X})
    np.testing.assert_array_equal(run.outputs["y"], expected)
    assert run.stats.steps == steps


@pytest.mark.parametrize("index", [-1, 2, 5, -(2**31)])
def test_label_switch_index_out_of_range_takes_the_last_label(index: int) -> None:
    """GE's hybrid Case rule (and what makes If's `[else, then]` read a raw int32 cond as
    truthiness): an index outside the list takes its last label, in both executors."""
    for compiled in (True, False):
        run = execute_model(
            switch_model(), {"index": np.array(index, np.int32), "x": X}, compiled=compiled
        )
        np.testing.assert_array_equal(run.outputs["y"], X + 2)


def test_label_loop_runs_until_the_counter_says_stop() -> None:
    # do { count += 1 } while (count < 3): the switch maps counts 1 and 2 back to label 0.
    m = model(
        [
            InputOp("count", buf(0, INDEX)),
            OutputOp("out", buf(0, INDEX)),
            LabelSetOp(0, 0),
            KernelOp("TestAddOne", "inc", ENGINE, 0, [buf(0, INDEX)], [buf(0, INDEX)]),
            LabelSwitchByIndexOp(buf(0, INDEX), [1, 0, 0, 1], 0),
            LabelSetOp(1, 0),
        ]
    )
    run = execute_model(m, {"count": np.array(0, np.int32)})
    assert int(run.outputs["out"]) == 3
    assert run.stats.steps == 3 * 3 + 1


def test_max_steps_stops_an_endless_label_loop() -> None:
    m = model([LabelSetOp(0, 0), LabelGotoOp(0, 0)])
    with pytest.raises(AscendRuntimeError, match="exceeded max_steps=1000"):
        run_model(m, {}, max_steps=1000)


# --------------------------------------------------------------------------------------------
# Run errors
# --------------------------------------------------------------------------------------------


def single_input_model() -> ModelOp:
    return model([InputOp("x", buf(0)), OutputOp("y", buf(16)), add_one("a", 0, 0, 16)])


@pytest.mark.parametrize(
    ("value", "got"),
    [
        (X.astype(np.float64), "float64 array of shape (4,)"),
        (X.reshape(1, 4), "float32 array of shape (1, 4)"),
        (np.arange(4, dtype=np.int32), "int32 array of shape (4,)"),
    ],
)
def test_wrong_input_dtype_or_shape(value: np.ndarray, got: str) -> None:
    with pytest.raises(AscendRuntimeError) as info:
        run_model(single_input_model(), {"x": value})
    assert str(info.value) == (
        f"input 'x': expected tensor<4xf32> (float32, shape (4,)), got {got}"
    )


def test_missing_and_unknown_input_names() -> None:
    with pytest.raises(AscendRuntimeError, match=r"missing \['x'\], unknown \['z'\]"):
        run_model(single_input_model(), {"z": X})


def test_call_op_with_wrong_argument_count() -> None:
    m = single_input_model()
    interpreter = Interpreter(ModuleOp([]))
    interpreter.register_implementations(AscendFunctions())
    with pytest.raises(AscendRuntimeError, match="takes 1 inputs, got 2"):
        interpreter.call_op(m, (X, X))


def test_unknown_kernel() -> None:
    m = model([KernelOp("NoSuchKernel", "n", ENGINE, 0, [buf(0)], [buf(16)])])
    with pytest.raises(AscendRuntimeError) as info:
        run_model(m, {})
    assert str(info.value) == (
        "'ascend.kernel' \"n\" (NoSuchKernel): no kernel for GE op type 'NoSuchKernel'"
    )
    # No module dump attached: a large model's weights would make the error huge and slow.
    assert not getattr(info.value, "__notes__", None)


def test_kernel_error_names_the_task() -> None:
    # TestAdd on mismatched shapes: numpy's broadcasting error, reported against the task.
    m = model(
        [KernelOp("TestAdd", "bad", ENGINE, 0, [buf(0), buf(16, TensorType(f32, [3]))], [buf(32)])]
    )
    with pytest.raises(AscendRuntimeError, match=r"^'ascend.kernel' \"bad\" \(TestAdd\): "):
        run_model(m, {})


def test_configure_sets_the_schedule_for_call_op() -> None:
    m = producer_consumer(with_event=False)
    interpreter = Interpreter(ModuleOp([]))
    interpreter.register_implementations(AscendFunctions())
    firsts = set()
    for seed in range(30):
        configure(interpreter, schedule_seed=seed)
        interpreter.call_op(m, (X,))
        stats = last_stats(interpreter)
        assert stats is not None
        firsts.add(stats.trace[0][0])
    assert firsts == {0, 1}
