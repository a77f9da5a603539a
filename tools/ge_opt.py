"""`ge-opt`: xdsl-opt with the gedialects dialects and passes, and one-line errors.

Every user error (parse, verify, unknown pass, bad option, pass failure, unreadable file) is
printed as one `error:` line, with `file:line:col` where the parser knows it, and exits 1.
Set `GE_DEBUG=1` to get the Python traceback of an internal error instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from gedialects import dialect_factories, xdsl_dialect_factories
from passes import get_all_passes

XDSL_PASSES = ("canonicalize", "cse", "dce")
"""Generic xDSL passes that are useful on our dialects."""


class GeOptMain(xDSLOptMain):
    """xdsl-opt restricted to gedialects plus a few xDSL dialects and passes."""

    version_format = "ge-opt (gedialects) built on xdsl {xdsl_version}"

    def register_all_dialects(self) -> None:
        for name, factory in (xdsl_dialect_factories() | dialect_factories()).items():
            self.ctx.register_dialect(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()
        self.available_frontends["onnx"] = parse_onnx

    def register_all_passes(self) -> None:
        from xdsl.transforms import get_all_passes as xdsl_passes

        stock = xdsl_passes()
        for name in XDSL_PASSES:
            self.register_pass(name, stock[name])
        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)


def parse_onnx(stream: IO[bytes]) -> ModuleOp:
    """The `.onnx` front end (also `-f onnx` on stdin); onnx is imported only here."""
    from gedialects.frontend.onnx import import_proto, load_model

    name = getattr(stream, "name", None)
    path = name if isinstance(name, str) and os.path.isfile(name) else "<stdin>"
    return import_proto(load_model(path, stream.read()), path)


def one_line(error: BaseException) -> str:
    """The error's message on one line (xDSL splits some verifier messages over lines)."""
    text = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
    return text or type(error).__name__


def main(
    argv: Sequence[str] | None = None, description: str = "gedialects modular optimizer"
) -> int:
    try:
        GeOptMain(description=description, args=argv).run()
    except ParseError as e:
        print(f"{e.span.get_location()}: error: {e.msg}", file=sys.stderr)
        return 1
    except ArgSpecParseError as e:
        # The pipeline parser's message spans lines (spec, caret, reason): keep the reason.
        lines = [ln for ln in str(e).splitlines() if ln.strip()]
        print(f"error: bad pass pipeline: {lines[-1].strip() if lines else e}", file=sys.stderr)
        return 1
    except (DiagnosticException, ValueError, OSError, UnicodeDecodeError) as e:
        name = argv_input(argv)
        prefix = f"{name}: " if name else ""
        print(f"{prefix}error: {one_line(e)}", file=sys.stderr)
        return 1
    except Exception as e:
        if os.environ.get("GE_DEBUG"):
            raise
        print(
            f"error: internal error ({type(e).__name__}: {one_line(e)}); "
            "rerun with GE_DEBUG=1 for the traceback",
            file=sys.stderr,
        )
        return 1
    return 0


def argv_input(argv: Sequence[str] | None) -> str | None:
    """The input file named on the command line, if any (for error prefixes)."""
    args = list(sys.argv[1:] if argv is None else argv)
    skip = {"-p", "--passes", "-o", "--output-file", "-t", "--target", "-f", "--frontend"}
    i = 0
    while i < len(args):
        if args[i] in skip:
            i += 2
            continue
        if not args[i].startswith("-"):
            return args[i]
        i += 1
    return None


if __name__ == "__main__":
    sys.exit(main())
