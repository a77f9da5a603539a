"""`ge-fuse-mul-add`: a Mul whose only user is an Add becomes GE's FusedMulAdd."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.base import element_type, new_op
from gedialects.graph import AddOp, FusedMulAddOp, MulOp
from gedialects.graph.elementwise import element_has_kind
from gedialects.passes.fusion.matching import (
    replace_group,
    rewrite_with,
    single_user_producer,
)


class FuseMulAdd(RewritePattern):
    """`a * b + c` (either Add operand order) -> `fused_mul_add(a, b, c)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddOp, rewriter: PatternRewriter) -> None:
        if not element_has_kind(element_type(op.y.type), "numeric"):
            return  # FusedMulAdd is for numbers, not i1
        for product, c in ((op.x1, op.x2), (op.x2, op.x1)):
            mul = single_user_producer(product, MulOp)
            if not isinstance(mul, MulOp) or c is product:
                continue  # not a Mul used only here
            # The constructor's op without IRDL's generic argument lists (`base.new_op`),
            # with the Add's attributes as `carry_attributes` gives them.
            fused = new_op(
                FusedMulAddOp,
                [mul.x1, mul.x2, c],
                [op.y.type],
                attributes=dict(op.attributes),
            )
            replace_group(rewriter, op, [fused], fused.y, [mul])
            return


def mul_add_patterns() -> tuple[RewritePattern, ...]:
    return (FuseMulAdd(),)


@dataclass(frozen=True)
class FuseMulAddPass(ModulePass):
    """Replaces `Add(Mul(a, b), c)` by `graph.fused_mul_add` (GE FusedMulAdd, a scale and
    shift in one kernel), when the Mul has no other user. Broadcasting is kept: the fused op
    broadcasts all three operands, as the two ops did. Run it after the fusions that match
    Mul/Add chains of their own (layer norm, GELU), which `ge-fuse` does."""

    name = "ge-fuse-mul-add"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, mul_add_patterns())
