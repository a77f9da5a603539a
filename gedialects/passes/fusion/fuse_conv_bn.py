"""`ge-fuse-conv-bn`: a BatchNorm after a convolution is folded into its weights and bias.

GE's ConvBatchnormFusionPass: with `s = scale / sqrt(variance + epsilon)` per output
channel, `bn(conv(x, W) + b) = conv(x, W * s) + (b - mean) * s + offset`. The new weights
are computed here (in float64, stored in the weights' type), so the filter, the bias and the
four BatchNorm inputs must be constants.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.base import element_type
from gedialects.graph import BatchNormOp, Conv2DOp
from gedialects.graph.elementwise import is_float
from gedialects.graph.normalization import channel_axis
from gedialects.passes.fusion.matching import (
    carry_attributes,
    const_array,
    new_const,
    replace_group,
    rewrite_with,
    single_user_producer,
)


class FuseConv2DBatchNorm(RewritePattern):
    """`batch_norm(conv2d(x, W, b))` -> `conv2d(x, W * s, (b - mean) * s + offset)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchNormOp, rewriter: PatternRewriter) -> None:
        conv = single_user_producer(op.x, Conv2DOp)
        if not isinstance(conv, Conv2DOp):
            return  # not after a convolution, or the convolution has other users
        last = conv.data_format.data == "NHWC"
        if channel_axis(op.data_format.data, 4) != (3 if last else 1):
            return  # the BatchNorm channels are not the convolution's output channels
        weights = const_array(conv.filter)
        params = [const_array(v) for v in (op.scale, op.offset, op.mean, op.variance)]
        bias = None if conv.bias is None else const_array(conv.bias)
        if (
            weights is None
            or any(p is None for p in params)
            or (conv.bias is not None and bias is None)
        ):
            return  # a weight is only known at run time
        if not is_float(element_type(conv.y.type)):
            return  # integer convolutions keep their integer weights
        scale, offset, mean, variance = (np.asarray(p, dtype=np.float64) for p in params)
        out_axis = 3 if last else 0
        channels = weights.shape[out_axis]
        if any(p.shape != (channels,) for p in (scale, offset, mean, variance)):
            return  # per-channel parameters of another length (the verifier would say so)
        s = scale / np.sqrt(variance + float(op.epsilon.value.data))
        shape = [1, 1, 1, 1]
        shape[out_axis] = channels
        folded = weights.astype(np.float64) * s.reshape(shape)
        b = np.zeros(channels) if bias is None else bias.astype(np.float64)
        new_bias = (b - mean) * s + offset
        w_const = new_const(folded.astype(weights.dtype), conv, "bn_weight")
        b_const = new_const(new_bias.astype(weights.dtype), conv, "bn_bias")
        fused = Conv2DOp.build(
            operands=[conv.x, w_const.y, [b_const.y]],
            result_types=[op.y.type],
            properties=dict(conv.properties),
        )
        carry_attributes(fused, conv)
        replace_group(rewriter, op, [w_const, b_const, fused], fused.y, [conv])


def conv_bn_patterns() -> tuple[RewritePattern, ...]:
    return (FuseConv2DBatchNorm(),)


@dataclass(frozen=True)
class FuseConvBnPass(ModulePass):
    """Folds an inference BatchNorm into the Conv2D before it (GE ConvBatchnormFusionPass).

    Needs constant filter, bias and BatchNorm parameters, a float convolution whose only
    user is the BatchNorm, and the BatchNorm channel axis on the convolution's output
    channels. The folded weights and bias become new constants (the old ones are erased
    when nothing else reads them); the convolution keeps its node name.
    """

    name = "ge-fuse-conv-bn"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, conv_bn_patterns())
