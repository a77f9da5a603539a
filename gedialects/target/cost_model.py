"""Cost model of ascend tasks: how long each task keeps its stream busy, in simulated microseconds.

A roofline per engine: a kernel takes `launch_us + max(flops / flops_per_us, bytes / bytes_per_us)`,
where FLOPs come from the shapes (2*M*N*K for matrix products, 2 * output elements * window for
convolutions, one per output element otherwise) and bytes are everything the task reads and
writes. Memcpy, event, label and end-graph tasks are runtime (RTS) tasks with a fixed latency
plus, for memcpy, a copy at memory bandwidth. A dynamic kernel (a node of an unknown-shape
partition) adds `HYBRID_NODE_US`, the host work GE's hybrid executor does per node (infer the
shape, allocate the outputs, update the kernel's arguments); before the run its `?` dims count
as 1, in a timed run the interpreter costs it with the shapes it actually had.

The numbers are illustrative orders of magnitude of an Ascend 910-class chip (tens of TFLOP/s on
the cube unit, about 1 TB/s of HBM, microseconds of launch latency, AI CPU and host CPU two to
three orders slower), not measurements: the simulated timeline ranks stream and memory plans,
it does not predict wall time. Both `ge-assign-streams` (to choose streams) and the interpreter
(to time a run) use this module, so it imports no numpy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType, UnrankedTensorType

from gedialects.ascend import BufferAttr, DynBufferAttr, StageOp, TaskEffects, TaskOp
from gedialects.base import (
    AICORE_ENGINE,
    AICPU_ENGINE,
    DVPP_ENGINE,
    GE_LOCAL_ENGINE,
    HOST_CPU_ENGINE,
    RTS_ENGINE,
    VECTOR_ENGINE,
    element_count,
    element_nbytes,
)


@dataclass(frozen=True)
class EngineCost:
    """Roofline parameters of one engine."""

    flops_per_us: float
    bytes_per_us: float
    launch_us: float


ENGINE_COSTS: dict[str, EngineCost] = {
    AICORE_ENGINE: EngineCost(flops_per_us=16e6, bytes_per_us=1.0e6, launch_us=2.0),
    VECTOR_ENGINE: EngineCost(flops_per_us=2e6, bytes_per_us=1.0e6, launch_us=2.0),
    AICPU_ENGINE: EngineCost(flops_per_us=2e4, bytes_per_us=2e4, launch_us=10.0),
    DVPP_ENGINE: EngineCost(flops_per_us=1e5, bytes_per_us=1e5, launch_us=5.0),
    HOST_CPU_ENGINE: EngineCost(flops_per_us=5e4, bytes_per_us=1e4, launch_us=20.0),
    GE_LOCAL_ENGINE: EngineCost(flops_per_us=1e6, bytes_per_us=1.0e6, launch_us=1.0),
    RTS_ENGINE: EngineCost(flops_per_us=1e6, bytes_per_us=1.0e6, launch_us=1.0),
}
"""Engine name -> roofline; engines not listed cost like the AI CPU (a conservative guess)."""

UNKNOWN_ENGINE = ENGINE_COSTS[AICPU_ENGINE]
EVENT_RECORD_US = 0.5
EVENT_WAIT_US = 0.5
SYNC_US = EVENT_RECORD_US + EVENT_WAIT_US
"""What a cross-stream dependency adds to a path: one record and one wait."""
CONTROL_US = 0.5
"""Label set / switch / goto and end-graph tasks."""
MEMCPY = ENGINE_COSTS[RTS_ENGINE]
HYBRID_NODE_US = 5.0
"""Host-side work per dynamic kernel: shape inference, allocation, argument update."""

MATMUL_KERNELS = frozenset({"MatMul", "MatMulV2", "BatchMatMul", "BatchMatMulV2"})
CONV_KERNELS = frozenset({"Conv2D", "Conv3D", "Conv2DTranspose", "Conv3DTranspose"})


@dataclass(frozen=True)
class TaskCost:
    duration_us: float
    flops: float
    bytes: int


class CostModel:
    """Task durations, cached per task (a task's shapes never change during a run)."""

    def __init__(self, engines: dict[str, EngineCost] | None = None) -> None:
        self.engines = ENGINE_COSTS if engines is None else engines
        self._by_id: dict[int, tuple[tuple[int, ...], int, int]] = {}
        self._alive: list[TensorType | UnrankedTensorType] = []
        self._costs: dict[TaskOp, TaskCost] = {}
        self._kernels: dict[tuple[object, ...], TaskCost] = {}
        """Kernel signature (kernel, engine, hybrid, input count, buffer type ids) -> cost:
        a model repeats a few signatures many times (the 10k-node bench: 8.8k kernels)."""

    def shape(self, buffer: BufferAttr | DynBufferAttr) -> tuple[tuple[int, ...], int]:
        """(shape, element count) of a buffer's type (`get_shape` is slow: cached per type)."""
        info = self._info(buffer.type)
        return info[0], info[1]

    def _info(self, t: TensorType | UnrankedTensorType) -> tuple[tuple[int, ...], int, int]:
        info = self._by_id.get(id(t))
        if info is None:
            # `?` of a dynamic buffer: 1; an unranked one: one element
            dims = t.get_shape() if isinstance(t, TensorType) else (1,)
            shape = tuple(max(d, 1) for d in dims)
            count = element_count(shape)
            info = self._by_id[id(t)] = (
                shape,
                count,
                count * (element_nbytes(t.element_type) or 1),
            )
            self._alive.append(t)  # ids stay unique while cached
        return info

    def nbytes(self, buffer: BufferAttr | DynBufferAttr) -> int:
        return self._info(buffer.type)[2]

    def kernel_flops(self, op: TaskOp) -> float:
        effects = op.effects()
        return kernel_flops(
            effects.kernel or "",
            [self.shape(b)[0] for b in effects.ins],
            [self.shape(b)[0] for b in effects.outs],
        )

    def kernel_cost(self, task: TaskOp, flops: float, moved: int) -> TaskCost:
        """The roofline of `task`'s engine for this much work (plus the hybrid overhead)."""
        return self._roofline(task.effects(), flops, moved)

    def _roofline(self, effects: TaskEffects, flops: float, moved: int) -> TaskCost:
        engine = self.engines.get(effects.engine or "", UNKNOWN_ENGINE)
        busy = max(flops / engine.flops_per_us, moved / engine.bytes_per_us)
        extra = HYBRID_NODE_US if effects.hybrid else 0.0
        return TaskCost(engine.launch_us + extra + busy, flops, moved)

    def static_kernel_cost(self, effects: TaskEffects) -> TaskCost:
        """A kernel's cost from its declared buffers (`?` dims as 1), cached per signature:
        everything the cost reads is the kernel, engine, hybrid flag and buffer types (types
        by identity, kept alive by the type table, so an id is never reused while cached)."""
        key = (
            effects.kernel,
            effects.engine,
            effects.hybrid,
            len(effects.ins),
            *[id(b.type) for b in effects.ins],
            *[id(b.type) for b in effects.outs],
        )
        found = self._kernels.get(key)
        if found is None:
            info = self._info
            ins = [info(b.type) for b in effects.ins]
            outs = [info(b.type) for b in effects.outs]
            moved = sum(i[2] for i in ins) + sum(o[2] for o in outs)
            flops = kernel_flops(effects.kernel or "", [i[0] for i in ins], [o[0] for o in outs])
            found = self._kernels[key] = self._roofline(effects, flops, moved)
        return found

    def cost(self, task: TaskOp) -> TaskCost:
        cached = self._costs.get(task)
        if cached is not None:
            return cached
        entry = TASK_COSTS.get(task.name)
        if entry is None:
            raise ValueError(
                f"{task.describe()}: no cost entry for '{task.name}' (add one to "
                "gedialects.target.cost_model.TASK_COSTS)"
            )
        result = self._costs[task] = entry(self, task, task.effects())
        return result

    def duration(self, task: TaskOp) -> float:
        return self.cost(task).duration_us

    def duration_of(self, task: TaskOp, effects: TaskEffects) -> float:
        """`duration(task)` for a caller that holds `task.effects()` (a task graph's column)
        and asks once per task: the cost entry applied without the per-task cache (a kernel's
        is cached per signature, the others are fixed), which hashes the op twice and reads
        its effects again (a tenth of ge-assign-streams at 100k bench nodes)."""
        entry = TASK_COSTS.get(task.name)
        if entry is None:
            return self.duration(task)  # raises, naming the task
        return entry(self, task, effects).duration_us

    def total(self, tasks: Sequence[TaskOp]) -> float:
        return sum(self.duration(t) for t in tasks)


def kernel_flops(
    kernel: str, in_shapes: Sequence[Sequence[int]], out_shapes: Sequence[Sequence[int]]
) -> float:
    """FLOPs of a kernel on these shapes (see the module docstring)."""

    out_count = sum(element_count(s) for s in out_shapes)
    if kernel in MATMUL_KERNELS and len(in_shapes) >= 2 and out_shapes:
        a_shape, out_shape = in_shapes[0], out_shapes[0]
        if len(a_shape) >= 2 and len(out_shape) >= 2 and out_shape[-2]:
            k = a_shape[-1] * a_shape[-2] // out_shape[-2]
        else:
            k = a_shape[-1] if a_shape else 1
        return 2.0 * out_count * k
    if kernel in CONV_KERNELS and len(in_shapes) >= 2:
        return 2.0 * out_count * element_count(in_shapes[1][1:])
    return float(max(out_count, max((element_count(s) for s in in_shapes), default=0)))


def task_engine(task: TaskOp) -> str:
    """The engine a task keeps busy: its kernel's, RTS for runtime tasks."""
    return task.effects().engine or RTS_ENGINE


def _kernel(costs: CostModel, task: TaskOp, effects: TaskEffects) -> TaskCost:
    """A kernel (GE KernelTaskInfo, or a hybrid NodeTask): the roofline of its engine over
    everything it reads and writes."""
    return costs.static_kernel_cost(effects)


def _memcpy(costs: CostModel, task: TaskOp, effects: TaskEffects) -> TaskCost:
    """GE MemcpyAsyncTaskInfo: a fixed latency and the bytes read and written at bandwidth."""
    moved = 2 * costs.nbytes(effects.ins[0])
    return TaskCost(MEMCPY.launch_us + moved / MEMCPY.bytes_per_us, 0.0, moved)


def _stage(costs: CostModel, task: TaskOp, effects: TaskEffects) -> TaskCost:
    """GE KnownNodeTask: the dispatch plus every task of the stage's model in sequence."""
    assert isinstance(task, StageOp)
    inner = [costs.cost(t) for t in task.stage_model().tasks()]
    return TaskCost(
        CONTROL_US + sum(c.duration_us for c in inner),
        sum(c.flops for c in inner),
        sum(c.bytes for c in inner),
    )


def _fixed(us: float) -> Callable[[CostModel, TaskOp, TaskEffects], TaskCost]:
    cost = TaskCost(us, 0.0, 0)
    return lambda costs, task, effects: cost


TASK_COSTS: dict[str, Callable[[CostModel, TaskOp, TaskEffects], TaskCost]] = {
    "ascend.kernel": _kernel,
    "ascend.dynamic_kernel": _kernel,
    # the host's dispatch; its subgraphs' work runs in their own models, known at run time
    "ascend.dynamic_control": _fixed(CONTROL_US),
    # a known subgraph: its model's tasks, one after another (its own streams not modelled)
    "ascend.stage": _stage,
    "ascend.memcpy_async": _memcpy,
    "ascend.event_record": _fixed(EVENT_RECORD_US),
    "ascend.event_wait": _fixed(EVENT_WAIT_US),
    "ascend.label_set": _fixed(CONTROL_US),
    "ascend.label_goto": _fixed(CONTROL_US),
    "ascend.label_switch_by_index": _fixed(CONTROL_US),
    "ascend.stream_active": _fixed(CONTROL_US),
    "ascend.end_graph": _fixed(CONTROL_US),
}
"""Task op name -> its cost (a new task type adds its entry): called once per task and cost
model, with the task's effects."""
