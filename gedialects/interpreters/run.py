"""Running a whole program: entry selection, input checking, random inputs, named outputs.

Shared by `ge-run`, the tests and the benchmarks so that every caller gets the same checks: a
missing, unknown, mis-shaped or mis-typed input is a `RunError` with a one-line message, never a
numpy error deep inside a kernel and never a silent cast.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation

from gedialects import budget
from gedialects.base import shapes_compatible, tensor_shape
from gedialects.graph import GraphOp
from gedialects.tensors import UnsupportedDtypeError, numpy_dtype

if TYPE_CHECKING:
    from xdsl.interpreter import Interpreter

    from gedialects.interpreters.ascend import RunStats


class RunError(Exception):
    """A program cannot be run on the inputs given; the message is one line for the user."""


@dataclass(frozen=True)
class Signature:
    """Named inputs and outputs of an entry point (a root graph or an ascend model)."""

    entry: str
    input_names: tuple[str, ...]
    input_types: tuple[Attribute, ...]
    output_names: tuple[str, ...]
    binder: Callable[[tuple[np.ndarray, ...]], tuple[np.ndarray, ...]] | None = None
    """Turns the checked user inputs into the entry's arguments (a multi-batch root selects
    the gear and adds its shape data); raises RunError. None: the inputs are the arguments."""
    example_types: tuple[Attribute, ...] | None = None
    """Static types for random inputs when `input_types` has `?` dims (a multi-batch root:
    its first gear)."""
    route: (
        Callable[[tuple[np.ndarray, ...]], tuple[Operation, tuple[np.ndarray, ...]] | None] | None
    ) = None
    """Hybrid mode: for checked user inputs, the op that runs them instead of the entry (the
    dynamic graph, for shapes of no gear) and its arguments; None: the entry runs them."""


SIGNATURE_ADAPTERS: tuple[str, ...] = ("gedialects.gears:gear_signature",)
"""`module:function(entry, signature) -> Signature | None` hooks that give an entry with
run-time input handling (multi-batch gears) its user-facing signature; the first non-None
wins. Kept as import paths so that `run` stays generic and imports them only when called."""


def _entry_ops(module: ModuleOp) -> list[Operation]:
    from gedialects.ascend import ModelOp

    return [op for op in module.ops if isinstance(op, GraphOp | ModelOp)]


def _referenced_symbols(module: ModuleOp) -> set[str]:
    """Symbols named by any op property (callees, case branches): those graphs are not roots."""
    used: set[str] = set()
    for op in module.walk():
        for value in (*op.properties.values(), *op.attributes.values()):
            items = value.data if hasattr(value, "data") and isinstance(value.data, tuple) else ()
            for attr in (value, *items):
                if isinstance(attr, SymbolRefAttr):
                    used.add(attr.root_reference.data)
    return used


def find_entry(module: ModuleOp, name: str | None = None) -> Operation:
    """The op to run: `name` if given, else the single ascend model or the single root graph."""
    from gedialects.ascend import ModelOp

    candidates = _entry_ops(module)
    if name is not None:
        for op in candidates:
            if op.sym_name.data == name:
                return op
        known = ", ".join(op.sym_name.data for op in candidates) or "none"
        raise RunError(f"no graph or model named '{name}' (available: {known})")
    models = [op for op in candidates if isinstance(op, ModelOp)]
    if models:
        # A model another model names (a hybrid gear model's dynamic fallback) is not an entry.
        named = {
            v.root_reference.data
            for m in models
            for v in m.attributes.values()
            if isinstance(v, SymbolRefAttr)
        }
        roots = [m for m in models if m.sym_name.data not in named]
    else:
        used = _referenced_symbols(module)
        roots = [op for op in candidates if op.sym_name.data not in used]
    if not roots:
        raise RunError("the input has no graph.graph or ascend.model to run")
    if len(roots) > 1:
        names = ", ".join(op.sym_name.data for op in roots)
        raise RunError(f"several entry points ({names}): choose one with --entry")
    return roots[0]


def signature(entry: Operation) -> Signature:
    """The entry's named inputs and outputs, as the user passes and receives them."""
    sig = _declared_signature(entry)
    for path in SIGNATURE_ADAPTERS:
        module, _, name = path.partition(":")
        adapted = getattr(importlib.import_module(module), name)(entry, sig)
        if adapted is not None:
            return adapted
    return sig


def _declared_signature(entry: Operation) -> Signature:
    from gedialects.ascend import ModelOp

    if isinstance(entry, GraphOp):
        return Signature(
            entry.sym_name.data,
            entry.input_names,
            entry.function_type.inputs.data,
            entry.output_names,
        )
    if isinstance(entry, ModelOp):
        inputs = entry.inputs()
        return Signature(
            entry.sym_name.data,
            entry.input_names,
            tuple(op.buffer.type for op in inputs),
            entry.output_names,
        )
    raise RunError(f"'{entry.name}' is not runnable")


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
        if array.dtype != dtype:
            raise RunError(
                f"input '{name}' has dtype {array.dtype}, @{sig.entry} expects {dtype} ({ttype})"
            )
        expected = tensor_shape(ttype)
        if not shapes_compatible(expected, array.shape):
            raise RunError(
                f"input '{name}' has shape {_dims(array.shape)}, "
                f"@{sig.entry} expects {_dims(expected)} ({ttype})"
            )
        ordered.append(array)
    return tuple(ordered)


def _element_type(ttype: Attribute) -> Attribute:
    if isinstance(ttype, TensorType | UnrankedTensorType):
        return ttype.element_type
    raise RunError(f"input type {ttype} is not a tensor")


def random_inputs(sig: Signature, seed: int) -> dict[str, np.ndarray]:
    """Reproducible inputs: floats ~ N(0, 1), integers in [0, 10), booleans fair coins."""
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


def run_entry(
    module: ModuleOp,
    inputs: Mapping[str, np.ndarray],
    entry: str | None = None,
    *,
    schedule_seed: int | None = None,
    check_uninitialized: bool = False,
    timing: bool = False,
    max_steps: int | None = None,
) -> RunResult:
    """Runs the entry point of `module` on named inputs, optionally instrumented.

    Instrumented and plain runs take one route: the same input checks, the same gear binding
    and hybrid fallback (`Signature.route`), the same interpreter call; the instruments
    (`schedule_seed`, `check_uninitialized`, `timing`, see `interpreters.ascend`) only
    configure how the `ascend.model` that runs is scheduled and watched; `max_steps` bounds
    its scheduler steps (None: the interpreter's default)."""
    from xdsl.interpreter import InterpretationError

    from gedialects.ascend import ModelOp
    from gedialects.interpreters import make_interpreter
    from gedialects.interpreters.ascend import configure, last_stats
    from gedialects.interpreters.kernels import KernelError, known_failure

    op = find_entry(module, entry)
    sig = signature(op)
    args = check_inputs(sig, inputs)
    routed = sig.route(args) if sig.route is not None else None
    if routed is not None:
        op, args = routed
    elif sig.binder is not None:
        args = sig.binder(args)
    instrumented = schedule_seed is not None or check_uninitialized or timing
    if instrumented and not isinstance(op, ModelOp):
        raise RunError(
            "schedule seeds, uninitialised-memory checks and timing instrument ascend.model "
            f"runs; @{op.sym_name.data} is a '{op.name}' (compile it with ge-compile)"  # type: ignore[attr-defined]
        )
    interpreter = make_interpreter(module)
    limits = {} if max_steps is None else {"max_steps": max_steps}
    configure(
        interpreter,
        schedule_seed=schedule_seed,
        check_uninitialized=check_uninitialized,
        timing=timing,
        **limits,
    )
    try:
        results = interpreter.call_op(op, args)
    except (InterpretationError, KernelError, budget.MemoryBudgetError) as e:
        raise RunError(str(e).strip().splitlines()[0]) from None
    except ValueError as e:
        what = known_failure(e)
        if what is None:
            raise
        raise RunError(_in_op(interpreter, what)) from None
    outputs = {name: np.asarray(v) for name, v in zip(sig.output_names, results, strict=True)}
    stats = last_stats(interpreter) if isinstance(op, ModelOp) else None
    return RunResult(outputs, op, stats)


def run(
    module: ModuleOp,
    inputs: Mapping[str, np.ndarray],
    entry: str | None = None,
    *,
    schedule_seed: int | None = None,
    check_uninitialized: bool = False,
    timing: bool = False,
    max_steps: int | None = None,
) -> dict[str, np.ndarray]:
    """Runs the entry point of `module` on named inputs and returns named outputs
    (`run_entry` for the instruments and the statistics)."""
    return run_entry(
        module,
        inputs,
        entry,
        schedule_seed=schedule_seed,
        check_uninitialized=check_uninitialized,
        timing=timing,
        max_steps=max_steps,
    ).outputs
