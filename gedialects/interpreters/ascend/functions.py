"""Task semantics of the ascend interpreter: `AscendFunctions`, one xDSL `@impl` per task op
(a new task type adds its impl, on this class or on its own `InterpreterFunctions`), and
`@impl_callable(ModelOp)`, the whole model run."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    impl_callable,
    register_impls,
)

from gedialects.ascend import (
    DynamicKernelOp,
    DynBufferAttr,
    EndGraphOp,
    EventRecordOp,
    EventWaitOp,
    KernelOp,
    LabelGotoOp,
    LabelSetOp,
    LabelSwitchByIndexOp,
    MemcpyAsyncOp,
    ModelOp,
    StreamActiveOp,
)
from gedialects.base import int_array_values
from gedialects.interpreters.ascend.memory import RunState
from gedialects.interpreters.ascend.plan import AscendRuntimeError, DynRef, Plan, Slot, slot_name
from gedialects.interpreters.ascend.scheduler import Options, execute
from gedialects.interpreters.kernels import known_failure, run_kernel

_STATE = "run"


OPTIONS = "options"


_PLANS = "plans"


STATS = "last_stats"


def _no_run() -> RunState:
    raise AscendRuntimeError("ascend tasks can only run inside a model run")


def _state(interpreter: Interpreter) -> RunState:
    return interpreter.get_data(AscendFunctions, _STATE, _no_run)


def _bind(interpreter: Interpreter, state: RunState | None) -> RunState | None:
    """Makes `state` the run the impls see; returns the one it replaces."""
    previous = interpreter.get_data(AscendFunctions, _STATE, lambda: None)
    interpreter.set_data(AscendFunctions, _STATE, state)
    return previous


def run_state(interpreter: Interpreter) -> RunState:
    """The state of the model run in progress, for the `@impl` of a task type defined
    elsewhere: its arena, `plan.kernels[op]` / `plan.dynamic[op]` (the task's buffers, read
    from its effects), `memory` (the check_uninitialized tags) and `error` to fail the run."""
    return _state(interpreter)


@register_impls
class AscendFunctions(InterpreterFunctions):
    """Task semantics; `@impl_callable(ModelOp)` is the whole model run."""

    @impl_callable(ModelOp)
    def call_model(self, interpreter: Interpreter, op: ModelOp, args: PythonValues) -> PythonValues:
        options = interpreter.get_data(AscendFunctions, OPTIONS, Options)
        plan = plan_for(interpreter, op)
        if len(args) != len(plan.inputs):
            raise AscendRuntimeError(
                f"'ascend.model' @{op.sym_name.data} takes {len(plan.inputs)} inputs, "
                f"got {len(args)}"
            )
        outputs, stats = execute(
            interpreter, op, plan, args, options, lambda state: _bind(interpreter, state)
        )
        interpreter.set_data(AscendFunctions, STATS, stats)
        return outputs

    @impl(KernelOp)
    def run_kernel(self, interpreter: Interpreter, op: KernelOp, args: PythonValues) -> tuple:
        state = _state(interpreter)
        spec = state.plan.kernels[op]
        arena = state.arena
        memory = state.memory
        if memory is not None:
            for slot in spec.inputs:
                state.error = memory.read(slot.offset, slot.nbytes, slot_name(slot), op.describe())
                if state.error is not None:
                    return ()
        inputs = [slot.view(arena) for slot in spec.inputs]
        try:
            results = run_kernel(op.kernel.data, inputs, op.attrs.data, spec.result_types)
        except (ValueError, TypeError, ArithmeticError, IndexError) as e:
            state.error = _kernel_failure(op, e)
            return ()
        # Results may be views of the inputs (of the arena): take all bytes before writing any.
        payloads: list[bytes] = []
        for slot, result in zip(spec.outputs, results, strict=True):
            data = np.ascontiguousarray(result, dtype=slot.dtype)
            if data.size != slot.count:
                state.error = AscendRuntimeError(
                    f"{op.describe()} ({op.kernel.data}) produced {data.size} elements for "
                    f"output {slot.type} at arena[{slot.offset}]"
                )
                return ()
            payloads.append(data.tobytes())
        for slot, payload in zip(spec.outputs, payloads, strict=True):
            arena[slot.offset : slot.offset + slot.nbytes] = payload
            if memory is not None:
                memory.write(slot.offset, slot.nbytes, slot_name(slot), op.describe())
        return ()

    @impl(DynamicKernelOp)
    def run_dynamic_kernel(
        self, interpreter: Interpreter, op: DynamicKernelOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        spec = state.plan.dynamic[op]
        slots: list[Slot] = []
        for ref in spec.inputs:
            found = state.resolve(ref, op.describe())
            if isinstance(found, AscendRuntimeError):
                state.error = found
                return ()
            if state.memory is not None:
                name = slot_name(found, ref.slot if isinstance(ref, DynRef) else None)
                state.error = state.memory.read(found.offset, found.nbytes, name, op.describe())
                if state.error is not None:
                    return ()
            slots.append(found)
        inputs = [slot.view(state.arena) for slot in slots]
        try:
            results = run_kernel(op.kernel.data, inputs, op.attrs.data, spec.result_types)
            # Copies: results may view the arena, which placing the outputs may grow.
            arrays = [
                np.array(r, dtype=ref.dtype) for r, ref in zip(results, spec.outputs, strict=True)
            ]
        except (ValueError, TypeError, ArithmeticError, IndexError) as e:
            state.error = _kernel_failure(op, e)
            return ()
        del inputs, results
        state.consumed(spec.reads)
        for ref, array in zip(spec.outputs, arrays, strict=True):
            assert isinstance(ref, DynRef), "a dynamic kernel's outputs are dynamic buffers"
            state.error = state.place(ref, array, op.describe())
            if state.error is not None:
                return ()
        return ()

    @impl(MemcpyAsyncOp)
    def run_memcpy_async(
        self, interpreter: Interpreter, op: MemcpyAsyncOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        if isinstance(op.src, DynBufferAttr) or isinstance(op.dst, DynBufferAttr):
            state.error = _copy_dynamic(state, op)
            return ()
        arena = state.arena
        src, dst = op.src.offset_value, op.dst.offset_value
        size = op.src.nbytes
        if state.memory is not None:
            text = f"{op.src} : {op.src.type}"
            state.error = state.memory.read(src, size, text, op.describe())
            if state.error is not None:
                return ()
            state.memory.write(dst, size, f"{op.dst} : {op.dst.type}", op.describe())
        arena[dst : dst + size] = arena[src : src + size]
        return ()

    @impl(EventRecordOp)
    def run_event_record(
        self, interpreter: Interpreter, op: EventRecordOp, args: PythonValues
    ) -> tuple:
        _state(interpreter).events.add(op.event.value.data)
        return ()

    @impl(EventWaitOp)
    def run_event_wait(
        self, interpreter: Interpreter, op: EventWaitOp, args: PythonValues
    ) -> tuple:
        # The scheduler only runs a wait whose event is recorded; running it consumes it.
        _state(interpreter).events.remove(op.event.value.data)
        return ()

    @impl(LabelSetOp)
    def run_label_set(self, interpreter: Interpreter, op: LabelSetOp, args: PythonValues) -> tuple:
        return ()

    @impl(LabelGotoOp)
    def run_label_goto(
        self, interpreter: Interpreter, op: LabelGotoOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        state.jump = state.plan.labels[state.stream][op.label.value.data]
        return ()

    @impl(LabelSwitchByIndexOp)
    def run_label_switch_by_index(
        self, interpreter: Interpreter, op: LabelSwitchByIndexOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        offset = op.index.offset_value
        if state.memory is not None:
            text = f"{op.index} : {op.index.type}"
            state.error = state.memory.read(offset, op.index.nbytes, text, op.describe())
            if state.error is not None:
                return ()
        index = int.from_bytes(state.arena[offset : offset + 4], "little", signed=True)
        labels = int_array_values(op.labels)
        if not 0 <= index < len(labels):
            state.error = AscendRuntimeError(
                f"{op.describe()}: index {index} read from {op.index} is out of range for "
                f"{len(labels)} labels"
            )
            return ()
        state.jump = state.plan.labels[state.stream][labels[index]]
        return ()

    @impl(StreamActiveOp)
    def run_stream_active(
        self, interpreter: Interpreter, op: StreamActiveOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        state.activate = state.plan.activates[op]
        return ()

    @impl(EndGraphOp)
    def run_end_graph(self, interpreter: Interpreter, op: EndGraphOp, args: PythonValues) -> tuple:
        _state(interpreter).ended = True
        return ()


def _kernel_failure(op: KernelOp | DynamicKernelOp, error: Exception) -> AscendRuntimeError:
    """`'ascend.kernel' "Add_0" (Add): broadcast of [3] and [4]`: every task error starts with
    the task; input-caused numpy failures are put in the user's words."""
    return AscendRuntimeError(
        f"{op.describe()} ({op.kernel.data}): {known_failure(error) or error}"
    )


def _copy_dynamic(state: RunState, op: MemcpyAsyncOp) -> AscendRuntimeError | None:
    """A copy from or into a dynamic buffer: the value's shape is checked against the target."""
    spec = state.plan.dynamic[op]
    src_ref, dst_ref = spec.inputs[0], spec.outputs[0]
    source = state.resolve(src_ref, op.describe())
    if isinstance(source, AscendRuntimeError):
        return source
    text = f"{op.src} : {op.src.type}"
    if state.memory is not None:
        error = state.memory.read(source.offset, source.nbytes, text, op.describe())
        if error is not None:
            return error
    value = np.frombuffer(state.arena, source.dtype, source.count, source.offset)
    value = value.reshape(source.shape).copy()
    state.consumed(spec.reads)
    if isinstance(dst_ref, DynRef):
        return state.place(dst_ref, value, op.describe())
    target = dst_ref
    if value.shape != target.shape:
        return AscendRuntimeError(
            f"{op.describe()} copies {text} of shape {value.shape} into {op.dst} : "
            f"{op.dst.type}; the known partition that reads it was compiled for that shape"
        )
    state.arena[target.offset : target.offset + target.nbytes] = value.tobytes()
    if state.memory is not None:
        state.memory.write(target.offset, target.nbytes, slot_name(target), op.describe())
    return None


def plan_for(interpreter: Interpreter, model: ModelOp) -> Plan:
    """The cached plan of `model` (the IR must not change between runs on one interpreter)."""
    plans: dict[ModelOp, Plan] = interpreter.get_data(AscendFunctions, _PLANS, dict)
    plan = plans.get(model)
    if plan is None:
        plan = plans[model] = Plan.of(model)
    return plan
