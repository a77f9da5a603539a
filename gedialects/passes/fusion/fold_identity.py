"""`ge-fold-identity`: removes Identity nodes (and ONNX Dropout, which imports as Identity)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.graph import IdentityOp
from gedialects.passes.fusion.matching import rewrite_with


class FoldIdentity(RewritePattern):
    """`identity(x)` -> `x` when the types are equal (a refining Identity stays, and so does
    one with control inputs: its users have no other place for the edges)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IdentityOp, rewriter: PatternRewriter) -> None:
        if op.x.type != op.y.type or op.ctrl:
            return  # users would see another type, or lose the control edges
        rewriter.replace(op, [], [op.x])


def identity_patterns() -> tuple[RewritePattern, ...]:
    return (FoldIdentity(),)


@dataclass(frozen=True)
class FoldIdentityPass(ModulePass):
    """Replaces each `graph.identity` by its operand, as GE's IdentityPass does.

    ONNX Dropout in inference imports as `graph.identity`, so this removes it too. An
    Identity whose result type differs from its operand's (a refinement) is kept, and so is
    one carrying control edges (operands after the first).
    """

    name = "ge-fold-identity"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, identity_patterns())
