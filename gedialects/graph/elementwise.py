"""Elementwise arithmetic and math ops (GE elewise_calculation_ops.h)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import (
    irdl_op_definition,
)

from gedialects.graph.common import ElementwiseBinaryOp

# --------------------------------------------------------------------------------------------
# Elementwise (elewise_calculation_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class AddOp(ElementwiseBinaryOp):
    """GE Add: elementwise sum with numpy broadcasting.

    See `ElementwiseBinaryOp` for the typing rules.

        %y = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    """

    name = "graph.add"
    GE_TYPE: ClassVar[str] = "Add"


@irdl_op_definition
class MulOp(ElementwiseBinaryOp):
    """GE Mul: elementwise product with numpy broadcasting.

    See `ElementwiseBinaryOp` for the typing rules.

        %y = graph.mul %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    """

    name = "graph.mul"
    GE_TYPE: ClassVar[str] = "Mul"


@irdl_op_definition
class SubOp(ElementwiseBinaryOp):
    """GE Sub: elementwise difference `x1 - x2` with numpy broadcasting.

    See `ElementwiseBinaryOp` for the typing rules.

        %y = graph.sub %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    """

    name = "graph.sub"
    GE_TYPE: ClassVar[str] = "Sub"


__all__ = ["AddOp", "MulOp", "SubOp"]

OPS = (AddOp, MulOp, SubOp)
"""The ops of this module, in the order the dialect lists them."""
