"""Activation ops (GE nonlinear_fuc_ops.h)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition

from gedialects.graph.common import ElementwiseUnaryOp

# --------------------------------------------------------------------------------------------
# Activations (nonlinear_fuc_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class ReluOp(ElementwiseUnaryOp):
    """GE Relu: `max(x, 0)` elementwise.

    `Relu` is the IR prototype's type (`REG_OP(Relu)`); GE's types.h also has the Caffe-style
    alias constant `RELU = "ReLU"`, which graphs built through the IR API do not use.

        %y = graph.relu %x : (tensor<1x8xf32>) -> tensor<1x8xf32>
    """

    name = "graph.relu"
    GE_TYPE: ClassVar[str] = "Relu"


# --------------------------------------------------------------------------------------------


__all__ = ["ReluOp"]

OPS = (ReluOp,)
"""The ops of this module, in the order the dialect lists them."""
