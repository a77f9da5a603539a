"""Reading `.npy` and `.npz` files within the memory budget, names and headers first.

`numpy.load` inflates an npz member when it is indexed and allocates whatever a `.npy` header
declares: a 3 MB npz can hold a deflated 3 GiB member under a name the graph does not know, and
a 100-byte `.npy` can declare 1e10 floats. Here every member name is checked against the names
the caller expects, and every member's declared size (the zip directory's, then the `.npy`
header's, read with `numpy.lib.format`) against the budget and against the bytes actually
there, before any data is read. Only regular files are opened (`gedialects.budget`).
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable, Collection
from typing import IO

import numpy as np
from numpy.lib import format as npy_format

from gedialects import budget


class ArrayFileError(ValueError):
    """An unreadable, unexpected or oversized array file; the message is one line."""


def _header(f: IO[bytes], label: str) -> tuple[tuple[int, ...], bool, np.dtype, int]:
    """shape, fortran order, dtype and data offset from a `.npy` header (no data read)."""
    try:
        version = npy_format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = npy_format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = npy_format.read_array_header_2_0(f)
        else:
            raise ValueError(f"unsupported .npy format version {version[0]}.{version[1]}")
    except (ValueError, EOFError, SyntaxError, TypeError) as e:
        raise ArrayFileError(f"cannot read {label}: {_first_line(e)}") from None
    if dtype.hasobject:
        raise ArrayFileError(f"cannot read {label}: object arrays are not supported")
    dims = tuple(int(d) for d in shape)
    if any(d < 0 for d in dims):  # numpy's header reader lets them through
        raise ArrayFileError(f"cannot read {label}: its header declares negative dims {list(dims)}")
    return dims, fortran, dtype, f.tell()


def _first_line(error: BaseException) -> str:
    lines = [ln.strip() for ln in str(error).splitlines() if ln.strip()]
    return lines[0] if lines else type(error).__name__


def _read_checked(f: IO[bytes], available: int, label: str) -> np.ndarray:
    """One `.npy` stream whose header is checked against the budget and the `available` bytes
    (the file's or the zip member's size) before its data is allocated."""
    shape, fortran, dtype, offset = _header(f, label)
    nbytes = budget.shape_nbytes(shape, dtype.itemsize)
    budget.check(nbytes, f"{label} ({dtype}{list(shape)})")
    if nbytes > available - offset:
        raise ArrayFileError(
            f"cannot read {label}: its header declares {dtype}{list(shape)} ({nbytes} bytes), "
            f"the file holds {max(available - offset, 0)} bytes of data"
        )
    if dtype.itemsize == 0:
        return np.empty(shape, dtype)
    array = np.empty(nbytes // dtype.itemsize, dtype)
    view = array.view(np.uint8).reshape(-1).data if nbytes else memoryview(b"")
    done = 0
    while done < nbytes:  # in chunks, straight into the array: no second copy
        chunk = f.read(min(_CHUNK, nbytes - done))
        if not chunk:
            raise ArrayFileError(f"cannot read {label}: the data ends after {done} bytes")
        view[done : done + len(chunk)] = chunk
        done += len(chunk)
    return array.reshape(shape, order="F" if fortran else "C")


_CHUNK = 1 << 24


def load_npy(path: str | os.PathLike[str]) -> np.ndarray:
    """A `.npy` file as an array."""
    label = os.fspath(path)
    try:
        size = budget.regular_file_size(label)
        with open(label, "rb") as f:
            return _read_checked(f, size, label)
    except OSError as e:
        raise ArrayFileError(f"cannot read {label}: {e.strerror or e}") from None


def _unknown(name: str, expected: Collection[str]) -> str:
    return f"unknown name '{name}' (expected: {', '.join(expected) or 'none'})"


_ZIP_ENCRYPTED = 0x1
"""Bit 0 of a zip member's general-purpose flags: encrypted (zipfile then wants a password)."""


def load_npz(
    path: str | os.PathLike[str],
    expected: Collection[str] | None = None,
    unknown: Callable[[str, Collection[str]], str] = _unknown,
) -> dict[str, np.ndarray]:
    """An `.npz` file as arrays by name; with `expected`, a member of another name is an error
    (worded by `unknown`, then the file) raised before anything is inflated."""
    label = os.fspath(path)
    try:
        if budget.regular_file_size(label) == 0:
            raise ArrayFileError(f"cannot read {label}: No data left in file")
        with zipfile.ZipFile(label) as archive:
            members = archive.infolist()
            names = [m.filename.removesuffix(".npy") for m in members]
            if expected is not None:
                for name in names:
                    if name not in expected:
                        raise ArrayFileError(f"{unknown(name, expected)}, in {label}")
            for member, name in zip(members, names, strict=True):
                if member.flag_bits & _ZIP_ENCRYPTED:
                    raise ArrayFileError(
                        f"cannot read {label}: member '{name}' is encrypted (an npz holds plain "
                        "or deflated .npy members)"
                    )
                budget.check(member.file_size, f"{label} member '{name}'")
            arrays: dict[str, np.ndarray] = {}
            for member, name in zip(members, names, strict=True):
                with archive.open(member) as f:
                    arrays[name] = _read_checked(f, member.file_size, f"{label} member '{name}'")
            return arrays
    except OSError as e:
        raise ArrayFileError(f"cannot read {label}: {e.strerror or e}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError) as e:
        raise ArrayFileError(f"cannot read {label}: {_first_line(e)}") from None
