"""`ge-fold-constants`: GE's ConstantFoldingPass, then common subexpressions and dead nodes.

Folding: an op whose operands are all `graph.const` is computed once, with the same kernel the
interpreter runs (`run_kernel`), and replaced by a `graph.const` that keeps its `node_name`.
Shape and Size (GE's DimensionComputePass) fold as soon as their input type is static, whatever
produces it. An op is folded only if it is `Pure` and has a kernel (so never a
`partition.end`/`place_holder`, a call or a Case), its result types are static, and it yields at
most `max-size` elements in all and fit the memory budget (`gedialects.budget`, sized before
the kernel runs): huge constants are not materialised. A kernel that rejects
its constant inputs leaves the op in place for the runtime to report. All-equal results are
stored as splats (`dense<0.0> : tensor<64x64xf32>`).

An If whose cond is a constant becomes a PartitionedCall of the branch it takes (GE's
CondRemovePass; the interpreter's truthiness decides, where GE truncates a float cond), and
the branch it no longer takes goes when nothing else calls it.

Common subexpression elimination merges `Pure` ops with the same name, operands, properties,
result types and discardable attributes other than `node_name` (xDSL's `cse` compares every
attribute, so two GE nodes that differ only by name would never merge); the first op in the
block stays. Dead-node elimination is xDSL's `region_dce` on each graph body (unused `Pure`
ops go, in reverse order, so whole dead chains go in one sweep).

Each part is one walk over each graph in its (topological) block order, linear in the number
of ops. Options: `max-size` (elements, default 1048576), `cse` and `dce` (default true).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    AnyDenseElement,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.traits import ConstantLike, MemoryEffect, NoMemoryEffect, Pure
from xdsl.transforms.dead_code_elimination import LiveSet, would_be_trivially_dead
from xdsl.utils.hints import isa

from gedialects import budget
from gedialects.base import NODE_NAME, GEOp, block_ops, static_element_count
from gedialects.formats import kernel_attrs
from gedialects.graph import ConstOp, GraphOp, IdentityOp
from gedialects.interpreters.kernels import KernelError, kernel_types, run_kernel
from gedialects.tensors import UnsupportedDtypeError, numpy_dtype, numpy_from_dense

DEFAULT_MAX_SIZE = 1 << 20
"""Largest folded result (elements, all results of the op together) by default."""

SHAPE_ONLY_TYPES = frozenset({"Shape", "Size", "Rank", "ShapeN"})
"""GE types whose outputs depend only on input shapes: foldable once the inputs are static."""


@dataclass
class FoldStats:
    """What one run removed: ops folded into constants, merged by CSE, erased as dead."""

    folded: int = 0
    merged: int = 0
    dead: int = 0


# --------------------------------------------------------------------------------------------
# Running one op's kernel on known inputs (shared with ge-infer-shapes)
# --------------------------------------------------------------------------------------------


def shape_views(op: Operation) -> list[np.ndarray] | None:
    """Zero-byte stand-ins with the operands' static shapes and dtypes (for Shape/Size)."""
    views: list[np.ndarray] = []
    for t in op.operand_types:
        if static_element_count(t) is None:
            return None
        assert isinstance(t, TensorType)
        try:
            dtype = numpy_dtype(t.element_type)
        except UnsupportedDtypeError:
            return None
        views.append(np.broadcast_to(np.zeros((), dtype), tuple(t.get_shape())))
    return views


def arrays_from_values(
    op: Operation, values: Callable[[SSAValue], Sequence[int | float] | None]
) -> list[np.ndarray] | None:
    """The operands as arrays when `values` knows each of them (flattened) and it is static."""
    arrays: list[np.ndarray] = []
    for operand in op.operands:
        flat = values(operand)
        count = static_element_count(operand.type)
        if flat is None or count is None or len(flat) != count:
            return None
        t = operand.type
        assert isinstance(t, TensorType)
        try:
            dtype = numpy_dtype(t.element_type)
        except UnsupportedDtypeError:
            return None
        arrays.append(np.asarray(flat, dtype=dtype).reshape(tuple(t.get_shape())))
    return arrays


def run_node(op: GEOp, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, ...] | None:
    """The op's kernel on `inputs`, None when there is none or it rejects them."""
    if op.GE_TYPE not in _kernel_set():
        return None
    try:
        with np.errstate(all="ignore"):
            return run_kernel(
                op.GE_TYPE,
                inputs,
                kernel_attrs(op.operand_types, op.properties),
                op.result_types,
            )
    except (KernelError, ValueError, IndexError, ArithmeticError):
        return None


_KERNELS: frozenset[str] | None = None


def _kernel_set() -> frozenset[str]:
    global _KERNELS
    if _KERNELS is None:
        _KERNELS = frozenset(kernel_types())
    return _KERNELS


def evaluate_op(
    op: GEOp, values: Callable[[SSAValue], Sequence[int | float] | None] | None
) -> tuple[np.ndarray, ...] | None:
    """Runs `op` on known operand values (`values=None`: only operand shapes are needed)."""
    inputs = shape_views(op) if values is None else arrays_from_values(op, values)
    if inputs is None:
        return None
    return run_node(op, inputs)


# --------------------------------------------------------------------------------------------
# Folding
# --------------------------------------------------------------------------------------------


def _const_array(value: SSAValue) -> np.ndarray | None:
    owner = value.owner
    if not isinstance(owner, Operation) or not owner.has_trait(ConstantLike):
        return None
    attr = owner.properties.get("value")
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    try:
        return numpy_from_dense(attr)
    except UnsupportedDtypeError:
        return None


def dense_of(array: np.ndarray, t: TensorType[AnyDenseElement]) -> DenseIntOrFPElementsAttr:
    """A dense attribute of type `t` holding `array`; a splat when all elements are equal."""
    flat = np.ascontiguousarray(array, dtype=numpy_dtype(t.element_type)).reshape(-1)
    if flat.size > 1:
        rows = flat.view(np.uint8).reshape(flat.size, -1)
        if (rows == rows[0]).all():
            flat = flat[:1]
    return DenseIntOrFPElementsAttr(t, BytesAttr(flat.tobytes()))


_TRAITS: dict[type[Operation], tuple[bool, bool]] = {}


def _pure_and_const(op: Operation) -> tuple[bool, bool]:
    """(Pure, ConstantLike) of the op's class, cached: trait lookups are slow."""
    cls = type(op)
    if cls not in _TRAITS:
        _TRAITS[cls] = (op.has_trait(Pure), op.has_trait(ConstantLike))
    return _TRAITS[cls]


_CONSTANT_OWNER: dict[type, bool] = {}
"""Class of a value's owner (op or block) -> whether it is a ConstantLike op."""


def _is_const(value: SSAValue) -> bool:
    owner = value.owner
    kind = owner.__class__
    found = _CONSTANT_OWNER.get(kind)
    if found is None:
        found = _CONSTANT_OWNER[kind] = isinstance(owner, Operation) and (_pure_and_const(owner)[1])
    return found


_FOLD_KIND: dict[type[Operation], int] = {}
"""Op class -> 0: not a GE op, 1: a GE op, 2: a shape-only GE op (`SHAPE_ONLY_TYPES`); an
ABC isinstance and a set test per op otherwise."""


def _fold_kind(op: Operation) -> int:
    kind = op.__class__
    found = _FOLD_KIND.get(kind)
    if found is None:
        ge = isinstance(op, GEOp)
        found = _FOLD_KIND[kind] = 0 if not ge else 2 if op.GE_TYPE in SHAPE_ONLY_TYPES else 1
    return found


def foldable(op: Operation, max_size: int) -> bool:
    """A pure GE op with a kernel, not a constant, whose static results fit in `max_size`."""
    pure, const = _pure_and_const(op)
    if not isinstance(op, GEOp) or const or not pure:
        return False
    if not op.results or op.regions or op.GE_TYPE not in _kernel_set():
        return False
    if isinstance(op, IdentityOp) and op.ctrl:
        return False  # a constant would drop its control edges
    counts = [static_element_count(t) for t in op.result_types]
    if any(c is None for c in counts):
        return False  # a result of unknown shape: run ge-infer-shapes first
    count = sum(c for c in counts if c is not None)
    if count > max_size:
        return False
    return count <= DEFAULT_MAX_SIZE or _result_nbytes(op) <= budget.max_memory()


def _result_nbytes(op: Operation) -> int:
    """Bytes of the op's (static) results: what folding it would allocate, twice (the kernel's
    array and the constant's bytes)."""
    total = 0
    for t in op.result_types:
        assert isinstance(t, TensorType)
        try:
            itemsize = numpy_dtype(t.element_type).itemsize
        except UnsupportedDtypeError:
            itemsize = 8
        total += budget.shape_nbytes(t.get_shape(), itemsize)
    return 2 * total


def fold_block(block: Block, max_size: int) -> int:
    """Replaces every foldable op of `block` whose inputs are constants; returns the count."""
    folded = 0
    for op in block_ops(block):
        kind = _fold_kind(op)
        if not kind or (kind == 1 and not all(map(_is_const, op._operands))):  # pyright: ignore[reportPrivateUsage]
            continue  # the cheap test first: most nodes read a run-time value
        if not foldable(op, max_size):
            continue
        assert isinstance(op, GEOp)
        if op.GE_TYPE in SHAPE_ONLY_TYPES:
            inputs = shape_views(op)
        elif not all(_is_const(v) for v in op.operands):
            continue  # an operand is not a constant
        else:
            arrays = [_const_array(v) for v in op.operands]
            inputs = (
                None if any(a is None for a in arrays) else [a for a in arrays if a is not None]
            )
        if inputs is None:
            continue  # a kernel input is unsupported (or, for Shape/Size, not static)
        outputs = run_node(op, inputs)
        if outputs is None:
            continue  # the kernel rejects these inputs: the runtime reports it
        name = op.attributes.get(NODE_NAME)
        for index, (result, array) in enumerate(zip(op.results, outputs, strict=True)):
            t = result.type
            assert isa(t, TensorType[AnyDenseElement])
            const = ConstOp(dense_of(array, t))
            if isinstance(name, StringAttr):
                label = name.data if len(op.results) == 1 else f"{name.data}:{index}"
                const.attributes[NODE_NAME] = StringAttr(label)
            block.insert_op_before(const, op)
            const.y.name_hint = result.name_hint
            result.replace_all_uses_with(const.y)
        block.erase_op(op)
        folded += 1
    return folded


# --------------------------------------------------------------------------------------------
# Common subexpressions and dead nodes
# --------------------------------------------------------------------------------------------


def _cse_key(op: Operation) -> tuple[object, ...]:
    attrs = tuple(sorted((k, v) for k, v in op.attributes.items() if k != NODE_NAME))
    return (
        op.name,
        tuple(op.operands),
        tuple(op.result_types),
        tuple(sorted(op.properties.items())),
        attrs,
    )


def eliminate_common_subexpressions(block: Block) -> int:
    """Merges identical pure ops of `block` into the first one; returns how many went.

    Two ops can only be equal if they have the same name and the same operands: the full key
    (`_cse_key`: result types, properties and attributes, each hashed and compared through
    Python calls) is built only for ops that share those with an earlier op. Most GE nodes
    read values no other node of the same type reads, and hashing every op's types and
    properties (a constant's dense value) was most of this step. The ops are kept alive by
    the list walked, so the ids of their results in the short key stay theirs."""
    first_of: dict[tuple[object, ...], Operation] = {}  # short key -> its first op
    seen: dict[tuple[object, ...], Operation] = {}  # full key -> its first op
    keyed: set[tuple[object, ...]] = set()  # short keys whose first op has its full key in seen
    merged = 0
    for op in block_ops(block):
        if op.regions or not op.results or not _pure_and_const(op)[0]:
            continue
        short = (op.name, *map(id, op._operands))  # pyright: ignore[reportPrivateUsage]
        head = first_of.setdefault(short, op)
        if head is op:
            continue
        if short not in keyed:
            keyed.add(short)
            seen[_cse_key(head)] = head
        first = seen.setdefault(_cse_key(op), op)
        if first is op:
            continue
        for old, new in zip(op.results, first.results, strict=True):
            old.replace_all_uses_with(new)
        block.erase_op(op)
        merged += 1
    return merged


_DEAD_IF_UNUSED: dict[type[Operation], bool] = {}


def _dead_if_unused(op: Operation) -> bool:
    """xDSL's `would_be_trivially_dead(op)`, kept per op class when no op of the class can
    answer otherwise: its memory effects, if any, all come from `NoMemoryEffect` (Pure), whose
    answer is the empty set for every op (traits are per class)."""
    cls = type(op)
    verdict = _DEAD_IF_UNUSED.get(cls)
    if verdict is None:
        fixed = all(
            type(t).get_effects.__func__ is NoMemoryEffect.get_effects.__func__
            for t in op.get_traits_of_type(MemoryEffect)
        )
        if not fixed:
            return would_be_trivially_dead(op)
        verdict = _DEAD_IF_UNUSED[cls] = would_be_trivially_dead(op)
    return verdict


class _GraphLiveSet(LiveSet):
    """xDSL's `region_dce` liveness with `_dead_if_unused`: its trait and effect lookups per
    op were most of ge-fold-constants' dead-node step (twice per node: the fixed point's
    second round only confirms)."""

    def propagate_op_liveness(self, op: Operation) -> None:
        for region in op.regions:
            self.propagate_region_liveness(region)
        if self.is_live(op):
            return
        if not _dead_if_unused(op) or any(
            self.is_live(use.operation) for result in op.results for use in result.uses
        ):
            self.set_live(op)


def _graph_dce(region: Region) -> None:
    """xDSL's `region_dce` (same fixed point and deletion) with `_GraphLiveSet`."""
    live = _GraphLiveSet()
    while live.changed:
        live.changed = False
        live.propagate_region_liveness(region)
    live.delete_dead(region, None)


def _sweep_dead(block: Block) -> list[Operation] | None:
    """The ops of a graph body `region_dce` would find dead, in reverse block order, from one
    sweep; None when one sweep cannot decide (an op with regions, or a use before its
    definition). In a body without nested regions and in topological order every user of an
    op comes after it, so walking backwards settles each op once: its fixed point's second
    round (and its liveness set of ops hashed by a Python `__hash__`) only confirmed."""
    ops = block_ops(block)
    state: dict[int, bool] = {}  # id(op) -> live, for the ops already swept (kept alive by ops)
    dead: list[Operation] = []
    for op in reversed(ops):
        if op.regions:
            return None
        live = not _dead_if_unused(op)
        if not live:
            for result in op.results:
                for use in result.uses:
                    user = use.operation
                    verdict = state.get(id(user))
                    if verdict is None and user.parent is block:
                        return None  # used before it is defined: the fixed point decides
                    if verdict:
                        live = True
                        break
                if live:
                    break
        state[id(op)] = live
        if not live:
            dead.append(op)
    return dead


def eliminate_dead_nodes(graph: GraphOp) -> int:
    """Region DCE on the graph body; returns how many ops went."""
    block = graph.body.block
    dead = _sweep_dead(block)
    if dead is None:
        before = len(block.ops)
        _graph_dce(graph.body)
        return before - len(block.ops)
    for op in dead:  # region_dce's order: the last op first
        block.erase_op(op, safe_erase=False)
    return len(dead)


def fold_constant_ifs(graph: GraphOp, branches: set[str]) -> int:
    """GE's CondRemovePass: an If whose cond is a constant becomes a PartitionedCall of the
    branch it takes (the interpreter's truthiness), its inputs shifted by the cond (a branch
    only this If calls gets its `_parent_node_index` d+1 -> d). The names of both branches go
    into `branches` (the caller erases those no longer called)."""
    from gedialects.graph.control import IfOp
    from gedialects.interpreters.control import truth
    from gedialects.partition import PartitionedCallOp

    count = 0
    for op in block_ops(graph.body.block):
        if not isinstance(op, IfOp):
            continue
        cond = _const_array(op.cond)
        if cond is None:
            continue
        chosen = op.then_branch if truth(cond) else op.else_branch
        call = PartitionedCallOp(chosen, list(op.inputs), op.result_types)
        call.attributes.update(op.attributes)
        Rewriter.replace_op(op, call)
        branches.update(op.called_graphs())
        count += 1
    return count


def _shift_parent_indices(graph: GraphOp) -> None:
    """A former If branch called by one PartitionedCall: Data d+1 -> d (GE's CondRemove)."""
    from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, i64

    from gedialects.base import PARENT_NODE_INDEX

    if graph.arg_attrs is None:
        return
    shifted: list[DictionaryAttr] = []
    for attrs in graph.arg_attrs.data:
        index = attrs.data.get(PARENT_NODE_INDEX)
        entries = dict(attrs.data)
        if isinstance(index, IntegerAttr):
            entries[PARENT_NODE_INDEX] = IntegerAttr(index.value.data - 1, i64)
        shifted.append(DictionaryAttr(entries))
    graph.arg_attrs = ArrayAttr(shifted)


def _drop_unused_branches(module: ModuleOp, branches: set[str]) -> None:
    """Erases the folded Ifs' branches nothing calls any more (and, in turn, the subgraphs
    only they called); re-numbers the inputs of a branch one PartitionedCall now calls."""
    from gedialects.partition import PartitionedCallOp

    candidates = set(branches)
    while candidates:
        calls: dict[str, list[Operation]] = {}
        for op in module.walk():
            callees = getattr(op, "called_graphs", None)
            if callees is not None:
                for name in callees():
                    calls.setdefault(name, []).append(op)
        erased: set[str] = set()
        for graph in [g for g in module.ops if isinstance(g, GraphOp)]:
            name = graph.sym_name.data
            if name not in candidates:
                continue
            users = calls.get(name, [])
            if not users:
                erased.update(
                    c for op in graph.walk() for c in getattr(op, "called_graphs", list)()
                )
                Rewriter.erase_op(graph)
            elif name in branches and all(isinstance(u, PartitionedCallOp) for u in users):
                _shift_parent_indices(graph)
                branches.discard(name)
        candidates = erased


def fold_module(
    module: ModuleOp, max_size: int = DEFAULT_MAX_SIZE, cse: bool = True, dce: bool = True
) -> FoldStats:
    """Folding (with constant Ifs, `fold_constant_ifs`), then CSE, then DCE on every graph
    of `module`."""
    stats = FoldStats()
    branches: set[str] = set()
    for graph in [op for op in module.ops if isinstance(op, GraphOp)]:
        block = graph.body.block
        stats.folded += fold_block(block, max_size)
        stats.folded += fold_constant_ifs(graph, branches)
        if cse:
            stats.merged += eliminate_common_subexpressions(block)
        if dce:
            stats.dead += eliminate_dead_nodes(graph)
    if branches:
        _drop_unused_branches(module, branches)
    return stats


@dataclass(frozen=True)
class FoldConstantsPass(ModulePass):
    """Constant folding with a size limit, CSE and dead-node elimination (module docstring)."""

    name = "ge-fold-constants"

    max_size: int = DEFAULT_MAX_SIZE
    cse: bool = True
    dce: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xdsl.utils.exceptions import PassFailedException

        from gedialects.base import paused_gc

        if self.max_size < 0:
            raise PassFailedException(
                f"ge-fold-constants: max-size must be >= 0, got {self.max_size}"
            )
        with paused_gc():
            fold_module(op, self.max_size, self.cse, self.dce)
