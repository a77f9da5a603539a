"""`-` as stdin and `-o -` as stdout, the same in every tool (ge-opt, ge-run, ge-import, ge-atc).

A file named on the command line may be `-`: the tool reads standard input (within the memory
budget) and tells text IR, binary IR and ONNX apart by their first bytes, since there is no
extension to go by. An output path `-` writes to standard output (bytes for binary output).
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
from typing import TYPE_CHECKING

from gedialects.tools import cli

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

logger = logging.getLogger(__name__)

STD = "-"
STDIN_NAME = "<stdin>"
"""How stdin is named in error messages and locations."""


def is_std(path: str | None) -> bool:
    return path == STD


def label(path: str) -> str:
    return STDIN_NAME if is_std(path) else path


def read_stdin() -> bytes:
    from gedialects.budget import read_stream

    return read_stream(sys.stdin.buffer, "reading stdin")


def sniff(data: bytes) -> str:
    """`binary`, `onnx` or `mlir` for input without a file name: the binary IR starts with its
    magic number, an ONNX model with field 1 (`ir_version`, tag byte 0x08) as protobuf writes
    fields in order; MLIR text never starts with a control byte."""
    from gedialects.bytecode import MAGIC

    if data.startswith(MAGIC[:4]):
        return "binary"
    if data[:1] == b"\x08":
        return "onnx"
    return "mlir"


def kind_of(path: str) -> str:
    """`binary`, `onnx` or `mlir` by the file name's extension (mlir for any other)."""
    from gedialects.bytecode import is_binary_path

    if is_binary_path(path):
        return "binary"
    return "onnx" if path.endswith(".onnx") else "mlir"


def load_module(path: str, ctx: Context, graph_name: str | None = None) -> ModuleOp:
    """The module in `path` (`-`: stdin): text or binary IR, or an ONNX model imported to the
    graph level. Not verified here (the caller verifies as it needs)."""
    from gedialects.budget import read_file

    where = label(path)
    if is_std(path):
        data = read_stdin()
        kind = sniff(data)
    elif (kind := kind_of(path)) == "onnx":
        return import_onnx(path, None, graph_name)  # reads external data beside it
    else:
        try:
            data = read_file(path)
        except OSError as e:
            raise cli.UserError(f"cannot read {path}: {e.strerror or e}") from None
    if kind == "onnx":
        return import_onnx(where, data, graph_name)
    if kind == "binary":
        from gedialects.bytecode import load

        return load(data, ctx, where)
    from gedialects.locations import parse_text
    from gedialects.nesting import check_nesting

    try:
        text = data.decode()
    except UnicodeDecodeError as e:
        raise cli.UserError(f"cannot read {where}: not UTF-8 text ({e.reason})") from None
    check_nesting(text, where)
    return parse_text(ctx, text, where)  # op positions kept for located verifier errors


def import_onnx(path: str, data: bytes | None, graph_name: str | None) -> ModuleOp:
    """An ONNX model (the file, or `data` read from stdin) as graph IR; its import errors
    are user errors of the tool (one line)."""
    from gedialects.frontend.onnx import OnnxImportError, import_model, import_proto, load_model

    try:
        if data is None:
            return import_model(path, graph_name=graph_name)
        return import_proto(load_model(path, data), path, graph_name=graph_name)
    except OnnxImportError as e:
        raise cli.UserError(str(e)) from None


def write_output(path: str, data: str | bytes) -> None:
    """`data` to `path`, through a temporary file (nothing partial on failure), or to stdout
    for `-`."""
    if is_std(path):
        if isinstance(data, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
        return
    write_atomically(path, data)


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
        logger.info("wrote %s", path)
    except BaseException as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise cli.cannot_write(path, e) from None
        raise
