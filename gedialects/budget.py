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

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

DEFAULT_FRACTION = 0.5
"""The share of physical memory one process may ask for when no limit is set."""

ENV_VAR = "GE_MAX_MEMORY"

_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"([0-9]+)(?:\.([0-9]+))?\s*([KMGT]?)(?:I?B)?", re.IGNORECASE | re.ASCII)

_limit: int | None = None


class MemoryBudgetError(ValueError):
    """An allocation that would exceed the memory budget; the message names what and how much."""


def parse_size(text: str, what: str = "memory size") -> int:
    """Reads `8G`, `512M`, `1.5G` or a plain byte count; ASCII digits only."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise ValueError(
            f"{what}: expected a byte count with an optional K/M/G/T suffix, got {text!r}"
        )
    whole, frac, suffix = match.groups()
    unit = _SUFFIXES[suffix.upper()]
    value = int(whole) * unit
    if frac:
        value += int(frac) * unit // 10 ** len(frac)
    if value <= 0:
        raise ValueError(f"{what}: must be positive, got {text!r}")
    return value


def format_size(nbytes: int) -> str:
    """`1.5 GiB`-style text for messages."""
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if value < 1024 or unit == "PiB":
            return f"{nbytes} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def physical_memory() -> int:
    """Bytes of physical memory, or 16 GiB where the system does not say."""
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
        raise ValueError(f"max-memory: must be positive, got {limit}")
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
