"""GE's trans ops (`transop_util.cc`) as the format clean-up passes see them.

Shared by `ge-eliminate-trans-op-symmetry`, `ge-merge-trans-op-breadth` and
`ge-merge-trans-op-depth`: which ops are trans ops, what makes two of them the same, and
whether a Cast loses precision (GE's `CheckPrecisionLoss`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, Operation

from gedialects.base import element_nbytes, element_type, of_class
from gedialects.graph import CastOp, TransDataOp, TransposeOp

TRANS_OP_TYPES = frozenset({"TransData", "Cast", "Transpose"})
"""GE's trans op set as breadth and depth fusion see it (TransData, Cast, Transpose);
`ge-eliminate-trans-op-symmetry` also cancels Reshape pairs (its shape is a second input,
so breadth fusion leaves it), other Reshape/Squeeze clean-up is `ge-fuse-reshapes`'s."""


TRANS_OPS = (TransDataOp, CastOp, TransposeOp)
"""`of_class(op, TRANS_OPS)`: whether `op` is one of `TRANS_OP_TYPES`."""


def is_trans_op(op: Operation) -> bool:
    return of_class(op, TRANS_OPS)


def trans_key(op: Operation) -> tuple[object, ...]:
    """What makes two trans ops on one value the same node (`TransOpBreadthFusionPass`'s id:
    type, properties, result type; dtypes and formats are in the types)."""
    props = tuple(sorted((k, str(v)) for k, v in op.properties.items()))
    return (op.name, props, tuple(op.result_types))


def lossless_cast(src: Attribute, dst: Attribute) -> bool:
    """Whether casting `src` elements to `dst` and back returns every value: widening within
    floats or within integers of one signedness (GE refuses float->int and any->bool)."""
    a, b = element_type(src), element_type(dst)
    if a == b:
        return True
    if isinstance(a, IntegerType) and isinstance(b, IntegerType):
        na, nb = element_nbytes(a), element_nbytes(b)
        wider = na is not None and nb is not None and nb > na
        return wider and a.width.data > 1 and a.signedness == b.signedness
    return (str(a), str(b)) in _WIDER_FLOATS


_WIDER_FLOATS = frozenset(
    {("f16", "f32"), ("f16", "f64"), ("bf16", "f32"), ("bf16", "f64"), ("f32", "f64")}
)
