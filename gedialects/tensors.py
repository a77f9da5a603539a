"""numpy <-> xDSL tensor bridges: dense attributes from numpy bytes, dtypes from element types.

Imported by front ends, interpreters and tests, never by the dialect modules (numpy stays out of
`ge-opt` start-up unless a pass needs it).
"""

from __future__ import annotations

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


def numpy_dtype(element_type: Attribute) -> np.dtype:
    """numpy dtype of an xDSL element type (f16/f32/f64, i1, signless and unsigned ints)."""
    if isinstance(element_type, Float16Type | Float32Type | Float64Type | IntegerType):
        key = element_type
        if isinstance(key, IntegerType) and key.signedness.data == Signedness.SIGNED:
            key = IntegerType(key.width.data)
        if key in _TO_NUMPY:
            return _TO_NUMPY[key]
    raise UnsupportedDtypeError(
        f"element type {element_type} has no numpy dtype", str(element_type)
    )


def element_type_of(dtype: np.dtype) -> IntegerType | AnyFloat:
    """xDSL element type of a numpy dtype."""
    key = np.dtype(dtype).newbyteorder("<") if np.dtype(dtype).byteorder == ">" else np.dtype(dtype)
    if key not in _FROM_NUMPY:
        raise UnsupportedDtypeError(f"numpy dtype {dtype} has no xDSL element type")
    return _FROM_NUMPY[key]


def tensor_type_of(array: np.ndarray) -> TensorType[IntegerType | AnyFloat]:
    """The tensor type of an array (its shape and element type)."""
    return TensorType(element_type_of(array.dtype), array.shape)


def dense_from_numpy(array: np.ndarray) -> DenseIntOrFPElementsAttr:
    """A dense attribute holding the array's bytes (little-endian, C order); no Python lists."""
    array = np.asarray(array)
    ttype = tensor_type_of(array)
    data = np.ascontiguousarray(array, dtype=numpy_dtype(ttype.element_type)).tobytes()
    return DenseIntOrFPElementsAttr(ttype, BytesAttr(data))


def numpy_from_dense(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A read-only array over the attribute's bytes (zero-copy); splats are broadcast."""
    ttype = attr.type
    assert isinstance(ttype, TensorType)
    dtype = numpy_dtype(ttype.element_type)
    shape = tuple(ttype.get_shape())
    flat = np.frombuffer(attr.data.data, dtype=dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if flat.size == 1 and count != 1:
        return np.broadcast_to(flat.reshape(()), shape)
    return flat.reshape(shape)
