"""Interpreter of the `ascend` dialect: runs a static model's task lists on a byte arena.

A run allocates a zeroed `bytearray(arena_size)`, copies the weights and inputs in, executes the
tasks and copies the outputs out. Tasks see memory only through arena offsets, so the run
checks the memory plan and the event plan: an overlapping buffer or a missing event changes
the results (under some schedule) instead of being hidden by SSA values.

Each stream runs its tasks in program order with its own program counter. The scheduler
repeatedly picks a stream that can make progress and runs its next task: by default the lowest
stream id (deterministic), with a `schedule_seed` a random runnable stream per step, which
exposes missing synchronisation. `event_wait` blocks until the event is recorded and then
consumes it. A stream some `stream_active` names is idle until that task runs; then it runs its
task list once from the start and is idle again (activating it while it runs is an error). When
no running stream can progress, the run reports a deadlock; idle streams never block it.

Two opt-in instruments: `check_uninitialized` tags every arena byte with the buffer range that
last wrote it (weights and inputs at load), and fails a task that reads a byte nobody wrote, or
one last written through a different buffer (two live buffers overlap: a memory planning bug),
naming the task and the buffers. `timing` simulates time with `cost_model` and returns a
`timeline.Timeline` (Chrome trace, profile, critical path) in `RunStats.timeline`.

Dynamic buffers (`dyn[k]`, the values of unknown-shape partitions) are placed when they are
written: above the planned arena, best fit among the blocks freed so far or else at a growing
top (GE's hybrid executor allocates at run time too), and freed once every task that reads them
ran. `RunStats.dynamic_peak` is the most bytes they held at once. A value that reaches a
planned buffer or a dynamic buffer whose type fixes a dim must have that shape, or the run
fails naming the task.

A run executes a compiled program (`compiled`): the model decoded once per interpreter into
per-stream step lists, each task's kernel, attributes and buffers resolved and bound to numpy
views of one arena, which later runs reuse (zeroed, then weights and inputs written). Every
instrument above is an option of that engine. A task type's semantics stay its xDSL `@impl`
(`@impl(KernelOp)` ...): a binder (`compiled.binds`) compiles the built-in ones; a task type
without one, or an `@impl` another `InterpreterFunctions` overrides, runs its impl with the
run's state in the interpreter's data for `AscendFunctions`. `compiled=False` dispatches every
task through xDSL's interpreter instead: the reference the executor is tested against. What a
task reads, writes, waits on or jumps to comes from its effects (`TaskOp.effects`).

The package, one concern per module (dependencies go down the list):

- `plan`: the per-model plan, computed once per model and interpreter;
- `memory`: the run state, the dynamic heap and the `check_uninitialized` byte ownership;
- `timing`: the timing simulator (`timing=True`; the timeline itself is `..timeline`);
- `compiled`: the executor's decoded program, its arenas and its scheduler loops;
- `scheduler`: loading, the step-by-step reference scheduler and the step budget, the run
  statistics;
- `functions`: `AscendFunctions`, the `@impl` and the binder of every task op, the model call;
- `entry`: the Python entry, `execute_model`, `run_model`, `configure`, `last_stats`.
"""

from gedialects.interpreters.ascend.entry import (
    ModelRun,
    check_max_steps,
    configure,
    execute_model,
    interpreter_for,
    last_stats,
    run_model,
)
from gedialects.interpreters.ascend.functions import AscendFunctions, run_state
from gedialects.interpreters.ascend.memory import DynamicHeap
from gedialects.interpreters.ascend.plan import (
    DYNAMIC_ALIGNMENT,
    STEP_MARGIN,
    AscendRuntimeError,
)
from gedialects.interpreters.ascend.scheduler import MEMORY_CHECK_STEPS, SPAN_BYTES, RunStats
from gedialects.interpreters.timeline import Timeline

__all__ = [
    "DYNAMIC_ALIGNMENT",
    "MEMORY_CHECK_STEPS",
    "SPAN_BYTES",
    "STEP_MARGIN",
    "AscendFunctions",
    "AscendRuntimeError",
    "DynamicHeap",
    "ModelRun",
    "RunStats",
    "Timeline",
    "check_max_steps",
    "configure",
    "execute_model",
    "interpreter_for",
    "last_stats",
    "run_model",
    "run_state",
]
