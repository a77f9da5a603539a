"""numpy <-> xDSL tensor bridges: dense attributes from numpy bytes, dtypes from element types.

Imported by front ends, interpreters and tests, never by the dialect modules (numpy stays out of
`ge-opt` start-up unless a pass needs it).
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    TensorType,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute

from gedialects.exact_text import checked_dense
from gedialects.strings import STRING, StringsAttr, StringType

_UI8 = IntegerType(8, Signedness.UNSIGNED)
_UI16 = IntegerType(16, Signedness.UNSIGNED)
_UI32 = IntegerType(32, Signedness.UNSIGNED)
_UI64 = IntegerType(64, Signedness.UNSIGNED)

_ELEMENT_DTYPES: dict[IntegerType | AnyFloat, np.dtype] = {
    f16: np.dtype("<f2"),
    f32: np.dtype("<f4"),
    f64: np.dtype("<f8"),
    i1: np.dtype(np.bool_),
    i8: np.dtype(np.int8),
    i16: np.dtype("<i2"),
    i32: np.dtype("<i4"),
    i64: np.dtype("<i8"),
    _UI8: np.dtype(np.uint8),
    _UI16: np.dtype("<u2"),
    _UI32: np.dtype("<u4"),
    _UI64: np.dtype("<u8"),
}
_TO_NUMPY: dict[Attribute, np.dtype] = {**_ELEMENT_DTYPES}
_FROM_NUMPY = {v.newbyteorder("<"): k for k, v in _ELEMENT_DTYPES.items()}


class UnsupportedDtypeError(ValueError):
    """An element type or numpy dtype with no counterpart on the other side."""

    def __init__(self, message: str, element_type: str = "") -> None:
        super().__init__(message)
        self.element_type = element_type
        """The element type's text (`bf16`, `complex<f32>`) when one is unsupported."""


STRING_DTYPE = np.dtype(np.str_)
"""numpy's unsized unicode dtype (`<U`), the dtype of `!graph.string`: an array of it has the
width of its longest element; `astype(STRING_DTYPE)` keeps a unicode array's width."""


def numpy_dtype(element_type: Attribute) -> np.dtype:
    """numpy dtype of an xDSL element type (f16/f32/f64, i1, signless and unsigned ints, and
    `!graph.string` as the unsized unicode dtype `STRING_DTYPE`)."""
    if isinstance(element_type, StringType):
        return STRING_DTYPE
    if isinstance(element_type, Float16Type | Float32Type | Float64Type | IntegerType):
        key = element_type
        if isinstance(key, IntegerType) and key.signedness.data == Signedness.SIGNED:
            key = IntegerType(key.width.data)
        if key in _TO_NUMPY:
            return _TO_NUMPY[key]
    raise UnsupportedDtypeError(
        f"element type {element_type} has no numpy dtype", str(element_type)
    )


def dtype_matches(dtype: np.dtype, expected: np.dtype) -> bool:
    """Whether an array of `dtype` is a value of an element type whose dtype is `expected`
    (a unicode array of any width is a string value)."""
    if expected.kind == "U":
        return dtype.kind == "U"
    return dtype == expected


def element_type_of(dtype: np.dtype) -> IntegerType | AnyFloat:
    """xDSL element type of a numeric numpy dtype (`string_tensor_type` for unicode arrays)."""
    key = np.dtype(dtype).newbyteorder("<") if np.dtype(dtype).byteorder == ">" else np.dtype(dtype)
    if key not in _FROM_NUMPY:
        raise UnsupportedDtypeError(f"numpy dtype {dtype} has no xDSL element type")
    return _FROM_NUMPY[key]


def tensor_type_of(array: np.ndarray) -> TensorType[IntegerType | AnyFloat]:
    """The tensor type of an array (its shape and element type), one shared object per
    (element type, shape): a new TensorType verifies its element type and every dim, the
    importer makes one per constant, and a shared type lets `infer_kept` reuse the rule's
    result for the ops the constants feed. Attributes are immutable; the table is bounded."""
    key = (element_type_of(array.dtype), array.shape)
    found = _TENSOR_TYPES.get(key)
    if found is None:
        if len(_TENSOR_TYPES) >= TENSOR_TYPE_LIMIT:
            _TENSOR_TYPES.clear()
        found = _TENSOR_TYPES[key] = TensorType(key[0], array.shape)
    return found


TENSOR_TYPE_LIMIT = 1 << 14
"""Entries of `_TENSOR_TYPES`; a full table starts again (no unbounded growth)."""

_TENSOR_TYPES: dict[tuple[Attribute, tuple[int, ...]], TensorType[IntegerType | AnyFloat]] = {}


def dense_from_numpy(array: np.ndarray) -> DenseIntOrFPElementsAttr:
    """A dense attribute holding the array's bytes (little-endian, C order); no Python lists."""
    array = np.asarray(array)
    if array.dtype.kind == "U":
        raise UnsupportedDtypeError(
            f"a string array ({array.dtype}) has no dense attribute; use const_from_numpy",
            str(STRING),
        )
    ttype = tensor_type_of(array)
    data = np.ascontiguousarray(array, dtype=numpy_dtype(ttype.element_type)).tobytes()
    if array.ndim == 0:
        return DenseIntOrFPElementsAttr(ttype, BytesAttr(data))  # xDSL's rank-0 check
    return checked_dense(ttype, data)


def strings_from_numpy(array: np.ndarray) -> StringsAttr:
    """The `#graph.strings` attribute of a unicode array (row-major)."""
    array = np.asarray(array)
    if array.dtype.kind != "U":
        raise UnsupportedDtypeError(f"numpy dtype {array.dtype} is not a string dtype")
    return StringsAttr(
        [str(v) for v in array.reshape(-1).tolist()], TensorType(STRING, array.shape)
    )


def const_from_numpy(array: np.ndarray) -> DenseIntOrFPElementsAttr | StringsAttr:
    """A `graph.const` value for the array: `#graph.strings` for unicode arrays, else dense."""
    array = np.asarray(array)
    return strings_from_numpy(array) if array.dtype.kind == "U" else dense_from_numpy(array)


def numpy_from_dense(attr: DenseIntOrFPElementsAttr | StringsAttr) -> np.ndarray:
    """A read-only array over the attribute's bytes (zero-copy); splats are broadcast. A
    `#graph.strings` value is a new unicode array (its trailing NULs dropped, as numpy's `U`
    dtype stores strings)."""
    if isinstance(attr, StringsAttr):
        shape = tuple(attr.type.get_shape())
        values = np.array(attr.strings, dtype=STRING_DTYPE)
        if values.size == 1 and math.prod(shape) != 1:
            values = np.broadcast_to(values.reshape(()), shape)
        values = values.reshape(shape)
        values.flags.writeable = False
        return values
    ttype = attr.type
    assert isinstance(ttype, TensorType)
    dtype = numpy_dtype(ttype.element_type)
    shape = tuple(ttype.get_shape())
    flat = np.frombuffer(attr.data.data, dtype=dtype)
    if flat.size == 1 and math.prod(shape) != 1:
        return np.broadcast_to(flat.reshape(()), shape)
    return flat.reshape(shape)
