"""`ge-fuse-hard-swish`: `x * HardSigmoid(x)` becomes `graph.hard_swish`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.graph import HardSigmoidOp, HardSwishOp, MulOp
from gedialects.passes.fusion.matching import (
    carry_attributes,
    fusable,
    is_close,
    replace_group,
    rewrite_with,
)


class FuseHardSigmoidMul(RewritePattern):
    """`x * hard_sigmoid(x, alpha = 1/6, beta = 0.5)` (either order) -> `hard_swish(x)`."""

    ANCHORS: ClassVar[tuple[type[Operation], ...]] = (HardSigmoidOp,)
    """Every match holds a HardSigmoid (`matching.ByOpType`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
        for x, gate in ((op.x1, op.x2), (op.x2, op.x1)):
            sigmoid = gate.owner
            if not isinstance(sigmoid, HardSigmoidOp) or sigmoid.x is not x:
                continue  # not x * hard_sigmoid(x)
            alpha, beta = sigmoid.alpha.value.data, sigmoid.beta.value.data
            if not is_close(alpha, 1 / 6) or not is_close(beta, 0.5):
                continue  # another slope or offset than HardSwish's
            if op.y.type != x.type or not fusable(op, [sigmoid]):
                return  # broadcasts, or the gate is used elsewhere
            swish = carry_attributes(HardSwishOp(x), op)
            replace_group(rewriter, op, [swish], swish.results[0], [sigmoid])
            return


def hard_swish_patterns() -> tuple[RewritePattern, ...]:
    return (FuseHardSigmoidMul(),)


@dataclass(frozen=True)
class FuseHardSwishPass(ModulePass):
    """Replaces `x * HardSigmoid(x)` by `graph.hard_swish`.

    PyTorch exports `nn.Hardswish` below opset 14 as `Mul(x, HardSigmoid(x, alpha=1/6))`;
    HardSwish is `x * max(0, min(1, x / 6 + 1 / 2))`, the same function. The gate must have
    HardSwish's alpha (1/6) and beta (0.5) and no other user.
    """

    name = "ge-fuse-hard-swish"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, hard_swish_patterns())
