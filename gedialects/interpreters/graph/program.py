"""The compiled form of a `graph.graph` body: its ops as a flat list of steps over a register
file, each kernel op bound once (kernel function, properties, result types), so a run costs
the kernels and a few list operations per node instead of xDSL's region walk per op.

A body of one block runs this way when the interpreter's listeners are only `OpTracker`s (a
listener that watches each op gets xDSL's walk). Ops without a kernel (const, calls into
partitions, control flow) run their `@impl` through `interpreter.run_op`, as before; a const's
array is made once (it is a read-only view of the attribute's bytes, as each run made it). A
kernel op that fails is reported as xDSL's `run_op` reports it: the listeners told the op ran,
the error attached to the op (`Operation.emit_error`), so `failing_op` and the message are the
step-by-step dispatch's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions
from xdsl.ir import Block, Operation, SSAValue

from gedialects import budget
from gedialects.base import GEOp
from gedialects.budget import MemoryBudgetError
from gedialects.formats import kernel_attrs
from gedialects.graph import ConstOp, GraphOp, NetOutputOp
from gedialects.interpreters import kernels
from gedialects.interpreters.kernels import SMALL_OUTPUTS, KernelInto, bind_kernel
from gedialects.tensors import numpy_from_dense

KERNEL = 0
"""`fn(args, properties)` is the op's `run_kernel` (`kernels.bind_kernel`)."""
CONST = 1
"""`fn` is None; `op` is a const whose value is `const`."""
IMPL = 2
"""`op` runs through `interpreter.run_op`."""
INTO = 3
"""`into(args, properties, result types, outputs)` is the op's out-variant, writing into
buffers of the program's pool (`specs` their static shapes and dtypes)."""

BufferSpec = tuple[tuple[int, ...], np.dtype]
Pool = dict[BufferSpec, list[np.ndarray]]


@dataclass(frozen=True)
class Step:
    kind: int
    op: Operation
    args: tuple[int, ...]
    results: tuple[int, ...]
    fn: Callable[[Sequence[Any], Any], tuple[Any, ...]] | None = None
    attrs: Any = None
    const: Any = None
    into: KernelInto | None = None
    specs: tuple[BufferSpec, ...] = ()
    budget: int = 0
    """INTO: the bytes of its outputs when `run_kernel` would ask the budget for them."""
    frees: tuple[int, ...] = ()
    """The registers this step reads for the last time (not outputs), none of them an INTO
    step's result: dropped after it."""
    pooled: tuple[tuple[int, BufferSpec], ...] = ()
    """As `frees`, for INTO steps' results (each with its buffer's spec): dropped after it,
    the buffer back to the pool unless something else still holds it."""

    def row(self) -> Row:
        """The step as `GraphProgram._run` unpacks it (a tuple: one unpack per step instead of
        an attribute lookup per field; xDSL's `result_types` builds a tuple per call)."""
        rtypes = tuple(self.op.result_types)
        return (self.kind, self.args, self.results, self.fn, self.attrs, self.const, self.into,
                self.specs, self.budget, rtypes, self.frees, self.pooled, self.op)  # fmt: skip


Row = tuple[
    int,
    tuple[int, ...],
    tuple[int, ...],
    Any,
    Any,
    Any,
    Any,
    tuple[BufferSpec, ...],
    int,
    tuple[Any, ...],
    tuple[int, ...],
    tuple[tuple[int, BufferSpec], ...],
    Operation,
]


@dataclass(frozen=True)
class GraphProgram:
    """A graph body decoded once: its steps, its registers and where the outputs are.

    Ops with an out-variant and static results (`INTO`) write into buffers of a pool that
    outlives the run, as the ascend level's arena does (a fresh array costs a page fault per
    4 KiB on first touch, often more than the kernel): a register's buffer goes back to the
    pool after its last reader, unless something else still holds it (a view of it is a
    live value, a graph output returns it to the caller), which its reference count tells.
    Each concurrent run takes a pool of its own (`pools`)."""

    steps: tuple[Step, ...]
    registers: int
    block_args: tuple[int, ...]
    outputs: tuple[int, ...]
    pools: list[Pool] = field(default_factory=list, compare=False)
    rows: tuple[Row, ...] = field(default=(), compare=False)
    """`steps` as `Step.row`s, made on construction."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", tuple(step.row() for step in self.steps))

    def run(
        self, interpreter: Interpreter, args: Sequence[Any], label: Callable[[GEOp], str]
    ) -> tuple[Any, ...]:
        pools = self.pools
        pool: Pool = pools.pop() if pools else {}
        try:
            return self._run(interpreter, args, label, pool)
        finally:
            pools.append(pool)

    def _run(
        self,
        interpreter: Interpreter,
        args: Sequence[Any],
        label: Callable[[GEOp], str],
        pool: Pool,
    ) -> tuple[Any, ...]:
        values: list[Any] = [None] * self.registers
        for k, v in zip(self.block_args, args, strict=True):
            values[k] = v
        get = values.__getitem__
        take = pool.get
        empty = np.empty
        refcount = sys.getrefcount
        for row in self.rows:
            kind, regs, results, fn, attrs, const, into, specs, large, rtypes, frees, pooled, op = (
                row
            )
            ins = list(map(get, regs))
            if kind == INTO:
                outs: list[np.ndarray] = []
                for spec in specs:
                    free = take(spec)
                    outs.append(free.pop() if free else empty(spec[0], spec[1]))
                try:
                    if large and large > budget.max_memory():
                        budget.check(large, _budget_text(op))  # its message
                    into(ins, attrs, rtypes, outs)
                except Exception as e:
                    _raise_as_xdsl(interpreter, op, ins, e, label)
                results_ = outs
                del outs
            elif kind == KERNEL:
                try:
                    results_ = fn(ins, attrs)
                except Exception as e:
                    _raise_as_xdsl(interpreter, op, ins, e, label)
            elif kind == CONST:
                results_ = (const,)
            else:
                results_ = interpreter.run_op(op, tuple(ins))
            for k, r in zip(results, results_, strict=True):
                values[k] = r
            r = None
            del results_, ins  # no name but the registers holds a buffer now
            for k in frees:
                values[k] = None
            for k, spec in pooled:
                buffer = values[k]
                values[k] = None
                if refcount(buffer) <= _UNREFERENCED:
                    free = take(spec)
                    if free is None:
                        pool[spec] = [buffer]
                    else:
                        free.append(buffer)
                del buffer
        return tuple(values[k] for k in self.outputs)


_UNREFERENCED = 2
"""`sys.getrefcount` of a freed INTO buffer that nothing but `_run` holds: its local name
and getrefcount's own argument (a view of it, a value the run returns or a kernel kept adds
a reference: the buffer then stays out of the pool)."""


def _budget_text(op: Operation) -> str:
    """What `kernels.run_kernel` names in its budget check of the op's outputs."""
    assert isinstance(op, GEOp)
    return f"{op.GE_TYPE} outputs ({', '.join(map(str, op.result_types))})"


def _const(op: Operation, found: Any, own: type[InterpreterFunctions]) -> Any:
    """A const's array, made now; None when it is not our const or making it fails (the run
    then fails at the const, through its `@impl`, as it always did)."""
    if not isinstance(op, ConstOp) or found is None or not isinstance(found[0], own):
        return None
    try:
        return numpy_from_dense(op.value)
    except Exception:
        return None


def _raise_as_xdsl(
    interpreter: Interpreter,
    op: Operation,
    ins: list[Any],
    error: Exception,
    label: Callable[[GEOp], str],
) -> NoReturn:
    """Reports a kernel's error as xDSL's walk would; a memory budget error names the op
    first (the one place both kernel paths of the program share)."""
    if isinstance(error, MemoryBudgetError):
        error = MemoryBudgetError(f"{label(op)}: {error}")  # pyright: ignore[reportArgumentType]
    for listener in interpreter.listeners:
        listener.will_interpret_op(op, tuple(ins))
    op.emit_error("Error while interpreting op", error)


def compile_graph(
    interpreter: Interpreter,
    graph: GraphOp,
    own: type[InterpreterFunctions],
    kernel_impls: Mapping[type[Operation], Any],
    tracker: type,
) -> GraphProgram | None:
    """The graph's program, or None where xDSL's walk must run it (several blocks, a listener
    other than `tracker`). `kernel_impls`: op type -> `own`'s `@impl` that runs its kernel
    (an op whose registered impl is another runs that impl)."""
    if any(not isinstance(listener, tracker) for listener in interpreter.listeners):
        return None
    blocks = list(graph.body.blocks)
    if len(blocks) != 1:
        return None
    block: Block = blocks[0]
    table = interpreter._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
    index: dict[SSAValue, int] = {}

    def register(value: SSAValue) -> int:
        k = index.get(value)
        if k is None:
            k = index[value] = len(index)
        return k

    block_args = tuple(register(a) for a in block.args)
    steps: list[Step] = []
    outputs: tuple[int, ...] | None = None
    for op in block.ops:
        if op.successors:
            return None  # branches between blocks: xDSL's walk
        if any(operand not in index for operand in op.operands):
            return None  # a use before its definition: left to xDSL's walk and its error
        args = tuple(index[o] for o in op.operands)
        if isinstance(op, NetOutputOp):
            outputs = args
            break
        found = table.get(type(op))
        results = tuple(register(r) for r in op.results)
        if (
            found is not None
            and isinstance(found[0], own)
            and found[1] is kernel_impls.get(type(op))
            and isinstance(op, GEOp)
        ):
            attrs = kernel_attrs(op.operand_types, op.properties)
            specs = _static_specs(op)
            # looked up on the module, as the ascend binders do: what swaps kernels (a
            # profiler, bench_scale's no-op harness) reaches both levels
            into = kernels.get_kernel_into(op.GE_TYPE) if specs is not None else None
            if into is not None and specs is not None:
                total = sum(budget.shape_nbytes(shape, dtype.itemsize) for shape, dtype in specs)
                large = total if total > SMALL_OUTPUTS else 0
                steps.append(
                    Step(INTO, op, args, results, attrs=attrs, into=into, specs=specs, budget=large)
                )
            else:
                fn = bind_kernel(op.GE_TYPE, op.result_types)
                steps.append(Step(KERNEL, op, args, results, fn, attrs))
        elif (const := _const(op, found, own)) is not None:
            steps.append(Step(CONST, op, args, results, const=const))
        else:
            steps.append(Step(IMPL, op, args, results))
    if outputs is None:
        return None
    return GraphProgram(_with_frees(steps, outputs), len(index), block_args, outputs)


def _static_specs(op: GEOp) -> tuple[BufferSpec, ...] | None:
    """The shapes and dtypes of the op's results when all are static tensors, else None."""
    from gedialects.tensors import UnsupportedDtypeError, numpy_dtype

    specs: list[BufferSpec] = []
    for t in op.result_types:
        if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
            return None
        try:
            dtype = numpy_dtype(t.element_type)
        except UnsupportedDtypeError:
            return None
        if dtype.kind not in "biuf":
            return None
        specs.append((tuple(t.get_shape()), dtype))
    return tuple(specs)


def _with_frees(steps: list[Step], outputs: tuple[int, ...]) -> tuple[Step, ...]:
    """The steps, each with the registers it reads or defines for the last time (the
    graph's outputs excepted), an INTO step's results among them with their buffer specs."""
    last: dict[int, int] = {}
    spec_of: dict[int, BufferSpec] = {}
    for i, step in enumerate(steps):
        for k in (*step.args, *step.results):
            last[k] = i
        if step.kind == INTO:
            spec_of.update(zip(step.results, step.specs, strict=True))
    keep = set(outputs)
    frees: list[list[int]] = [[] for _ in steps]
    pooled: list[list[tuple[int, BufferSpec]]] = [[] for _ in steps]
    for k, i in last.items():
        if k in keep:
            continue
        if k in spec_of:
            pooled[i].append((k, spec_of[k]))
        else:
            frees[i].append(k)
    return tuple(
        replace(step, frees=tuple(f), pooled=tuple(p)) if f or p else step
        for step, f, p in zip(steps, frees, pooled, strict=True)
    )
