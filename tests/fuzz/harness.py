"""The fuzz harness: run one input through a tool, in a forked worker or a real subprocess, and
check what the project promises for bad input (docs: issue 13, `tests/fuzz/README.md`).

A case is a tool, its command line and the files it reads, all inside one folder of its own.
`run_forked` calls the tool's `main(argv)` in a child forked from this (already warm) process,
so a case costs ~0.1 s instead of the ~0.4 s of a fresh interpreter, and still gets a hard
timeout (SIGKILL), an address-space limit (RLIMIT_AS) and its own stdout/stderr. `run_subprocess`
starts the installed console script the way a user does, for a sample of the cases.

`check` turns an outcome into findings, each of one class:

- `hang`: no answer within the time bound;
- `crash`: killed by a signal (a segfault, or the RLIMIT_AS kill of an allocation outside Python);
- `memory`: a `MemoryError` (RLIMIT_AS), or a peak resident size above `RSS_BOUND`;
- `traceback`: a Python traceback on stderr;
- `internal-error`: the tools' `internal error (...)` line, where a message is due;
- `exit-code`: an exit code other than 0 (accepted) and 1 (rejected);
- `error-lines`: a rejected input without exactly one `error:` line on stderr (notes aside),
  or an accepted one with an `error:` line;
- `level-mismatch`, `level-reject`, `round-trip`: an accepted input whose graph-level and
  ascend-level runs give different numbers, whose compiled model fails where the graph runs
  (other than by the memory budget's one-line refusal, `budget_refusal`), or whose printed
  form does not read back to the same text (two narrow exceptions, each with its reason:
  `relocation_keeps_numbers` for edited ascend models, `conv_bn_overflow` for GE's
  Conv+BatchNorm folding on weights near the float limit);
- `text-mismatch`: an accepted ONNX model whose imported module, run in process, and its
  printed file, run by `ge-run`, give different numbers;
- `wrongly-accepted`: a regression input that must be rejected was accepted.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shlex
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

TIME_BOUND = float(os.environ.get("GE_FUZZ_TIMEOUT", "5"))
"""CPU seconds one tool invocation may take (wall time: WALL_FACTOR times that)."""

MEMORY_BOUND = 1 << 30
"""Bytes of address space a case may add to the worker (RLIMIT_AS above the worker's size)."""

BUDGET = "256M"
"""GE_MAX_MEMORY inside a case: the project's own limit must fire well before RLIMIT_AS."""

RSS_BOUND = (256 << 20) * 2
"""Peak resident bytes a case may add to its worker: the budget plus as much again."""

TOOLS = ("ge-opt", "ge-run", "ge-import", "ge-atc", "session")

FINDING_CLASSES = (
    "hang",
    "crash",
    "memory",
    "traceback",
    "internal-error",
    "exit-code",
    "error-lines",
    "level-mismatch",
    "level-reject",
    "round-trip",
    "text-mismatch",
    "wrongly-accepted",
)


@dataclass
class Case:
    """One input: `argv` of `tool`, run in a folder holding `files` (paths relative to it).

    For `tool == "session"` the argv is one JSON document for `session_main`."""

    family: str
    tool: str
    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    _: KW_ONLY
    check_levels: bool = False
    """Accepted: also compare the graph and ascend levels (`level_checks`)."""
    check_output: bool = False
    """Accepted: `out.mlir` (the pipeline's result) computes what `input.mlir` does."""
    check_model: bool = False
    """Accepted `ge-atc`: its model runs, with the numbers of the ONNX model (`model_checks`)."""
    note: str = ""
    """How the input was made (the mutator and its parameters)."""
    expect: str = ""
    """`rejected`: the input must get an error (a regression of something once accepted)."""

    def command(self) -> str:
        if self.tool == "session":
            return "python -m tests.fuzz.replay session.json"
        return shlex.join([self.tool, *self.argv])


@dataclass
class Outcome:
    rc: int | None
    stdout: str
    stderr: str
    seconds: float
    maxrss: int = 0
    """Peak resident set of the child in bytes (ru_maxrss)."""
    base_rss: int = 0
    """Resident set of the worker when it forked (the child starts with its pages)."""
    cpu_seconds: float = 0.0
    timed_out: bool = False
    signal: int | None = None


@dataclass
class Finding:
    cls: str
    case: Case
    outcome: Outcome
    detail: str
    step: str = ""
    """The command of the step that failed when it is not the case's own (level checks)."""

    def signature(self) -> str:
        """Groups findings of one cause: class, tool and the error text without numbers/paths."""
        text = self.detail
        text = re.sub(r"'[^']*'|\"[^\"]*\"", "'_'", text)
        text = re.sub(r"[0-9]+", "N", text)
        return f"{self.cls}|{self.case.tool}|{text[:120]}"


# --------------------------------------------------------------------------------------------
# in-process entry points
# --------------------------------------------------------------------------------------------


def tool_main(tool: str) -> Callable[[list[str]], int]:
    if tool == "ge-opt":
        from gedialects.tools.ge_opt import main
    elif tool == "ge-run":
        from gedialects.tools.ge_run import main
    elif tool == "ge-import":
        from gedialects.tools.ge_import import main
    elif tool == "ge-atc":
        from gedialects.tools.ge_atc import main
    elif tool == "session":
        return session_main
    else:
        raise ValueError(f"unknown tool {tool}")
    return main


def warm_up() -> None:
    """Imports what the tools import lazily, once, so that each fork starts warm."""
    import numpy  # noqa: F401
    import onnx  # noqa: F401

    import gedialects.frontend.onnx
    import gedialects.interpreters.ascend
    import gedialects.interpreters.run
    import gedialects.passes.pipelines
    import gedialects.passes.translation_validation
    import gedialects.session  # noqa: F401
    from gedialects.passes import get_all_passes

    for factory in get_all_passes().values():
        factory()
    for tool in TOOLS:
        tool_main(tool)


WRONG_NUMBERS = 3
"""session_main's exit code for outputs that differ from the script's oracle."""


def session_main(argv: list[str]) -> int:
    """Runs a Session script (JSON: options, graph, graph options, run inputs) like a tool:
    a `GEError` is the user's error (one `error:` line, exit 1); anything else propagates."""
    import numpy as np

    from gedialects.session import GEError, Session

    spec = json.loads(argv[0])
    try:
        session = Session(spec.get("options"))
        session.add_graph(spec.get("graph_id", 1), spec["graph"], spec.get("graph_options"))
        if "inputs" in spec:
            inputs = spec["inputs"]
            if isinstance(inputs, dict):
                arrays = {
                    k: np.asarray(v["data"], dtype=v.get("dtype", "float32"))
                    if isinstance(v, dict)
                    else v
                    for k, v in inputs.items()
                }
            else:
                arrays = inputs
            outputs = session.run_graph(spec.get("graph_id", 1), arrays)
            for name, value in outputs.items():
                print(f"{name}: {np.asarray(value).dtype}{list(np.shape(value))}")
            if spec.get("oracle") == "relu":
                given = next(iter(arrays.values())) if isinstance(arrays, dict) else arrays[0]
                want = np.maximum(np.asarray(given), 0)
                got = [np.asarray(v) for v in outputs.values()]
                if len(got) != 1 or got[0].shape != want.shape or not np.allclose(got[0], want):
                    print(f"wrong numbers: relu of {want.tolist()} gave {got}", file=sys.stderr)
                    return WRONG_NUMBERS
        else:
            session.compile_graph(spec.get("graph_id", 1))
    except GEError as e:
        message = str(e)
        print(f"error: {message}", file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------------


def _vm_size(field: str = "VmSize") -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def write_files(case: Case, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _child(
    tool: str, main: Callable[[list[str]], int], argv: list[str], folder: Path, limit: int
) -> None:
    """The forked worker: limits, redirections, main(argv), _exit. Never returns."""
    rc = 1
    try:
        os.chdir(folder)
        os.setpgid(0, 0)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.environ["GE_MAX_MEMORY"] = BUDGET
        os.environ.pop("GE_DEBUG", None)
        out = os.open("stdout.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        err = os.open("stderr.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(out, 1)
        os.dup2(err, 2)
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        sys.stdin = open(os.devnull)  # noqa: SIM115
        sys.argv = [tool, *argv]
        from gedialects import budget

        budget.set_max_memory(None)
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:
            traceback.print_exc()
            rc = 70
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        try:
            traceback.print_exc()
            sys.stderr.flush()
        finally:
            os._exit(71)
    os._exit(rc if isinstance(rc, int) else 1)


class Running:
    """A forked case in flight."""

    def __init__(
        self,
        tool: str | Callable[[list[str]], int],
        argv: list[str],
        folder: Path,
        timeout: float,
    ) -> None:
        main = tool_main(tool) if isinstance(tool, str) else tool
        name = tool if isinstance(tool, str) else "worker"
        self.folder = folder
        self.timeout = timeout
        limit = _vm_size() + MEMORY_BOUND
        self.base_rss = _vm_size("VmRSS")
        sys.stdout.flush()
        sys.stderr.flush()
        self.start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            _child(name, main, argv, folder, limit)
        self.pid = pid
        self.outcome: Outcome | None = None
        self.killed = False

    def poll(self) -> Outcome | None:
        if self.outcome is not None:
            return self.outcome
        pid, status, usage = os.wait4(self.pid, os.WNOHANG)
        elapsed = time.monotonic() - self.start
        if pid == 0:
            # CPU time is the bound (a loaded machine stretches wall time, not work); wall
            # time past WALL_FACTOR bounds is a stop too (a sleep, a blocked read)
            if (
                not self.killed
                and elapsed > self.timeout
                and (elapsed > self.timeout * WALL_FACTOR or _cpu_seconds(self.pid) > self.timeout)
            ):
                self._kill()
            return None
        rc = os.waitstatus_to_exitcode(status)
        sig = -rc if rc < 0 else None
        self.outcome = Outcome(
            rc=None if sig is not None else rc,
            stdout=_read(self.folder / "stdout.txt"),
            stderr=_read(self.folder / "stderr.txt"),
            seconds=elapsed,
            cpu_seconds=usage.ru_utime + usage.ru_stime,
            maxrss=usage.ru_maxrss * 1024,
            base_rss=self.base_rss,
            timed_out=self.killed,
            signal=None if self.killed else sig,
        )
        return self.outcome

    def _kill(self) -> None:
        self.killed = True
        for target in (-self.pid, self.pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(target, signal.SIGKILL)

    def wait(self) -> Outcome:
        delay = 0.002
        while (outcome := self.poll()) is None:
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        return outcome


WALL_FACTOR = 12
"""A case is stopped after TIME_BOUND seconds of CPU, or WALL_FACTOR times that of wall time
(a blocked read; generous, since a `nice`d run on a loaded machine gets little CPU)."""

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (0 where /proc does not say)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return float("inf")


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def run_forked(
    tool: str | Callable[[list[str]], int],
    argv: list[str],
    folder: Path,
    timeout: float = TIME_BOUND,
) -> Outcome:
    return Running(tool, argv, folder, timeout).wait()


def run_subprocess(
    tool: str, argv: list[str], folder: Path, timeout: float = TIME_BOUND + 2
) -> Outcome:
    """The installed console script in a fresh process, as a user runs it; the same bounds
    as a forked case (`timeout` CPU seconds, WALL_FACTOR times that of wall time)."""
    env = dict(os.environ)
    env.pop("GE_DEBUG", None)
    env["GE_MAX_MEMORY"] = BUDGET
    env["PYTHONPATH"] = str(ROOT)
    # a fresh interpreter is ~150 MB of address space before it reads the input
    limit = (512 << 20) + MEMORY_BOUND

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    if tool == "session":
        command = [sys.executable, "-m", "tests.fuzz.replay", "--session", argv[0]]
    else:
        command = [str(BIN / tool), *argv]
    start = time.monotonic()
    with open(folder / "stdout.txt", "wb") as out, open(folder / "stderr.txt", "wb") as err:
        proc = subprocess.Popen(
            command,
            cwd=folder,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            preexec_fn=limits,
            start_new_session=True,
        )
    timed_out = False
    delay = 0.005
    while proc.poll() is None:
        elapsed = time.monotonic() - start
        if elapsed > timeout and (
            elapsed > timeout * WALL_FACTOR or _cpu_seconds(proc.pid) > timeout
        ):
            timed_out = True
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    seconds = time.monotonic() - start
    rc = proc.returncode
    sig = -rc if rc is not None and rc < 0 else None
    return Outcome(
        rc=None if sig is not None or timed_out else rc,
        stdout=_read(folder / "stdout.txt"),
        stderr=_read(folder / "stderr.txt"),
        seconds=seconds,
        timed_out=timed_out,
        signal=None if timed_out else sig,
    )


# --------------------------------------------------------------------------------------------
# checking
# --------------------------------------------------------------------------------------------

_NOTE = re.compile(r"^(note|warning):")
_CARET = re.compile(r"^[ \t]*\^$")


def _without_source_context(lines: list[str]) -> list[str]:
    """The lines of stderr without the source line and caret under a located diagnostic
    (`file:line:col: error: ...`, MLIR's form, issue 16): they belong to that one error."""
    kept: list[str] = []
    i = 0
    while i < len(lines):
        kept.append(lines[i])
        if "error:" in lines[i] and i + 2 < len(lines) and _CARET.match(lines[i + 2]):
            i += 3
        else:
            i += 1
    return kept


def check(case: Case, outcome: Outcome, step: str = "") -> list[Finding]:
    """The findings of one tool invocation (empty: the tool kept its promises)."""

    def found(cls: str, detail: str) -> list[Finding]:
        return [Finding(cls, case, outcome, detail.strip()[:400], step)]

    err = outcome.stderr
    lines = [ln for ln in err.splitlines() if ln.strip()]
    first_error = next((ln for ln in lines if "error" in ln.lower()), lines[-1] if lines else "")
    if outcome.timed_out:
        return found(
            "hang", f"no answer in {outcome.seconds:.1f} s ({outcome.cpu_seconds:.1f} s CPU)"
        )
    if outcome.signal is not None:
        return found("crash", f"killed by signal {outcome.signal}")
    grown = outcome.maxrss - outcome.base_rss
    if "MemoryError" in err or grown > RSS_BOUND:
        return found("memory", first_error or f"peak RSS {grown >> 20} MiB above the worker")
    if "Traceback (most recent call last)" in err:
        last = next((ln for ln in reversed(lines) if not ln.startswith(" ")), "")
        return found("traceback", last)
    if "internal error" in err:
        return found("internal-error", first_error)
    if case.tool == "session" and outcome.rc == WRONG_NUMBERS:
        return found("level-mismatch", first_error)
    if outcome.rc not in (0, 1):
        return found("exit-code", f"exit code {outcome.rc}: {first_error}")
    lines = _without_source_context(lines)
    errors = [ln for ln in lines if "error:" in ln]
    others = [ln for ln in lines if "error:" not in ln and not _NOTE.match(ln)]
    # under --split-input-file every chunk is processed: one error per failing chunk
    one_per_chunk = "--split-input-file" in case.argv and len(errors) >= 1
    if outcome.rc == 1:
        if "MISMATCH" in outcome.stdout and not errors:
            return []  # a --reference/--compare verdict: the caller judges it
        if (len(errors) != 1 and not one_per_chunk) or others:
            return found(
                "error-lines", f"{len(errors)} error lines, {len(others)} others: {err[:300]}"
            )
    elif errors:
        return found("error-lines", f"exit 0 with an error line: {errors[0]}")
    elif case.expect == "rejected" and not step:
        return found("wrongly-accepted", f"exit 0: {outcome.stdout.strip()[:200]}")
    return []


def direct_onnx_run(argv: list[str]) -> int:
    """Imports `argv[0]` and runs it in process on random inputs (seed 0), without printing
    and re-parsing, and saves the outputs to `argv[1]`: the reference for the file route."""
    import numpy as np

    from gedialects.frontend.onnx import OnnxImportError, import_model
    from gedialects.interpreters.run import RunError, find_entry, random_inputs, run, signature

    try:
        module = import_model(argv[0])
        inputs = random_inputs(signature(find_entry(module, None)), 0)
        outputs = run(module, inputs)
    except (OnnxImportError, RunError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    np.savez(argv[1], **outputs)
    return 0


# --------------------------------------------------------------------------------------------
# what an accepted input must compute (the oracle's exceptions, each with its reason)
# --------------------------------------------------------------------------------------------

_BUDGET_REFUSAL = re.compile(r"error: .* needs [0-9.]+ [KMGTP]?i?B, over the memory limit of ")


def budget_refusal(outcome: Outcome) -> bool:
    """The one-line refusal of `gedialects.budget` (`MemoryBudgetError`): a model that runs at
    the graph level may still need more than GE_MAX_MEMORY as an ascend arena (an
    `alignment=400000000` plan is 8.9 GiB); refusing it before allocating is the promise
    kept, not a level difference. `check` has already demanded exactly one `error:` line."""
    errors = [ln for ln in outcome.stderr.splitlines() if "error:" in ln]
    return outcome.rc == 1 and len(errors) == 1 and bool(_BUDGET_REFUSAL.search(errors[0]))


_ITEMSIZE = {"f64": 8, "i64": 8, "ui64": 8, "f32": 4, "i32": 4, "ui32": 4, "f16": 2}
_ITEMSIZE |= {"bf16": 2, "i16": 2, "ui16": 2, "i8": 1, "ui8": 1, "i1": 1}
_ARENA_REF = re.compile(r"arena\[(\d+)\](?: = dense<[^<>]*>)? : tensor<([^<>]*)>")


def arena_refs(text: str) -> list[tuple[int, int]] | None:
    """(offset, bytes) of every `arena[N] : tensor<...>` reference of an ascend model, in text
    order; None where one is not of that form (a dynamic shape, an unknown element type)."""
    refs = []
    for m in _ARENA_REF.finditer(text):
        *dims, dtype = m.group(2).split("x")
        if dtype not in _ITEMSIZE or not all(d.isdigit() for d in dims):
            return None
        size = _ITEMSIZE[dtype]
        for d in dims:
            size *= int(d)
        refs.append((int(m.group(1)), size))
    return refs if len(refs) == text.count("arena[") else None


def relocation_keeps_numbers(before: str, after: str) -> bool:
    """Whether an edit of an ascend model keeps what it computes by construction, so that the
    edited model, if accepted, must give the unedited model's numbers.

    True for edits that move no reference (dropped events, other streams, another
    arena_size: the dataflow is the same, only its order or bounds change; the verifier must
    refuse what that breaks), and for the relocation of a whole buffer: every reference to
    one offset moved to one new offset, no reference left at another offset inside the bytes
    it leaves (a view into it would stay behind), and none inside the bytes it moves to (free
    memory for the whole run). Every other move rewires the model: a read moved onto another
    buffer's start reads that buffer's prefix, a legal view (`ascend-verify` allows inputs,
    weights and live values to be read whole or as a prefix); all references of a reused
    offset moved onto another buffer make a well-formed other program (a view's write no
    longer lands in its parent, a later read sees the parent's earlier bytes). Those must
    only keep the other promises (one error line, time and memory bounds)."""
    old_refs, new_refs = arena_refs(before), arena_refs(after)
    if old_refs is None or new_refs is None or len(old_refs) != len(new_refs):
        return False
    if any(a[1] != b[1] for a, b in zip(old_refs, new_refs, strict=True)):
        return False
    moves = {(a[0], b[0]) for a, b in zip(old_refs, new_refs, strict=True) if a[0] != b[0]}
    if not moves:
        return True
    if len(moves) != 1:
        return False
    ((old, new),) = moves
    moved = [i for i, (offset, _) in enumerate(old_refs) if offset == old]
    if any(new_refs[i][0] != new for i in moved):
        return False  # some references of the offset stayed: a rewiring
    stay = [ref for ref in old_refs if ref[0] != old]
    for i in moved:
        size = old_refs[i][1]
        for start, nbytes in stay:
            for at in (old, new):
                if at < start + nbytes and start < at + size and size and nbytes:
                    return False
    return True


OVERFLOW_BOUND = 1e30
"""Magnitude from which a constant counts as near the float limit (f32 max is 3.4e38)."""

_UNFOLDED = {
    "ge-compile": "ge-compile{disable-fusion=conv-bn}",
    "ge-fuse": "ge-fuse{disable=conv-bn}",
}


def extreme_constants(argv: list[str]) -> int:
    """Exit 0 when the IR file `argv[0]` holds a float constant that is inf, NaN or of
    magnitude >= OVERFLOW_BOUND, 1 when it holds none (a worker for `conv_bn_overflow`)."""
    import numpy as np
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
    from xdsl.parser import Parser

    from gedialects import make_context
    from gedialects.tensors import numpy_from_dense

    module = Parser(make_context(), Path(argv[0]).read_text()).parse_module()
    for op in module.walk():
        for attr in (*op.properties.values(), *op.attributes.values()):
            if isinstance(attr, DenseIntOrFPElementsAttr):
                array = numpy_from_dense(attr)
                if array.dtype.kind == "f" and array.size:
                    big = ~np.isfinite(array) | (np.abs(array) >= OVERFLOW_BOUND)
                    if bool(big.any()):
                        return 0
    return 1


def differs_only_where_non_finite(a: Path, b: Path, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """Two npz files of the same outputs differ (beyond ge-run's default tolerance) only at
    positions where one of them is inf or NaN."""
    import numpy as np

    with np.load(a) as x, np.load(b) as y:
        if sorted(x.files) != sorted(y.files):
            return False
        for name in x.files:
            p, q = x[name], y[name]
            if p.shape != q.shape:
                return False
            if p.dtype.kind != "f" or q.dtype.kind != "f":
                if not np.array_equal(p, q):
                    return False
                continue
            with np.errstate(invalid="ignore", over="ignore"):
                differ = ~np.isclose(p, q, rtol=rtol, atol=atol, equal_nan=True)
            if bool((differ & np.isfinite(p) & np.isfinite(q)).any()):
                return False
    return True


def conv_bn_overflow(
    folder: Path, graph: str, pipeline: str, compiled: str, reference: str, timeout: float
) -> bool:
    """Whether the compiled model's numbers differ from the graph's only as GE's
    Conv+BatchNorm folding (ConvBatchnormFusionPass, `ge-fuse-conv-bn`) makes them differ
    on weights near the float limit; then `folded.npz` holds the compiled model's outputs.

    The folding computes `conv(x, W * s) + b'` with `s = scale / sqrt(variance + epsilon)`
    where the graph computes `bn(conv(x, W))`: the same value in exact arithmetic, another
    order of float operations. With a BatchNorm scale of 3e38 (the fuzz's `values` and
    `dense-values` edits) one order overflows where the other stays finite, and the
    outputs differ in where they hold inf and NaN (graph NaN, folded -inf; or the other way
    round with a scale of inf). No evaluation order of either side removes that (the graph
    kernel in ONNX's order overflows as well, at other positions), and GE folds the same way.

    Narrowly: all of (1) the graph holds a float constant that is inf, NaN or >= 1e30 in
    magnitude; (2) the outputs differ only at positions where one side is inf or NaN;
    (3) `pipeline` with the Conv+BatchNorm fold disabled gives the graph's numbers. Any
    finite difference, or one that stays without the fold, is still a finding."""
    unfolded = _UNFOLDED.get(pipeline)
    if unfolded is None:
        return False
    if run_forked(extreme_constants, [graph], folder, timeout).rc != 0:
        return False
    argv = [compiled, "--random-inputs", "0", "-q", "-o", "folded.npz"]
    if run_forked("ge-run", argv, folder, timeout).rc != 0:
        return False
    if not differs_only_where_non_finite(folder / reference, folder / "folded.npz"):
        return False
    argv = [graph, "-p", unfolded, "-o", "unfolded.mlir"]
    if run_forked("ge-opt", argv, folder, timeout).rc != 0:
        return False
    argv = ["unfolded.mlir", "--random-inputs", "0", "-q", "--reference", reference]
    return run_forked("ge-run", argv, folder, timeout).rc == 0


def level_checks(case: Case, folder: Path, timeout: float = TIME_BOUND) -> list[Finding]:
    """For an accepted IR file `input.mlir` in `folder`: print -> parse -> print is stable, and
    the graph and its `ge-compile`d model give the same numbers on the same random inputs."""
    findings: list[Finding] = []

    def step(tool: str, argv: list[str]) -> tuple[Outcome, list[Finding]]:
        outcome = run_forked(tool, argv, folder, timeout)
        return outcome, check(case, outcome, shlex.join([tool, *argv]))

    # round trip: the printed form reads back to itself
    first, bad = step("ge-opt", ["input.mlir", "-o", "p1.mlir"])
    if bad or first.rc != 0:
        return bad
    second, bad = step("ge-opt", ["p1.mlir", "-o", "p2.mlir"])
    if bad:
        return bad
    if second.rc != 0:
        return [Finding("round-trip", case, second, second.stderr.strip(), "ge-opt p1.mlir")]
    p1, p2 = (folder / "p1.mlir").read_text(), (folder / "p2.mlir").read_text()
    if p1 != p2:
        diff = next(
            (
                f"{a.strip()} != {b.strip()}"
                for a, b in zip(p1.splitlines(), p2.splitlines(), strict=False)
                if a != b
            ),
            "lengths differ",
        )
        findings.append(Finding("round-trip", case, second, diff[:300], "ge-opt p1.mlir"))
    # the graph level, from the printed file (what a user's pipeline reads)
    graph, bad = step("ge-run", ["p1.mlir", "--random-inputs", "0", "-q", "-o", "graph.npz"])
    if bad or graph.rc != 0:
        return findings + bad
    onnx = [name for name in case.files if name.endswith(".onnx")]
    if onnx:
        direct = run_forked(direct_onnx_run, [onnx[0], "direct.npz"], folder, timeout)
        if direct.rc == 0:
            same, bad = step(
                "ge-run", ["p1.mlir", "--random-inputs", "0", "-q", "--reference", "direct.npz"]
            )
            if bad:
                return findings + bad
            if same.rc != 0:
                findings.append(
                    Finding(
                        "text-mismatch",
                        case,
                        same,
                        (same.stdout + same.stderr).strip()[:400],
                        "ge-run p1.mlir --reference direct.npz (in-process import and run)",
                    )
                )
    text = (folder / "p1.mlir").read_text()
    if "graph.graph" not in text:
        return findings
    compiled, bad = step("ge-opt", ["p1.mlir", "-p", "ge-compile", "-o", "ascend.mlir"])
    if bad or compiled.rc != 0:
        return findings + bad
    ascend, bad = step(
        "ge-run", ["ascend.mlir", "--random-inputs", "0", "-q", "--reference", "graph.npz"]
    )
    if bad:
        return findings + bad
    reference = "graph.npz"
    if ascend.rc != 0 and budget_refusal(ascend):
        return findings
    if ascend.rc != 0 and "MISMATCH" in ascend.stdout:
        if conv_bn_overflow(folder, "p1.mlir", "ge-compile", "ascend.mlir", reference, timeout):
            reference = "folded.npz"  # the instrumented route must give the folded numbers
        else:
            findings.append(
                Finding(
                    "level-mismatch",
                    case,
                    ascend,
                    ascend.stdout.strip()[:400],
                    "ge-run ascend.mlir --reference graph.npz",
                )
            )
            return findings
    elif ascend.rc != 0:
        findings.append(
            Finding(
                "level-reject",
                case,
                ascend,
                ascend.stderr.strip()[:400],
                "ge-run ascend.mlir --reference graph.npz",
            )
        )
        return findings
    # the instrumented route (another schedule, uninitialized-read checks) gives the same
    argv = ["ascend.mlir", "--random-inputs", "0", "-q", "--reference", reference]
    argv += ["--schedule-seed", "3", "--check-uninitialized"]
    checked, bad = step("ge-run", argv)
    if bad:
        return findings + bad
    if checked.rc != 0 and not budget_refusal(checked):
        cls = "level-mismatch" if "MISMATCH" in checked.stdout else "level-reject"
        detail = (checked.stdout + checked.stderr).strip()
        findings.append(Finding(cls, case, checked, detail[:400], shlex.join(["ge-run", *argv])))
    return findings


def output_checks(case: Case, folder: Path, timeout: float = TIME_BOUND) -> list[Finding]:
    """For an accepted pipeline run `input.mlir -> out.mlir`: where the input runs on random
    inputs, the output runs on them too and gives the same numbers (translation validation
    of the passes, through the files). An edited ascend model (`out.mlir`, the case's own
    run) owes the unedited model's numbers only where the edit keeps them by construction
    (`relocation_keeps_numbers`)."""
    if case.family == "ascend":
        edited = (folder / "out.mlir").read_text(errors="replace")
        if not relocation_keeps_numbers((folder / "input.mlir").read_text(), edited):
            return []
    before = run_forked(
        "ge-run", ["input.mlir", "--random-inputs", "0", "-q", "-o", "before.npz"], folder, timeout
    )
    bad = check(case, before, "ge-run input.mlir")
    if bad or before.rc != 0:
        return bad
    argv = ["out.mlir", "--random-inputs", "0", "-q", "--reference", "before.npz"]
    after = run_forked("ge-run", argv, folder, timeout)
    step = shlex.join(["ge-run", *argv])
    bad = check(case, after, step)
    if bad:
        return bad
    if after.rc != 0:
        if "MISMATCH" in after.stdout:
            pipeline = case.argv[case.argv.index("-p") + 1] if "-p" in case.argv else ""
            if conv_bn_overflow(folder, "input.mlir", pipeline, "out.mlir", "before.npz", timeout):
                return []
            return [Finding("level-mismatch", case, after, after.stdout.strip()[:400], step)]
        if budget_refusal(after):
            return []
        if case.family != "ascend":  # an edited model may be refused (here: at run time)
            detail = (after.stdout + after.stderr).strip()[:400]
            return [Finding("level-reject", case, after, detail, step)]
    return []


def model_checks(case: Case, folder: Path, timeout: float = TIME_BOUND) -> list[Finding]:
    """For an accepted `ge-atc` run: the model it wrote runs on random inputs; without gears or
    pinned shapes it gives the numbers of the ONNX model imported and run in process."""
    output = next((a.split("=", 1)[1] for a in case.argv if a.startswith("--output=")), "")
    path = output if output.endswith(".mlir") else output + ".mlir"
    if not (folder / path).is_file():
        return [Finding("error-lines", case, Outcome(0, "", "", 0.0), f"exit 0, no {path}")]
    argv = [path, "--random-inputs", "0", "-q"]
    plain = not any(
        a.startswith(("--input_shape=", "--dynamic_")) and a.split("=", 1)[1] for a in case.argv
    )
    if plain:
        direct = run_forked(direct_onnx_run, ["model.onnx", "direct.npz"], folder, timeout)
        if direct.rc == 0:
            argv += ["--reference", "direct.npz"]
    outcome = run_forked("ge-run", argv, folder, timeout)
    step = shlex.join(["ge-run", *argv])
    bad = check(case, outcome, step)
    if bad or outcome.rc == 0:
        return bad
    if "MISMATCH" in outcome.stdout:
        argv = ["model.onnx", "-o", "graph-level.mlir"]
        imported = run_forked("ge-import", argv, folder, timeout)
        if imported.rc == 0 and conv_bn_overflow(
            folder, "graph-level.mlir", "ge-compile", path, "direct.npz", timeout
        ):
            return []
        return [Finding("level-mismatch", case, outcome, outcome.stdout.strip()[:400], step)]
    if budget_refusal(outcome):
        return []
    if "--reference" in argv:  # the ONNX model runs in process, its compiled model does not
        return [Finding("level-reject", case, outcome, outcome.stderr.strip()[:400], step)]
    return []


def accepted_checks(case: Case, folder: Path, timeout: float = TIME_BOUND) -> list[Finding]:
    findings: list[Finding] = []
    if case.check_model:
        findings += model_checks(case, folder, timeout)
    if case.check_levels:
        findings += level_checks(case, folder, timeout)
    if case.check_output and not findings:
        findings += output_checks(case, folder, timeout)
    return findings


CHECKED_LOOP_ITERATIONS = 1000
"""The loop bound of the re-run that tells a long graph-level loop from a hang (`loop_work`)."""

_GRAPH_LOOP = re.compile(r"\bgraph\.(?:while|for)\b|\"graph\.(?:while|for)\"")
_OVER_LOOP_BOUND = re.compile(
    rf"ran more than {CHECKED_LOOP_ITERATIONS} iterations without its cond turning false"
)


def loop_work(case: Case, folder: Path, timeout: float = TIME_BOUND) -> bool:
    """Whether a `ge-run` that found no answer in time was running a graph-level While or For
    toward its loop bound (10^6 iterations by default, `--max-loop-iterations`), which is work in
    proportion to the bound, not a hang: the same run with a bound of CHECKED_LOOP_ITERATIONS
    must stop, in time, with the loop bound's one-line error (a run that then ends otherwise,
    or again finds no answer, was not spending its time in the loop, and stays a hang). This
    is the graph-level twin of `corpora._long_sunk_loop` for sunk loops (fuzz seed 20261209:
    `%i < 2147483647` counting up by one ran ~40 s toward the bound)."""
    if case.tool != "ge-run" or not any(
        name.endswith(".mlir") and _GRAPH_LOOP.search(data.decode("utf-8", "replace"))
        for name, data in case.files.items()
    ):
        return False
    bounded = [*case.argv, "--max-loop-iterations", str(CHECKED_LOOP_ITERATIONS)]
    outcome = run_forked("ge-run", bounded, folder, timeout)
    return (
        outcome.rc == 1
        and not check(case, outcome)
        and bool(_OVER_LOOP_BOUND.search(outcome.stderr))
    )


def judge(case: Case, folder: Path, outcome: Outcome, timeout: float = TIME_BOUND) -> list[Finding]:
    """The findings of one case: `check` of its outcome, then, for an accepted input, the
    checks it asks for (`accepted_checks`); a run stopped in a long graph-level loop
    (`loop_work`) is not a hang."""
    findings = check(case, outcome)
    if findings and findings[0].cls == "hang" and loop_work(case, folder, timeout):
        return []
    if not findings and outcome.rc == 0:
        findings += accepted_checks(case, folder, timeout)
    return findings


def run_cases(
    cases: Iterable[Case],
    workdir: Path,
    jobs: int = 2,
    timeout: float = TIME_BOUND,
    subprocess_every: int = 0,
    on_result: Callable[[Case, Outcome, list[Finding]], None] | None = None,
) -> list[tuple[Case, Outcome, list[Finding]]]:
    """Runs cases `jobs` at a time (forked), every `subprocess_every`-th as a real subprocess;
    level checks follow accepted cases that ask for them."""
    results: list[tuple[Case, Outcome, list[Finding]]] = []
    pending: list[tuple[Case, Path, Running | None]] = []
    it = iter(enumerate(cases))
    done = False

    def finish(case: Case, folder: Path, outcome: Outcome) -> None:
        findings = judge(case, folder, outcome, timeout)
        results.append((case, outcome, findings))
        if on_result is not None:
            on_result(case, outcome, findings)

    while not done or pending:
        while not done and len(pending) < jobs:
            try:
                index, case = next(it)
            except StopIteration:
                done = True
                break
            folder = workdir / f"{index:05d}"
            write_files(case, folder)
            if subprocess_every and index % subprocess_every == subprocess_every - 1:
                outcome = run_subprocess(case.tool, case.argv, folder, timeout + 2)
                finish(case, folder, outcome)
                continue
            pending.append((case, folder, Running(case.tool, case.argv, folder, timeout)))
        still: list[tuple[Case, Path, Running | None]] = []
        for case, folder, running in pending:
            assert running is not None
            outcome = running.poll()
            if outcome is None:
                still.append((case, folder, running))
            else:
                finish(case, folder, outcome)
        if len(still) == len(pending) and pending:
            time.sleep(0.005)
        pending = still
    return results


# --------------------------------------------------------------------------------------------
# reproducers
# --------------------------------------------------------------------------------------------


def write_reproducer(finding: Finding, folder: Path) -> None:
    """A folder a person can replay: the input files, the command, what happened."""
    write_files(finding.case, folder)
    case = finding.case
    meta = {
        "class": finding.cls,
        "family": case.family,
        "tool": case.tool,
        "argv": case.argv,
        "check_levels": case.check_levels,
        "check_output": case.check_output,
        "check_model": case.check_model,
        "note": case.note,
        "expect": case.expect,
        "step": finding.step,
        "detail": finding.detail,
        "rc": finding.outcome.rc,
        "seconds": round(finding.outcome.seconds, 3),
        "stderr": finding.outcome.stderr[-2000:],
    }
    (folder / "case.json").write_text(json.dumps(meta, indent=2) + "\n")
    if case.tool == "session":
        (folder / "session.json").write_text(case.argv[0])
    (folder / "repro.sh").write_text(
        f'#!/bin/sh\n# {finding.cls}: {finding.detail[:200]}\ncd "$(dirname "$0")"\n'
        f"{case.command()}\n"
    )


def load_reproducer(folder: Path) -> Case:
    meta = json.loads((folder / "case.json").read_text())
    skip = {"case.json", "repro.sh", "session.json", "stdout.txt", "stderr.txt"}
    files = {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name not in skip
    }
    if meta.get("generated"):
        from tests.fuzz.corpora import generated_file

        for name, spec in meta["generated"].items():
            files[name] = generated_file(spec)
    return Case(
        family=meta["family"],
        tool=meta["tool"],
        argv=list(meta["argv"]),
        files=files,
        check_levels=bool(meta.get("check_levels")),
        check_output=bool(meta.get("check_output")),
        check_model=bool(meta.get("check_model")),
        note=meta.get("note", ""),
        expect=meta.get("expect", ""),
    )


def summarize(results: Sequence[tuple[Case, Outcome, list[Finding]]]) -> str:
    lines = []
    for case, _outcome, findings in results:
        for f in findings:
            step = f" [{f.step}]" if f.step else ""
            lines.append(f"{f.cls}: {case.family}/{case.note}: {case.command()}{step}: {f.detail}")
    return "\n".join(lines)
