"""`ge-fuse-conv-bias`: a per-channel Add after a convolution becomes the convolution's bias."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.base import element_type, tensor_shape
from gedialects.graph import AddOp, Conv2DOp
from gedialects.passes.fusion.matching import (
    carry_attributes,
    channel_vector,
    const_array,
    new_const,
    replace_group,
    rewrite_with,
    single_user_producer,
)


class FuseConv2DBiasAdd(RewritePattern):
    """`conv2d(x, W, b) + c` -> `conv2d(x, W, b + c)` for a c constant along the channels.

    A run-time c is taken as the bias only when it already is one: a 1-D [C] tensor added
    to an NHWC convolution without bias.
    """

    ANCHORS: ClassVar[tuple[type[Operation], ...]] = (Conv2DOp,)
    """Every match holds the Conv2D (`matching.ByOpType`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddOp, rewriter: PatternRewriter) -> None:
        for out, c in ((op.x1, op.x2), (op.x2, op.x1)):
            conv = single_user_producer(out, Conv2DOp)
            if not isinstance(conv, Conv2DOp) or c is out:
                continue  # not a convolution's only use
            shape = tensor_shape(conv.y.type)
            if op.y.type != conv.y.type or shape is None:
                return  # the Add broadcasts the convolution to another shape
            if element_type(c.type) != element_type(conv.y.type):
                return  # mixed element types are the verifier's business
            axis = 3 if conv.data_format.data == "NHWC" else 1
            new_ops: list[Operation] = []
            bias: SSAValue
            added = const_array(c)
            if added is not None:
                vector = channel_vector(added, 4, axis, shape[axis])
                old = None if conv.bias is None else const_array(conv.bias)
                if vector is None or (conv.bias is not None and old is None):
                    return  # varies along other dims, or the old bias is a run-time value
                total = vector if old is None else old + vector
                const = new_const(np.asarray(total, dtype=added.dtype), conv, "bias")
                new_ops.append(const)
                bias = const.y
            elif conv.bias is None and axis == 3 and tensor_shape(c.type) == (shape[3],):
                bias = c
            else:
                return  # a run-time addend that is not already a bias vector
            fused = Conv2DOp.build(
                operands=[conv.x, conv.filter, [bias]],
                result_types=[op.y.type],
                properties=dict(conv.properties),
            )
            new_ops.append(carry_attributes(fused, conv))
            replace_group(rewriter, op, new_ops, fused.y, [conv])
            return


def conv_bias_patterns() -> tuple[RewritePattern, ...]:
    return (FuseConv2DBiasAdd(),)


@dataclass(frozen=True)
class FuseConvBiasPass(ModulePass):
    """Moves an Add of a per-channel constant into the bias of the Conv2D before it.

    GE's BiasAdd/Add-into-convolution fusion (ops-nn `AABiasaddConvFusion`). The addend
    must be constant along every dim but the channels ([1, C, 1, 1], [C, 1, 1] for NCHW;
    [C] for NHWC), the convolution's only user the Add, and the Add's result the
    convolution's shape. An existing constant bias is summed with it.
    """

    name = "ge-fuse-conv-bias"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, conv_bias_patterns())
