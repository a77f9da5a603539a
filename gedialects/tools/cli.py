"""The command-line convention of every gedialects tool (ge-opt, ge-run, ge-import, ge-atc).

One place for how a tool fails, so that the four behave the same:

- a usage error (unknown flag, missing or bad value) is one line naming the flag, with a pointer
  to `--help`, exit code 1 (argparse's default is seven lines of usage and exit 2);
- a user error is one `error:` line (with `file:line:col` for parse errors, `file:` for a
  corrupt binary IR file), exit code 1;
- an internal error is one line plus the `GE_DEBUG=1` hint (which re-raises it);
- output paths that are empty or folders are refused before anything runs, and a write that
  fails is `cannot write OUT: reason`;
- numbers in options are ASCII digits only (`int("\u0661")` is 1 in Python; GE reads ASCII);
- a reader that goes away (`| head`) ends the tool quietly, exit 1, no `[Errno 32]`;
- `-` as a file is stdin, `-o -` stdout (`gedialects.tools.streams`).

numpy is not imported here: `ge-opt` must start fast.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from typing import NoReturn

INT_TEXT = re.compile(r"[+-]?[0-9]+")
"""An integer as users type it: ASCII digits, an optional sign, nothing else."""
FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
r"""A number as users type it. The dot is not optional between two digit runs: `[0-9]+\.?[0-9]*`
splits a run of n digits n ways, and a failing fullmatch tried them all (10 kB: 3 s)."""


class UsageError(Exception):
    """A bad command line: printed with a pointer to `PROG --help`."""


class UserError(Exception):
    """Bad input that is not the command line (an unreadable file, a bad model)."""


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
    user_errors: tuple[type[BaseException], ...] = (),
    prefix: str | None = None,
) -> int:
    """Runs a tool's `body` with the one error convention; returns the exit code.

    `user_errors` are the tool's own exception types whose message is for the user; `prefix`
    (the input file) goes before `error:` for those, as xdsl-opt prints diagnostics."""
    from xdsl.utils.exceptions import ParseError

    from gedialects.bytecode import BinaryFormatError

    where = f"{prefix}: " if prefix else ""
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
    except user_errors as e:
        print(f"{where}error: {one_line(e)}", file=sys.stderr)
    except Exception as e:
        if os.environ.get("GE_DEBUG"):
            raise
        print(
            f"error: internal error ({type(e).__name__}: {one_line(e)}); "
            "rerun with GE_DEBUG=1 for the traceback",
            file=sys.stderr,
        )
    return 1


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
