"""Shape manipulation ops (GE array_ops.h, transformation_ops.h)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import (
    Pure,
)

from gedialects.base import (
    GEOp,
    NodeSyntax,
    element_type,
    int_array,
    int_array_values,
    is_static,
    tensor_shape,
)
from gedialects.graph.common import (
    AnyTensor,
    fail,
    product,
    reshape_shape,
    tensor_of,
    verify_element_types,
    verify_result_shape,
)
from gedialects.graph.structure import ConstOp

# --------------------------------------------------------------------------------------------
# Shape manipulation (array_ops.h, transformation_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ReshapeOp(GEOp, NodeSyntax):
    """GE Reshape: the elements of `x` in a new shape read from the 1-D int32/int64 `shape`.

    As in GE and ONNX, a 0 in `shape` copies the input dim at that position and one -1 takes
    the remaining element count. The result type must agree with the shape values at run time;
    the verifier checks what the types alone decide (rank, element count).

        %s = graph.const dense<[0, -1]> : tensor<2xi64>
        %y = graph.reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
    """

    name = "graph.reshape"
    GE_TYPE: ClassVar[str] = "Reshape"

    x = operand_def(AnyTensor)
    shape = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        shape: SSAValue | Operation,
        *,
        result_type: Attribute | None = None,
    ) -> None:
        """Infers the result type when `shape` is a `graph.const`; otherwise pass `result_type`."""
        if result_type is None:
            shape_value = SSAValue.get(shape)
            if not isinstance(shape_value.owner, ConstOp):
                raise ValueError("ReshapeOp needs a result_type unless shape is a graph.const")
            tx = SSAValue.get(x).type
            dims = tensor_shape(tx)
            target = _const_ints(shape_value.owner.value)
            result_type = tensor_of(
                element_type(tx),
                [-1] * len(target) if dims is None else reshape_shape(dims, target),
            )
        super().__init__(operands=[x, shape], result_types=[result_type])

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        shape_type = self.shape.type
        if (
            not isinstance(shape_type, TensorType)
            or shape_type.get_num_dims() != 1
            or shape_type.element_type not in (i32, i64)
        ):
            fail(self, f"shape must be a 1-D int32 or int64 tensor, got {shape_type}")
        length = shape_type.get_shape()[0]
        result = tensor_shape(self.y.type)
        if length >= 0 and result is not None and len(result) != length:
            fail(self, f"result rank {len(result)} differs from the length {length} of shape")
        if is_static(self.x.type) and is_static(self.y.type):
            count, result_count = product(tensor_shape(self.x.type) or ()), product(result or ())
            if count != result_count:
                fail(self, f"x has {count} elements but the result has {result_count}")


def _const_ints(value: DenseIntOrFPElementsAttr) -> tuple[int, ...]:
    values = tuple(int(v) for v in value.get_values())
    count = product(value.get_shape() or ())
    return values * count if len(values) == 1 and count != 1 else values


@irdl_op_definition
class TransposeOp(GEOp, NodeSyntax):
    """GE Transpose: permutes the dims of `x`, result dim i being input dim `perm[i]`.

    GE's Transpose takes `perm` as a second (usually constant) input; this op keeps it as a
    property, which is GE's TransposeD form, so the result shape is known statically.

        %y = graph.transpose %x perm [0, 2, 3, 1] : (tensor<1x3x8x8xf32>) -> tensor<1x8x8x3xf32>
    """

    name = "graph.transpose"
    GE_TYPE: ClassVar[str] = "Transpose"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    perm = prop_def(DenseArrayBase.constr(i64))

    traits = traits_def(Pure())

    def __init__(
        self,
        x: SSAValue | Operation,
        perm: Sequence[int],
        *,
        result_type: Attribute | None = None,
    ) -> None:
        if result_type is None:
            tx = SSAValue.get(x).type
            dims = tensor_shape(tx)
            if dims is not None and sorted(perm) != list(range(len(dims))):
                raise ValueError(f"perm {list(perm)} does not permute the dims of {tx}")
            result_type = tensor_of(
                element_type(tx), None if dims is None else [dims[p] for p in perm]
            )
        super().__init__(
            operands=[x], result_types=[result_type], properties={"perm": int_array(perm)}
        )

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        perm = int_array_values(self.perm)
        x, y = tensor_shape(self.x.type), tensor_shape(self.y.type)
        rank = len(perm) if x is None and y is None else len(x if x is not None else y)
        if sorted(perm) != list(range(rank)):
            fail(self, f"perm {list(perm)} is not a permutation of the {rank} dims")
        if x is not None:
            verify_result_shape(self, [x[p] for p in perm], "the permuted shape")


__all__ = ["ReshapeOp", "TransposeOp"]

OPS = (ReshapeOp, TransposeOp)
"""The ops of this module, in the order the dialect lists them."""
