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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from xdsl.interpreter import Interpreter, InterpreterFunctions
from xdsl.ir import Block, Operation, SSAValue

from gedialects.base import GEOp
from gedialects.budget import MemoryBudgetError
from gedialects.formats import kernel_attrs
from gedialects.graph import ConstOp, GraphOp, NetOutputOp
from gedialects.interpreters.kernels import bind_kernel
from gedialects.tensors import numpy_from_dense

KERNEL = 0
"""`fn(args, properties)` is the op's `run_kernel` (`kernels.bind_kernel`)."""
CONST = 1
"""`fn` is None; `op` is a const whose value is `const`."""
IMPL = 2
"""`op` runs through `interpreter.run_op`."""


@dataclass(frozen=True)
class Step:
    kind: int
    op: Operation
    args: tuple[int, ...]
    results: tuple[int, ...]
    fn: Callable[[Sequence[Any], Any], tuple[Any, ...]] | None = None
    attrs: Any = None
    const: Any = None


@dataclass(frozen=True)
class GraphProgram:
    """A graph body decoded once: its steps, its registers and where the outputs are."""

    steps: tuple[Step, ...]
    registers: int
    block_args: tuple[int, ...]
    outputs: tuple[int, ...]

    def run(
        self, interpreter: Interpreter, args: Sequence[Any], label: Callable[[GEOp], str]
    ) -> tuple[Any, ...]:
        values: list[Any] = [None] * self.registers
        for k, v in zip(self.block_args, args, strict=True):
            values[k] = v
        for step in self.steps:
            ins = [values[k] for k in step.args]
            kind = step.kind
            if kind == KERNEL:
                try:
                    results = step.fn(ins, step.attrs)  # pyright: ignore[reportOptionalCall]
                except MemoryBudgetError as e:
                    _raise_as_xdsl(
                        interpreter,
                        step.op,
                        ins,
                        MemoryBudgetError(f"{label(step.op)}: {e}"),  # pyright: ignore[reportArgumentType]
                    )
                except Exception as e:
                    _raise_as_xdsl(interpreter, step.op, ins, e)
            elif kind == CONST:
                results = (step.const,)
            else:
                results = interpreter.run_op(step.op, tuple(ins))
            for k, r in zip(step.results, results, strict=True):
                values[k] = r
        return tuple(values[k] for k in self.outputs)


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
    interpreter: Interpreter, op: Operation, ins: list[Any], error: Exception
) -> NoReturn:
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
            fn = bind_kernel(op.GE_TYPE, op.result_types)
            steps.append(
                Step(KERNEL, op, args, results, fn, kernel_attrs(op.operand_types, op.properties))
            )
        elif (const := _const(op, found, own)) is not None:
            steps.append(Step(CONST, op, args, results, const=const))
        else:
            steps.append(Step(IMPL, op, args, results))
    if outputs is None:
        return None
    return GraphProgram(tuple(steps), len(index), block_args, outputs)
