"""Liveness of feature tensors in an `ascend.model`, and which of them may share memory.

A feature tensor is a task buffer outside the weight region and the graph inputs/outputs; in a
model straight from `ge-convert-graph-to-ascend` each has its own range, so a tensor is
identified by its buffer `(offset, type)`. Tensors merged in place form a block; blocks are what
the planner places. Two blocks conflict (must not overlap in memory) unless one's accesses all
happen before the other's under every schedule:

- blocks used on one stream only: live segments over that stream's program order, refined per
  gear: a case's branches are mutually exclusive, so a tensor is live in a branch only from its
  first access there (or until its last access there), and tensors of different branches never
  meet (GE's per-batch-label memory). Exact for one stream. A stream a case branch activates
  counts as its activator's stream here (its tasks lie inside the branch, in program order),
  and pairs of such blocks are compared besides inside each branch with the vector clocks (a
  block live into or out of the branch counts as accessed at its `label_set` or at the case's
  end): the branches' own streams run concurrently, the branches never do.
- any other pair: conflict if their program-order intervals overlap (program order is one
  schedule) or, per stream s, if one block's accesses on s fall between the last task of s that
  happens before all of the other block and the first task of s that happens after all of it
  (vector clocks of `TaskGraph`). Exact under the event semantics.

Accesses inside a loop span count as accesses at the loop's first and last task (a loop-carried
value must survive every iteration): conservative, and what lets the rest ignore loops.

The conflict graph is built by sweep lines, O(n log n + conflicting pairs).
"""

from __future__ import annotations

import heapq
import itertools
import operator
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from gedialects.ascend import BufferAttr
from gedialects.formats import memory_size
from gedialects.passes.analysis import PlanError
from gedialects.passes.analysis.memory_plan import BlockOrder, Neighbours, Pairs, pair_sets
from gedialects.passes.analysis.task_graph import TaskGraph, TypeSizes

ELEMENTWISE_IN_PLACE = frozenset(
    {
        "Abs", "Add", "Ceil", "ClipByValue", "Cos", "Div", "Elu", "Erf", "Exp", "Floor", "Gelu",
        "HardSigmoid", "HardSwish", "LeakyRelu", "Log", "Maximum", "Minimum", "Mish", "Mul",
        "Neg", "Pow", "Reciprocal", "Relu", "Round", "Selu", "Sigmoid", "Sign", "Sin",
        "Softplus", "Softsign", "Sqrt", "Sub", "Tanh",
    }
)  # fmt: skip
"""Kernels whose output element i depends only on input element i: same-shape in place."""
VIEW_IN_PLACE = frozenset({"Flatten", "Identity", "Reshape", "SqueezeV3", "UnsqueezeV3"})
"""Kernels that keep the bytes as they are: any same-size, same-dtype input in place."""


@dataclass(eq=False)
class Tensor:
    """One feature tensor: its buffer and the global positions of the tasks accessing it."""

    key: tuple[int, int]
    """(offset, canonical type number of `TypeSizes`)."""
    buffer: BufferAttr
    nbytes: int
    positions: list[int] = field(default_factory=list)
    written: int = -1
    """First task that writes it, -1 if none does."""

    @property
    def offset(self) -> int:
        return self.key[0]


@dataclass
class Block:
    """Tensors sharing one allocation (one tensor, or a chain merged in place)."""

    tensors: list[Tensor]
    nbytes: int
    positions: list[int]
    streams: frozenset[int] = frozenset()

    @property
    def first(self) -> int:
        return self.positions[0]

    @property
    def last(self) -> int:
        return self.positions[-1]


def in_place_pairs(
    graph: TaskGraph, tensor_of: dict[tuple[int, int], Tensor], sizes: TypeSizes
) -> list[tuple[Tensor, Tensor]]:
    """(input, output) tensor pairs an allow-listed kernel may compute in place.

    The input dies at the kernel (it is its last access and every other access happens before
    it), the output is first written there, both have the same size and element type, and for
    elementwise kernels the same shape.
    """
    pairs: list[tuple[Tensor, Tensor]] = []
    used: set[int] = set()
    loops = graph.has_loops
    multi = graph.multi_stream  # a count over the streams: once, not per candidate
    for pos, effects in enumerate(graph.effects):
        kernel = effects.kernel
        if kernel is None or effects.hybrid or len(effects.outs) != 1 or not effects.writes:
            continue
        view = kernel in VIEW_IN_PLACE
        if not view and kernel not in ELEMENTWISE_IN_PLACE:
            continue
        if loops and graph.in_loop(pos) is not None:
            continue  # every iteration rewrites its output: keep loop tensors apart
        result = effects.writes[0]
        out = tensor_of.get((result.offset_value, sizes.canon(result.type)))
        if out is None or out.positions[0] != pos:
            continue
        out_type = out.buffer.type
        for buffer in effects.reads:
            source = tensor_of.get((buffer.offset_value, sizes.canon(buffer.type)))
            if source is None or id(source) in used or source is out:
                continue
            in_type = source.buffer.type
            if source.nbytes != out.nbytes or in_type.element_type != out_type.element_type:
                continue
            if not view and sizes.shape(in_type) != sizes.shape(out_type):
                continue
            if source.positions[-1] != pos:
                continue
            if loops and any(graph.in_loop(p) is not None for p in source.positions):
                continue
            if multi and not all(
                p == pos or graph.happens_before(p, pos) for p in source.positions
            ):
                continue
            used.add(id(source))
            pairs.append((source, out))
            break
    return pairs


def merge_blocks(
    tensors: list[Tensor], pairs: Iterable[tuple[Tensor, Tensor]], graph: TaskGraph
) -> list[Block]:
    """Union-find over in-place pairs; a block's positions are its tensors' (loop-extended)."""
    parent = {id(t): id(t) for t in tensors}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(id(b))] = find(id(a))
    groups: dict[int, list[Tensor]] = {}
    for t in tensors:
        groups.setdefault(find(id(t)), []).append(t)
    blocks = []
    loops = graph.has_loops
    for members in groups.values():
        positions = sorted({p for t in members for p in t.positions})
        if loops:
            extended = set(positions)
            for p in positions:
                loop = graph.in_loop(p)
                if loop is not None:
                    extended.update((loop.first_pos, loop.last_pos))
            if len(extended) != len(positions):
                positions = sorted(extended)
        streams = frozenset(graph.stream[p] for p in positions)
        size = max(memory_size(t.buffer.type, t.nbytes) for t in members)
        blocks.append(Block(members, size, positions, streams))
    blocks.sort(key=lambda b: b.first)
    return blocks


# --------------------------------------------------------------------------------------------
# Live segments with the per-gear overlay
# --------------------------------------------------------------------------------------------


def segments(
    graph: TaskGraph, positions: list[int], starts: dict[int, list[int]] | None = None
) -> list[tuple[int, int]]:
    """Closed program-order ranges where a single-stream block may be live on some path.

    `starts` caches each case's branch starts across calls (a gear Case has a branch per gear:
    rebuilding them per block made the blocks x gears)."""
    if not graph.cases or not any(p in graph.case_of for p in positions):
        return [(positions[0], positions[-1])]
    return _merge(_segments(graph, -1, positions, {} if starts is None else starts))


def _top(graph: TaskGraph, pos: int, region_case: int) -> int:
    """The case directly inside region `region_case` (-1: the root) holding pos, or -1."""
    case = graph.case_of.get(pos, -1)
    child = -1
    while case != -1 and case != region_case:
        child, case = case, graph.cases[case].parent
    return child


def _segments(
    graph: TaskGraph, region_case: int, positions: list[int], starts: dict[int, list[int]]
) -> list[tuple[int, int]]:
    tops = [_top(graph, p, region_case) for p in positions]
    cases = graph.cases
    first, last = tops[0], tops[-1]
    if first != -1 and all(t == first for t in tops):
        case = cases[first]
        if case.head not in positions and case.tail not in positions:
            # Only inside branches: each branch is its own path.
            out: list[tuple[int, int]] = []
            for group in _by_branch(graph, first, positions, starts).values():
                out += _segments(graph, first, group, starts)
            return out
    out = []
    start, end = positions[0], positions[-1]
    if first != -1 and positions[0] != cases[first].head:
        # First accessed inside branches: live from there to the end of each such branch.
        case = cases[first]
        for b, inside in _by_branch(graph, first, positions, starts).items():
            out.append((inside[0], case.branches[b][1] - 1))
        start = case.tail
    if last != -1 and positions[-1] != cases[last].tail and positions[-1] != cases[last].head:
        # Last accessed inside branches: live from each branch start to the access there.
        case = cases[last]
        for b, inside in _by_branch(graph, last, positions, starts).items():
            out.append((case.branches[b][0], inside[-1]))
        end = case.head
    if start <= end:
        out.append((start, end))
    return out


def _by_branch(
    graph: TaskGraph, case: int, positions: list[int], starts: dict[int, list[int]]
) -> dict[int, list[int]]:
    """The sorted `positions` inside each branch span of `case`, by ascending branch number,
    with a bisection each (branches are sorted, disjoint spans): linear in the positions, not
    in the gears."""
    branches = graph.cases[case].branches
    firsts = starts.get(case)
    if firsts is None:
        firsts = starts[case] = [start for start, _ in branches]
    groups: dict[int, list[int]] = {}
    for p in positions:
        b = bisect_right(firsts, p) - 1
        if b >= 0 and p < branches[b][1]:
            groups.setdefault(b, []).append(p)
    return groups


def _merge(segs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    segs.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in segs:
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return merged


# --------------------------------------------------------------------------------------------
# Conflicts
# --------------------------------------------------------------------------------------------


def overlapping(intervals: list[tuple[int, int, int]]) -> Iterator[tuple[int, int]]:
    """Pairs of ids whose closed intervals `(lo, hi, id)` intersect (sweep line)."""
    ordered = sorted(intervals)
    active: dict[int, int] = {}
    expiry: list[tuple[int, int]] = []
    for lo, hi, ident in ordered:
        while expiry and expiry[0][0] < lo:
            _, gone = heapq.heappop(expiry)
            active.pop(gone, None)
        for other in active:
            yield other, ident
        active[ident] = hi
        heapq.heappush(expiry, (hi, ident))


def crossing(
    xs: list[tuple[int, int, int]], ys: list[tuple[int, int, int]]
) -> Iterator[tuple[int, int]]:
    """Pairs (x id, y id) whose closed intervals intersect, one from each family."""
    events = sorted([(lo, 0, hi, i) for lo, hi, i in xs] + [(lo, 1, hi, i) for lo, hi, i in ys])
    active: tuple[dict[int, int], dict[int, int]] = ({}, {})
    expiry: list[tuple[int, int, int]] = []
    for lo, family, hi, ident in events:
        while expiry and expiry[0][0] < lo:
            _, fam, gone = heapq.heappop(expiry)
            active[fam].pop(gone, None)
        for other in active[1 - family]:
            yield (ident, other) if family == 0 else (other, ident)
        active[family][ident] = hi
        heapq.heappush(expiry, (hi, family, ident))


class Conflicts:
    """The conflict graph of blocks and the segments the lower bound is computed from.

    `conflicts` builds it as `pairs` (arrays, `memory_plan.Pairs`); `neighbours` (a set per
    block) is made from them when asked for, or given (a test's hand-made graph)."""

    def __init__(
        self,
        neighbours: list[set[int]] | None,
        live: list[list[tuple[int, int]]],
        pairs: Pairs | None = None,
    ) -> None:
        assert neighbours is not None or pairs is not None, "a conflict graph needs one form"
        self._neighbours = neighbours
        self.live = live
        """Per block, the program-order ranges it occupies (for the lower bound)."""
        self.pairs = pairs

    @property
    def neighbours(self) -> list[set[int]]:
        """Per block, the blocks it may not share bytes with."""
        if self._neighbours is None:
            assert self.pairs is not None
            self._neighbours = pair_sets(self.pairs, len(self.live))
        return self._neighbours

    @property
    def edges(self) -> Neighbours:
        """What the planners take: the pairs as built, else the given sets."""
        return (
            self.pairs if self._neighbours is None and self.pairs is not None else self.neighbours
        )

    def verify(self) -> None:
        """Raises PlanError naming the first inconsistency: a conflict that is not mutual or
        that pairs a block with itself, a block with no live range, ranges out of order."""
        if self._neighbours is None:
            assert self.pairs is not None
            self._verify_pairs(self.pairs.a, self.pairs.b)
        else:
            self._verify_sets(self._neighbours)
        for a, segs in enumerate(self.live):
            if not segs:
                raise PlanError(f"conflicts: block {a} is live nowhere")
            previous = -1
            for lo, hi in segs:
                if lo <= previous or hi < lo:
                    raise PlanError(
                        f"conflicts: block {a}'s live ranges {segs} are not disjoint and sorted"
                    )
                previous = hi

    def _verify_pairs(self, a: np.ndarray, b: np.ndarray) -> None:
        """Pairs are mutual by their form: only a self pair or a block out of range is wrong."""
        n = len(self.live)
        wrong = (a == b) | (a < 0) | (a >= n) | (b < 0) | (b >= n)
        if wrong.any():
            k = int(np.flatnonzero(wrong)[0])
            x, y = int(a[k]), int(b[k])
            if not 0 <= x < n:
                x, y = y, x
            raise PlanError(f"conflicts: block {x} conflicts with block {y}")

    def _verify_sets(self, neighbours: list[set[int]]) -> None:
        if len(self.live) != len(neighbours):
            raise PlanError(
                f"conflicts: live ranges of {len(self.live)} blocks, neighbours of "
                f"{len(neighbours)}"
            )
        n = len(neighbours)
        for a, adjacent in enumerate(neighbours):
            # whole-set tests first, in C; the pair at fault is looked for only on a failure
            if not adjacent:
                continue
            if a in adjacent or min(adjacent) < 0 or max(adjacent) >= n:
                b = next(b for b in adjacent if b == a or not 0 <= b < n)
                raise PlanError(f"conflicts: block {a} conflicts with block {b}")
            if not all(map(operator.contains, map(neighbours.__getitem__, adjacent), repeat(a))):
                b = next(b for b in adjacent if a not in neighbours[b])
                raise PlanError(
                    f"conflicts: block {a} conflicts with block {b} but not {b} with {a}"
                )

    def dump(self) -> str:
        """One line per block: its live ranges and the blocks it may not share bytes with."""
        lines = [f"conflicts of {len(self.neighbours)} blocks"]
        for a, (segs, adjacent) in enumerate(zip(self.live, self.neighbours, strict=True)):
            ranges = " ".join(f"{lo}..{hi}" for lo, hi in segs)
            lines.append(f"  block {a}: live {ranges}; conflicts {sorted(adjacent)}")
        return "\n".join(lines)


Intervals = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Closed intervals `(lo, hi, id)` as three int arrays."""


def intervals(triples: Iterable[tuple[int, int, int]]) -> Intervals:
    """`(lo, hi, id)` triples as `Intervals`."""
    table = np.array(list(triples), np.int64).reshape(-1, 3)
    return table[:, 0], table[:, 1], table[:, 2]


def _runs(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The ranges `[starts[k], starts[k] + counts[k])` one after another."""
    before = np.cumsum(counts) - counts
    return np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(starts - before, counts)


def overlapping_pairs(family: Intervals) -> Pairs:
    """The pairs `overlapping` yields, as arrays, each once (a block's own segments pair
    too): sorted by start, an interval meets the ones after it that start inside it, a
    contiguous run (a search), so no sweep is walked in Python."""
    lo, hi, ident = family
    order = np.argsort(lo, kind="stable")
    los, ids = lo[order], ident[order]
    after = np.arange(1, len(los) + 1, dtype=np.int64)
    counts = np.maximum(np.searchsorted(los, hi[order], side="right") - after, 0)
    return Pairs(np.repeat(ids, counts), ids[_runs(after, counts)])


def crossing_pairs(xs: Intervals, ys: Intervals) -> Pairs:
    """The pairs (x id, y id) `crossing` yields, as arrays, each once: the ys starting inside
    an x (at or after its start), and the xs starting inside a y after its start."""
    xlo, xhi, xid = xs
    ylo, yhi, yid = ys
    y_order = np.argsort(ylo, kind="stable")
    ylos, yids = ylo[y_order], yid[y_order]
    first = np.searchsorted(ylos, xlo, side="left")
    counts = np.maximum(np.searchsorted(ylos, xhi, side="right") - first, 0)
    x_of_y, y_of_x = np.repeat(xid, counts), yids[_runs(first, counts)]
    x_order = np.argsort(xlo, kind="stable")
    xlos, xids = xlo[x_order], xid[x_order]
    first = np.searchsorted(xlos, ylo, side="right")
    counts = np.maximum(np.searchsorted(xlos, yhi, side="right") - first, 0)
    return Pairs(
        np.concatenate((x_of_y, xids[_runs(first, counts)])),
        np.concatenate((y_of_x, np.repeat(yid, counts))),
    )


def conflicts(graph: TaskGraph, blocks: list[Block], overlay: bool = True) -> Conflicts:
    """The conflict graph (see the module docstring), as arrays of pairs, each pair once with
    the smaller block first: the conflict graph of a multi-stream model has hundreds of pairs
    per block, and sets of them were most of `ge-plan-memory`."""
    n = len(blocks)
    live: list[list[tuple[int, int]]] = []
    by_stream: dict[int, list[tuple[int, int, int]]] = {}
    starts: dict[int, list[int]] = {}
    home: list[int | None] = []
    for i, block in enumerate(blocks):
        homes = {graph.home(s) for s in block.streams} if graph.activated_at else block.streams
        single = len(homes) == 1
        segs = segments(graph, block.positions, starts) if overlay and single else None
        live.append(segs or [(block.first, block.last)])
        if single:
            (sid,) = homes
            home.append(sid)
            by_stream.setdefault(sid, []).extend((lo, hi, i) for lo, hi in live[-1])
        else:
            home.append(None)
    # Blocks of one (home) stream conflict by their live segments, exactly; every other
    # pair by the coarser tests below, but for the pairs of one home stream.
    exact = [pair_keys(overlapping_pairs(intervals(group)), n) for group in by_stream.values()]
    if not graph.multi_stream:
        keys = unique_keys(exact, n)
        return Conflicts(None, live, Pairs(keys // n, keys % n))
    if graph.activated_at:
        same = [
            (a, b)
            for a, b in _branch_conflicts(graph, blocks, home)
            if home[a] is not None and home[a] == home[b]
        ]
        exact.append(
            pair_keys(
                Pairs(
                    np.fromiter((p[0] for p in same), np.int64, len(same)),
                    np.fromiter((p[1] for p in same), np.int64, len(same)),
                ),
                n,
            )
        )
    firsts = np.fromiter((b.first for b in blocks), np.int64, n)
    lasts = np.fromiter((b.last for b in blocks), np.int64, n)
    coarse = [pair_keys(overlapping_pairs((firsts, lasts, np.arange(n, dtype=np.int64))), n)]
    for xs, ys in _stream_family_arrays(graph, blocks, graph.stream_ids):
        coarse.append(pair_keys(crossing_pairs(xs, ys), n))
    # The families find most pairs several times (a pair meets on several streams, and from
    # both sides): the repeats go first, then the pairs of one home stream (what a pair is,
    # not how it was found: tested on the distinct pairs only, a third of those found). What
    # is left is disjoint from the exact pairs (those are of one home stream), so the two
    # sorted key lists merge by a search.
    found = unique_keys(coarse, n)
    homeless = min(graph.stream_ids, default=0) - 1
    at = np.fromiter((homeless if h is None else h for h in home), np.int64, n)
    lows, highs = at[found // n], at[found % n]
    found = found[(lows == homeless) | (lows != highs)]
    keys = unique_keys(exact, n)
    keys = np.insert(found, np.searchsorted(found, keys), keys)
    return Conflicts(None, live, Pairs(keys // n, keys % n))


def pair_keys(pairs: Pairs, n: int) -> np.ndarray:
    """Each pair of blocks (of `n`) as one number, `smaller * n + larger`."""
    low = np.minimum(pairs.a, pairs.b)
    low *= n
    low += np.maximum(pairs.a, pairs.b)
    return low


def unique_keys(keys: list[np.ndarray], n: int) -> np.ndarray:
    """The distinct `pair_keys` of the lists, sorted, without self pairs (a block's segments
    meet its own). A stable sort: the families' keys come as long sorted runs (by interval
    start), which timsort merges 4x faster than quicksort sorts them at 100k bench nodes."""
    if not keys:
        return np.zeros(0, np.int64)
    found = np.sort(np.concatenate(keys), kind="stable")
    if len(found):
        distinct = np.empty(len(found), bool)
        distinct[0] = True
        np.not_equal(found[1:], found[:-1], out=distinct[1:])
        distinct &= found % (n + 1) != 0  # a * n + a: a self pair
        found = found[distinct]
    return found


def _branch_conflicts(
    graph: TaskGraph, blocks: list[Block], home: list[int | None]
) -> Iterator[tuple[int, int]]:
    """Pairs of blocks that may be live at once inside a case branch running on streams it
    activates, by the vector clocks over their accesses in that branch (see the module
    docstring); linear in the accesses inside such branches, per stream of the branch."""
    streams: dict[tuple[int, int], set[int]] = {}
    for sid, pos in graph.activated_at.items():
        c = graph.case_of.get(pos)
        if c is not None and (b := graph.cases[c].branch_of(pos)) >= 0:
            streams.setdefault((c, b), {graph.stream[pos]}).add(sid)
    if not streams:
        return
    cases = {c for c, _ in streams}
    starts: dict[int, list[int]] = {}
    pieces: dict[tuple[int, int], list[tuple[int, Block]]] = {}
    for i, block in enumerate(blocks):
        if home[i] is None:
            continue
        by_case: dict[int, list[int]] = {}
        for p in block.positions:
            c = graph.case_of.get(p, -1)
            while c != -1 and c not in cases:
                c = graph.cases[c].parent
            if c != -1 and graph.cases[c].head < p < graph.cases[c].tail:
                by_case.setdefault(c, []).append(p)
        for c, inside in by_case.items():
            case = graph.cases[c]
            live_in = block.first < case.head
            live_out = block.last > case.tail
            for b, group in _by_branch(graph, c, inside, starts).items():
                if (c, b) not in streams:
                    continue
                extra = [case.branches[b][0]] if live_in else []
                positions = extra + group + ([case.tail] if live_out else [])
                piece = Block([], block.nbytes, positions)
                piece.streams = frozenset(graph.stream[p] for p in positions)
                pieces.setdefault((c, b), []).append((i, piece))
    for key, members in pieces.items():
        ids = [i for i, _ in members]
        group = [piece for _, piece in members]
        for xs, ys in _stream_families(graph, group, sorted(streams[key])):
            for a, b in crossing(xs, ys):
                if a != b:
                    yield ids[a], ids[b]


def _stream_families(
    graph: TaskGraph, blocks: list[Block], sids: Iterable[int]
) -> Iterator[tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]]:
    """`_stream_family_arrays` as lists of `(lo, hi, id)` triples (for the sweeps)."""
    for xs, ys in _stream_family_arrays(graph, blocks, sids):
        yield (
            list(zip(*(column.tolist() for column in xs), strict=True)),
            list(zip(*(column.tolist() for column in ys), strict=True)),
        )


def _stream_family_arrays(
    graph: TaskGraph, blocks: list[Block], sids: Iterable[int]
) -> Iterator[tuple[Intervals, Intervals]]:
    """For each stream `sid` of `sids`, in its index space: per block, the tasks neither before
    nor after all of it (xs), and its own accesses on the stream (ys).

    xs of a block: from the first task of `sid` that any of its accesses knows of (the least
    vector clock entry) to the last one that knows of none of its last accesses per stream.
    What a block is (least clocks, first and last access per stream) is read once for all the
    streams, as arrays: per stream and block in Python it was a third of the load-time memory
    check of a 10k-node model (8 streams)."""
    reach = _reach_array(graph)
    if not blocks:
        empty = np.zeros(0, np.int64)
        for _ in sids:
            yield (empty, empty, empty), (empty, empty, empty)
        return
    ids = graph.stream_ids
    lo, first, last = _clock_bounds(graph, blocks)
    counts = [len(graph.stream_tasks[s]) for s in ids]
    for sid in sids:
        c = ids.index(sid)
        hi = last[:, c] + 1
        # per column: the running maximum of the clocks down `sid`, sorted, so the first
        # index on `sid` knowing task k of that stream is a search (the scan it replaces)
        known = np.maximum.accumulate(reach[graph.stream_tasks[sid]], axis=0)
        for o, count in enumerate(counts):
            if o == c or not count:
                continue
            if len(known):
                table = np.searchsorted(known[:, o], np.arange(count), side="right")
            else:
                table = np.zeros(count, np.int64)
            seen = last[:, o]
            hi = np.maximum(hi, np.where(seen >= 0, table[np.maximum(seen, 0)], 0))
        xs_at = np.flatnonzero(lo[:, c] < hi)
        ys_at = np.flatnonzero(last[:, c] >= 0)
        yield (
            (lo[xs_at, c], hi[xs_at] - 1, xs_at.astype(np.int64)),
            (first[ys_at, c], last[ys_at, c], ys_at.astype(np.int64)),
        )


def _clock_bounds(graph: TaskGraph, blocks: list[Block]) -> tuple[np.ndarray, ...]:
    """Per block and stream (blocks x streams, `stream_ids` order): the least vector clock
    entry over its accesses, and the index of its first and last access on the stream (the
    stream's task count and -1 for none). Blocks must not be empty."""
    reach = _reach_array(graph)
    width = len(graph.stream_ids)
    lengths = [len(b.positions) for b in blocks]
    flat = np.fromiter(
        itertools.chain.from_iterable(b.positions for b in blocks), np.int64, sum(lengths)
    )
    offsets = np.zeros(len(blocks), np.int64)
    np.cumsum(lengths[:-1], out=offsets[1:])
    lo = np.minimum.reduceat(reach[flat], offsets, axis=0)
    owner = np.repeat(np.arange(len(blocks)), lengths)
    column = _column_array(graph)[flat]
    index = np.asarray(graph.index, np.int64)[flat]
    last = np.full((len(blocks), width), -1, np.int64)
    np.maximum.at(last, (owner, column), index)
    first = np.full((len(blocks), width), len(graph.tasks), np.int64)
    np.minimum.at(first, (owner, column), index)
    return lo, first, last


def block_order(graph: TaskGraph, blocks: list[Block], overlay: bool = True) -> BlockOrder | None:
    """The conflicts of `conflicts(graph, blocks, overlay)` as a `BlockOrder`, when they are
    exactly "neither block is entirely before the other", else None.

    They are when no stream is activated (a branch's own streams are compared apart, inside
    the branch) and no case splits the live segments (`overlay`: branches are exclusive, not
    ordered): the exact segments of one stream are then its program order, and the coarse
    tests of the other pairs are the vector clocks' (see the module docstring)."""
    if graph.activated_at or (overlay and graph.cases) or not blocks:
        return None
    n = len(blocks)
    if graph.multi_stream:
        lo, _, last = _clock_bounds(graph, blocks)
    else:  # program order is all there is (and no clocks are needed, as for `conflicts`)
        lo = last = np.zeros((n, 0), np.int64)
    return BlockOrder(
        np.fromiter((b.first for b in blocks), np.int64, n),
        np.fromiter((b.last for b in blocks), np.int64, n),
        last,
        lo,
    )


def _reach_array(graph: TaskGraph) -> np.ndarray:
    """`graph.reach()` as a (tasks x streams) int array, kept while the graph keeps its
    clocks (a loop analysis that recomputes them makes a new list)."""
    reach = graph.reach()
    cached = _REACH.get(id(graph))
    if cached is None or cached[0] is not reach:
        array = np.asarray(reach, np.int64).reshape(len(reach), len(graph.stream_ids))
        cached = (reach, array)
        _REACH.clear()  # one graph at a time: a table per analysed model would only grow
        _REACH[id(graph)] = cached
    return cached[1]


def _column_array(graph: TaskGraph) -> np.ndarray:
    """Per task, its stream's column in `stream_ids` order."""
    col = {s: i for i, s in enumerate(graph.stream_ids)}
    return np.fromiter((col[s] for s in graph.stream), np.int64, len(graph.stream))


_REACH: dict[int, tuple[list[list[int]], np.ndarray]] = {}


def lower_bound(sizes: list[int], live: list[list[tuple[int, int]]]) -> int:
    """The most bytes live at one program position: no valid plan has a smaller arena."""
    events: list[tuple[int, int]] = []
    for size, segs in zip(sizes, live, strict=True):
        for lo, hi in segs:
            events.append((lo, size))
            events.append((hi + 1, -size))
    events.sort(key=lambda e: (e[0], e[1]))
    best = current = 0
    for _, delta in events:
        current += delta
        best = max(best, current)
    return best


# --------------------------------------------------------------------------------------------
# Conflicting pairs that share bytes, without the conflict graph
# --------------------------------------------------------------------------------------------


class _ByteMasks:
    """Per block, as a Python int with one bit per block (bit r: the block of byte rank r),
    the other blocks whose bytes `[starts, ends)` meet its own: the blocks of lower rank still
    open at its start (a sweep over offsets) plus the ones of higher rank starting inside it
    (a run of consecutive bits). Whole-mask ANDs then test a block against all the blocks a
    sweep has open at once, in C, instead of one pair at a time."""

    def __init__(self, starts: list[int], ends: list[int]) -> None:
        n = len(starts)
        order = sorted(range(n), key=starts.__getitem__)
        self.rank = [0] * n
        for r, k in enumerate(order):
            self.rank[k] = r
        self.block = order
        self.bit = [1 << r for r in range(n)]
        los = [starts[k] for k in order]
        empty = 0
        for r, k in enumerate(order):
            if ends[k] <= starts[k]:
                empty |= self.bit[r]
        self.meet: list[int] = [0] * n
        """By rank: the ranks whose bytes meet this rank's."""
        active = 0
        expiry: list[tuple[int, int]] = []
        bit = self.bit
        for r, k in enumerate(order):
            lo, hi = starts[k], ends[k]
            while expiry and expiry[0][0] <= lo:
                active ^= bit[heapq.heappop(expiry)[1]]
            if hi <= lo:
                continue  # no bytes: meets nothing
            later = bisect_left(los, hi, r + 1)
            run = ((1 << (later - r - 1)) - 1) << (r + 1)
            self.meet[r] = (active | run) & ~empty
            active |= bit[r]
            heapq.heappush(expiry, (hi, r))

    def pairs(self, r: int, hits: int) -> Iterator[tuple[int, int]]:
        """(block, block) for rank r and each rank set in `hits`, the smaller block first."""
        k = self.block[r]
        while hits:
            low = hits & -hits
            m = self.block[low.bit_length() - 1]
            hits ^= low
            yield (k, m) if k < m else (m, k)


def _sweep_one(
    intervals: list[tuple[int, int, int]], masks: _ByteMasks, barred: list[int]
) -> Iterator[tuple[int, int]]:
    """The pairs `overlapping(intervals)` yields (closed intervals of block ids) whose blocks'
    bytes meet, but for the ranks `barred[rank]` excludes: at each start, the intervals still
    open are one mask."""
    rank, bit = masks.rank, masks.bit
    active = 0
    open_at: dict[int, int] = {}
    expiry: list[tuple[int, int]] = []
    for lo, hi, ident in sorted(intervals):
        while expiry and expiry[0][0] < lo:
            r = heapq.heappop(expiry)[1]
            open_at[r] -= 1
            if not open_at[r]:
                active ^= bit[r]
        r = rank[ident]
        hits = active & masks.meet[r] & ~barred[r]
        if hits:
            yield from masks.pairs(r, hits)
        if not open_at.get(r):
            active |= bit[r]
            open_at[r] = 0
        open_at[r] += 1
        heapq.heappush(expiry, (hi, r))


def _sweep_two(
    xs: list[tuple[int, int, int]],
    ys: list[tuple[int, int, int]],
    masks: _ByteMasks,
    barred: list[int],
) -> Iterator[tuple[int, int]]:
    """The pairs `crossing(xs, ys)` yields whose blocks' bytes meet (as `_sweep_one`)."""
    rank, bit = masks.rank, masks.bit
    events = sorted([(lo, 0, hi, i) for lo, hi, i in xs] + [(lo, 1, hi, i) for lo, hi, i in ys])
    active = [0, 0]
    expiry: list[tuple[int, int, int]] = []
    for lo, family, hi, ident in events:
        while expiry and expiry[0][0] < lo:
            _, fam, r = heapq.heappop(expiry)
            active[fam] ^= bit[r]
        r = rank[ident]
        hits = active[1 - family] & masks.meet[r] & ~barred[r]
        if hits:
            yield from masks.pairs(r, hits)
        active[family] |= bit[r]  # one interval per block and family
        heapq.heappush(expiry, (hi, family, r))


def sharing_conflicts(
    graph: TaskGraph, blocks: list[Block], starts: list[int], ends: list[int]
) -> set[tuple[int, int]]:
    """The pairs `(a, b)`, a < b, with b in `conflicts(graph, blocks).neighbours[a]` whose
    bytes `[starts, ends)` meet: what a memory check needs, without the conflict graph.

    The conflict graph of a planned model is dense (a third of all pairs at 10k nodes) and so
    is byte sharing (reused buffers), but their intersection is empty on a valid plan but for
    in-place pairs: the same sweeps as `conflicts` test each interval's start against the
    intervals then open as one bit mask, ANDed with the block's byte neighbours
    (`_ByteMasks`), so the cost is the sweeps' events times a mask operation, not the pairs."""
    masks = _ByteMasks(starts, ends)
    rank = masks.rank
    found: set[tuple[int, int]] = set()
    by_stream: dict[int, list[tuple[int, int, int]]] = {}
    cache: dict[int, list[int]] = {}
    home: list[int | None] = []
    for i, block in enumerate(blocks):
        homes = {graph.home(s) for s in block.streams} if graph.activated_at else block.streams
        if len(homes) == 1:
            (sid,) = homes
            home.append(sid)
            segs = segments(graph, block.positions, cache) or [(block.first, block.last)]
            by_stream.setdefault(sid, []).extend((lo, hi, i) for lo, hi in segs)
        else:
            home.append(None)
    at_home: dict[int, int] = {}
    for i, sid in enumerate(home):
        if sid is not None:
            at_home[sid] = at_home.get(sid, 0) | masks.bit[rank[i]]
    # one home stream: the exact segments, among that stream's blocks only (a group holds
    # only its own stream's blocks, so no rank needs barring)
    none = [0] * len(blocks)
    for group in by_stream.values():
        found.update(_sweep_one(group, masks, none))
    if graph.multi_stream:
        # any other pair: the coarse tests, without the pairs of one home stream (the masks
        # are ANDed per event, not copied per rank: a mask has up to a bit per block)
        others = list(none)
        for i, sid in enumerate(home):
            if sid is not None:
                others[rank[i]] = at_home[sid]
        intervals = [(b.first, b.last, i) for i, b in enumerate(blocks)]
        found.update(_sweep_one(intervals, masks, others))
        for xs, ys in _stream_families(graph, blocks, graph.stream_ids):
            found.update(_sweep_two(xs, ys, masks, others))
        if graph.activated_at:
            for a, b in _branch_conflicts(graph, blocks, home):
                same = home[a] is not None and home[a] == home[b] and a != b
                if same and masks.meet[rank[a]] & masks.bit[rank[b]]:
                    found.add((a, b) if a < b else (b, a))
    return found
