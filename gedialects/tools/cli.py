"""The command-line convention of every gedialects tool (ge-opt, ge-run, ge-import, ge-atc).

One place for how a tool fails, so that the four behave the same:

- a usage error (unknown flag, missing or bad value) is one line naming the flag, with a pointer
  to `--help`, exit code 1 (argparse's default is seven lines of usage and exit 2);
- a user error is one `error:` line (with `file:line:col` for parse errors, `file:` for a
  corrupt binary IR file), exit code 1; a verifier or pass error on an op of a text IR file is
  MLIR's `file:line:col: error: ...` line followed by the source line and a caret under the
  op (`tools.diagnostics`);
- an internal error is one line plus the `GE_DEBUG=1` hint (which re-raises it);
- output paths that are empty or folders are refused before anything runs, and a write that
  fails is `cannot write OUT: reason`;
- numbers in options are ASCII digits only (`int("\u0661")` is 1 in Python; GE reads ASCII);
- a reader that goes away (`| head`) ends the tool quietly, exit 1, no `[Errno 32]`;
- `-` as a file is stdin, `-o -` stdout (`gedialects.tools.streams`).
- `-v`/`--verbose` and `-q`/`--quiet` mean the same in every tool (`add_verbosity`,
  `configure_output`): `-v` logs each step and its time on stderr (the `gedialects` logger at
  INFO), `-vv` adds the details (DEBUG), `-q` leaves only errors and turns the progress bars
  of long work (`gedialects.progress`, a terminal's stderr only) off.

numpy is not imported here: `ge-opt` must start fast.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from gedialects import progress

INT_TEXT = re.compile(r"[+-]?[0-9]+")
"""An integer as users type it: ASCII digits, an optional sign, nothing else."""
FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
r"""A number as users type it. The dot is not optional between two digit runs: `[0-9]+\.?[0-9]*`
splits a run of n digits n ways, and a failing fullmatch tried them all (10 kB: 3 s)."""


class UsageError(Exception):
    """A bad command line: printed with a pointer to `PROG --help`."""


class UserError(Exception):
    """Bad input that is not the command line (an unreadable file, a bad model)."""


class LocatedError(UserError):
    """An error already in MLIR's form (`file:line:col: error: ...`, the source line, a
    caret; `tools.diagnostics`): printed as it is."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


class ArgumentParser(argparse.ArgumentParser):
    """argparse with one-line usage errors (`UsageError` instead of usage text and exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def one_line_errors(parser: argparse.ArgumentParser, prog: str) -> None:
    """Gives a parser built elsewhere (xdsl-opt's) one-line usage errors and our name."""
    parser.prog = prog

    def error(message: str) -> NoReturn:
        raise UsageError(message)

    parser.error = error


def one_line(error: BaseException) -> str:
    """The error's message on one line (xDSL splits some verifier messages over lines)."""
    text = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    return text or type(error).__name__


def ascii_int(text: str) -> int:
    """An argparse `type`: an integer in ASCII digits (Python's int() takes any Unicode digit,
    `_` separators and surrounding blanks)."""
    if not INT_TEXT.fullmatch(text):
        raise argparse.ArgumentTypeError(f"invalid integer '{text}' (ASCII digits only)")
    return int(text)


def seed(text: str) -> int:
    """An argparse `type`: a random seed, an ASCII integer >= 0 (numpy refuses negatives)."""
    value = ascii_int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid seed {value} (seeds are integers >= 0)")
    return value


def ascii_float(text: str) -> float:
    """An argparse `type`: a finite number in ASCII (float() takes Unicode digits, `inf`,
    `nan` and `_` separators)."""
    if not FLOAT_TEXT.fullmatch(text):
        raise argparse.ArgumentTypeError(f"invalid number '{text}' (ASCII digits only)")
    return float(text)


def check_output(path: str | None, flag: str) -> None:
    """Refuses an output path that is empty or a folder, before any work is done (`-o /`
    would write `/.npz`, `--output=` would write `./.mlir`)."""
    if path is None:
        return
    if not path.strip():
        raise UsageError(f"{flag}: empty output path; give a file name")
    if path.endswith(("/", os.sep)) or os.path.isdir(path):
        raise UsageError(f"{flag}: '{path}' is a folder; give a file name")
    if os.path.basename(path) in (".", ".."):
        raise UsageError(f"{flag}: '{path}' is a folder; give a file name")


def cannot_write(path: str, error: OSError) -> UserError:
    """`cannot write OUT: reason` for a failed write of an output file."""
    reason = error.strerror or one_line(error)
    return UserError(f"cannot write {path}: {reason}")


def run_main(
    prog: str,
    body: Callable[[], int],
    user_errors: tuple[type[BaseException], ...]
    | Callable[[], tuple[type[BaseException], ...]] = (),
    prefix: str | None = None,
) -> int:
    """Runs a tool's `body` with the one error convention; returns the exit code.

    `user_errors` are the tool's own exception types whose message is for the user (or a
    function returning them, called only once an error is caught: `ge-run --help` need not
    import the interpreter to name its RunError); `prefix`
    (the input file) goes before `error:` for those, as xdsl-opt prints diagnostics."""
    from xdsl.utils.exceptions import ParseError

    from gedialects.bytecode import BinaryFormatError

    where = f"{prefix}: " if prefix else ""
    eager = () if callable(user_errors) else user_errors
    leave_heap_at_exit()
    try:
        code = body()
        sys.stdout.flush()  # here, so that a reader gone away is a BrokenPipeError we catch
        return code
    except BrokenPipeError:
        # The reader went away (`ge-opt ... | head`): nothing more to say, no traceback and no
        # `[Errno 32]` (BrokenPipeError is an OSError, which tools list as a user error).
        quiet_stdout()
    except BinaryFormatError as e:
        print(f"{e.path}: error: {one_line(e)}", file=sys.stderr)
    except UsageError as e:
        print(f"error: {one_line(e)} (see '{prog} --help')", file=sys.stderr)
    except ParseError as e:
        print(f"{e.span.get_location()}: error: {e.msg}", file=sys.stderr)
    except LocatedError as e:
        print(e.text, file=sys.stderr)
    except UserError as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
    except RecursionError:
        if os.environ.get("GE_DEBUG"):
            raise
        print(
            f"{where}error: the input nests ops, regions, attributes or calls too deeply for "
            f"{prog} (limit: {nesting_limit()} levels of regions)",
            file=sys.stderr,
        )
    except eager as e:
        print(f"{where}error: {one_line(e)}", file=sys.stderr)
    except Exception as e:
        if callable(user_errors) and isinstance(e, user_errors()):
            print(f"{where}error: {one_line(e)}", file=sys.stderr)
            return 1
        if os.environ.get("GE_DEBUG"):
            raise
        print(
            f"error: internal error ({type(e).__name__}: {one_line(e)}); "
            "rerun with GE_DEBUG=1 for the traceback",
            file=sys.stderr,
        )
    return 1


def _freeze_heap() -> None:
    gc.freeze()


def leave_heap_at_exit() -> None:
    """At the process's exit, leaves what is still allocated to the operating system.

    A tool's module (ops, blocks, values and attributes referring to each other in cycles)
    is cyclic garbage once the tool returns; the interpreter's shutdown then collects it
    object by object (CPython's `finalize_modules` collects even with the collector off):
    1 s of the 10k-node bench model's `ge-atc`, 10 s at 100k nodes, after the outputs were
    written. An `atexit` hook runs before that collection, and `gc.freeze` moves every object
    out of its reach. It only runs at exit, so the tests, which call the tools' `main`
    in-process, keep their collector; files are closed by the `with` blocks that write them
    and the standard streams are flushed by the shutdown itself, so nothing depends on
    those objects' finalizers."""
    atexit.unregister(_freeze_heap)  # once per process, however many tools ran in it
    atexit.register(_freeze_heap)


def quiet_stdout() -> None:
    """After a broken pipe: stdout goes to /dev/null, so that the interpreter's last flush of
    what is still buffered does not print `Exception ignored ... BrokenPipeError`."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout closed or not a file: nothing left to flush into
        pass


def nesting_limit() -> int:
    from gedialects.nesting import MAX_NESTING

    return MAX_NESTING


def max_memory(args: argparse.Namespace) -> int | None:
    """`--max-memory SIZE` in bytes (None: not given); a bad size is a usage error. The
    environment's GE_MAX_MEMORY, read later, is checked by the budget itself."""
    from gedialects.budget import MemorySizeError, parse_size

    text = getattr(args, "max_memory", None)
    if text is None:
        return None
    try:
        return parse_size(text, "--max-memory")
    except MemorySizeError as e:
        raise UsageError(str(e)) from None


@contextmanager
def without_short_version(parser: argparse.ArgumentParser) -> Iterator[None]:
    """Arguments added inside lose the short `-v` of `--version` (xdsl-opt's spelling), so
    that `-v` is `--verbose` in `ge-opt` as in every other gedialects tool; `--version` stays."""
    add = parser.add_argument
    wrapped = vars(parser).get("add_argument")  # another such wrapper (pass_catalog's helps)

    def add_argument(*names: str, **options: Any) -> argparse.Action:
        if "--version" in names:
            names = tuple(name for name in names if name != "-v")
        return add(*names, **options)

    parser.add_argument = add_argument
    try:
        yield
    finally:
        if wrapped is None:
            del parser.add_argument  # the class's method again
        else:
            parser.add_argument = wrapped


VERBOSE_HELP = "log each step and its time on stderr; -vv also logs the details"


def add_verbosity(parser: argparse.ArgumentParser, quiet_help: str = "") -> None:
    """`-v`/`--verbose` (counted) and `-q`/`--quiet`, as every tool spells them."""
    parser.add_argument("-v", "--verbose", action="count", default=0, help=VERBOSE_HELP)
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help=quiet_help or "print only errors: no progress bars, notes or logs",
    )


class _StderrHandler(logging.Handler):
    """Writes to the `sys.stderr` of the moment (a shown progress bar redirects it, so that log
    lines print above the bar; a handler holding the stream of its creation would not)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:
            self.handleError(record)


class _Formatter(logging.Formatter):
    """`PROG: info: message`; at DEBUG also the logger (`gedialects.passes.pipelines`)."""

    def __init__(self, prog: str, debug: bool) -> None:
        super().__init__()
        self.prog = prog
        self.debug = debug

    def format(self, record: logging.LogRecord) -> str:
        where = f"{record.name}: " if self.debug else ""
        return f"{self.prog}: {record.levelname.lower()}: {where}{record.getMessage()}"


_handler: _StderrHandler | None = None


def configure_output(args: argparse.Namespace, prog: str) -> None:
    """Applies `-v`/`-q` (see `add_verbosity`): the level and handler of the `gedialects`
    logger and whether long work draws a progress bar. Called once per tool run (again in the
    same process, as the tests do, it replaces its own handler)."""
    global _handler
    verbose: int = getattr(args, "verbose", 0) or 0
    quiet: bool = bool(getattr(args, "quiet", False))
    if quiet and verbose:
        raise UsageError("-q/--quiet and -v/--verbose contradict each other; give one")
    level = logging.ERROR if quiet else (logging.WARNING, logging.INFO)[min(verbose, 1)]
    if verbose >= 2:
        level = logging.DEBUG
    logger = logging.getLogger("gedialects")
    if _handler is not None:
        logger.removeHandler(_handler)
    _handler = _StderrHandler()
    _handler.setFormatter(_Formatter(prog, verbose >= 2))
    logger.addHandler(_handler)
    logger.setLevel(level)
    progress.enable(not quiet)
