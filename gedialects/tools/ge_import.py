"""`ge-import`: an ONNX model as `graph` dialect IR.

    ge-import model.onnx                 # prints the module
    ge-import model.onnx -o model.mlir --graph-name net
    ge-import model.onnx -o model.gebc   # the binary IR (docs/binary-format.md)

Every user error (unreadable or invalid model, unsupported op or dtype) is one `error:` line and
exit code 1; `-o` is written only on success (through a temporary file in the same folder).
Set `GE_DEBUG=1` to get the Python traceback of an internal error instead.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gedialects.budget import MAX_MEMORY_HELP
from gedialects.tools import cli

if TYPE_CHECKING:
    from xdsl.ir import Operation

DESCRIPTION = "Import an ONNX model as gedialects graph IR."


def _parser() -> argparse.ArgumentParser:
    p = cli.ArgumentParser(prog="ge-import", description=DESCRIPTION)
    p.add_argument("model", help="the ONNX model (.onnx; external data is read next to it)")
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT.mlir",
        help="write the IR here (default: stdout); OUT.gebc writes the binary IR",
    )
    p.add_argument("--graph-name", metavar="NAME", help="graph symbol (default: from the model)")
    p.add_argument(
        "--print-op-generic", action="store_true", help="print the generic op form instead"
    )
    p.add_argument("--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP)
    return p


def render(module: Operation, generic: bool) -> str:
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    out.write("\n")
    return out.getvalue()


def write_atomically(path: str, text: str | bytes) -> None:
    """Writes `text` (or the bytes of a binary file) to `path` via a temporary file and a
    rename: no partial output on failure (`cannot write PATH: reason` when the folder cannot
    be written)."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".ge-import-", suffix=".mlir", dir=folder)
    except OSError as e:
        raise cli.cannot_write(path, e) from None
    try:
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as out:
                out.write(text)
        else:
            with os.fdopen(fd, "w") as f:
                f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give what open() would
        os.replace(tmp, path)
    except BaseException as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise cli.cannot_write(path, e) from None
        raise


def run_cli(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    cli.check_output(args.output, "-o/--output")
    from gedialects.budget import max_memory_set
    from gedialects.bytecode import dump, is_binary_path, kind_for_path
    from gedialects.frontend.onnx import import_model

    with max_memory_set(cli.max_memory(args)):
        module = import_model(args.model, graph_name=args.graph_name)
    if args.output and is_binary_path(args.output):
        write_atomically(args.output, dump(module, kind_for_path(args.output)))
        return 0
    text = render(module, args.print_op_generic)
    if args.output:
        write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from gedialects.budget import MemoryBudgetError, MemorySizeError
    from gedialects.frontend.onnx import OnnxImportError

    errors = (OnnxImportError, OSError, MemoryBudgetError, MemorySizeError)
    return cli.run_main("ge-import", lambda: run_cli(argv), errors)


if __name__ == "__main__":
    sys.exit(main())
