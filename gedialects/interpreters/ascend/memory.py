"""Memory of one ascend model run: the run state (arena, events, dynamic buffers), the dynamic
heap that places the values of unknown-shape partitions above the planned arena (GE's hybrid
executor allocates at run time too), and the `check_uninitialized` byte ownership."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from gedialects import budget
from gedialects.interpreters.ascend.plan import (
    DYNAMIC_ALIGNMENT,
    AscendRuntimeError,
    DynRef,
    Plan,
    Slot,
    slot_name,
)


@dataclass
class RunState:
    """Mutable state of one run, shared by the scheduler and the task impls."""

    plan: Plan
    arena: bytearray
    events: set[int] = field(default_factory=set)
    stream: int = 0
    """Index (into `plan.stream_ids`) of the stream whose task is running."""
    jump: int = -1
    """Set by a label task: the task index where the stream continues."""
    ended: bool = False
    """Set by `end_graph`: the running stream is finished."""
    activate: int = -1
    """Set by `stream_active`: the index of the stream to start; the scheduler resets it."""
    error: AscendRuntimeError | None = None
    """Set by a task that failed; the scheduler raises it. Raising inside an impl would make
    xDSL attach a dump of the whole module (weights included) to the error."""
    memory: MemoryCheck | None = None
    """Byte ownership, in `check_uninitialized` mode."""
    dyn: dict[int, Slot] = field(default_factory=dict)
    """Dynamic slot -> where its current value lies and its shape."""
    pending: dict[int, int] = field(default_factory=dict)
    """Dynamic slot -> readers that have not run yet."""
    heap: DynamicHeap | None = None
    size: int = -1
    """The bytes of the arena the run uses (-1: all of `arena`); the compiled executor's arena
    may be larger (it is reused), the dynamic heap grows `size` as a fresh arena would grow."""
    grow: Callable[[int], None] | None = None
    """Makes `arena` hold at least that many bytes, the new ones zero (None: extend it)."""

    def __post_init__(self) -> None:
        if self.size < 0:
            self.size = len(self.arena)

    def place(self, ref: DynRef, array: np.ndarray, writer: str) -> AscendRuntimeError | None:
        """Stores `array` as the value of `ref`'s slot, at an offset chosen now."""
        shape = array.shape  # a tuple of ints already
        if not ref.conforms(shape):
            return AscendRuntimeError(
                f"{writer} produced shape {shape} for {ref.describe()}, whose static dims "
                "it must have"
            )
        data = np.ascontiguousarray(array, dtype=ref.dtype)
        nbytes = data.nbytes
        heap = self.heap
        assert heap is not None
        dyn = self.dyn
        old = dyn.pop(ref.slot, None)
        if old is not None:  # written again (a sunk loop): the old value is dead
            heap.release(old.offset, old.nbytes)
        offset = heap.allocate(nbytes)
        if heap.top > self.size:
            self._grow(ref, shape, nbytes, offset, writer)
        self.arena[offset : offset + nbytes] = data.tobytes()
        slot = Slot(offset, nbytes, ref.dtype, data.size, shape, ref.type)
        dyn[ref.slot] = slot
        self.pending[ref.slot] = self.plan.readers.get(ref.slot, 0)
        if self.memory is not None:
            self.memory.write(offset, nbytes, slot_name(slot, ref.slot), writer)
        return None

    def _grow(
        self, ref: DynRef, shape: tuple[int, ...], nbytes: int, offset: int, writer: str
    ) -> None:
        """The arena made as large as the dynamic heap's top, within the memory budget."""
        heap = self.heap
        assert heap is not None
        need = heap.top * bytes_per_arena_byte(self.memory is not None, False)
        if need > budget.max_memory():  # the message prints a type: only when it fails
            budget.check(
                need,
                f"{writer}: the dynamic heap, placing {ref.describe()} of shape "
                f"{list(shape)} ({nbytes} bytes) at arena[{offset}]",
            )
        if self.grow is not None:
            self.grow(heap.top)
        else:
            self.arena.extend(bytes(heap.top - len(self.arena)))
        self.size = heap.top
        if self.memory is not None:
            self.memory.grow(self.size)

    def resolve(self, ref: Slot | DynRef, reader: str) -> Slot | AscendRuntimeError:
        if isinstance(ref, Slot):
            return ref
        found = self.dyn.get(ref.slot)
        if found is None:
            return AscendRuntimeError(f"{reader} reads {ref.describe()}, which holds no value")
        return found

    def consumed(self, slots: Sequence[int]) -> None:
        """`slots` were read by one more task: free those no later task reads."""
        for s in slots:
            left = self.pending.get(s, 0) - 1
            self.pending[s] = left
            if left == 0 and s not in self.plan.kept and s in self.dyn:
                found = self.dyn.pop(s)
                assert self.heap is not None
                self.heap.release(found.offset, found.nbytes)


def bytes_per_arena_byte(check_uninitialized: bool, timing: bool) -> int:
    """Host bytes a run holds per arena byte: the arena, `MemoryCheck`'s int32 owner per
    byte, and the timing's two `_Bound`s (a float64 ready time and an int16 engine per byte)."""
    return 1 + 4 * check_uninitialized + 20 * timing


class DynamicHeap:
    """Run-time placement of dynamic buffers above the planned arena: best fit among the freed
    blocks (coalesced), else a new block at the top. Sizes are aligned inline (`plan.align`
    of at least one byte): a dynamic task allocates and frees a block or two."""

    def __init__(self, base: int) -> None:
        self.base = self.top = base
        self.free: list[tuple[int, int]] = []
        """Free blocks (offset, size) below `top`, sorted by offset, never adjacent."""
        self.used = 0
        self.peak = 0

    def allocate(self, nbytes: int) -> int:
        size = -(-nbytes // DYNAMIC_ALIGNMENT) * DYNAMIC_ALIGNMENT or DYNAMIC_ALIGNMENT
        free = self.free
        best = -1
        if free:
            best_size = 0
            for i, (_, block) in enumerate(free):
                if block >= size and (best < 0 or block < best_size):
                    best, best_size = i, block
        if best >= 0:
            offset, block = free[best]
            if block > size:
                free[best] = (offset + size, block - size)
            else:
                del free[best]
        else:
            offset = self.top
            self.top += size
        self.used += size
        if self.used > self.peak:
            self.peak = self.used
        return offset

    def release(self, offset: int, nbytes: int) -> None:
        size = -(-nbytes // DYNAMIC_ALIGNMENT) * DYNAMIC_ALIGNMENT or DYNAMIC_ALIGNMENT
        self.used -= size
        free = self.free
        i = bisect.bisect(free, (offset, size))
        if i < len(free) and free[i][0] == offset + size:
            size += free.pop(i)[1]
        if i > 0:
            before, before_size = free[i - 1]
            if before + before_size == offset:
                offset, size = before, before_size + size
                del free[i - 1]
                i -= 1
        if offset + size == self.top:
            self.top = offset
        else:
            free.insert(i, (offset, size))


class MemoryCheck:
    """Which buffer range last wrote each arena byte (-1: never written)."""

    def __init__(self, size: int) -> None:
        self.owner = np.full(size, -1, np.int32)
        self.ids: dict[tuple[int, int], int] = {}
        self.names: list[str] = []
        self.writers: list[str] = []
        self.view_bases: dict[int, tuple[int, int]] = {}
        """Range id -> (offset, nbytes) of the largest-gear buffers a GetNext writes whole:
        a gear branch reads its gear's view at their start (GetNext sink)."""

    def allow_views(self, offset: int, nbytes: int, name: str) -> None:
        """Reads at the start of this range, of at most its size, read what it wrote."""
        self.view_bases[self.range_id(offset, nbytes, name)] = (offset, nbytes)

    def grow(self, size: int) -> None:
        extra = size - len(self.owner)
        if extra > 0:
            self.owner = np.concatenate([self.owner, np.full(extra, -1, np.int32)])

    def range_id(self, offset: int, nbytes: int, name: str) -> int:
        key = (offset, nbytes)
        rid = self.ids.get(key)
        if rid is None:
            rid = self.ids[key] = len(self.names)
            self.names.append(name)
            self.writers.append("")
        return rid

    def write(self, offset: int, nbytes: int, name: str, writer: str) -> None:
        rid = self.range_id(offset, nbytes, name)
        self.writers[rid] = writer
        self.owner[offset : offset + nbytes] = rid

    def read(self, offset: int, nbytes: int, name: str, reader: str) -> AscendRuntimeError | None:
        if nbytes == 0:
            return None
        rid = self.range_id(offset, nbytes, name)
        owners = self.owner[offset : offset + nbytes]
        bad = np.flatnonzero(owners != rid)
        if not bad.size:
            return None
        first = int(bad[0])
        other = int(owners[first])
        base = self.view_bases.get(other)
        view = base is not None and base[0] == offset and nbytes <= base[1]
        if view and not np.flatnonzero(owners != other).size:
            return None  # a gear's view of a GetNext's largest-gear buffer
        run = np.flatnonzero(owners[first:] != other)
        stop = first + (int(run[0]) if run.size else nbytes - first)
        where = f"bytes [{offset + first}, {offset + stop})"
        if other < 0:
            return AscendRuntimeError(
                f"{reader} reads {name}, but {where} were never written (uninitialised memory)"
            )
        return AscendRuntimeError(
            f"{reader} reads {name}, but {where} were last written through "
            f"{self.names[other]} by {self.writers[other]}: two live buffers overlap "
            "(a memory planning bug)"
        )
