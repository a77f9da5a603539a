"""Running a whole program: entry selection, input checking, random inputs, named outputs.

Shared by `ge-run`, the tests and the benchmarks so that every caller gets the same checks: a
missing, unknown, mis-shaped or mis-typed input is a `RunError` with a one-line message, never a
numpy error deep inside a kernel and never a silent cast.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation

from gedialects import budget, progress
from gedialects.base import shapes_compatible, symbol_name, tensor_shape
from gedialects.interpreters.entry import RunError, Signature, declared_signature, find_entry
from gedialects.interpreters.gears import gear_signature
from gedialects.interpreters.getnext import InputQueue, feeding, getnext_signature
from gedialects.tensors import UnsupportedDtypeError, dtype_matches, numpy_dtype

__all__ = [
    "RunError",
    "RunResult",
    "Signature",
    "check_inputs",
    "find_entry",
    "random_inputs",
    "run",
    "run_entry",
    "signature",
]

if TYPE_CHECKING:
    from xdsl.interpreter import Interpreter

    from gedialects.interpreters.ascend import RunStats
    from gedialects.interpreters.variables import VariableStore

logger = logging.getLogger(__name__)


def signature(entry: Operation) -> Signature:
    """The entry's named inputs and outputs, as the user passes and receives them: an
    expanded multi-batch root or its model takes its gears' shapes (`gears.gear_signature`)."""
    sig = declared_signature(entry)
    adapted = gear_signature(entry, sig)
    if adapted is None:
        adapted = getnext_signature(entry, sig)
    return sig if adapted is None else adapted


def _dims(shape: Sequence[int] | None) -> str:
    return "*" if shape is None else "[" + ",".join("?" if d < 0 else str(d) for d in shape) + "]"


def check_inputs(sig: Signature, inputs: Mapping[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """The inputs in signature order, each checked for presence, dtype and shape."""
    unknown = sorted(set(inputs) - set(sig.input_names))
    if unknown:
        raise RunError(
            f"unknown input '{unknown[0]}' for @{sig.entry} "
            f"(its inputs are: {', '.join(sig.input_names) or 'none'})"
        )
    ordered: list[np.ndarray] = []
    for name, ttype in zip(sig.input_names, sig.input_types, strict=True):
        if name not in inputs:
            given = ", ".join(sorted(inputs)) or "nothing"
            raise RunError(f"missing input '{name}' ({ttype}) for @{sig.entry}; given: {given}")
        array = np.asarray(inputs[name])
        try:
            dtype = numpy_dtype(_element_type(ttype))
        except UnsupportedDtypeError as e:
            raise RunError(f"input '{name}': {e}") from None
        if not dtype_matches(array.dtype, dtype):
            raise RunError(
                f"input '{name}' has dtype {array.dtype}, @{sig.entry} expects {dtype} ({ttype})"
            )
        expected = tensor_shape(ttype)
        if not shapes_compatible(expected, array.shape):
            raise RunError(
                f"input '{name}' has shape {_dims(array.shape)}, "
                f"@{sig.entry} expects {_dims(expected)} ({ttype})"
            )
        ordered.append(_stored(array, ttype))
    return tuple(ordered)


def _stored(array: np.ndarray, ttype: Attribute) -> np.ndarray:
    """An input fed as its origin tensor, laid out in the storage format its type names (a
    user storage format, GE's Data `storage_format`: the host stores the bytes that way)."""
    from gedialects.formats import c0_of, format_of
    from gedialects.interpreters.layouts import pack

    enc = format_of(ttype)
    if enc is None or not isinstance(ttype, TensorType):
        return array
    return pack(array, enc.origin, enc.fmt, c0_of(ttype.element_type))


def _element_type(ttype: Attribute) -> Attribute:
    if isinstance(ttype, TensorType | UnrankedTensorType):
        return ttype.element_type
    raise RunError(f"input type {ttype} is not a tensor")


def random_inputs(sig: Signature, seed: int) -> dict[str, np.ndarray]:
    """Reproducible inputs: floats ~ N(0, 1), integers in [0, 10), booleans fair coins, strings
    the numerals of integers in [0, 10)."""
    rng = np.random.default_rng(seed)
    arrays: dict[str, np.ndarray] = {}
    types = sig.example_types if sig.example_types is not None else sig.input_types
    for name, ttype in zip(sig.input_names, types, strict=True):
        shape = tensor_shape(ttype)
        if shape is None or any(d < 0 for d in shape):
            raise RunError(
                f"input '{name}' has unknown dims ({ttype}): random inputs need static shapes; "
                "pass --inputs or --input"
            )
        try:
            dtype = numpy_dtype(_element_type(ttype))
        except UnsupportedDtypeError as e:
            raise RunError(
                f"input '{name}': unsupported element type {e.element_type} ({ttype})"
            ) from None
        # numpy draws float64 (integers: int64) and casts: the draw and the result
        budget.check_shape(shape, dtype.itemsize + 8, f"random input '{name}' ({ttype})")
        if dtype.kind == "f":
            arrays[name] = rng.standard_normal(shape).astype(dtype)
        elif dtype.kind == "b":
            arrays[name] = rng.random(shape) < 0.5
        elif dtype.kind == "U":  # strings: decimal numerals in [0, 10)
            arrays[name] = rng.integers(0, 10, size=shape).astype(dtype)
        else:
            arrays[name] = rng.integers(0, 10, size=shape).astype(dtype)
    return arrays


def _in_op(interpreter: Interpreter, what: str) -> str:
    from gedialects.interpreters import describe_op, failing_op

    op = failing_op(interpreter)
    return what if op is None else f"{what} in op {describe_op(op)}"


@dataclass
class RunResult:
    """What `run_entry` gives back: named outputs, the op that ran them (the entry, or its
    hybrid fallback) and, for an `ascend.model`, the interpreter's statistics."""

    outputs: dict[str, np.ndarray]
    ran: Operation
    stats: RunStats | None = None
    launches: tuple[dict[str, np.ndarray], ...] = ()
    """GetNext sink: the outputs of every launch, in order (`outputs` is the last)."""
    pulled: int = 0
    """GetNext sink: the input sets the launches pulled."""


def run_entry(
    module: ModuleOp,
    inputs: Mapping[str, np.ndarray],
    entry: str | None = None,
    *,
    schedule_seed: int | None = None,
    check_uninitialized: bool = False,
    timing: bool = False,
    max_steps: int | None = None,
    max_loop_iterations: int | None = None,
    interpreter: Interpreter | None = None,
    compiled: bool = True,
    queue: Sequence[Mapping[str, np.ndarray]] = (),
    variables: VariableStore | None = None,
) -> RunResult:
    """Runs the entry point of `module` on named inputs, optionally instrumented.

    Instrumented and plain runs take one route: the same input checks, the same gear binding
    and hybrid fallback (`Signature.route`), the same interpreter call; the instruments
    (`schedule_seed`, `check_uninitialized`, `timing`, see `interpreters.ascend`) only
    configure how the `ascend.model` that runs is scheduled and watched; `max_steps` bounds
    its scheduler steps (None: the interpreter's default), `max_loop_iterations` the
    iterations of each graph-level While/For (None: `control.DEFAULT_MAX_LOOP_ITERATIONS`).
    Pass the `interpreter` of an earlier run of `module` (`make_interpreter(module)`) to reuse
    the programs it compiled (the module must not have changed); `compiled` False dispatches
    every op through xDSL's interpreter, the reference of the compiled executors.

    An entry fed by a GetNext (GetNext sink) takes `inputs` and then every set of `queue` as
    its queue of input sets: launches run until the queue is empty, each pulling one set per
    GetNext execution (N with `ge-sink-loop` N); `RunResult.launches` has every launch's
    outputs. `queue` is refused for any other entry. `variables` is the session's variable
    store the run reads and updates (None: the interpreter's own, fresh for a fresh
    interpreter)."""
    from xdsl.utils.exceptions import InterpretationError

    from gedialects.ascend import ModelOp
    from gedialects.interpreters import make_interpreter
    from gedialects.interpreters.ascend import configure, last_stats
    from gedialects.interpreters.control import configure_loops
    from gedialects.interpreters.kernels import InputDataError, KernelError, known_failure

    op = find_entry(module, entry)
    sig = signature(op)
    if queue and not sig.getnext:
        raise RunError(
            f"@{sig.entry} is not fed by a GetNext: it takes one input set, "
            f"{len(queue) + 1} were given"
        )
    args = check_inputs(sig, inputs)
    feed: InputQueue | None = None
    if sig.getnext:
        data = len(sig.input_names) - sig.getnext
        sets = [args, *(check_inputs(sig, s) for s in queue)]
        names = sig.input_names[data:]
        feed = InputQueue([dict(zip(names, s[data:], strict=True)) for s in sets])
        args = args[:data]
    routed = sig.route(args) if sig.route is not None else None
    if routed is not None:
        op, args = routed
    elif sig.binder is not None:
        args = sig.binder(args)
    instrumented = schedule_seed is not None or check_uninitialized or timing
    if instrumented and not isinstance(op, ModelOp):
        raise RunError(
            "schedule seeds, uninitialised-memory checks and timing instrument ascend.model "
            f"runs; @{symbol_name(op)} is a '{op.name}' (compile it with ge-compile)"
        )
    from gedialects.interpreters.graph import COMPILED, GraphFunctions
    from gedialects.interpreters.graph.dataflow import stacks

    interpreter = interpreter if interpreter is not None else make_interpreter(module)
    if variables is not None:
        from gedialects.interpreters.variables import use_store

        use_store(interpreter, variables)
    configure_loops(interpreter, max_loop_iterations)
    limits = {} if max_steps is None else {"max_steps": max_steps}
    configure(
        interpreter,
        schedule_seed=schedule_seed,
        check_uninitialized=check_uninitialized,
        timing=timing,
        compiled=compiled,
        **limits,
    )
    interpreter.set_data(GraphFunctions, COMPILED, compiled)
    name = symbol_name(op)
    begin = time.perf_counter()
    launches: list[tuple[object, ...]] = []
    try:
        with progress.task(f"running @{name}"):
            if feed is None:
                with stacks():  # a launch's data-flow stacks live for that launch
                    launches.append(tuple(interpreter.call_op(op, args)))
            else:
                with feeding(feed):
                    while len(feed):
                        before = len(feed)
                        with stacks():
                            launches.append(tuple(interpreter.call_op(op, args)))
                        if len(feed) == before:
                            raise RunError(f"@{name} ran without pulling an input set")
    except InputDataError as e:  # the data's fault, not the program's: name the op it hit
        raise RunError(_in_op(interpreter, str(e).strip().splitlines()[0])) from None
    except (InterpretationError, KernelError, budget.MemoryBudgetError) as e:
        raise RunError(str(e).strip().splitlines()[0]) from None
    except ValueError as e:
        what = known_failure(e)
        if what is None:
            raise
        raise RunError(_in_op(interpreter, what)) from None
    logger.info("ran @%s (%s) in %.3f s", name, op.name, time.perf_counter() - begin)
    count = len(sig.output_names)  # GetNext sink: the hidden dims output is dropped
    named = tuple(
        {out: np.asarray(v) for out, v in zip(sig.output_names, results[:count], strict=True)}
        for results in launches
    )
    stats = last_stats(interpreter) if isinstance(op, ModelOp) else None
    pulled = feed.pulled if feed is not None else 0
    return RunResult(named[-1], op, stats, named if feed is not None else (), pulled)


def run(
    module: ModuleOp,
    inputs: Mapping[str, np.ndarray],
    entry: str | None = None,
    *,
    schedule_seed: int | None = None,
    check_uninitialized: bool = False,
    timing: bool = False,
    max_steps: int | None = None,
    max_loop_iterations: int | None = None,
    interpreter: Interpreter | None = None,
    variables: VariableStore | None = None,
) -> dict[str, np.ndarray]:
    """Runs the entry point of `module` on named inputs and returns named outputs
    (`run_entry` for the instruments, the statistics and reusing an `interpreter`)."""
    return run_entry(
        module,
        inputs,
        entry,
        schedule_seed=schedule_seed,
        check_uninitialized=check_uninitialized,
        timing=timing,
        max_steps=max_steps,
        max_loop_iterations=max_loop_iterations,
        interpreter=interpreter,
        variables=variables,
    ).outputs
