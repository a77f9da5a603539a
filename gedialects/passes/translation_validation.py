"""Translation validation: a pass (or pipeline) must keep the numbers the interpreter computes.

`check_pass_keeps_numbers(module, pass_or_pipeline)` runs the interpreter on `module` and on a
transformed copy with the same inputs (several random seeds and/or given inputs) and compares
every output: same names, shapes and dtypes, values within `rtol`/`atol` (NaN equals NaN). A
difference raises `NumbersChanged` (an AssertionError, so pytest shows it as a failed check)
naming the seed, the output and the largest difference. The transformed module is returned for
structural checks. `ge-run --compare A.mlir B.mlir` uses `compare_modules` for the same test
on two files.

Random inputs come from the first signature with static shapes: before the pass, or after it
when only the pass made them static (`ge-infer-shapes{input-shape=...}`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from gedialects.base import tensor_shape
from gedialects.interpreters.run import RunError, find_entry, random_inputs, run, signature

Inputs = Mapping[str, np.ndarray]

DEFAULT_SEEDS = (0, 1, 2)
DEFAULT_RTOL = 1e-4
DEFAULT_ATOL = 1e-5


class NumbersChanged(AssertionError):
    """The transformed program computes different outputs (the message says where)."""


@dataclass
class Validation:
    """The outcome of one successful check."""

    after: ModuleOp
    runs: int
    max_abs_diff: dict[str, float] = field(default_factory=dict)


def compare_outputs(
    got: Mapping[str, np.ndarray],
    want: Mapping[str, np.ndarray],
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
) -> list[str]:
    """One line per output that is missing, differs in shape or dtype, or in values."""
    problems: list[str] = []
    for name in sorted(set(got) | set(want)):
        if name not in got or name not in want:
            where = "after" if name not in got else "before"
            problems.append(f"output '{name}' is missing {where}")
            continue
        a, b = np.asarray(got[name]), np.asarray(want[name])
        if a.shape != b.shape:
            problems.append(f"output '{name}' has shape {list(a.shape)}, expected {list(b.shape)}")
        elif a.dtype.kind == b.dtype.kind == "U":  # strings: any width, equal text
            if not np.array_equal(a, b):
                problems.append(f"output '{name}' differs: {strings_differing(a, b)}")
        elif a.dtype != b.dtype:
            problems.append(f"output '{name}' has dtype {a.dtype}, expected {b.dtype}")
        elif not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            diff = _max_abs_diff(a, b)
            where = np.unravel_index(int(np.argmax(_abs_diff(a, b))), a.shape) if a.ndim else ()
            problems.append(
                f"output '{name}' differs: max abs diff {diff:.3g} at {list(map(int, where))} "
                f"(rtol {rtol:g}, atol {atol:g})"
            )
    return problems


def _abs_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    both_nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return np.where(both_nan, 0.0, np.nan_to_num(d, nan=np.inf))


def strings_differing(a: np.ndarray, b: np.ndarray) -> str:
    """How two string arrays of one shape differ: the count and the first position."""
    unequal = np.asarray(a != b)
    where = np.unravel_index(int(np.argmax(unequal)), a.shape) if a.ndim else ()
    first = a[where] if a.ndim else a[()]
    other = b[where] if b.ndim else b[()]
    return (
        f"{int(np.count_nonzero(unequal))} of {a.size} strings, first at "
        f"{list(map(int, where))}: {str(first)!r}, expected {str(other)!r}"
    )


def _max_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(_abs_diff(a, b).max()) if a.size else 0.0


def _static(module: ModuleOp, entry: str | None) -> bool:
    sig = signature(find_entry(module, entry))
    return all(
        (shape := tensor_shape(t)) is not None and all(d >= 0 for d in shape)
        for t in sig.input_types
    )


def input_sets(
    before: ModuleOp,
    after: ModuleOp,
    seeds: Sequence[int],
    inputs: Inputs | Sequence[Inputs] | None = None,
    entry: str | None = None,
    fixed: Inputs | None = None,
) -> list[tuple[str, dict[str, np.ndarray]]]:
    """(label, inputs) pairs: each given input set, then random inputs per seed (with the
    `fixed` inputs in place of random ones)."""
    given: list[Inputs] = []
    if isinstance(inputs, Mapping):
        given = [inputs]
    elif inputs is not None:
        given = list(inputs)
    sets = [(f"inputs #{i}", dict(g)) for i, g in enumerate(given)]
    if seeds:
        source = before if _static(before, entry) else after
        sig = signature(find_entry(source, entry))
        for seed in seeds:
            sets.append((f"seed {seed}", random_inputs(sig, seed) | dict(fixed or {})))
    return sets


def compare_modules(
    before: ModuleOp,
    after: ModuleOp,
    inputs: Sequence[tuple[str, Inputs]],
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    entry: str | None = None,
) -> tuple[list[str], dict[str, float]]:
    """Runs both on each input set: the problems found (prefixed by the set's label) and the
    largest absolute difference of each output."""
    problems: list[str] = []
    worst: dict[str, float] = {}
    for label, values in inputs:
        want = run(before, values, entry)
        try:
            got = run(after, values, entry)
        except RunError as e:
            problems.append(f"{label}: the transformed program fails: {e}")
            continue
        problems += [f"{label}: {p}" for p in compare_outputs(got, want, rtol, atol)]
        for name in set(got) & set(want):
            a, b = np.asarray(got[name]), np.asarray(want[name])
            if a.shape == b.shape:
                worst[name] = max(worst.get(name, 0.0), _max_abs_diff(a, b))
    return problems, worst


def _pipeline(
    pass_or_pipeline: ModulePass | Sequence[ModulePass] | str,
) -> PassPipeline:
    if isinstance(pass_or_pipeline, str):
        from xdsl.transforms import get_all_passes as xdsl_passes

        from gedialects.passes import get_all_passes

        available = {n: f for n, f in xdsl_passes().items() if n in ("cse", "dce", "canonicalize")}
        return PassPipeline.parse_spec(available | get_all_passes(), pass_or_pipeline)
    if isinstance(pass_or_pipeline, ModulePass):
        return PassPipeline((pass_or_pipeline,))
    return PassPipeline(tuple(pass_or_pipeline))


def check_pass_keeps_numbers(
    module: ModuleOp,
    pass_or_pipeline: ModulePass | Sequence[ModulePass] | str,
    *,
    seeds: Sequence[int] = DEFAULT_SEEDS,
    inputs: Inputs | Sequence[Inputs] | None = None,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    entry: str | None = None,
    ctx: Context | None = None,
) -> Validation:
    """Applies the pass(es) to a copy of `module` and checks the outputs did not change.

    `pass_or_pipeline` is a pass, a sequence of passes, or a pipeline spec such as
    `"ge-infer-shapes{input-shape=\\"x:1,4\\"},ge-fold-constants"`. `module` is left untouched;
    the transformed copy is verified after every pass and returned in the `Validation`.
    """
    from gedialects import make_context

    module.verify()
    after = module.clone()
    pipeline = _pipeline(pass_or_pipeline)
    for p in pipeline.passes:
        p.apply(ctx or make_context(), after)
        after.verify()
    sets = input_sets(module, after, seeds, inputs, entry)
    if not sets:
        raise ValueError("check_pass_keeps_numbers needs seeds or inputs")
    problems, worst = compare_modules(module, after, sets, rtol, atol, entry)
    if problems:
        names = ",".join(p.name for p in pipeline.passes)
        raise NumbersChanged(f"'{names}' changed the numbers: " + "; ".join(problems))
    return Validation(after, len(sets), worst)
