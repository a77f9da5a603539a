"""Matrix ops (GE matrix_calculation_ops.h)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
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
    tensor_shape,
)
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    bool_attr,
    fail,
    tensor_of,
    verify_element_types,
    verify_rank,
    verify_result_shape,
)

# --------------------------------------------------------------------------------------------
# Matrix (matrix_calculation_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class MatMulOp(GEOp, NodeSyntax):
    """GE MatMul: 2-D matrix product `op(x1) @ op(x2) + bias`.

    `op` transposes its operand when `transpose_x1`/`transpose_x2` is set; `x1` is then [M, K]
    and `x2` [K, N] after transposition, the optional `bias` is 1-D of length N (or 1) and the
    result is [M, N]. Batched products are GE's BatchMatMul, not this op.

        %y = graph.matmul %a, %b, %bias transpose_x2 true
            : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    """

    name = "graph.matmul"
    GE_TYPE: ClassVar[str] = "MatMul"

    x1 = operand_def(AnyTensor)
    x2 = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    transpose_x1 = prop_def(BoolAttr, default_value=FALSE)
    transpose_x2 = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        bias: SSAValue | Operation | None = None,
        *,
        transpose_x1: bool = False,
        transpose_x2: bool = False,
        result_type: Attribute | None = None,
    ) -> None:
        if result_type is None:
            t1, t2 = SSAValue.get(x1).type, SSAValue.get(x2).type
            s1, s2 = tensor_shape(t1), tensor_shape(t2)
            shape = None
            if s1 is not None and s2 is not None and len(s1) == len(s2) == 2:
                shape = (s1[1] if transpose_x1 else s1[0], s2[0] if transpose_x2 else s2[1])
            result_type = tensor_of(element_type(t1), shape)
        super().__init__(
            operands=[x1, x2, [] if bias is None else [bias]],
            result_types=[result_type],
            properties={
                "transpose_x1": bool_attr(transpose_x1),
                "transpose_x2": bool_attr(transpose_x2),
            },
        )

    def verify_(self) -> None:
        types = [self.x1.type, self.x2.type, self.y.type]
        if self.bias is not None:
            types.append(self.bias.type)
        verify_element_types(self, types, "operands and result")
        s1 = verify_rank(self, "x1", self.x1.type, 2)
        s2 = verify_rank(self, "x2", self.x2.type, 2)
        verify_rank(self, "the result", self.y.type, 2)
        m = k1 = k2 = n = -1
        if s1 is not None:
            m, k1 = reversed(s1) if self.transpose_x1.value.data else s1
        if s2 is not None:
            k2, n = reversed(s2) if self.transpose_x2.value.data else s2
        if k1 >= 0 and k2 >= 0 and k1 != k2:
            fail(self, f"contracts K = {k1} of x1 with K = {k2} of x2")
        verify_result_shape(self, (m, n), "[M, N] =")
        if self.bias is not None:
            bias = verify_rank(self, "bias", self.bias.type, 1)
            if bias is not None and bias[0] >= 0 and n >= 0 and bias[0] not in (1, n):
                fail(self, f"bias has length {bias[0]}, expected N = {n} (or 1)")


# --------------------------------------------------------------------------------------------


__all__ = ["MatMulOp"]

OPS = (MatMulOp,)
"""The ops of this module, in the order the dialect lists them."""
