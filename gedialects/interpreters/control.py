"""Interpreter semantics of functional control flow: `graph.if`, `graph.while`, `graph.for`.

Subgraphs run through `partition.call_graph` (the one graph-call path, with its recursion
check). Truthiness is GE's hybrid executor's (ControlOpExecutor): a scalar is true when it is
non-zero, a tensor of other rank when it has elements. A loop runs at most
`max_loop_iterations` times (default `DEFAULT_MAX_LOOP_ITERATIONS`, `ge-run
--max-loop-iterations`), and a While whose carried values come back unchanged while its cond
still holds can never end (its subgraphs are functions of the carried values): both are
one-line errors, never a hang. A loop whose carried values grow every iteration (a Concat of a
value with itself) is refused by the memory budget once they outgrow it, before the next
iteration can double them again: the bound is on memory as well as on time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from gedialects import budget
from gedialects.graph.control import ForOp, IfOp, WhileOp
from gedialects.interpreters.partition import call_graph

DEFAULT_MAX_LOOP_ITERATIONS = 10**6
"""Iterations a While or For may run before the run stops with an error."""


def truth(value: object) -> bool:
    """GE's cond truthiness: scalar != 0, otherwise non-empty."""
    array = np.asarray(value)
    if array.ndim == 0:
        return bool(array != 0)
    return array.size != 0


def configure_loops(interpreter: Interpreter, max_iterations: int | None) -> None:
    """Sets the loop bound of this interpreter's runs (None: the default)."""
    if max_iterations is not None and max_iterations < 0:
        raise ValueError(f"max_loop_iterations must be >= 0, got {max_iterations}")
    limits = interpreter.get_data(ControlFunctions, "limits", dict)
    limits["max_iterations"] = (
        DEFAULT_MAX_LOOP_ITERATIONS if max_iterations is None else max_iterations
    )


def _bound(interpreter: Interpreter) -> int:
    limits = interpreter.get_data(ControlFunctions, "limits", dict)
    return limits.get("max_iterations", DEFAULT_MAX_LOOP_ITERATIONS)


def _where(op: Operation) -> str:
    from gedialects.interpreters import describe_op

    return describe_op(op)


def _over_bound(op: Operation, bound: int) -> InterpretationError:
    return InterpretationError(
        f"{_where(op)} ran more than {bound} iterations without its cond turning false "
        "(the loop bound; raise it with --max-loop-iterations)"
    )


def _check_carried(op: Operation, values: Sequence[object], count: int) -> None:
    """Refuses an iteration whose carried values before and after it (held at once while the
    body runs) exceed the memory budget: the loop stops before its peak reaches twice the limit."""
    nbytes = sum(np.asarray(v).nbytes for v in values)
    if nbytes <= budget.max_memory():
        return  # the message names the op: built only when it is needed
    what = f"the loop-carried values of {_where(op)} before and after iteration {count}"
    try:
        budget.check(nbytes, what)
    except budget.MemoryBudgetError as e:
        raise InterpretationError(str(e)) from e


def _same(a: Sequence[object], b: Sequence[object]) -> bool:
    for x, y in zip(a, b, strict=True):
        xa, ya = np.asarray(x), np.asarray(y)
        if xa.dtype != ya.dtype or xa.shape != ya.shape:
            return False
        if not np.array_equal(xa, ya, equal_nan=xa.dtype.kind in "fc"):
            return False
    return True


Call = Callable[[Sequence[object]], Sequence[object]]
"""Runs one subgraph on its inputs (a graph call here, a model run in a dynamic task)."""


def while_loop(
    op: Operation, bound: int, cond: Call, body: Call, values: Sequence[object]
) -> tuple[object, ...]:
    """GE's While (hybrid ControlOpExecutor): `while cond(v): v = body(v)`, at most `bound`
    iterations, an iteration that gives back its values unchanged an error (no progress), the
    carried values within the memory budget."""
    values = tuple(values)
    count = 0
    while truth(cond(values)[0]):
        if count >= bound:
            raise _over_bound(op, bound)
        following = tuple(body(values))
        if _same(following, values):
            raise InterpretationError(
                f"{_where(op)} makes no progress: iteration {count} gives back its "
                "loop-carried values unchanged while its cond holds, so it never ends"
            )
        _check_carried(op, (*values, *following), count)
        values = following
        count += 1
    return values


def case_index(value: object, count: int) -> int:
    """GE's Case branch index (hybrid executor, CondRemovePass): out of range -> the last."""
    index = int(np.asarray(value))
    return index if 0 <= index < count else count - 1


def loop_bound(interpreter: Interpreter) -> int:
    """The loop bound of this interpreter's runs (`configure_loops`)."""
    return _bound(interpreter)


@register_impls
class ControlFunctions(InterpreterFunctions):
    @impl(IfOp)
    def run_if(self, interpreter: Interpreter, op: IfOp, args: PythonValues) -> PythonValues:
        branch = op.then_branch if truth(args[0]) else op.else_branch
        return call_graph(interpreter, op, branch, tuple(args[1:]))

    @impl(WhileOp)
    def run_while(self, interpreter: Interpreter, op: WhileOp, args: PythonValues) -> PythonValues:
        return while_loop(
            op,
            _bound(interpreter),
            lambda v: call_graph(interpreter, op, op.cond, tuple(v)),
            lambda v: call_graph(interpreter, op, op.body, tuple(v)),
            args,
        )

    @impl(ForOp)
    def run_for(self, interpreter: Interpreter, op: ForOp, args: PythonValues) -> PythonValues:
        start, limit, delta = (int(np.asarray(a)) for a in args[:3])
        bound = _bound(interpreter)
        span, step = abs(limit - start), abs(delta)
        values = tuple(args[3:])
        i = 0
        while i * step < span:  # GE's ForPass: Less(Mul(i, |delta|), |limit - start|)
            if i >= bound:
                raise _over_bound(op, bound)
            variable = np.array(start + i * delta, dtype=np.int32)
            following = tuple(call_graph(interpreter, op, op.body, (variable, *values)))
            _check_carried(op, (*values, *following), i)
            values = following
            i += 1
        return values
