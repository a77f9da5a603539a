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
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gedialects.budget import MAX_MEMORY_HELP
from gedialects.tools import cli
from gedialects.tools.streams import write_atomically

__all__ = ["import_onnx", "main", "render", "write_atomically"]

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Operation

DESCRIPTION = "Import an ONNX model as gedialects graph IR."


def _parser() -> argparse.ArgumentParser:
    p = cli.ArgumentParser(prog="ge-import", description=DESCRIPTION)
    p.add_argument(
        "model", help="the ONNX model (.onnx; external data is read next to it); - reads stdin"
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT.mlir",
        help="write the IR here (default or -: stdout); OUT.gebc writes the binary IR",
    )
    p.add_argument("--graph-name", metavar="NAME", help="graph symbol (default: from the model)")
    p.add_argument(
        "--print-op-generic", action="store_true", help="print the generic op form instead"
    )
    p.add_argument("--max-memory", metavar="SIZE", help=MAX_MEMORY_HELP)
    cli.add_verbosity(p)
    return p


def render(module: Operation, generic: bool) -> str:
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    out.write("\n")
    return out.getvalue()


def run_cli(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    cli.configure_output(args, "ge-import")
    cli.check_output(args.output, "-o/--output")
    from gedialects.budget import max_memory_set
    from gedialects.bytecode import dump, is_binary_path, kind_for_path
    from gedialects.tools import streams

    with max_memory_set(cli.max_memory(args)):
        module = import_onnx(args.model, args.graph_name)
    if args.output and is_binary_path(args.output):
        write_atomically(args.output, dump(module, kind_for_path(args.output)))
        return 0
    streams.write_output(args.output or streams.STD, render(module, args.print_op_generic))
    return 0


def import_onnx(path: str, graph_name: str | None) -> ModuleOp:
    """The model at `path` (`-`: the bytes on stdin) as graph IR."""
    from gedialects.tools import streams

    if streams.is_std(path):
        return streams.import_onnx(streams.STDIN_NAME, streams.read_stdin(), graph_name)
    return streams.import_onnx(path, None, graph_name)


def main(argv: Sequence[str] | None = None) -> int:
    from gedialects.budget import MemoryBudgetError, MemorySizeError
    from gedialects.frontend.errors import OnnxImportError

    errors = (OnnxImportError, OSError, MemoryBudgetError, MemorySizeError)
    return cli.run_main("ge-import", lambda: run_cli(argv), errors)


if __name__ == "__main__":
    sys.exit(main())
