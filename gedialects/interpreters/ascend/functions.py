"""Task semantics of the ascend interpreter: `AscendFunctions`, one xDSL `@impl` per task op
(a new task type adds its impl, on this class or on its own `InterpreterFunctions`), and
`@impl_callable(ModelOp)`, the whole model run."""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    impl_callable,
    register_impls,
)
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import InterpretationError

from gedialects import budget
from gedialects.ascend import (
    DynamicControlOp,
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
    StageOp,
    StreamActiveOp,
)
from gedialects.base import int_array_values, paused_gc
from gedialects.interpreters import kernels
from gedialects.interpreters.ascend.compiled import (
    ACTIVATE,
    CAUGHT,
    END,
    GOTO,
    NOP,
    PLAIN,
    RECORD,
    SWITCH,
    WAIT,
    BindContext,
    ByteRange,
    Decoded,
    Program,
    binds,
    overlaps,
    slot_range,
    view,
)
from gedialects.interpreters.ascend.memory import MemoryCheck, RunState
from gedialects.interpreters.ascend.plan import (
    AscendRuntimeError,
    DynamicSpec,
    DynRef,
    Plan,
    Slot,
    slot_name,
)
from gedialects.interpreters.ascend.scheduler import Options, execute
from gedialects.interpreters.control import case_index, loop_bound, truth, while_loop
from gedialects.interpreters.kernels import (
    SMALL_OUTPUTS,
    Kernel,
    KernelError,
    KernelInto,
    known_failure,
    run_kernel,
)

_STATE = "run"


OPTIONS = "options"


_PLANS = "plans"


_PROGRAMS = "programs"


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
        if not gc.isenabled():  # a subgraph model run by a control task: already paused
            return self._call_model(interpreter, op, args, options)
        with paused_gc():
            return self._call_model(interpreter, op, args, options)

    def _call_model(
        self, interpreter: Interpreter, op: ModelOp, args: PythonValues, options: Options
    ) -> PythonValues:
        plan = plan_for(interpreter, op)
        if len(args) != len(plan.inputs):
            raise AscendRuntimeError(
                f"'ascend.model' @{op.sym_name.data} takes {len(plan.inputs)} inputs, "
                f"got {len(args)}"
            )
        program = program_for(interpreter, op) if options.compiled else None
        outputs, stats = execute(
            interpreter, op, plan, args, options, lambda state: _bind(interpreter, state), program
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
        except CAUGHT as e:
            state.error = _kernel_failure(op, e)
            return ()
        # Results may be views of the inputs (of the arena): take all bytes before writing any.
        payloads: list[bytes] = []
        for slot, result in zip(spec.outputs, results, strict=True):
            data = np.ascontiguousarray(result, dtype=slot.dtype)
            if data.size != slot.elements:
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
        slots = _read_inputs(state, spec.inputs, op.describe())
        if slots is None:
            return ()
        inputs = [slot.view(state.arena) for slot in slots]
        try:
            results = run_kernel(op.kernel.data, inputs, op.attrs.data, spec.result_types)
            # Copies: results may view the arena, which placing the outputs may grow.
            arrays = [
                np.array(r, dtype=ref.dtype) for r, ref in zip(results, spec.outputs, strict=True)
            ]
        except CAUGHT as e:
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

    @impl(DynamicControlOp)
    def run_dynamic_control(
        self, interpreter: Interpreter, op: DynamicControlOp, args: PythonValues
    ) -> tuple:
        """GE's hybrid ControlOpExecutor: the subgraph models run on the inputs' values (with
        their shapes of this run) as `graph.if` / `graph.while` / `multibatch.case` do."""
        state = _state(interpreter)
        spec = state.plan.dynamic[op]
        slots = _read_inputs(state, spec.inputs, op.describe())
        if slots is None:
            return ()
        values = [np.array(slot.view(state.arena)) for slot in slots]  # copies: the arena may grow

        def model(name: str) -> Callable[[Sequence[object]], Sequence[object]]:
            return lambda inputs: interpreter.call_op(name, tuple(inputs))

        kind = op.kernel.data
        try:
            if kind == "If":
                (branch,) = op.subgraph("then_branch" if truth(values[0]) else "else_branch")
                results = model(branch)(values[1:])
            elif kind == "Case":
                branches = op.subgraph("branches")
                results = model(branches[case_index(values[0], len(branches))])(values[1:])
            else:
                ((cond,), (body,)) = op.subgraph("cond"), op.subgraph("body")
                results = while_loop(op, loop_bound(interpreter), model(cond), model(body), values)
        except (AscendRuntimeError, InterpretationError) as e:
            state.error = AscendRuntimeError(f"{op.describe()} ({kind}): {e}")
            return ()
        state.consumed(spec.reads)
        for ref, result in zip(spec.outputs, results, strict=True):
            assert isinstance(ref, DynRef), "a control task's outputs are dynamic buffers"
            state.error = state.place(ref, np.array(result, dtype=ref.dtype), op.describe())
            if state.error is not None:
                return ()
        return ()

    @impl(StageOp)
    def run_stage(self, interpreter: Interpreter, op: StageOp, args: PythonValues) -> tuple:
        """GE's KnownNodeTask: the stage's own model (its arena, its memory plan) runs on
        copies of the inputs once the previous stage's sync token says it ended; the outputs
        and this stage's token are written after it returns. The executor's options (random
        schedules, the uninitialised-memory check) hold inside the stage model too."""
        state = _state(interpreter)
        spec = state.plan.kernels[op]
        arena, memory = state.arena, state.memory
        if memory is not None:
            for slot in spec.inputs:
                state.error = memory.read(slot.offset, slot.nbytes, slot_name(slot), op.describe())
                if state.error is not None:
                    return ()
        level, waits = op.level.value.data, len(op.after.data)
        if waits:
            token = int(spec.inputs[0].view(arena))
            if token <= 0 or token - 1 >= level:
                state.error = AscendRuntimeError(
                    f"{op.describe()} (level {level}) started before the previous stage ended: "
                    f"its sync token holds {token}"
                )
                return ()
        values = tuple(np.array(slot.view(arena)) for slot in spec.inputs[waits:])
        try:
            results = interpreter.call_op(op.model_name, values)
        except (AscendRuntimeError, InterpretationError) as e:
            state.error = AscendRuntimeError(f"{op.describe()} (stage {level}): {e}")
            return ()
        n_out = len(op.outputs.data)
        payloads = [
            np.ascontiguousarray(r, dtype=slot.dtype).tobytes()
            for slot, r in zip(spec.outputs[:n_out], results, strict=True)
        ]
        payloads += [np.int32(level + 1).tobytes()] * (len(spec.outputs) - n_out)
        for slot, payload in zip(spec.outputs, payloads, strict=True):
            arena[slot.offset : slot.offset + slot.nbytes] = payload
            if memory is not None:
                memory.write(slot.offset, slot.nbytes, slot_name(slot), op.describe())
        return ()

    @impl(MemcpyAsyncOp)
    def run_memcpy_async(
        self, interpreter: Interpreter, op: MemcpyAsyncOp, args: PythonValues
    ) -> tuple:
        state = _state(interpreter)
        if isinstance(op.src, DynBufferAttr) or isinstance(op.dst, DynBufferAttr):
            state.error = _copy_dynamic(state, op, state.plan.dynamic[op], op.describe())
            return ()
        arena = state.arena
        src, dst = state.plan.place(op.src.offset_value), state.plan.place(op.dst.offset_value)
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
        offset = state.plan.place(op.index.offset_value)
        if state.memory is not None:
            text = f"{op.index} : {op.index.type}"
            state.error = state.memory.read(offset, op.index.nbytes, text, op.describe())
            if state.error is not None:
                return ()
        index = int.from_bytes(state.arena[offset : offset + 4], "little", signed=True)
        labels = int_array_values(op.labels)
        # Outside the list: the last label (the op's docstring says why).
        label = labels[index] if 0 <= index < len(labels) else labels[-1]
        state.jump = state.plan.labels[state.stream][label]
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


def _read_inputs(state: RunState, refs: Sequence[Slot | DynRef], where: str) -> list[Slot] | None:
    """The slots a dynamic task reads, each checked as read (None: `state.error` says why)."""
    try:
        return [_read_input(state, state.memory, ref, where) for ref in refs]
    except AscendRuntimeError as e:
        state.error = e
        return None


def _kernel_failure(op: KernelOp | DynamicKernelOp, error: Exception) -> AscendRuntimeError:
    """`'ascend.kernel' "Add_0" (Add): broadcast of [3] and [4]`: every task error starts with
    the task; input-caused numpy failures are put in the user's words."""
    return AscendRuntimeError(
        f"{op.describe()} ({op.kernel.data}): {known_failure(error) or error}"
    )


def _copy_dynamic(
    state: RunState, op: MemcpyAsyncOp, spec: DynamicSpec, what: str
) -> AscendRuntimeError | None:
    """A copy from or into a dynamic buffer (`spec` its buffers, `what` the task as errors
    name it): the value's shape is checked against the target."""
    src_ref, dst_ref = spec.inputs[0], spec.outputs[0]
    source = state.resolve(src_ref, what)
    if isinstance(source, AscendRuntimeError):
        return source
    if state.memory is not None:
        text = f"{op.src} : {op.src.type}"  # prints attributes: only when it is needed
        error = state.memory.read(source.offset, source.nbytes, text, what)
        if error is not None:
            return error
    value = np.ndarray(source.shape, source.dtype, state.arena, source.offset).copy()
    state.consumed(spec.reads)
    if isinstance(dst_ref, DynRef):
        return state.place(dst_ref, value, what)
    target = dst_ref
    if value.shape != target.shape:
        return AscendRuntimeError(
            f"{what} copies {op.src} : {op.src.type} of shape {value.shape} into "
            f"{op.dst} : "
            f"{op.dst.type}; the known partition that reads it was compiled for that shape"
        )
    state.arena[target.offset : target.offset + target.nbytes] = value.tobytes()
    if state.memory is not None:
        state.memory.write(target.offset, target.nbytes, slot_name(target), what)
    return None


def plan_for(interpreter: Interpreter, model: ModelOp) -> Plan:
    """The cached plan of `model` (the IR must not change between runs on one interpreter)."""
    plans: dict[ModelOp, Plan] = interpreter.get_data(AscendFunctions, _PLANS, dict)
    plan = plans.get(model)
    if plan is None:
        plan = plans[model] = Plan.of(model)
    return plan


def program_for(interpreter: Interpreter, model: ModelOp) -> Program:
    """The cached compiled program of `model` (decoded once per model and interpreter)."""
    programs: dict[ModelOp, Program] = interpreter.get_data(AscendFunctions, _PROGRAMS, dict)
    program = programs.get(model)
    if program is None:
        plan = plan_for(interpreter, model)
        program = programs[model] = Program.of(model, plan, interpreter, AscendFunctions)
    return program


# --------------------------------------------------------------------------------------------
# Binders: each task type's step, compiled once (see `compiled`); the `@impl` above stays the
# semantics and the fallback.
# --------------------------------------------------------------------------------------------


@binds(KernelOp)
def _bind_kernel(op: KernelOp, context: BindContext) -> Decoded:
    spec = context.plan.kernels.get(op)
    if spec is None:
        return context.impl(op)  # no planned buffers: its impl fails as it always did
    ins, outs, rtypes = spec.inputs, spec.outputs, spec.result_types
    ge_type = op.kernel.data
    total = sum(s.nbytes for s in outs)
    if (
        any(s.nbytes == 0 for s in outs)  # run_kernel sizes a broadcast first
        or len(rtypes) != len(outs)
        or any(t is not s.type for t, s in zip(rtypes, outs, strict=True))
    ):
        return context.impl(op)
    try:
        kernel = kernels.get_kernel(ge_type)
    except KernelError:
        return context.impl(op)  # fails when it runs, as it always did
    # An out-variant writes while it reads: only into outputs that share no byte with inputs,
    # or that are exactly an input's bytes for the elementwise ones (in place).
    aliased = overlaps(ins, outs)
    safe = not aliased or (ge_type in kernels.ALIAS_SAFE_INTO and _exactly_aliased(ins, outs))
    into = kernels.get_kernel_into(ge_type) if safe else None
    attrs = op.attrs.data

    def ranges() -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        return tuple(map(slot_range, ins)), tuple(map(slot_range, outs))

    def bind(u8: np.ndarray) -> Callable[[], None]:
        in_views = [view(u8, s, False) for s in ins]
        out_views = [view(u8, s, True) for s in outs]
        if into is not None:
            step = _into_step(op, into, in_views, attrs, rtypes, out_views)
        elif len(outs) == 1:
            step = _single_step(op, kernel, in_views, attrs, rtypes, out_views[0], outs[0])
        else:
            step = _multi_step(op, kernel, in_views, attrs, rtypes, out_views, outs, u8)
        return step if total <= SMALL_OUTPUTS else _budgeted(op, total, rtypes, step)

    return Decoded(PLAIN, bind=bind, ranges=ranges)


def _budgeted(
    op: KernelOp,
    total: int,
    rtypes: tuple[TensorType | UnrankedTensorType, ...],
    step: Callable[[], None],
) -> Callable[[], None]:
    """`step` after `run_kernel`'s memory budget check of large outputs (the budget may change
    between runs: it is asked each time, with run_kernel's message), so that a large kernel
    too runs compiled, into its arena views, instead of through its `@impl` and a byte copy."""
    what = f"{op.kernel.data} outputs ({', '.join(map(str, rtypes))})"

    def checked() -> None:
        try:
            budget.check(total, what)
        except CAUGHT as e:
            raise _kernel_failure(op, e) from None
        step()

    return checked


def _exactly_aliased(ins: Sequence[Slot], outs: Sequence[Slot]) -> bool:
    """Every input and output that share bytes share all of them (the same buffer)."""
    return all(
        (i.offset, i.nbytes) == (o.offset, o.nbytes)
        for i in ins
        for o in outs
        if i.offset < o.offset + o.nbytes and o.offset < i.offset + i.nbytes
    )


def _into_step(
    op: KernelOp,
    into: KernelInto,
    ins: list[np.ndarray],
    attrs: kernels.KernelAttrs,
    rtypes: tuple[TensorType | UnrankedTensorType, ...],
    outs: list[np.ndarray],
) -> Callable[[], None]:
    def step() -> None:
        try:
            into(ins, attrs, rtypes, outs)
        except CAUGHT as e:
            raise _kernel_failure(op, e) from None

    return step


def _single_step(
    op: KernelOp,
    kernel: Kernel,
    ins: list[np.ndarray],
    attrs: kernels.KernelAttrs,
    rtypes: tuple[TensorType | UnrankedTensorType, ...],
    out: np.ndarray,
    slot: Slot,
) -> Callable[[], None]:
    """The kernel and `run_kernel`'s checks of its one result, copied into its view."""
    ge_type, dtype, shape = op.kernel.data, slot.dtype, slot.shape
    asarray = np.asarray

    def step() -> None:
        try:
            results = kernel(ins, attrs, rtypes)
            if len(results) != 1:
                raise KernelError(f"kernel '{ge_type}' returned {len(results)} outputs, expected 1")
            result = asarray(results[0])
            if result.dtype != dtype:
                result = result.astype(dtype, copy=False)
            if result.shape != shape:
                raise KernelError(
                    f"kernel '{ge_type}' produced shape {list(result.shape)}, "
                    f"its result type says {list(shape)}"
                )
        except CAUGHT as e:
            raise _kernel_failure(op, e) from None
        out[...] = result

    return step


def _multi_step(
    op: KernelOp,
    kernel: Kernel,
    ins: list[np.ndarray],
    attrs: kernels.KernelAttrs,
    rtypes: tuple[TensorType | UnrankedTensorType, ...],
    outs: list[np.ndarray],
    slots: tuple[Slot, ...],
    u8: np.ndarray,
) -> Callable[[], None]:
    """As `_single_step` for several results: each taken whole before any is written (a
    result may view the arena bytes an earlier output overwrites)."""
    ge_type = op.kernel.data
    specs = [(s.dtype, s.shape) for s in slots]
    count = len(slots)

    def step() -> None:
        try:
            results = kernel(ins, attrs, rtypes)
            if len(results) != count:
                raise KernelError(
                    f"kernel '{ge_type}' returned {len(results)} outputs, expected {count}"
                )
            arrays: list[np.ndarray] = []
            for result, (dtype, shape) in zip(results, specs, strict=True):
                array = np.asarray(result).astype(dtype, copy=False)
                if array.shape != shape:
                    raise KernelError(
                        f"kernel '{ge_type}' produced shape {list(array.shape)}, "
                        f"its result type says {list(shape)}"
                    )
                arrays.append(array)
        except CAUGHT as e:
            raise _kernel_failure(op, e) from None
        for k in range(count):
            if np.may_share_memory(arrays[k], u8):
                arrays[k] = arrays[k].copy()
        for out, array in zip(outs, arrays, strict=True):
            out[...] = array

    return step


def _read_input(state: RunState, memory: MemoryCheck | None, ref: Slot | DynRef, what: str) -> Slot:
    """A dynamic task's input resolved (a dynamic buffer placed by its writer), its read
    checked against the uninitialised-memory tracker when one is on."""
    found = state.resolve(ref, what)
    if isinstance(found, AscendRuntimeError):
        raise found
    if memory is not None:
        name = slot_name(found, ref.slot if isinstance(ref, DynRef) else None)
        error = memory.read(found.offset, found.nbytes, name, what)
        if error is not None:
            raise error
    return found


@binds(DynamicKernelOp)
def _bind_dynamic_kernel(op: DynamicKernelOp, context: BindContext) -> Decoded:
    """`run_dynamic_kernel` with the kernel bound (`kernels.bind_kernel`), the task's name
    resolved once and the views of its planned (static) inputs bound to the arena, as a
    static kernel's are; the dynamic inputs are looked up and the values placed at run time,
    as there. A `check_uninitialized` run resolves and checks every input instead."""
    spec = context.plan.dynamic.get(op)
    if spec is None or not all(isinstance(r, DynRef) for r in spec.outputs):
        return context.impl(op)
    run = kernels.bind_kernel(op.kernel.data, spec.result_types)
    attrs = op.attrs.data
    what = op.describe()
    ins, reads = spec.inputs, spec.reads
    outs = [r for r in spec.outputs if isinstance(r, DynRef)]
    interpreter = context.interpreter
    ndarray = np.ndarray  # one call for frombuffer, reshape and the read-only flag
    single = len(outs) == 1

    def bind(u8: np.ndarray) -> Callable[[], None]:
        fixed = [
            (view(u8, ref, False), -1) if isinstance(ref, Slot) else (None, ref.slot) for ref in ins
        ]
        readonly = u8.data.toreadonly()  # the arena's bytes; its views are read-only

        def step() -> None:
            state = _state(interpreter)
            memory = state.memory
            if memory is None:
                dyn = state.dyn
                inputs: list[np.ndarray] = []
                for array, slot in fixed:
                    if array is None:
                        found = dyn.get(slot)
                        if found is None:  # the error as `RunState.resolve` words it
                            error = state.resolve(ins[len(inputs)], what)
                            assert isinstance(error, AscendRuntimeError)
                            raise error
                        array = ndarray(found.shape, found.dtype, readonly, found.offset)
                    inputs.append(array)
            else:
                slots = [_read_input(state, memory, ref, what) for ref in ins]
                inputs = [slot.view(state.arena) for slot in slots]
            try:
                results = run(inputs, attrs)
                if single:  # `place` takes its bytes before it writes any (and a larger
                    arrays = results  # arena is a new one: views of the old stay valid)
                else:  # copies: a result may view the bytes an earlier output is placed at
                    arrays = [
                        np.array(r, dtype=ref.dtype) for r, ref in zip(results, outs, strict=True)
                    ]
            except CAUGHT as e:
                raise _kernel_failure(op, e) from None
            del inputs, results
            state.consumed(reads)
            for ref, array in zip(outs, arrays, strict=True):
                error = state.place(ref, array, what)
                if error is not None:
                    raise error

        return step

    return Decoded(PLAIN, bind=bind)


@binds(DynamicControlOp)
def _bind_dynamic_control(op: DynamicControlOp, context: BindContext) -> Decoded:
    """`run_dynamic_control` with its subgraph models resolved once (the impl looks each up
    by name on every call: a fifth of a dynamic While's time) and its kind decided once; the
    inputs are checked and copied, the subgraphs run through `call_op` (their own plans,
    programs and instruments) and the outputs placed at run time, as there."""
    spec = context.plan.dynamic.get(op)
    kind = op.kernel.data
    names = DynamicControlOp.SUBGRAPHS.get(kind)
    if spec is None or names is None or not all(isinstance(r, DynRef) for r in spec.outputs):
        return context.impl(op)
    interpreter = context.interpreter
    found = [
        [SymbolTable.lookup_symbol(interpreter.module, name) for name in op.subgraph(attr)]
        for attr in names
    ]
    models = [[m for m in group if isinstance(m, ModelOp)] for group in found]
    if any(len(m) != len(g) or not g for m, g in zip(models, found, strict=True)):
        return context.impl(op)  # fails when it runs, as it always did

    def call(model: ModelOp) -> Callable[[Sequence[object]], Sequence[object]]:
        return lambda inputs: interpreter.call_op(model, tuple(inputs))

    calls = [[call(m) for m in group] for group in models]
    what = op.describe()
    ins, reads = spec.inputs, spec.reads
    outs = [r for r in spec.outputs if isinstance(r, DynRef)]

    if kind == "If":
        ((then_call,), (else_call,)) = calls

        def run(values: list[np.ndarray]) -> Sequence[object]:
            return (then_call if truth(values[0]) else else_call)(values[1:])

    elif kind == "Case":
        (branches,) = calls

        def run(values: list[np.ndarray]) -> Sequence[object]:
            return branches[case_index(values[0], len(branches))](values[1:])

    else:
        ((cond_call,), (body_call,)) = calls

        def run(values: list[np.ndarray]) -> Sequence[object]:
            return while_loop(op, loop_bound(interpreter), cond_call, body_call, values)

    def step() -> None:
        state = _state(interpreter)
        memory = state.memory
        # copies: the arena may grow
        values = [np.array(_read_input(state, memory, ref, what).view(state.arena)) for ref in ins]
        try:
            results = run(values)
        except (AscendRuntimeError, InterpretationError) as e:
            raise AscendRuntimeError(f"{what} ({kind}): {e}") from None
        state.consumed(reads)
        for ref, result in zip(outs, results, strict=True):
            error = state.place(ref, np.array(result, dtype=ref.dtype), what)
            if error is not None:
                raise error

    return Decoded(PLAIN, bind=lambda _: step)


@binds(MemcpyAsyncOp)
def _bind_memcpy(op: MemcpyAsyncOp, context: BindContext) -> Decoded:
    if isinstance(op.src, DynBufferAttr) or isinstance(op.dst, DynBufferAttr):
        return _bind_dynamic_memcpy(op, context)
    place = context.plan.place
    src, dst, size = place(op.src.offset_value), place(op.dst.offset_value), op.src.nbytes
    if max(src, dst) + size > context.plan.memory_size:
        return context.impl(op)
    source, target = op.src, op.dst

    def ranges() -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        return ((src, size, f"{source} : {source.type}"),), (
            (dst, size, f"{target} : {target.type}"),
        )

    def bind(u8: np.ndarray) -> Callable[[], None]:
        s, d = u8[src : src + size], u8[dst : dst + size]

        def step() -> None:
            d[...] = s

        return step

    return Decoded(PLAIN, bind=bind, ranges=ranges)


def _bind_dynamic_memcpy(op: MemcpyAsyncOp, context: BindContext) -> Decoded:
    """A copy from or into a dynamic buffer: `_copy_dynamic` (the value placed or checked at
    run time, as the impl does) with the task's buffers and name resolved once instead of
    through its `@impl` per run (the impl describes the task on every call)."""
    spec = context.plan.dynamic.get(op)
    if spec is None:
        return context.impl(op)  # no dynamic buffers planned: its impl fails as it always did
    what = op.describe()
    interpreter = context.interpreter

    def step() -> None:
        error = _copy_dynamic(_state(interpreter), op, spec, what)
        if error is not None:
            raise error

    return Decoded(PLAIN, bind=lambda _: step)


@binds(EventRecordOp)
def _bind_record(op: EventRecordOp, context: BindContext) -> Decoded:
    return Decoded(RECORD, op.event.value.data)


@binds(EventWaitOp)
def _bind_wait(op: EventWaitOp, context: BindContext) -> Decoded:
    return Decoded(WAIT, op.event.value.data)


@binds(LabelSetOp)
def _bind_label_set(op: LabelSetOp, context: BindContext) -> Decoded:
    return Decoded(NOP)


@binds(LabelGotoOp)
def _bind_goto(op: LabelGotoOp, context: BindContext) -> Decoded:
    target = context.plan.labels[context.stream].get(op.label.value.data)
    return context.impl(op) if target is None else Decoded(GOTO, target)


@binds(LabelSwitchByIndexOp)
def _bind_switch(op: LabelSwitchByIndexOp, context: BindContext) -> Decoded:
    labels = int_array_values(op.labels)
    stream_labels = context.plan.labels[context.stream]
    targets = [stream_labels.get(label) for label in labels]
    offset = context.plan.place(op.index.offset_value)
    if offset + 4 > context.plan.memory_size or any(t is None for t in targets):
        return context.impl(op)
    index_buffer = op.index
    count = len(targets)

    def ranges() -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        return ((offset, index_buffer.nbytes, f"{index_buffer} : {index_buffer.type}"),), ()

    def bind(u8: np.ndarray) -> Callable[[], int]:
        word = u8[offset : offset + 4].view("<i4")

        def step() -> int:
            index = int(word[0])
            if not 0 <= index < count:
                index = count - 1  # the last label, as the reference impl
            return targets[index]  # pyright: ignore[reportReturnType]

        return step

    return Decoded(SWITCH, bind=bind, ranges=ranges)


@binds(StreamActiveOp)
def _bind_active(op: StreamActiveOp, context: BindContext) -> Decoded:
    target = context.plan.activates.get(op)
    return context.impl(op) if target is None else Decoded(ACTIVATE, target)


@binds(EndGraphOp)
def _bind_end(op: EndGraphOp, context: BindContext) -> Decoded:
    return Decoded(END)
