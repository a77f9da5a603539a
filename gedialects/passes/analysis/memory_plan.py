"""Memory planning analysis: places tensor slots in the arena of an ascend model.

Plain data in, plain data out, kept apart from the passes that materialise it, so that the
planners can be swapped and tested alone. `plan_without_reuse` is the lowering's baseline
(`MemoryPlan`): every slot its own range, weights first in the read-only weight region, then
graph inputs and outputs, then feature maps, each aligned to GE's 512 bytes. The reuse
strategies below (`greedy_by_size`, `ge_lifetime`, `without_reuse`; a `BlockPlan`) are what
`ge-plan-memory` places the feature blocks with, over the conflicts of `analysis.liveness`
(`greedy_in_order` is `greedy_by_size` where those are an order, a `BlockOrder`).
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute

from gedialects.base import element_count, element_nbytes, tensor_nbytes
from gedialects.formats import FormatAttr, memory_size
from gedialects.passes.analysis import PlanError

GE_ALIGNMENT = 512
"""GE aligns every memory block to 512 bytes (MEM_ALIGN_SIZE)."""


@dataclass(frozen=True, slots=True)
class TypeFacts:
    """What the lowering and the planners ask of a type, computed once per type object."""

    type: Attribute
    """Kept so that the object (whose id is the key) stays alive while cached."""
    static: bool
    """A ranked tensor type without `?` dims (`base.is_static`)."""
    nbytes: int | None
    """`tensor_nbytes` of a static tensor type with a byte size, else None."""
    reserved: int | None
    """`formats.memory_size` of those bytes (storage formats reserve slack)."""
    formatted: bool
    """A tensor in a storage format (`formats.format_of` is not None)."""


_FACTS: dict[int, TypeFacts] = {}
_FACTS_LIMIT = 1 << 16
"""Entries before the cache starts over: a long session compiles many models, whose types
the cache would otherwise keep alive."""


def type_facts(t: Attribute) -> TypeFacts:
    """The facts of `t`, memoised by object: a 10k-node lowering asks them 150k times of a few
    hundred distinct types, and each answer walked the shape and isinstance-checked the
    element type against xDSL's ABC-based classes (most of the lowering's own time)."""
    found = _FACTS.get(id(t))
    if found is not None and found.type is t:
        return found
    static = isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())
    nbytes: int | None = None
    reserved: int | None = None
    formatted = False
    if isinstance(t, TensorType):
        formatted = isinstance(t.encoding, FormatAttr)
        size = element_nbytes(t.element_type)
        if static and size is not None:
            nbytes = element_count(t.get_shape()) * size
            reserved = memory_size(t, nbytes)
    facts = TypeFacts(t, static, nbytes, reserved, formatted)
    if len(_FACTS) >= _FACTS_LIMIT:
        _FACTS.clear()
    _FACTS[id(t)] = facts
    return facts


class SlotKind(Enum):
    WEIGHT = "weight"
    IO = "io"
    FEATURE = "feature"
    VARIABLE = "variable"
    """A session variable: placed in the variable region (`variable_layout`), not the arena."""


@dataclass(eq=False)
class Slot:
    """One tensor's storage; weights carry their value."""

    type: TensorType
    kind: SlotKind
    value: DenseIntOrFPElementsAttr | None = None
    name: str | None = None
    """A variable's name."""

    @property
    def nbytes(self) -> int:
        known = type_facts(self.type).nbytes
        return tensor_nbytes(self.type) if known is None else known  # raises for no size

    @property
    def reserved(self) -> int:
        """Bytes the plan gives it (GE's size rule for storage formats: `memory_size`)."""
        known = type_facts(self.type).reserved
        return memory_size(self.type, self.nbytes) if known is None else known


@dataclass
class MemoryPlan:
    """Arena offsets of slots; `[0, weight_size)` is the weight region."""

    offsets: dict[Slot, int] = field(default_factory=dict)
    weight_size: int = 0
    arena_size: int = 0
    feature_bytes: int = 0
    """Bytes of feature-map slots, before alignment: the plan's payload (for stats)."""
    alignment: int = GE_ALIGNMENT

    def offset(self, slot: Slot) -> int:
        return self.offsets[slot]

    def verify(self) -> None:
        """Raises PlanError naming the first inconsistency: a misaligned slot, a weight outside
        the weight region or another slot inside it, two slots sharing bytes, a slot past the
        arena, a feature byte count that is not the slots'."""

        def what(slot: Slot, offset: int) -> str:
            """Its description, made only for an error: printing every slot's type was most
            of the check on a large model."""
            return (
                f"{slot.kind.value} slot {slot.type} at [{offset}, {offset + max(slot.nbytes, 1)})"
            )

        ranges: list[tuple[int, int, int, Slot]] = []
        features = 0
        weight_size, arena_size, alignment = self.weight_size, self.arena_size, self.alignment
        for number, (slot, offset) in enumerate(self.offsets.items()):
            nbytes = slot.nbytes
            end = offset + max(nbytes, 1)
            if offset < 0 or offset % alignment:
                raise PlanError(f"memory plan: {what(slot, offset)} is not aligned to {alignment}")
            if (slot.kind is SlotKind.WEIGHT) != (end <= weight_size):
                raise PlanError(
                    f"memory plan: {what(slot, offset)} is on the wrong side of the weight "
                    f"region [0, {weight_size})"
                )
            if end > arena_size:
                raise PlanError(
                    f"memory plan: {what(slot, offset)} ends past the arena ({arena_size} B)"
                )
            if slot.kind is SlotKind.FEATURE:
                features += nbytes
            ranges.append((offset, end, number, slot))
        ranges.sort(key=lambda r: r[:3])
        reach = 0
        for start, end, _, _ in ranges:
            if start < reach:
                # the first pair in the order of the descriptions too, as named before
                named = sorted((r[0], r[1], what(r[3], r[0])) for r in ranges)
                reach, holder = 0, ""
                for start, end, text in named:
                    if start < reach:
                        raise PlanError(f"memory plan: {holder} and {text} share bytes")
                    reach, holder = end, text
            reach = end
        if features != self.feature_bytes:
            raise PlanError(
                f"memory plan: feature slots hold {features} B, the plan says {self.feature_bytes}"
            )

    def dump(self) -> str:
        """One line per slot in arena order."""
        lines = [
            f"memory plan: arena {self.arena_size} B, weights [0, {self.weight_size}), "
            f"features {self.feature_bytes} B, alignment {self.alignment}"
        ]
        for slot, offset in sorted(self.offsets.items(), key=lambda item: item[1]):
            lines.append(f"  [{offset}, {offset + slot.nbytes}) {slot.kind.value} {slot.type}")
        return "\n".join(lines)


def align(n: int, alignment: int) -> int:
    return (n + alignment - 1) // alignment * alignment


def variable_layout(slots: list[Slot], alignment: int = GE_ALIGNMENT) -> dict[Slot, int]:
    """Offsets in the variable region of the variable slots, in order, each aligned to GE's
    `kSessionMemAlignSize` (512; the graph var manager's alignment, whatever the arena's)."""
    layout: dict[Slot, int] = {}
    cursor = 0
    for slot in slots:
        if slot.kind is SlotKind.VARIABLE:
            layout[slot] = cursor
            cursor += align(max(slot.nbytes, 1), max(alignment, GE_ALIGNMENT))
    return layout


def plan_without_reuse(slots: list[Slot], alignment: int = GE_ALIGNMENT) -> MemoryPlan:
    """Gives each arena slot its own aligned range: weights, then I/O, then feature maps
    (variables live in the variable region, `variable_layout`)."""
    plan = MemoryPlan(alignment=alignment)
    cursor = 0
    for kind in (SlotKind.WEIGHT, SlotKind.IO, SlotKind.FEATURE):
        for slot in slots:
            if slot.kind is not kind:
                continue
            plan.offsets[slot] = cursor
            cursor += align(max(slot.reserved, 1), alignment)
            if kind is SlotKind.FEATURE:
                plan.feature_bytes += slot.nbytes
        if kind is SlotKind.WEIGHT:
            plan.weight_size = cursor
    plan.arena_size = cursor
    return plan


# --------------------------------------------------------------------------------------------
# Reuse: placing blocks that may share memory when they do not conflict
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pairs:
    """Conflicting blocks as two int arrays: pair k is `a[k]`, `b[k]`, both ways, maybe
    repeated (what `liveness.conflicts` builds: hundreds of thousands of sets were its cost)."""

    a: np.ndarray
    b: np.ndarray


@dataclass(frozen=True)
class BlockOrder:
    """Conflicts as an order: two blocks conflict unless one is entirely before the other.

    Block a is before block b when a's last task precedes b's first in program order and, per
    stream s, a's last access on s (its index in s, -1 for none) is below `known[b, s]`, the
    number of tasks of s that every access of b knows complete (the vector clocks of
    `TaskGraph`): every access of a happens before every access of b. The relation is
    transitive, so the blocks placed in one range (which never conflict) form a chain ordered
    by first task, and a block conflicts with one of them iff it conflicts with its neighbour
    in that chain: `greedy_in_order` places blocks by these tests, with no list of conflicting
    pairs (6.7M pairs at 100k bench nodes). `liveness.block_order` gives it when it is what
    `liveness.conflicts` computes."""

    firsts: np.ndarray
    """Per block, its first task's position."""
    lasts: np.ndarray
    """Per block, its last task's position."""
    ends: np.ndarray
    """(blocks x streams): the index of the block's last access on each stream, -1 for none."""
    known: np.ndarray
    """(blocks x streams): per stream, the tasks known complete by all of the block's accesses."""

    def before(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per k, whether block `a[k]` is entirely before block `b[k]`."""
        return (self.lasts[a] < self.firsts[b]) & (self.ends[a] < self.known[b]).all(axis=1)

    def packed(self) -> tuple[list[int], list[int], int]:
        """`before` as one subtraction of Python ints: (need, allow, guard) with a before b iff
        `(allow[b] - need[a]) & guard == guard`.

        Each test is a vector comparison (program order, then each stream); a field of 32 bits
        per component holds `need = last + 1` in one and `allow = bound + 2**31` in the other,
        so that a field of `allow - need` never borrows from the next and keeps its top bit
        (a bit of `guard`) iff `bound >= last + 1`."""
        top = 1 << 31
        need = np.column_stack((self.lasts + 1, self.ends + 1)).astype("<u4")
        allow = np.column_stack((self.firsts, self.known)).astype(np.int64) + top
        width = 4 * need.shape[1]
        need_bytes, allow_bytes = need.tobytes(), allow.astype("<u4").tobytes()
        ints = int.from_bytes
        return (
            [ints(need_bytes[k : k + width], "little") for k in range(0, len(need_bytes), width)],
            [ints(allow_bytes[k : k + width], "little") for k in range(0, len(allow_bytes), width)],
            ints(np.full(need.shape[1], top, "<u4").tobytes(), "little"),
        )


Neighbours = Sequence[Set[int]] | Pairs
"""Per block the blocks it conflicts with (`neighbours[i]` for block i), or `Pairs`."""


def directed_edges(neighbours: Neighbours) -> tuple[np.ndarray, np.ndarray]:
    """`(src, dst)` int arrays, an edge per block `dst` that block `src` must not share bytes
    with: both ways of each of `Pairs`, or `j in neighbours[i]` as (i, j)."""
    if isinstance(neighbours, Pairs):
        a, b = neighbours.a, neighbours.b
        return np.concatenate((a, b)), np.concatenate((b, a))
    lengths = [len(adjacent) for adjacent in neighbours]
    total = sum(lengths)
    src = np.repeat(np.arange(len(neighbours), dtype=np.int64), lengths)
    dst = np.fromiter(itertools.chain.from_iterable(neighbours), np.int64, total)
    return src, dst


def pair_sets(pairs: Pairs, n: int) -> list[set[int]]:
    """`pairs` as one set per block (of `n`)."""
    sets: list[set[int]] = [set() for _ in range(n)]
    for x, y in zip(pairs.a.tolist(), pairs.b.tolist(), strict=True):
        sets[x].add(y)
        sets[y].add(x)
    return sets


def neighbour_sets(neighbours: Neighbours, n: int) -> Sequence[Set[int]]:
    """`neighbours` as one set per block (of `n`)."""
    return pair_sets(neighbours, n) if isinstance(neighbours, Pairs) else neighbours


def best_fit(placed: list[tuple[int, int]], size: int) -> int:
    """The offset TFLite's ArenaPlanner gives a block of `size` bytes beside the sorted
    `placed` ranges of its conflicting neighbours: the smallest gap that fits (the first of
    those, an exact fit at once), else past the last of them."""
    best, best_gap, cursor = -1, -1, 0
    for start, end in placed:
        gap = start - cursor
        if gap >= size and (best < 0 or gap < best_gap):
            best, best_gap = cursor, gap
            if gap == size:
                break
        if end > cursor:
            cursor = end
    return best if best >= 0 else cursor


def greedy_by_size(
    sizes: list[int], firsts: list[int], neighbours: Neighbours
) -> tuple[list[int], int]:
    """TFLite's greedy-by-size with best fit (`ArenaPlanner` + `SimpleMemoryArena::Allocate`).

    Blocks go largest first (ties: earliest first use); each takes the smallest gap between the
    already placed blocks it conflicts with that fits, else the end. Returns (offsets, size).
    Sizes must already be aligned; offsets then are too. Cost: O(sum of degrees * log).

    Each block's earlier-placed neighbours are listed once for all, by arrays (a block is
    placed after exactly those of its neighbours that come before it in the order; one sort
    of (rank, neighbour) keys groups them and drops repeated pairs), instead of a set
    intersection per block. With positive sizes the same range twice is looked at once (the
    second copy starts below the cursor the first moved past it: no gap, no move), so a
    block's placed neighbours are looked at by the distinct ranges they occupy: reuse makes
    those a few (15 ranges for 5661 blocks at 10k nodes, ~110 placed neighbours each).
    """
    n = len(sizes)
    order = sorted(range(n), key=lambda i: (-sizes[i], firsts[i]))
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n, dtype=np.int64)
    if isinstance(neighbours, Pairs):  # each pair once, from the later block to the earlier
        a, b = neighbours.a, neighbours.b
        if (a == b).any():  # self pairs: never placed before themselves
            a, b = a[a != b], b[a != b]
        ranks_a, ranks_b = rank[a], rank[b]
        ranks_b *= n  # (later rank) * n + earlier block, without gathering src and dst apart
        ranks_a *= n
        keys = np.where(ranks_a > ranks_b, ranks_a + b, ranks_b + a)
    else:
        src, dst = directed_edges(neighbours)
        keep = rank[dst] < rank[src]  # placed before: self edges and later blocks drop out
        keys = rank[src[keep]] * n + dst[keep]
    # a stable sort: conflict pairs come sorted by their smaller block, and ranks follow first
    # use for blocks of one size, so the keys are long sorted runs that timsort merges
    keys = np.sort(keys, kind="stable")
    if len(keys):
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    earlier = (keys % n).tolist() if n else []
    bounds = np.searchsorted(keys, np.arange(n + 1, dtype=np.int64) * n).tolist()
    positive = min(sizes, default=1) > 0
    offsets = [-1] * n
    ends = [0] * n
    slot_of = [-1] * n
    """Per placed block, its range's number in `ranges` (the distinct ranges placed)."""
    ranges: list[tuple[int, int]] = []
    numbered: dict[tuple[int, int], int] = {}
    top = 0
    for r, i in enumerate(order):
        size = sizes[i]
        near = earlier[bounds[r] : bounds[r + 1]]
        if positive:
            placed = sorted(map(ranges.__getitem__, set(map(slot_of.__getitem__, near))))
        else:  # a zero-size range twice is not the same as once
            placed = sorted(
                zip(map(offsets.__getitem__, near), map(ends.__getitem__, near), strict=True)
            )
        offset = best_fit(placed, size)
        offsets[i] = offset
        ends[i] = offset + size
        span = (offset, offset + size)
        slot = numbered.get(span)
        if slot is None:
            slot = numbered[span] = len(ranges)
            ranges.append(span)
        slot_of[i] = slot
        if offset + size > top:
            top = offset + size
    return offsets, top


MAX_CHAIN_RANGES = 64
"""`greedy_in_order` gives up past this many distinct ranges: it tests each block against
every range, and the conflict pairs are then the cheaper way."""


def greedy_in_order(
    sizes: list[int], firsts: list[int], order: BlockOrder, max_ranges: int = MAX_CHAIN_RANGES
) -> tuple[list[int], int] | None:
    """`greedy_by_size` over the conflicts of `order`, with the same offsets, or None past
    `max_ranges` distinct ranges.

    `greedy_by_size` looks at the distinct ranges of a block's placed neighbours; here each
    range keeps its blocks as a chain sorted by first task (see `BlockOrder`), and a range is
    taken by a neighbour iff the block is not after its predecessor in the chain or not before
    its successor: two tests per range instead of the pairs. Sizes must be positive."""
    n = len(sizes)
    if min(sizes, default=1) <= 0:
        raise ValueError("greedy_in_order: sizes must be positive")
    need, allow, guard = order.packed()
    starts = order.firsts.tolist()
    ranges: list[tuple[int, int]] = []
    chains: list[tuple[list[int], list[int]]] = []
    """Per range, the first tasks of its blocks (sorted) and the blocks in that order."""
    numbered: dict[tuple[int, int], int] = {}
    offsets = [-1] * n
    top = 0
    for i in sorted(range(n), key=lambda i: (-sizes[i], firsts[i])):
        size, first, need_i, allow_i = sizes[i], starts[i], need[i], allow[i]
        placed: list[tuple[int, int]] = []
        for span, (keys, chain) in zip(ranges, chains, strict=True):
            k = bisect_left(keys, first)
            if (k and (allow_i - need[chain[k - 1]]) & guard != guard) or (
                k < len(chain) and (allow[chain[k]] - need_i) & guard != guard
            ):
                placed.append(span)
        placed.sort()
        offset = best_fit(placed, size)
        offsets[i] = offset
        span = (offset, offset + size)
        slot = numbered.get(span)
        if slot is None:
            if len(ranges) == max_ranges:
                return None
            slot = numbered[span] = len(ranges)
            ranges.append(span)
            chains.append(([], []))
        keys, chain = chains[slot]
        k = bisect_left(keys, first)
        keys.insert(k, first)
        chain.insert(k, i)
        if offset + size > top:
            top = offset + size
    return offsets, top


def size_classes(sizes: list[int], alignment: int) -> list[int]:
    """GE's `BinaryBlockMemAssigner::GetMemoryRanges`: ceil(log2(max/min)) classes halving from
    the largest size; returns the class ceilings, smallest first."""
    positive = [s for s in sizes if s > 0]
    if not positive:
        return [alignment]
    largest, smallest = max(positive), min(positive)
    count = max(1, (largest + smallest - 1) // smallest).bit_length()
    ceilings = {align(largest, alignment)}
    ceiling = largest
    for _ in range(count):
        ceiling //= 2
        if ceiling < smallest:
            break
        ceilings.add(align(ceiling, alignment))
    return sorted(ceilings)


def ge_lifetime(
    sizes: list[int], firsts: list[int], neighbours: Neighbours, alignment: int
) -> tuple[list[int], int]:
    """GE-style reuse: sizes rounded up to size classes; in order of first use each block takes a
    released block of its class that none of its conflicts holds (the first released), else a
    new block; blocks are then laid out one after another (`ResizeMemoryBlocks`)."""
    ceilings = size_classes(sizes, alignment)
    import bisect

    neighbours = neighbour_sets(neighbours, len(sizes))

    order = sorted(range(len(sizes)), key=lambda i: firsts[i])
    slot_of = [-1] * len(sizes)
    slot_size: list[int] = []
    by_class: dict[int, list[int]] = {}
    for i in order:
        k = bisect.bisect_left(ceilings, sizes[i])
        size = ceilings[k] if k < len(ceilings) else sizes[i]
        busy = {slot_of[j] for j in neighbours[i] if slot_of[j] >= 0}
        slot = next((s for s in by_class.get(size, ()) if s not in busy), -1)
        if slot < 0:
            slot = len(slot_size)
            slot_size.append(size)
            by_class.setdefault(size, []).append(slot)
        slot_of[i] = slot
    slot_offset: list[int] = [0] * len(slot_size)
    cursor = 0
    for slot in sorted(range(len(slot_size)), key=lambda s: (-slot_size[s], s)):
        slot_offset[slot] = cursor
        cursor += slot_size[slot]
    return [slot_offset[s] for s in slot_of], cursor


def without_reuse(sizes: list[int], firsts: list[int]) -> tuple[list[int], int]:
    """Every block its own range, in order of first use (GE's ge.exec.disableReuseMemory)."""
    offsets = [0] * len(sizes)
    cursor = 0
    for i in sorted(range(len(sizes)), key=lambda i: firsts[i]):
        offsets[i] = cursor
        cursor += sizes[i]
    return offsets, cursor


@dataclass
class BlockPlan:
    """Where a reuse strategy put the feature blocks: offsets from the start of the feature
    region (`ge-plan-memory` adds the region's base when it rewrites the buffers)."""

    sizes: list[int]
    """Aligned byte sizes."""
    offsets: list[int]
    size: int
    """Bytes of the feature region."""
    neighbours: Neighbours | BlockOrder
    """Blocks that may be live at once (`liveness.Conflicts`, or unless ordered by a
    `BlockOrder`): they must not share bytes."""
    alignment: int
    strategy: str

    def verify(self) -> None:
        """Raises PlanError naming the first inconsistency: a block unplaced, misaligned or past
        the region, or two conflicting blocks sharing bytes."""
        if isinstance(self.neighbours, Pairs):
            lists = len(self.sizes)
        elif isinstance(self.neighbours, BlockOrder):
            lists = len(self.neighbours.firsts)
        else:
            lists = len(self.neighbours)
        if not len(self.sizes) == len(self.offsets) == lists:
            raise PlanError(
                f"block plan: {len(self.offsets)} offsets for {len(self.sizes)} blocks and "
                f"{lists} conflict lists"
            )
        for i, (offset, size) in enumerate(zip(self.offsets, self.sizes, strict=True)):
            if offset < 0 or offset % self.alignment:
                raise PlanError(
                    f"block plan ({self.strategy}): block {i} at {offset} is not placed on a "
                    f"multiple of {self.alignment}"
                )
            if offset + size > self.size:
                raise PlanError(
                    f"block plan ({self.strategy}): block {i} [{offset}, {offset + size}) ends "
                    f"past the feature region ({self.size} B)"
                )
        if isinstance(self.neighbours, BlockOrder):
            clash = check_chains(self.offsets, self.sizes, self.neighbours)
        else:
            clash = check_no_conflict(self.offsets, self.sizes, self.neighbours)
        if clash is not None:
            a, b = clash
            raise PlanError(
                f"block plan ({self.strategy}): blocks {a} [{self.offsets[a]}, "
                f"{self.offsets[a] + self.sizes[a]}) and {b} [{self.offsets[b]}, "
                f"{self.offsets[b] + self.sizes[b]}) may be live at once but share bytes"
            )

    def dump(self) -> str:
        """One line per block in offset order, with the blocks it conflicts with."""
        lines = [f"block plan ({self.strategy}): {len(self.sizes)} blocks in {self.size} B"]
        if isinstance(self.neighbours, BlockOrder):  # no pair list to show
            for i in sorted(range(len(self.sizes)), key=lambda i: (self.offsets[i], i)):
                lines.append(f"  block {i}: [{self.offsets[i]}, {self.offsets[i] + self.sizes[i]})")
            return "\n".join(lines)
        neighbours = neighbour_sets(self.neighbours, len(self.sizes))
        for i in sorted(range(len(self.sizes)), key=lambda i: (self.offsets[i], i)):
            lo, hi = self.offsets[i], self.offsets[i] + self.sizes[i]
            lines.append(f"  block {i}: [{lo}, {hi}) conflicts {sorted(neighbours[i])}")
        return "\n".join(lines)


def check_no_conflict(
    offsets: list[int], sizes: list[int], neighbours: Neighbours
) -> tuple[int, int] | None:
    """A pair of conflicting blocks whose ranges overlap, or None: the plan's invariant. The
    pair named is the least (i, j), i < j: every edge tested at once, by arrays."""
    if isinstance(neighbours, Pairs):
        src, dst = np.minimum(neighbours.a, neighbours.b), np.maximum(neighbours.a, neighbours.b)
    else:
        src, dst = directed_edges(neighbours)
    starts = np.asarray(offsets, np.int64)
    ends = starts + np.asarray(sizes, np.int64)
    clash = (dst > src) & (starts[dst] < ends[src]) & (ends[dst] > starts[src])
    if not clash.any():
        return None
    src, dst = src[clash], dst[clash]
    i = int(src.min())
    return i, int(dst[src == i].min())


def check_chains(offsets: list[int], sizes: list[int], order: BlockOrder) -> tuple[int, int] | None:
    """A pair of blocks sharing bytes that `order` does not order, or None: the plan's
    invariant over a `BlockOrder`, without its pairs. The blocks of one range, and those of
    two distinct ranges that overlap, must be a chain: sorted by first task, each entirely
    before the next (the order is transitive, so then every two are ordered)."""
    by_range: dict[tuple[int, int], list[int]] = {}
    for i, (offset, size) in enumerate(zip(offsets, sizes, strict=True)):
        by_range.setdefault((offset, offset + size), []).append(i)
    spans = sorted(by_range)
    groups = [by_range[span] for span in spans]
    for r, span in enumerate(spans):  # the distinct ranges after it that share its bytes
        for q in range(r + 1, len(spans)):
            later = spans[q]
            if later[0] >= span[1]:
                break
            if later[1] > later[0]:
                groups.append(by_range[span] + by_range[later])
    firsts = order.firsts
    for group in groups:
        chain = np.asarray(group, np.int64)
        chain = chain[np.argsort(firsts[chain], kind="stable")]
        ordered = order.before(chain[:-1], chain[1:])
        if not ordered.all():
            k = int(np.flatnonzero(~ordered)[0])
            a, b = int(chain[k]), int(chain[k + 1])
            return (a, b) if a < b else (b, a)
    return None
