"""`ge-fuse-transposes`: a Transpose of a Transpose becomes one Transpose, or none."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.base import int_array_values
from gedialects.graph import TransposeOp
from gedialects.passes.fusion.matching import (
    carry_attributes,
    producer,
    replace_group,
    rewrite_with,
)


class FoldIdentityTranspose(RewritePattern):
    """`transpose(x, [0, 1, ..., n-1])` -> `x`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        perm = int_array_values(op.perm)
        if perm != tuple(range(len(perm))) or op.x.type != op.y.type:
            return  # moves dims, or refines the type
        rewriter.replace(op, [], [op.x])


class FuseTransposePair(RewritePattern):
    """`transpose(transpose(x, p), q)` -> `transpose(x, p[q])`, or `x` when p[q] is identity.

    Result dim i of the pair is dim `q[i]` of the inner result, which is dim `p[q[i]]` of x.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter) -> None:
        inner = producer(op.x, TransposeOp)
        if not isinstance(inner, TransposeOp):
            return  # not a pair
        p, q = int_array_values(inner.perm), int_array_values(op.perm)
        composed = tuple(p[i] for i in q)
        single = [inner] if inner.y.has_one_use() else []
        if composed == tuple(range(len(composed))) and inner.x.type == op.y.type:
            replace_group(rewriter, op, [], inner.x, single)
            return
        if not single:
            return  # the inner transpose stays for its other users: fusing saves nothing
        fused = TransposeOp(inner.x, composed, result_type=op.y.type)
        replace_group(rewriter, op, [carry_attributes(fused, op)], fused.y, single)


def transpose_patterns() -> tuple[RewritePattern, ...]:
    return (FoldIdentityTranspose(), FuseTransposePair())


@dataclass(frozen=True)
class FuseTransposesPass(ModulePass):
    """Composes consecutive Transposes and removes those that cancel.

    Two Transposes in a row (NCHW -> NHWC -> NCHW round trips, `k.transpose(1, 2)` followed
    by `transpose(-2, -1)`) become one Transpose with the composed permutation, or nothing
    when it is the identity; a lone identity Transpose is removed as well. A first Transpose
    with other users is kept, and then only a cancelling pair is rewritten.
    """

    name = "ge-fuse-transposes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, transpose_patterns())
