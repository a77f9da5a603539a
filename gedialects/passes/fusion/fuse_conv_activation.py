"""`ge-fuse-conv-activation`: a Conv2D and the activation after it become `graph.fused_conv2d`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from gedialects.base import element_type
from gedialects.graph import Conv2DOp, FusedConv2DOp
from gedialects.graph.common import is_int8
from gedialects.graph.fused import activation_properties
from gedialects.passes.fusion.matching import (
    ACTIVATION_TYPES,
    activation_input,
    carry_attributes,
    match_activation,
    replace_group,
    rewrite_with,
    single_user_producer,
)


class FuseConv2DActivation(RewritePattern):
    """`act(conv2d(x, W, b))` -> `fused_conv2d(x, W, b) activation "act"`."""

    ROOTS: ClassVar[tuple[type[Operation], ...]] = ACTIVATION_TYPES
    """What `match_activation` accepts (`matching.root_type`)."""

    ANCHORS: ClassVar[tuple[type[Operation], ...]] = (Conv2DOp,)
    """Every match holds the Conv2D (`matching.ByOpType`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        activation = match_activation(op)
        if activation is None:
            return  # not an activation a convolution can apply
        conv = single_user_producer(activation_input(op), Conv2DOp)
        if not isinstance(conv, Conv2DOp) or op.results[0].type != conv.y.type:
            return  # not after a convolution, which has no other user, of the same type
        if "offset_x" in conv.properties or is_int8(element_type(conv.x.type)):
            return  # GE's int8 form (its activation is AscendDequant's relu_flag)
        props = dict(conv.properties)
        fused = FusedConv2DOp.build(
            operands=[conv.x, conv.filter, [] if conv.bias is None else [conv.bias]],
            result_types=[op.results[0].type],
            properties=props | activation_properties(*activation),
        )
        carry_attributes(fused, conv)
        replace_group(rewriter, op, [fused], fused.y, [conv])


def conv_activation_patterns() -> tuple[RewritePattern, ...]:
    return (FuseConv2DActivation(),)


@dataclass(frozen=True)
class FuseConvActivationPass(ModulePass):
    """Fuses Relu, Relu6 (ClipByValue to [0, 6]), ClipByValue with constant bounds, Sigmoid,
    HardSwish or Gelu after a Conv2D into one `graph.fused_conv2d` (GE runs such pairs as one
    kernel through UB fusion). The convolution must have no other user; run `ge-fuse-conv-bn`
    and `ge-fuse-conv-bias` first so that the whole chain becomes one node.
    """

    name = "ge-fuse-conv-activation"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, conv_activation_patterns())
