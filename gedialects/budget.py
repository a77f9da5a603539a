"""One memory budget for every large allocation the project makes on a user's behalf.

onnxruntime checks a tensor's size against its allocator before it allocates; GE checks a model's
memory against the device before it loads (`ge.exec.deviceMemory`-style limits). The project has
one limit, checked before reading files, expanding literals, importing declared shapes, folding
constants, planning arenas and allocating run-time tensors, so that a hostile or mistaken input
gets a one-line error naming what it would need instead of a `MemoryError` after the machine has
started to swap.

The limit defaults to `DEFAULT_FRACTION` of physical memory; `GE_MAX_MEMORY` in the environment,
the tools' `--max-memory` and the Session option `ge.maxMemory` set it. Sizes are written as a
byte count with an optional binary suffix: `4096`, `512K`, `64M`, `8G`, `1T`.

Kept free of numpy so that importing it costs nothing.
"""

from __future__ import annotations

import errno
import functools
import math
import os
import re
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import IO

DEFAULT_FRACTION = 0.5
"""The share of physical memory one process may ask for when no limit is set."""

ENV_VAR = "GE_MAX_MEMORY"

_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"([0-9]+)(?:\.([0-9]+))?\s*([KMGT]?)(?:I?B)?", re.IGNORECASE | re.ASCII)

_limit: int | None = None


class MemoryBudgetError(ValueError):
    """An allocation that would exceed the memory budget; the message names what and how much."""


class MemorySizeError(ValueError):
    """A size option (`--max-memory`, `ge.maxMemory`, GE_MAX_MEMORY) that does not parse."""


class NotARegularFileError(OSError):
    """A path that names a FIFO, a device, a socket or a folder: reading it may never end.

    Its text is the reason alone (callers say `cannot read PATH: ...`)."""

    def __str__(self) -> str:
        return str(self.strerror)


MAX_MEMORY_HELP = (
    "memory limit of this run, e.g. 512M, 8G (default: GE_MAX_MEMORY, else half of physical "
    "memory); larger allocations are refused before they are made"
)
"""The `--max-memory` help text every tool shows."""


def parse_size(text: str, what: str = "memory size") -> int:
    """Reads `8G`, `512M`, `1.5G` or a plain byte count; ASCII digits only."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise MemorySizeError(
            f"{what}: expected a byte count with an optional K/M/G/T suffix, got {text!r}"
        )
    whole, frac, suffix = match.groups()
    unit = _SUFFIXES[suffix.upper()]
    value = int(whole) * unit
    if frac:
        value += int(frac) * unit // 10 ** len(frac)
    if value <= 0:
        raise MemorySizeError(f"{what}: must be positive, got {text!r}")
    return value


def format_size(nbytes: int) -> str:
    """`1.5 GiB`-style text for messages."""
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{nbytes} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


@functools.cache
def physical_memory() -> int:
    """Bytes of physical memory, or 16 GiB where the system does not say (asked once: two
    `sysconf` calls were most of a dynamic heap growth, once per run)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 16 << 30


def max_memory() -> int:
    """The limit in force: set_max_memory's, else GE_MAX_MEMORY's, else the default fraction."""
    if _limit is not None:
        return _limit
    env = os.environ.get(ENV_VAR)
    if env:
        return parse_size(env, ENV_VAR)
    return int(physical_memory() * DEFAULT_FRACTION)


def set_max_memory(limit: int | str | None) -> None:
    """Sets the process-wide limit (None: back to the environment or the default)."""
    global _limit
    if isinstance(limit, str):
        limit = parse_size(limit, "max-memory")
    if limit is not None and limit <= 0:
        raise MemorySizeError(f"max-memory: must be positive, got {limit}")
    _limit = limit


@contextmanager
def max_memory_set(limit: int | str | None) -> Iterator[None]:
    """The limit for the length of a `with` block (the Session uses it around one call)."""
    global _limit
    saved = _limit
    set_max_memory(limit)
    try:
        yield
    finally:
        _limit = saved


def check(nbytes: int, what: str) -> None:
    """Raises MemoryBudgetError before `what` allocates `nbytes` beyond the limit.

    `what` names the thing and where it is, e.g. `constant 'w' (tensor<400000000xf32>)`.
    """
    limit = max_memory()
    if nbytes > limit:
        raise MemoryBudgetError(
            f"{what} needs {format_size(nbytes)}, over the memory limit of {format_size(limit)} "
            f"(raise it with --max-memory or {ENV_VAR})"
        )


def check_elements(count: int, itemsize: int, what: str) -> None:
    """check() for `count` elements of `itemsize` bytes; a negative count is a caller bug."""
    if count < 0:
        raise ValueError(f"{what}: negative element count {count}")
    check(count * max(itemsize, 1), what)


def shape_nbytes(shape: Iterable[int], itemsize: int) -> int:
    """Bytes of a tensor of `shape` (exact Python ints: no overflow for absurd dims)."""
    return math.prod(int(d) for d in shape) * max(int(itemsize), 1)


def check_shape(shape: Iterable[int], itemsize: int, what: str) -> None:
    """check() for a tensor of `shape`; `what` should name the op or value and its shape."""
    dims = [int(d) for d in shape]
    if any(d < 0 for d in dims):
        raise ValueError(f"{what}: negative dim in {dims}")
    check(shape_nbytes(dims, itemsize), what)


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _require_regular(mode: int, path: str) -> None:
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        reason = f"it is {kind}, not a regular file"
        raise NotARegularFileError(errno.EINVAL, reason, path)


def regular_file_size(path: str | os.PathLike[str], what: str = "reading") -> int:
    """The size of `path`, checked to be a regular file that fits the budget (no read yet).

    A FIFO or a device (`/dev/zero`) could be read without end, so it is refused before it is
    opened (opening a FIFO blocks)."""
    label = os.fspath(path)
    info = os.stat(label)
    _require_regular(info.st_mode, label)
    check(info.st_size, f"{what} {label}")
    return info.st_size


def read_file(path: str | os.PathLike[str], what: str = "reading") -> bytes:
    """The bytes of a regular file that fits the budget; OSError (one line) otherwise."""
    label = os.fspath(path)
    regular_file_size(label, what)
    fd = os.open(label, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())  # the path may have changed since the stat
        _require_regular(info.st_mode, label)
        check(info.st_size, f"{what} {label}")
        return read_stream(f, f"{what} {label}")


def read_stream(stream: IO[bytes], what: str) -> bytes:
    """All of `stream` (stdin, a pipe), refused once it passes the budget."""
    limit = max_memory()
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(min(1 << 24, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise MemoryBudgetError(
                f"{what} needs more than {format_size(limit)}, over the memory limit of "
                f"{format_size(limit)} (raise it with --max-memory or {ENV_VAR})"
            )
