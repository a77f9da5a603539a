"""`ge-plan-memory`: arena offsets with reuse for the feature tensors of each `ascend.model`.

Runs on the task level, after `ge-convert-graph-to-ascend` (one buffer per tensor) and, if
wanted, `ge-assign-streams` (reuse then respects the streams' partial order). The arena becomes
`[weights][graph inputs and outputs][feature maps]`: weights stay where they are, inputs and
outputs are packed after them and never shared (GE's zero-copy I/O; tflite-micro#2290 is what
happens otherwise), feature maps are placed by the chosen strategy over the liveness of
`gedialects.passes.analysis.liveness`. Every block is aligned to `alignment` bytes (GE's 512).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import ClassVar, cast, overload

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, TensorType, i64
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.ascend import (
    VAR_BASE,
    BufferAttr,
    DynBufferAttr,
    InputOp,
    ModelOp,
    OutputOp,
)
from gedialects.base import new_array, of_class, paused_gc, walk_holders
from gedialects.passes.analysis.liveness import (
    Tensor,
    block_order,
    conflicts,
    in_place_pairs,
    lower_bound,
    merge_blocks,
)
from gedialects.passes.analysis.memory_plan import (
    GE_ALIGNMENT,
    BlockOrder,
    BlockPlan,
    Neighbours,
    align,
    ge_lifetime,
    greedy_by_size,
    greedy_in_order,
    without_reuse,
)
from gedialects.passes.analysis.task_graph import AnalysisError, TaskGraph, TypeSizes
from gedialects.passes.failure import OpPassFailed

_NAME = "ge-plan-memory"
GETNEXT_KERNEL = "GetNext"
"""GE's GetNext kernel type (`graph.get_next`'s GE_TYPE; the graph dialect is not imported here)."""
STRATEGIES = ("greedy-by-size", "ge-lifetime")


@dataclass
class MemoryStats:
    """What a plan costs; `features` and `lower_bound` are aligned byte counts."""

    model: str
    arena: int
    weights: int
    io: int
    features: int
    lower_bound: int
    no_reuse: int
    tensors: int
    blocks: int
    in_place: int
    strategy: str

    @property
    def ratio(self) -> float:
        return self.features / self.lower_bound if self.lower_bound else 1.0

    def line(self) -> str:
        saving = self.no_reuse / self.features if self.features else 1.0
        return (
            f"remark: {_NAME} @{self.model}: arena {self.arena} B = weights {self.weights} + "
            f"io {self.io} + features {self.features}; lower bound {self.lower_bound} B, "
            f"ratio {self.ratio:.3f}; no reuse {self.no_reuse} B ({saving:.2f}x); "
            f"{self.tensors} tensors in {self.blocks} blocks ({self.in_place} in place); "
            f"strategy {self.strategy}"
        )


@dataclass
class _Model:
    """The buffers of one model, classified."""

    graph: TaskGraph
    weight_size: int
    io: dict[tuple[int, int], int] = field(default_factory=dict)
    """(offset, nbytes) of each distinct input/output range -> its new offset."""
    io_at: dict[int, int] = field(default_factory=dict)
    """Offset of each input/output range -> its largest size: a multi-batch gear's view at the
    start of a largest-gear I/O buffer is that I/O buffer."""
    tensors: dict[tuple[int, int], Tensor] = field(default_factory=dict)
    sizes: TypeSizes = field(default_factory=TypeSizes)


def _fail(model: ModelOp, message: str) -> PassFailedException:
    return OpPassFailed(f"{_NAME}: @{model.sym_name.data}: {message}", model)


def _writer(graph: TaskGraph, tensor: Tensor) -> str:
    if tensor.written < 0:
        return "written by no task"
    task = graph.tasks[tensor.written]
    return f"written by {task.describe()}"


def _classify(
    model: ModelOp, graph: TaskGraph, io_ops: list[InputOp | OutputOp] | None = None
) -> _Model:
    info = _Model(graph, model.weight_size.value.data)
    # io_buffers over the walks made already (the model's I/O ops, the task graph's effects)
    buffers = [op.buffer for op in (_io_ops(model) if io_ops is None else io_ops)]
    for effects in graph.effects:
        if effects.kernel == GETNEXT_KERNEL and not effects.hybrid:
            buffers += effects.outs
    planned = [b for b in buffers if isinstance(b, BufferAttr)]
    io_ranges = sorted({(b.offset_value, b.nbytes) for b in planned})
    for offset, nbytes in io_ranges:
        info.io[(offset, nbytes)] = -1
        info.io_at[offset] = max(nbytes, info.io_at.get(offset, 0))
    sizes = info.sizes
    for pos in range(len(graph.tasks)):
        for written, buffers in ((False, graph.reads[pos]), (True, graph.writes[pos])):
            for buffer in buffers:
                offset = buffer.offset_value
                if offset < info.weight_size or offset >= VAR_BASE:
                    continue  # a weight (read-only, placed at load time) or a variable
                canon, _, _, nbytes = sizes(buffer.type)
                key = (offset, canon)
                tensor = info.tensors.get(key)
                if tensor is None:
                    if nbytes <= info.io_at.get(offset, -1):
                        continue
                    tensor = info.tensors[key] = Tensor(key, buffer, nbytes)
                if not tensor.positions or tensor.positions[-1] != pos:
                    tensor.positions.append(pos)
                if written and tensor.written < 0:
                    tensor.written = pos
    _check_disjoint(model, info, io_ranges)
    return info


def io_buffers(model: ModelOp) -> list[BufferAttr]:
    """The planned buffers of the inputs and outputs, and those a GetNext task writes (GetNext
    sink: the model's inputs, each data buffer sized for the largest gear and read by every
    gear branch through its gear's view, as a multi-batch input buffer is)."""
    buffers = [op.buffer for op in (*model.inputs(), *model.outputs())]
    for task in model.tasks():
        effects = task.effects()
        if effects.kernel == GETNEXT_KERNEL and not effects.hybrid:
            buffers += effects.outs
    return [b for b in buffers if isinstance(b, BufferAttr)]


def _io_ops(model: ModelOp) -> list[InputOp | OutputOp]:
    """The inputs and outputs in planned buffers (dynamic ones are placed at run time), in one
    walk of the body with a class test per op class (`inputs()` and `outputs()` are one walk
    each with an ABC `isinstance` per op)."""
    found = [op for op in model.body.block.ops if of_class(op, (InputOp, OutputOp))]
    found = cast(list[InputOp | OutputOp], found)
    return [op for op in found if isinstance(op.buffer, BufferAttr)]


def _check_disjoint(model: ModelOp, info: _Model, io: list[tuple[int, int]]) -> None:
    """Feature buffers must not overlap each other or the I/O: the one-buffer-per-tensor model."""
    spans = sorted(
        [(t.offset, t.offset + t.nbytes, t) for t in info.tensors.values()]
        + [(o, o + n, None) for o, n in io],
        key=lambda s: (s[0], s[1]),
    )
    previous: tuple[int, int, Tensor | None] | None = None
    for span in spans:
        if previous is not None and span[0] < previous[1] and span[1] > span[0]:
            a, b = previous[2], span[2]
            if a is None or b is None:
                tensor = a or b
                assert tensor is not None
                raise _fail(
                    model,
                    f"buffer {tensor.buffer} : {tensor.buffer.type} "
                    f"({_writer(info.graph, tensor)}) overlaps a graph input or output buffer",
                )
            raise _fail(
                model,
                f"is already planned: feature buffers {a.buffer} : {a.buffer.type} "
                f"({_writer(info.graph, a)}) and {b.buffer} : {b.buffer.type} "
                f"({_writer(info.graph, b)}) overlap; {_NAME} needs the one-buffer-per-tensor "
                "model of ge-convert-graph-to-ascend",
            )
        if previous is None or span[1] > previous[1]:
            previous = span


def plan_model(
    model: ModelOp,
    *,
    reuse: bool = True,
    strategy: str = "greedy-by-size",
    alignment: int = GE_ALIGNMENT,
    in_place: bool = True,
    overlay: bool = True,
) -> MemoryStats:
    """Plans `model`'s arena in place (rewrites every buffer) and returns the plan's stats."""
    with paused_gc():
        return _plan_model(model, reuse, strategy, alignment, in_place, overlay)


def _plan_model(
    model: ModelOp, reuse: bool, strategy: str, alignment: int, in_place: bool, overlay: bool
) -> MemoryStats:
    try:
        graph = TaskGraph.of(model)
    except AnalysisError as e:
        raise _fail(model, str(e)) from None
    graph.verify()
    io_ops = _io_ops(model)
    info = _classify(model, graph, io_ops)
    tensors = sorted(info.tensors.values(), key=lambda t: t.positions[0])
    pairs = in_place_pairs(graph, info.tensors, info.sizes) if reuse and in_place else []
    try:
        blocks = merge_blocks(tensors, pairs, graph)
        sizes = [align(max(b.nbytes, 1), alignment) for b in blocks]
        firsts = [b.first for b in blocks]
        # best fit by the order of the blocks where it is the conflict graph: no pairs
        order = block_order(graph, blocks, overlay) if reuse and strategy != "ge-lifetime" else None
        placed = None if order is None else greedy_in_order(sizes, firsts, order)
        edges: Neighbours | BlockOrder
        if order is not None and placed is not None:
            offsets, feature_size = placed
            edges = order
            bound = lower_bound(sizes, [[(b.first, b.last)] for b in blocks])
        else:
            found = conflicts(graph, blocks, overlay=overlay)
            found.verify()
            edges = found.edges
            bound = lower_bound(sizes, found.live)
            if not reuse:
                offsets, feature_size = without_reuse(sizes, firsts)
            elif strategy == "ge-lifetime":
                offsets, feature_size = ge_lifetime(sizes, firsts, edges, alignment)
            else:
                offsets, feature_size = greedy_by_size(sizes, firsts, edges)
    except AnalysisError as e:
        raise _fail(model, str(e)) from None
    plan = BlockPlan(
        sizes,
        offsets,
        feature_size,
        edges,
        alignment,
        strategy if reuse else "no-reuse",
    )
    plan.verify()
    cursor = info.weight_size
    for key in sorted(info.io):
        info.io[key] = cursor
        cursor += align(max(key[1], 1), alignment)
    io_size = cursor - info.weight_size
    base = align(cursor, alignment)
    new_offset: dict[tuple[int, int], int] = {}
    for block, offset in zip(blocks, offsets, strict=True):
        for tensor in block.tensors:
            new_offset[tensor.key] = base + offset
    _rewrite(io_ops, info, new_offset)
    arena = base + feature_size
    model.arena_size = IntegerAttr(arena, i64)
    no_reuse = sum(align(max(t.nbytes, 1), alignment) for t in tensors)
    return MemoryStats(
        model=model.sym_name.data,
        arena=arena,
        weights=info.weight_size,
        io=io_size,
        features=feature_size,
        lower_bound=bound,
        no_reuse=no_reuse,
        tensors=len(tensors),
        blocks=len(blocks),
        in_place=len(pairs),
        strategy=strategy if reuse else "no-reuse",
    )


def _rewrite(
    io_ops: list[InputOp | OutputOp], info: _Model, new_offset: dict[tuple[int, int], int]
) -> None:
    weight_size = info.weight_size
    sizes = info.sizes
    by_id = sizes.by_id  # `sizes.canon` without its two calls per buffer
    cache: dict[tuple[int, int], BufferAttr] = {}

    @overload
    def moved(buffer: BufferAttr) -> BufferAttr: ...
    @overload
    def moved(buffer: DynBufferAttr) -> DynBufferAttr: ...
    @overload
    def moved(buffer: BufferAttr | DynBufferAttr) -> BufferAttr | DynBufferAttr: ...
    def moved(buffer: BufferAttr | DynBufferAttr) -> BufferAttr | DynBufferAttr:
        """A planned buffer at its new offset; a dynamic one stays (so the kind stays)."""
        if isinstance(buffer, DynBufferAttr):
            return buffer
        offset = buffer.offset.data
        if offset < weight_size or offset >= VAR_BASE:
            return buffer  # weights and variables keep their places
        t = buffer.type
        known = by_id.get(id(t))
        key = (offset, (sizes(t) if known is None else known)[0])
        found = cache.get(key)
        if found is None:
            target = new_offset.get(key)
            if target is None:
                nbytes = sizes.nbytes(buffer.type)
                if (offset, nbytes) not in info.io:
                    nbytes = info.io_at[offset]  # a gear's view of a multi-batch I/O buffer
                target = info.io[(offset, nbytes)]
            found = cache[key] = buffer.at(target)
        return found

    for op in io_ops:
        op.buffer = moved(op.buffer)
    graph = info.graph
    # TaskOp.map_buffers, with the arrays built unverified and the effects the task graph
    # read (the properties are the same objects until here)
    for task, effects in zip(graph.tasks, graph.effects, strict=True):
        if not (effects.ins or effects.outs):
            continue  # events: no buffer property holds a buffer
        props = task.properties
        for prop in effects.buffer_props:
            value = props[prop]
            if isinstance(value, ArrayAttr):
                props[prop] = new_array(map(moved, value.data))
            else:
                props[prop] = moved(cast(BufferAttr | DynBufferAttr, value))  # a buffer prop


def largest_tensors(model: ModelOp, count: int = 3) -> list[str]:
    """Descriptions of the largest feature tensors of a (planned or not) model."""
    graph = TaskGraph.of(model)
    info = _Model(graph, model.weight_size.value.data)
    io = {(b.offset_value, b.nbytes) for b in io_buffers(model)}
    seen: dict[tuple[int, TensorType], tuple[int, str]] = {}
    for pos, task in enumerate(graph.tasks):
        for buffer in graph.writes[pos]:
            key = (buffer.offset_value, buffer.type)
            if not info.weight_size <= buffer.offset_value < VAR_BASE or key in seen:
                continue
            if (buffer.offset_value, buffer.nbytes) in io:
                continue
            seen[key] = (buffer.nbytes, f"{buffer} : {buffer.type} written by {task.describe()}")
    ranked = sorted(seen.values(), key=lambda s: -s[0])[:count]
    return [f"{text} ({nbytes} B)" for nbytes, text in ranked]


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Plans each `ascend.model`'s arena with memory reuse (GE's BlockMemAssigner, TFLite's
    ArenaPlanner).

    Liveness follows the task order and, with several streams, only the order that streams and
    events guarantee; case branches overlay each other (per-gear memory); allow-listed
    elementwise and reshape kernels write in place of an input that dies there. Inputs,
    outputs and weights are never shared. Options: `reuse` (false = GE's
    `ge.exec.disableReuseMemory`), `strategy` (`greedy-by-size`: TFLite's best fit, largest
    first; `ge-lifetime`: GE's size classes reused in order of first use), `alignment` (GE's
    512), `in-place`, `device-memory` (bytes; a larger arena is an error naming the largest
    tensors; 0 = unlimited), `stats` (print one `remark:` line per model to stderr: arena,
    lower bound = most bytes live at once, their ratio, the no-reuse size).
    """

    name = "ge-plan-memory"
    OPTION_CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"strategy": STRATEGIES}
    """Checked by `ge-opt` when it reads the pipeline (`tools.pass_catalog`)."""

    reuse: bool = True
    strategy: str = "greedy-by-size"
    alignment: int = GE_ALIGNMENT
    in_place: bool = True
    device_memory: int = 0
    stats: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.strategy not in STRATEGIES:
            raise PassFailedException(
                f"{_NAME}: unknown strategy '{self.strategy}' (expected one of "
                f"{', '.join(STRATEGIES)})"
            )
        if self.alignment <= 0:
            raise PassFailedException(f"{_NAME}: alignment must be positive, got {self.alignment}")
        for model in list(walk_holders(op, ModelOp)):
            stats = plan_model(
                model,
                reuse=self.reuse,
                strategy=self.strategy,
                alignment=self.alignment,
                in_place=self.in_place,
            )
            if self.stats:
                print(stats.line(), file=sys.stderr)
            if self.device_memory > 0 and stats.arena > self.device_memory:
                largest = "; ".join(largest_tensors(model))
                raise _fail(
                    model,
                    f"needs an arena of {stats.arena} bytes (weights {stats.weights}, "
                    f"inputs/outputs {stats.io}, features {stats.features}), more than "
                    f"device-memory={self.device_memory}; largest tensors: {largest}",
                )
