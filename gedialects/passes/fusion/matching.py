"""What the fusion patterns share: constants, the group check, and the group replacement.

A fusion matches a *group*: a root op (whose result the fused op takes over) and interior
ops that feed it. `fusable` accepts a group only when every result of an interior op is used
inside the group. That is the rule that keeps values alive (an intermediate another op
still reads blocks the fusion), and it is also what rules out cycles: the fused node then
has the root's result as its only output, so a path leaving it starts at the root; a path
that came back into the group would reach an interior op, which itself reaches the root, so
the original graph would already have had a cycle. Graph blocks are topologically ordered
(the verifier checks it), so every operand of the group is defined before the root and the
fused op can take the root's place. The checks cost O(group size) per match, which keeps the
passes linear in the graph size.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar, cast

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, StringAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.utils.worklist import Worklist

from gedialects.base import NODE_NAME, element_type
from gedialects.formats import format_of
from gedialects.graph import (
    ClipByValueOp,
    ConstOp,
    GeluOp,
    HardSwishOp,
    RefWriterOp,
    ReluOp,
    SigmoidOp,
    is_ref_value,
)
from gedialects.graph.elementwise import is_float
from gedialects.tensors import dense_from_numpy, numpy_from_dense

# --------------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------------


def const_array(value: SSAValue) -> np.ndarray | None:
    """The value of a `graph.const` result as a numpy array, else None (also for a constant
    in a storage format: its bytes are not the tensor's elements in order)."""
    owner = value.owner
    if format_of(value.type) is not None:
        return None
    if isinstance(owner, ConstOp) and isinstance(owner.value, DenseIntOrFPElementsAttr):
        return numpy_from_dense(owner.value)
    return None


def const_scalar(value: SSAValue) -> float | None:
    """The single value of a constant whose elements are all equal (a splat), else None."""
    array = const_array(value)
    if array is None or array.size == 0:
        return None
    first = array.flat[0]
    if array.size > 1 and not np.all(array == first):
        return None
    return float(first)


def is_close(value: float | None, expected: float, rel: float = 1e-5) -> bool:
    """`value` is `expected` up to float32 rounding of the exporter's literal."""
    return value is not None and abs(value - expected) <= rel * max(1.0, abs(expected))


def new_const(array: np.ndarray, near: Operation, suffix: str) -> ConstOp:
    """A `graph.const` for a tensor computed at rewrite time, named after `near`'s node."""
    op = ConstOp(dense_from_numpy(np.ascontiguousarray(array)))
    name = near.attributes.get(NODE_NAME)
    if isinstance(name, StringAttr):
        op.attributes[NODE_NAME] = StringAttr(f"{name.data}/{suffix}")
    return op


# --------------------------------------------------------------------------------------------
# Navigating the graph
# --------------------------------------------------------------------------------------------


_OpT = TypeVar("_OpT", bound=Operation)


def producer(value: SSAValue, *op_types: type[_OpT]) -> _OpT | None:
    """The op of one of `op_types` that defines `value`, else None; also None when fusing it
    into a user would move its read of a variable past a write of variables (a writer, or a
    call that may write in its subgraphs): the fused op reads at the user's place, and the
    variable's memory may hold another value there (graph.variables, `check_write_order`)."""
    owner = value.owner
    if not isinstance(owner, op_types):
        return None
    if any(is_ref_value(o) for o in owner.operands) and _write_between(owner, value):
        return None
    return owner


def _write_between(owner: Operation, value: SSAValue) -> bool:
    """Whether an op after `owner` and before `value`'s last user may write a variable (only
    walked for the rare producers that read one)."""
    users = {use.operation for use in value.uses}
    op = owner.next_op
    while op is not None and users:
        users.discard(op)
        if users and (isinstance(op, RefWriterOp) or hasattr(op, "called_graphs")):
            return True
        op = op.next_op
    return False


def single_user_producer(value: SSAValue, *op_types: type[_OpT]) -> _OpT | None:
    """`producer(value, ...)` when `value` has no other use (so fusing it drops nothing)."""
    if not value.has_one_use():
        return None
    return producer(value, *op_types)


def other_operand(op: Operation, value: SSAValue) -> SSAValue:
    """The operand of a binary op that is not `value` (the first one if both are)."""
    a, b = op.operands
    return b if a is value else a


def fusable(root: Operation, interior: Iterable[Operation]) -> bool:
    """True when the group (root + interior) can become one node; see the module docstring.
    Never for nodes in storage formats: the fused ops take origin formats only."""
    interior = tuple(interior)
    group = {root, *interior}
    if len(group) != len(interior) + 1:
        return False
    for op in group:
        if any(format_of(t) is not None for t in (*op.operand_types, *op.result_types)):
            return False
    block = root.parent_block()
    for op in interior:
        if op.parent_block() is not block:
            return False
        for result in op.results:
            if any(use.operation not in group for use in result.uses):
                return False
    return True


# --------------------------------------------------------------------------------------------
# Rewriting
# --------------------------------------------------------------------------------------------


def replace_group(
    rewriter: PatternRewriter,
    root: Operation,
    new_ops: Sequence[Operation],
    new_value: SSAValue,
    interior: Iterable[Operation],
) -> None:
    """Puts `new_ops` at the root, then erases the interior and the constants only the group
    read (the fused op reads what it still needs)."""
    root_consts = [v.owner for v in root.operands if isinstance(v.owner, ConstOp)]
    rewriter.replace(root, list(new_ops), [new_value])
    erase_dead(rewriter, [*interior, *dict.fromkeys(root_consts)])


def erase_dead(rewriter: PatternRewriter, ops: Iterable[Operation]) -> None:
    """Erases `ops` users first, then the `graph.const` ops they read that have no use left;
    a `graph.const` in `ops` that is still used stays."""
    pending = [op for op in ops if op.parent is not None]
    feeds: list[ConstOp] = []
    while pending:
        dead = [op for op in pending if all(not r.uses for r in op.results)]
        if not dead:
            break  # the rest is still used (constants the fused op reads)
        for op in dead:
            feeds.extend(o for o in (v.owner for v in op.operands) if isinstance(o, ConstOp))
            rewriter.erase(op)
        pending = [op for op in pending if op not in dead]
    for const in dict.fromkeys(feeds):
        if const.parent is not None and not const.y.uses:
            rewriter.erase(const)


def carry_attributes(new: _OpT, old: Operation) -> _OpT:
    """Gives `new` the discardable attributes (node name, stream label, ...) of `old`."""
    new.attributes |= dict(old.attributes)
    return new


# --------------------------------------------------------------------------------------------
# Activations a producer can absorb (`graph.fused_conv2d`, `graph.fused_mat_mul`)
# --------------------------------------------------------------------------------------------


def match_activation(op: Operation) -> tuple[str, float | None, float | None] | None:
    """`(activation, clip_min, clip_max)` for an op a fused op can apply, else None.

    Relu, Sigmoid, HardSwish and Gelu map to their name; ClipByValue with constant scalar
    bounds is "relu6" for [0, 6] and "clip" otherwise (bounds must be float32 values and
    ordered: a clip with min > max is not an activation).
    """
    if isinstance(op, ReluOp):
        return ("relu", None, None)
    if isinstance(op, SigmoidOp):
        return ("sigmoid", None, None)
    if isinstance(op, HardSwishOp):
        return ("hard_swish", None, None)
    if isinstance(op, GeluOp):
        return ("gelu" if op.approximate.data == "none" else "gelu_tanh", None, None)
    if isinstance(op, ClipByValueOp):
        if not is_float(element_type(op.x.type)):
            return None  # integer clips keep their exact integer bounds
        lo, hi = const_scalar(op.clip_value_min), const_scalar(op.clip_value_max)
        if lo is None or hi is None or lo > hi:
            return None  # bounds unknown, or every element would become clip_max
        if float(np.float32(lo)) != lo or float(np.float32(hi)) != hi:
            return None  # the fused op stores f32 bounds
        if lo == 0.0 and hi == 6.0:
            return ("relu6", None, None)
        return ("clip", lo, hi)
    return None


def activation_input(op: Operation) -> SSAValue:
    """The tensor an activation op (see `match_activation`) applies to."""
    return op.operands[0]


def rewrite_with(module: ModuleOp, patterns: Sequence[RewritePattern]) -> None:
    """Applies `patterns` until none matches (each pattern removes ops, so this terminates).

    xDSL's dead-code elimination is off: a fusion pass erases what it fused and nothing else.
    The walker's worklist only takes ops some pattern can root at (`RootWorklist`): the
    others would be popped and offered to no pattern, so the rewrites are the same. A
    pattern with `ANCHORS` sits out a round over a module that holds none of them
    (`ByOpType.see`).
    """
    by_type = ByOpType(list(patterns))
    walker = RootWalker(by_type)
    if all(root is not None for root in by_type.roots):
        walker._worklist = RootWorklist(by_type)  # pyright: ignore[reportPrivateUsage]
    walker.rewrite_module(module)


class RootWalker(PatternRewriteWalker):
    """xDSL's walker, whose worklist is filled with the ops `region.walk(reverse=True,
    region_first=True)` yields, in that order, by one loop over each block's links: the
    walk's nested generators per op were a fifth of ge-fuse on a 10k-node graph (seven
    fills of 13k ops). Before the fill, its `ByOpType` learns the op classes the region
    holds (`ByOpType.present`)."""

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        if not isinstance(op, Region):
            super()._populate_worklist(op)
            return
        ops: list[Operation] = []
        add = ops.append

        def visit_region(region: Region) -> None:
            for block in reversed(region.blocks):
                inner = block.last_op
                while inner is not None:
                    if inner.regions:
                        for nested in reversed(inner.regions):
                            visit_region(nested)
                    add(inner)
                    inner = inner.prev_op

        visit_region(op)
        if isinstance(self.pattern, ByOpType):
            self.pattern.present({type(inner) for inner in ops})
        push = self._worklist.push
        for inner in ops:
            push(inner)


class RootWorklist(Worklist[Operation]):
    """xDSL's worklist that drops an op no pattern of `patterns` roots at: on a 10k-node graph
    each of ge-fuse's seven walks pushed and popped all 13k ops to try a few hundred."""

    def __init__(self, patterns: ByOpType) -> None:
        super().__init__()
        self.patterns = patterns
        self.takes = patterns.takes

    def push(self, item: Operation) -> None:
        cls = type(item)
        takes = self.takes.get(cls)
        if takes is None:
            takes = self.takes[cls] = bool(self.patterns.candidates(cls))
        if takes:
            super().push(item)


ACTIVATION_TYPES: tuple[type[Operation], ...] = (
    ReluOp,
    SigmoidOp,
    HardSwishOp,
    GeluOp,
    ClipByValueOp,
)
"""The op types `match_activation` can accept (the roots of the activation fusions)."""


def root_type(pattern: RewritePattern) -> type | tuple[type, ...] | None:
    """The op type(s) a pattern can root at: what an `@op_type_rewrite_pattern` method matches
    (the `expected_type` its wrapper checks with isinstance before anything else), or a
    pattern's `ROOTS` (the types its own first check accepts); None: any op."""
    roots = getattr(pattern, "ROOTS", None)
    if roots is not None:
        return cast(tuple[type, ...], roots)
    method = type(pattern).match_and_rewrite
    code = getattr(method, "__code__", None)
    if code is None or not method.__qualname__.endswith("op_type_rewrite_pattern.<locals>.impl"):
        return None
    cells = dict(zip(code.co_freevars, method.__closure__ or (), strict=True))
    cell = cells.get("expected_type")
    return None if cell is None else cell.cell_contents


class ByOpType(RewritePattern):
    """`GreedyRewritePatternApplier(patterns, dce_enabled=False)` (no folding either: its
    defaults) that tries on an op only the patterns whose root type it is, in their order:
    the others' wrappers would return at their isinstance check. Every stage's walk offered
    each of the 13k ops of a 10k-node graph to every pattern of the stage (216k calls).

    A pattern may also name `ANCHORS`: op classes one of which is in every group it fuses
    (GELU's Erf, layer norm's ReduceMean). While the module holds none of them the pattern
    is left out; an op of a class not seen before (one a rewrite made) brings it back at
    once, and the walker's next round (there is one after every rewrite) offers every op
    again, so what the walk ends with is still a fixed point of all the patterns. The
    100k-node bench graph has none of the multi-op patterns' anchors: their 44k tries found
    nothing, a fifth of ge-fuse."""

    def __init__(self, patterns: list[RewritePattern]) -> None:
        self.patterns = patterns
        self.roots = [root_type(p) for p in patterns]
        self.anchors: list[tuple[type, ...] | None] = [
            getattr(p, "ANCHORS", None) for p in patterns
        ]
        self.live = [True] * len(patterns)
        self.seen: set[type] | None = None
        """The op classes of the module (None: not known, every pattern is live)."""
        self.by_type: dict[type, list[RewritePattern]] = {}
        self.takes: dict[type, bool] = {}
        """Class -> whether a pattern can root at it (`RootWorklist`'s memo)."""

    def present(self, classes: set[type]) -> None:
        """Starts a round over a module whose ops are of `classes`."""
        self.seen = set(classes)
        self.live = self._live()
        self.by_type.clear()
        self.takes.clear()

    def _live(self) -> list[bool]:
        """Per pattern: no anchors, or an op of one of them is in the module."""
        seen = self.seen
        return [
            anchors is None or seen is None or any(issubclass(c, anchors) for c in seen)
            for anchors in self.anchors
        ]

    def candidates(self, cls: type) -> list[RewritePattern]:
        """The live patterns that can root at an op of class `cls`, in their order (memoised)."""
        todo = self.by_type.get(cls)
        if todo is None:
            if self.seen is not None and cls not in self.seen:
                self.seen.add(cls)  # a class a rewrite made: it may wake a pattern
                live = self._live()
                if live != self.live:
                    self.live = live
                    self.by_type.clear()
                    self.takes.clear()
            todo = self.by_type[cls] = [
                p
                for p, root, live in zip(self.patterns, self.roots, self.live, strict=True)
                if live and (root is None or issubclass(cls, root))
            ]
        return todo

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        todo = self.candidates(type(op))
        for pattern in todo:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


def channel_vector(array: np.ndarray, rank: int, axis: int, length: int) -> np.ndarray | None:
    """`array` as a vector along `axis` of a rank-`rank` tensor with `length` there, when it
    broadcasts against that tensor only along `axis` (e.g. [1, C, 1, 1] or [C, 1, 1] for
    NCHW channels, [C] or [1, 1, C] for the last axis); else None."""
    if array.ndim > rank:
        return None
    padded = (1,) * (rank - array.ndim) + array.shape
    if any(d != 1 for i, d in enumerate(padded) if i != axis):
        return None
    if length < 0 or padded[axis] not in (1, length):
        return None
    return np.broadcast_to(array.reshape(-1), (length,))
