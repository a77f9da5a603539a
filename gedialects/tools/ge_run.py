"""`ge-run`: runs a graph or an ascend model with the interpreter on numpy inputs.

    ge-run FILE.mlir --inputs IN.npz -o OUT.npz
    ge-run FILE.mlir --input x=x.npy --random-inputs 0 --reference REF.npz
    ge-run MODEL.mlir --random-inputs 0 --trace out.json --profile --check-uninitialized
    ge-run --compare BEFORE.mlir AFTER.mlir --random-inputs 0

npz keys are the graph's input and output names. Every user error is one `error:` line and
exit code 1 (GE_DEBUG=1 shows the traceback of an internal error).
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import logging
import os
import sys
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from gedialects.budget import MAX_MEMORY_HELP
from gedialects.tools import cli

if TYPE_CHECKING:
    from gedialects.interpreters.run import Signature

logger = logging.getLogger(__name__)

DESCRIPTION = "Run a gedialects graph or ascend model with the numpy interpreter."


UsageError = cli.UsageError
"""A bad command line (printed with a pointer to `ge-run --help`)."""
InputFileError = cli.UserError
"""An unreadable input file."""


def _parser() -> argparse.ArgumentParser:
    p = cli.ArgumentParser(prog="ge-run", description=DESCRIPTION)
    p.add_argument(
        "file",
        nargs="?",
        help="IR holding graph.graph or ascend.model ops: text (.mlir) or binary (.gebc, .om), "
        "or an ONNX model (.onnx); - reads stdin",
    )
    p.add_argument("--entry", help="graph or model symbol to run (default: the only root)")
    p.add_argument(
        "--inputs",
        action="append",
        default=[],
        metavar="IN.npz",
        help="inputs keyed by input name; give it again for each further input set of a "
        "model fed by a GetNext (its queue: launches run until it is empty)",
    )
    p.add_argument(
        "--input", action="append", default=[], metavar="NAME=FILE.npy", help="one input"
    )
    p.add_argument(
        "--random-inputs",
        type=cli.seed,
        metavar="SEED",
        help="fill inputs not given otherwise with reproducible random data",
    )
    p.add_argument(
        "-o", "--output", metavar="OUT.npz", help="write the outputs here (-: npz to stdout)"
    )
    p.add_argument(
        "--reference", metavar="REF.npz", help="compare the outputs with these; exit 1 if unequal"
    )
    p.add_argument(
        "--rtol", type=cli.ascii_float, default=1e-5, help="relative tolerance of --reference"
    )
    p.add_argument(
        "--atol", type=cli.ascii_float, default=1e-6, help="absolute tolerance of --reference"
    )
    cli.add_verbosity(p, "do not print the output summary; print no progress bars or logs")
    p.add_argument("--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP)
    p.add_argument(
        "--compare",
        nargs=2,
        metavar=("A.mlir", "B.mlir"),
        help="run both programs on the same inputs (--random-inputs, --inputs, --input) and "
        "compare their outputs with --rtol/--atol; exit 1 if they differ",
    )
    p.add_argument(
        "--max-loop-iterations",
        type=cli.ascii_int,
        metavar="N",
        help="stop a graph-level While or For after N iterations with an error (default 10^6)",
    )
    p.add_argument(
        "--variables",
        metavar="IN.npz",
        help="values of the module's variables by name, instead of their initial values",
    )
    p.add_argument(
        "--dump-variables",
        metavar="OUT.npz",
        help="write every variable's value after the run here (-: npz to stdout)",
    )
    model = p.add_argument_group("ascend.model runs")
    model.add_argument(
        "--trace",
        metavar="OUT.json",
        help="write the simulated timeline as a Chrome trace (Perfetto, chrome://tracing); "
        "-: to stdout",
    )
    model.add_argument(
        "--profile",
        action="store_true",
        help="print per-engine and per-stream busy time, makespan and critical path",
    )
    model.add_argument(
        "--check-uninitialized",
        action="store_true",
        help="fail on a read of arena bytes no task wrote or another buffer overwrote",
    )
    model.add_argument(
        "--schedule-seed",
        type=cli.ascii_int,
        metavar="SEED",
        help="run a random runnable stream at each step (default: the lowest stream id)",
    )
    model.add_argument(
        "--max-steps",
        type=cli.ascii_int,
        metavar="N",
        help="stop a model run after N executed tasks (default: a budget of 16 x its tasks x "
        "its iterations_per_loop, which stops a label loop that never exits)",
    )
    return p


def _max_steps(args: argparse.Namespace) -> int | None:
    if args.max_steps is not None and args.max_steps < 1:
        raise UsageError(f"--max-steps must be a positive integer, got {args.max_steps}")
    return args.max_steps


def _max_loop_iterations(args: argparse.Namespace) -> int | None:
    if args.max_loop_iterations is not None and args.max_loop_iterations < 0:
        raise UsageError(
            f"--max-loop-iterations must be a non-negative integer, got {args.max_loop_iterations}"
        )
    return args.max_loop_iterations


def _model_options(args: argparse.Namespace) -> bool:
    return bool(
        args.trace or args.profile or args.check_uninitialized or args.schedule_seed is not None
    )


def _run(
    module, inputs: dict, args: argparse.Namespace, queue: Sequence[dict] = ()
) -> tuple[list[dict], str | None]:
    """Runs the entry, instrumented as asked, on the one route of every run (`run_entry`:
    input checks, gears, hybrid fallback, GetNext queues): the outputs of each launch (one
    unless a GetNext pulls the `queue`) and the profile text."""
    from gedialects.ascend import ModelOp
    from gedialects.interpreters.run import find_entry, run_entry

    if _model_options(args):
        entry = find_entry(module, args.entry)
        if not isinstance(entry, ModelOp):
            raise UsageError(
                "--trace, --profile, --check-uninitialized and --schedule-seed run ascend.model "
                f"entries; @{entry.sym_name.data} is a '{entry.name}' (compile it with ge-compile)"
            )
    store = _load_variables(module, args)
    result = run_entry(
        module,
        inputs,
        args.entry,
        schedule_seed=args.schedule_seed,
        check_uninitialized=args.check_uninitialized,
        max_steps=_max_steps(args),
        max_loop_iterations=_max_loop_iterations(args),
        timing=bool(args.trace or args.profile),
        queue=queue,
        variables=store,
    )
    if args.dump_variables:
        _write_npz(args.dump_variables, store.snapshot())
    timeline = result.stats.timeline if result.stats is not None else None
    if timeline is not None and args.trace:
        _write_trace(args.trace, timeline)
    profile = timeline.profile() if timeline is not None and args.profile else None
    if profile is not None and result.stats is not None and result.stats.dynamic_peak:
        profile += (
            f"\n  dynamic memory peak     {result.stats.dynamic_peak} bytes (placed at run time)"
        )
    return list(result.launches or (result.outputs,)), profile


def _load_variables(module, args: argparse.Namespace):
    """The run's variable store: `--variables`' values, checked by name, shape and dtype
    against the module's variables (the others start from their initial values)."""
    from gedialects.interpreters.run import RunError
    from gedialects.interpreters.variables import VariableStore, module_variables

    store = VariableStore()
    if args.variables:
        declared = module_variables(module)
        names = sorted(declared)

        def unknown(name: str, names: Collection[str]) -> str:
            known = ", ".join(names) or "none"
            return f"unknown variable '{name}' (the module's variables: {known})"

        from gedialects.npz import ArrayFileError, load_npz

        try:
            values = load_npz(args.variables, names, unknown)
        except ArrayFileError as e:
            raise InputFileError(str(e)) from None
        try:
            store.update(values, declared)
        except RunError as e:
            raise InputFileError(f"{args.variables}: {e}") from None
    return store


def _load_npz(
    path: str, expected: Sequence[str] | None = None, what: str = "", entry: str = ""
) -> dict:
    """The arrays of an npz; with `expected` (the entry's `what`s: input, output), its member
    names are checked before any member is inflated, and every member's size against the memory
    budget (gedialects.npz)."""
    from gedialects.npz import ArrayFileError, load_npz

    def unknown(name: str, names: Collection[str]) -> str:
        return f"unknown {what} '{name}' for @{entry} (its {what}s are: {', '.join(names)})"

    try:
        return load_npz(path, expected, unknown)
    except ArrayFileError as e:
        raise InputFileError(str(e)) from None


def _load_inputs(args: argparse.Namespace, sig: Signature | None = None) -> dict:
    """--inputs and --input; with the entry's signature `sig`, npz keys are checked first."""
    from gedialects.npz import ArrayFileError, load_npy

    names = sig.input_names if sig is not None else None
    entry = sig.entry if sig is not None else ""
    inputs = _load_npz(args.inputs[0], names, "input", entry) if args.inputs else {}
    for item in args.input:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--input expects NAME=FILE.npy, got '{item}'")
        try:
            inputs[name] = load_npy(path)
        except ArrayFileError as e:
            raise InputFileError(str(e)) from None
    return inputs


class _Heap:
    """The cyclic garbage collector around one command: paused while the tools' modules are
    imported and the input is loaded and verified (all of it lives until the command ends,
    and the collections its allocations trigger walked the growing heap again and again;
    they found some 400 cyclic objects at 10k nodes), then everything alive is frozen
    (`gc.freeze`, out of every later collection's walk) and collection resumes for the run.
    On exit the collector is as it was (`main` is also called in-process, by the tests)."""

    def __enter__(self) -> _Heap:
        self.enabled = gc.isenabled()
        self.frozen = gc.get_freeze_count()
        gc.disable()
        return self

    def settled(self) -> None:
        """The loaded, verified module is alive for the rest of the command."""
        gc.freeze()
        if self.enabled:
            gc.enable()

    def __exit__(self, *exc: object) -> None:
        if not self.frozen:
            gc.unfreeze()
        if self.enabled:
            gc.enable()


def _parse_module(path: str, heap: _Heap | None = None):
    """The verified module of a text (.mlir) or binary (.gebc, .om) IR file, or of an ONNX
    model (.onnx, imported to the graph level); `-` reads stdin (`tools.streams`). Verifier
    errors in a text file are located (`tools.diagnostics`)."""
    from gedialects import make_context
    from gedialects.tools.diagnostics import verify_located
    from gedialects.tools.streams import load_module

    module = load_module(path, make_context())
    verify_located(module, path)
    if heap is not None:
        heap.settled()
    return module


def _gear_line(entry, inputs: dict) -> str | None:
    """For a gear model run at one of its gears: the gear, its symbol values and each
    output's recorded shape expression (`_symbolic_output_shape`) with its value."""
    from gedialects.interpreters.gears import GearInfo

    info = GearInfo.find_model(entry)
    if info is None or info.getnext or not info.symbolic_output_shapes():
        return None
    shapes = {name: tuple(value.shape) for name, value in inputs.items()}
    if any(name not in shapes for name in info.input_names):
        return None
    gear = info.config.match(shapes)
    return None if gear is None else info.describe_gear(gear)


def _summary(outputs: dict) -> str:
    import numpy as np

    lines = []
    for name, value in outputs.items():
        flat = np.asarray(value).ravel()
        head = np.array2string(flat[:6], precision=4, separator=", ")
        more = " ..." if flat.size > 6 else ""
        stats = ""
        if flat.size and flat.dtype.kind in "fiu":
            stats = f" mean={flat.mean():.6g} std={flat.std():.6g}"
        lines.append(f"{name}: {value.dtype}{list(value.shape)}{stats} {head}{more}")
    return "\n".join(lines)


def _compare(outputs: dict, reference: dict, rtol: float, atol: float) -> list[str]:
    import numpy as np

    from gedialects.passes.translation_validation import strings_differing

    problems = []
    for name in sorted(set(outputs) | set(reference)):
        if name not in outputs or name not in reference:
            where = "reference" if name not in reference else "outputs"
            problems.append(f"'{name}' missing from the {where}")
            continue
        got, want = np.asarray(outputs[name]), np.asarray(reference[name])
        strings = (got.dtype.kind == "U", want.dtype.kind == "U")
        if got.shape != want.shape:
            problems.append(f"'{name}' has shape {list(got.shape)}, reference {list(want.shape)}")
        elif strings[0] != strings[1]:
            problems.append(f"'{name}' has dtype {got.dtype}, reference {want.dtype}")
        elif strings[0]:
            if not np.array_equal(got, want):
                problems.append(f"'{name}' differs: {strings_differing(got, want)}")
        elif not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
            diff = np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))
            problems.append(f"'{name}' differs (max abs diff {diff:.3g})")
    return problems


def _run_compare(args: argparse.Namespace, heap: _Heap | None) -> int:
    """`--compare A B`: translation validation of two files (`passes.translation_validation`)."""
    from gedialects.passes.translation_validation import compare_modules, input_sets

    if args.file is not None:
        raise UsageError("give either FILE or --compare A.mlir B.mlir, not both")
    first, second = args.compare
    a, b = _parse_module(first, heap), _parse_module(second, heap)
    given = _load_inputs(args)
    if args.random_inputs is None and not given:
        raise UsageError("--compare needs --random-inputs SEED, --inputs or --input")
    if args.random_inputs is None:
        sets = input_sets(a, b, (), [given], args.entry)
    else:
        sets = input_sets(a, b, (args.random_inputs,), None, args.entry, fixed=given)
    problems, worst = compare_modules(a, b, sets, args.rtol, args.atol, args.entry)
    if problems:
        print(f"MISMATCH between {first} and {second}: " + "; ".join(problems))
        return 1
    diff = max(worst.values(), default=0.0)
    count = len(worst)
    print(f"MATCH: {first} and {second} agree on all {count} outputs (max abs diff {diff:.3g})")
    return 0


def _npz_path(path: str) -> str:
    """Where numpy writes `-o PATH` (it appends `.npz` when missing)."""
    return path if path.endswith(".npz") else path + ".npz"


def _write_npz(path: str, outputs: dict) -> None:
    import numpy as np

    from gedialects.tools import streams

    if streams.is_std(path):
        buffer = io.BytesIO()
        np.savez(buffer, **outputs)
        streams.write_output(path, buffer.getvalue())
        return
    target = _npz_path(path)
    try:
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        np.savez(target, **outputs)
    except OSError as e:
        raise cli.cannot_write(target, e) from None


def _write_trace(path: str, timeline) -> None:
    from gedialects.tools import streams

    if streams.is_std(path):
        streams.write_output(path, json.dumps(timeline.chrome_trace(), separators=(",", ":")))
        sys.stdout.write("\n")
        return
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        timeline.write_chrome_trace(path)
    except OSError as e:
        raise cli.cannot_write(path, e) from None


def run_cli(argv: Sequence[str] | None, heap: _Heap | None = None) -> int:
    from gedialects.budget import max_memory_set

    args = _parser().parse_args(argv)
    cli.configure_output(args, "ge-run")
    cli.check_output(args.output, "-o/--output")
    cli.check_output(args.trace, "--trace")
    cli.check_output(args.dump_variables, "--dump-variables")
    if args.dump_variables == "-" and "-" in (args.output, args.trace):
        raise UsageError("--dump-variables - and another output both write to stdout")
    if args.output == "-" and args.trace == "-":
        raise UsageError("-o - and --trace - both write to stdout; send one of them to a file")
    with max_memory_set(cli.max_memory(args)):
        return _run_cli(args, heap)


def _run_cli(args: argparse.Namespace, heap: _Heap | None) -> int:
    if args.compare:
        return _run_compare(args, heap)
    if args.file is None:
        raise UsageError("give a FILE to run, or --compare A.mlir B.mlir")
    from gedialects.interpreters.run import find_entry, random_inputs, signature

    _max_steps(args)  # a bad --max-steps is refused before the file is read
    _max_loop_iterations(args)
    module = _parse_module(args.file, heap)
    sig = signature(find_entry(module, args.entry))
    inputs = _load_inputs(args, sig)
    if args.random_inputs is not None:
        generated = random_inputs(sig, args.random_inputs)
        inputs = generated | inputs
    for name, value in inputs.items():
        logger.debug("input '%s': %s%s", name, value.dtype, list(value.shape))
    queue = [_load_npz(path, sig.input_names, "input", sig.entry) for path in args.inputs[1:]]
    if queue and not sig.getnext:
        raise UsageError(
            f"--inputs is given {len(args.inputs)} times: @{sig.entry} is not fed by a GetNext "
            "(ge-sink-inputs), so it takes one input set"
        )
    launches, profile = _run(module, inputs, args, queue)
    # With the outputs or the trace on stdout (`-o -`, `--trace -`), the words go to stderr.
    words = sys.stderr if "-" in (args.output, args.trace, args.dump_variables) else sys.stdout
    outputs = launches[-1]
    if not args.quiet:
        gear = _gear_line(find_entry(module, args.entry), inputs)
        if gear is not None and len(launches) == 1:
            print(gear, file=words)
        if len(launches) == 1:
            print(_summary(outputs), file=words)
        for k, launch in enumerate(launches if len(launches) > 1 else ()):
            print(f"launch {k + 1}:", file=words)
            print(_summary(launch), file=words)
    if profile is not None:
        print(profile, file=words)
    if args.output:  # several launches: every launch's outputs, keyed `<name>:<launch>`
        written = (
            outputs
            if len(launches) == 1
            else {f"{n}:{k + 1}": v for k, launch in enumerate(launches) for n, v in launch.items()}
        )
        _write_npz(args.output, written)
    if args.reference:
        reference = _load_npz(args.reference, sig.output_names, "output", sig.entry)
        problems = _compare(outputs, reference, args.rtol, args.atol)
        if problems:
            print(f"MISMATCH with {args.reference}: " + "; ".join(problems), file=words)
            return 1
        print(f"MATCH: all {len(outputs)} outputs equal {args.reference}", file=words)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    with _Heap() as heap:
        return cli.run_main("ge-run", lambda: run_cli(argv, heap), _user_errors)


def _user_errors() -> tuple[type[BaseException], ...]:
    """The errors ge-run prints as one line, imported once one is caught (the interpreter's
    RunError: `ge-run --help` does not import the interpreters)."""
    from xdsl.utils.exceptions import DiagnosticException

    from gedialects.budget import MemoryBudgetError, MemorySizeError
    from gedialects.interpreters.run import RunError

    return (RunError, DiagnosticException, MemoryBudgetError, MemorySizeError)


if __name__ == "__main__":
    sys.exit(main())
