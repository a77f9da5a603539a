"""`ge-import`: an ONNX model as `graph` dialect IR.

    ge-import model.onnx                 # prints the module
    ge-import model.onnx -o model.mlir --graph-name net

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

DESCRIPTION = "Import an ONNX model as gedialects graph IR."


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ge-import", description=DESCRIPTION)
    p.add_argument("model", help="the ONNX model (.onnx; external data is read next to it)")
    p.add_argument("-o", "--output", metavar="OUT.mlir", help="write the IR here (default: stdout)")
    p.add_argument("--graph-name", metavar="NAME", help="graph symbol (default: from the model)")
    p.add_argument(
        "--print-op-generic", action="store_true", help="print the generic op form instead"
    )
    return p


def render(module: object, generic: bool) -> str:
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)  # type: ignore[arg-type]
    out.write("\n")
    return out.getvalue()


def write_atomically(path: str, text: str) -> None:
    """Writes `text` to `path` via a temporary file and a rename: no partial output on failure."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".ge-import-", suffix=".mlir", dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give what open() would
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run_cli(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(argv)
    from gedialects.frontend.onnx import import_model

    module = import_model(args.model, graph_name=args.graph_name)
    text = render(module, args.print_op_generic)
    if args.output:
        write_atomically(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from gedialects.frontend.onnx import OnnxImportError
    from tools.ge_opt import one_line

    try:
        return run_cli(argv)
    except (OnnxImportError, OSError) as e:
        print(f"error: {one_line(e)}", file=sys.stderr)
    except Exception as e:
        if os.environ.get("GE_DEBUG"):
            raise
        print(
            f"error: internal error ({type(e).__name__}: {one_line(e)}); "
            "rerun with GE_DEBUG=1 for the traceback",
            file=sys.stderr,
        )
    return 1


if __name__ == "__main__":
    sys.exit(main())
