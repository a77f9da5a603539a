"""Kernels of the string ops (`gedialects.graph.text`) on numpy unicode arrays, and of
LabelEncoder on any keys: whole-array numpy string functions (`np.strings`) and sorted-key
look-ups, a Python call per element only for regular expressions."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr, StringAttr
from xdsl.ir import Attribute

from gedialects.graph import (
    LabelEncoderOp,
    StaticRegexFullMatchOp,
    StringJoinOp,
    StringNormalizerOp,
    StringSplitPaddedOp,
    compile_regex,
)
from gedialects.interpreters.graph.common import Arrays, attr, bool_, int_, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel
from gedialects.strings import StringsAttr
from gedialects.tensors import STRING_DTYPE, numpy_from_dense


def _strings(x: np.ndarray, op: str) -> np.ndarray:
    if x.dtype.kind != "U":
        raise KernelError(f"'{op}' takes string tensors, got {x.dtype}")
    return x


ASCII_LOCALES = ("C", "POSIX", "", "C.UTF-8")
"""Locales whose case changes touch ASCII letters only, as onnxruntime 1.32's (measured on
every code point: with these it maps a-z/A-Z and leaves all else, "é" and "ß" too)."""


def _case(a: np.ndarray, upper: bool, locale: str) -> np.ndarray:
    """`a` upper- or lower-cased one character at a time, so lengths never change: ASCII
    letters always; under a locale not in ASCII_LOCALES, every character whose Unicode
    mapping is one character (`str.upper`/`lower` of it), keeping those that map to more
    ("ß", "ﬁ", "İ" stay). Vectorised on the code points (a `uint32` view): a whole-array
    ASCII shift, then one look-up of the distinct non-ASCII code points."""
    if a.size == 0 or a.dtype.itemsize == 0:
        return a
    cps = np.ascontiguousarray(a).view(np.uint32).reshape(*a.shape, -1).copy()
    lo, hi = (ord("a"), ord("z")) if upper else (ord("A"), ord("Z"))
    ascii_letters = (cps >= lo) & (cps <= hi)
    if upper:
        cps[ascii_letters] -= np.uint32(32)
    else:
        cps[ascii_letters] += np.uint32(32)
    if locale not in ASCII_LOCALES:
        wide = cps > 127
        if wide.any():
            distinct = np.unique(cps[wide])
            mapped = np.array([_one(int(c), upper) for c in distinct.tolist()], np.uint32)
            cps[wide] = mapped[np.searchsorted(distinct, cps[wide])]
    return cps.view(a.dtype).reshape(a.shape)


def _one(code: int, upper: bool) -> int:
    """Code point `code` upper- or lower-cased when that makes one character, else itself."""
    c = chr(code)
    m = c.upper() if upper else c.lower()
    return ord(m) if len(m) == 1 else code


@kernel("StringNormalizer")
def string_normalizer(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Stop words removed by one `np.isin` (on lower-cased copies unless case-sensitive), then
    the case change; both one character at a time by `locale` (`_case`)."""
    name = StringNormalizerOp.name
    x = _strings(inputs[0], name)
    if x.ndim not in (1, 2) or (x.ndim == 2 and x.shape[0] != 1):
        raise KernelError(f"'{name}' takes [C] or [1, C] strings, got {list(x.shape)}")
    stops_attr = attr(attrs, "stopwords", StringNormalizerOp)
    stops = (
        [s.data for s in stops_attr.data if isinstance(s, StringAttr)]
        if isinstance(stops_attr, ArrayAttr)
        else []
    )
    locale = str_(attrs, "locale", StringNormalizerOp)
    flat = x.reshape(-1)
    if stops:
        words = np.array(stops, dtype=STRING_DTYPE)
        if bool_(attrs, "is_case_sensitive", StringNormalizerOp):
            keep = ~np.isin(flat, words)
        else:
            keep = ~np.isin(_case(flat, False, locale), _case(words, False, locale))
        flat = flat[keep]
    action = str_(attrs, "case_change_action", StringNormalizerOp)
    if action in ("LOWER", "UPPER"):
        flat = _case(flat, action == "UPPER", locale)
    elif action != "NONE":
        raise KernelError(f"'{name}': unknown case_change_action '{action}'")
    if flat.size == 0:
        flat = np.array([""], dtype=STRING_DTYPE)
    return (flat.reshape((1, -1)) if x.ndim == 2 else flat,)


@functools.lru_cache(maxsize=64)
def _matcher(pattern: str) -> np.vectorize:
    try:
        regex = compile_regex(pattern)
    except ValueError as e:
        raise KernelError(f"'{StaticRegexFullMatchOp.name}': {e}") from None
    return np.vectorize(lambda s: regex.fullmatch(s) is not None, otypes=[np.bool_])


@kernel("StaticRegexFullMatch")
def static_regex_full_match(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Python's `re.fullmatch` (ASCII classes, as RE2's) on every element."""
    x = _strings(inputs[0], StaticRegexFullMatchOp.name)
    match = _matcher(str_(attrs, "pattern", StaticRegexFullMatchOp))
    return (match(x) if x.size else np.zeros(x.shape, np.bool_),)


@kernel("StringJoin")
def string_join(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """`np.strings.add` over the broadcast inputs, the separator between each two."""
    if not inputs:
        raise KernelError(f"'{StringJoinOp.name}' needs at least one input")
    parts = [_strings(x, StringJoinOp.name) for x in inputs]
    separator = str_(attrs, "separator", StringJoinOp)
    try:
        out = np.broadcast_arrays(*parts)[0].astype(STRING_DTYPE) if len(parts) == 1 else None
        if out is None:
            out = parts[0]
            for part in parts[1:]:
                if separator:
                    out = np.strings.add(out, separator)
                out = np.strings.add(out, part)
    except ValueError as e:
        raise KernelError(f"'{StringJoinOp.name}': {e}") from None
    return (np.asarray(out, dtype=STRING_DTYPE),)


@kernel("StringSplitPadded")
def string_split_padded(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """One `str.split` per element (numpy has no vectorised split: `np.char.split` is the same
    loop), then one fancy-index write of all substrings into the padded result."""
    x = _strings(inputs[0], StringSplitPaddedOp.name)
    delimiter = str_(attrs, "delimiter", StringSplitPaddedOp) or None
    maxsplit = -1
    if attrs.get("maxsplit") is not None:
        maxsplit = int_(attrs, "maxsplit", StringSplitPaddedOp)
    parts = [s.split(delimiter, maxsplit) for s in x.reshape(-1).tolist()]
    counts = np.fromiter(map(len, parts), np.int64, len(parts))
    width = int(counts.max(initial=0))
    flat = [p for ps in parts for p in ps]
    itemsize = max(1, max(map(len, flat), default=0))
    y = np.full((len(parts), width), "", dtype=f"<U{itemsize}")
    if flat:
        rows = np.repeat(np.arange(len(parts)), counts)
        cols = np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)
        y[rows, cols] = flat
    return (y.reshape((*x.shape, width)), counts.reshape(x.shape))


def _table(attrs: KernelAttrs, key: str) -> np.ndarray:
    value = attr(attrs, key, LabelEncoderOp)
    if not isinstance(value, DenseIntOrFPElementsAttr | StringsAttr):
        raise KernelError(f"'{LabelEncoderOp.name}': {key} is not a constant: {value}")
    return numpy_from_dense(value)


@kernel("LabelEncoder")
def label_encoder(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """One `np.searchsorted` of x in the sorted keys; misses (and NaN without a NaN key) take
    `default`. NaN keys sort last, so NaN elements are looked up separately. The sort is
    stable and the search takes the leftmost equal key, so a repeated key's first entry wins."""
    x = inputs[0]
    keys, values = _table(attrs, "keys").reshape(-1), _table(attrs, "values").reshape(-1)
    default = _table(attrs, "default").reshape(-1)[0]
    if keys.size != values.size:
        raise KernelError(f"'{LabelEncoderOp.name}': {keys.size} keys, {values.size} values")
    order = np.argsort(keys, kind="stable")
    sorted_keys, sorted_values = keys[order], values[order]
    out = np.full(x.shape, default, dtype=values.dtype if values.dtype.kind != "U" else object)
    if sorted_keys.size:
        at = np.searchsorted(sorted_keys, x)
        clipped = np.minimum(at, sorted_keys.size - 1)
        hit = sorted_keys[clipped] == x
        out[hit] = sorted_values[clipped[hit]]
        if keys.dtype.kind == "f":
            nan_keys = np.isnan(sorted_keys)
            if nan_keys.any():
                out[np.isnan(x)] = sorted_values[np.argmax(nan_keys)]
    if values.dtype.kind == "U":
        out = np.array(out.tolist(), dtype=STRING_DTYPE).reshape(x.shape)
    return (out,)
