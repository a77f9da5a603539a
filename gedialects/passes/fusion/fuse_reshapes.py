"""`ge-fuse-reshapes`: a Reshape of a reshape-like op becomes one Reshape; no-op Reshapes go."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.base import is_static, tensor_shape
from gedialects.graph import FlattenOp, ReshapeOp, SqueezeV3Op, UnsqueezeV3Op
from gedialects.passes.fusion.matching import (
    carry_attributes,
    const_array,
    new_const,
    replace_group,
    rewrite_with,
    single_user_producer,
)

RESHAPE_LIKE = (ReshapeOp, FlattenOp, SqueezeV3Op, UnsqueezeV3Op)
"""Ops that only reinterpret the element order of their first operand under a new shape."""


class FoldNoOpReshape(RewritePattern):
    """`reshape(x : T) : T` -> `x` for a static T."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter) -> None:
        if op.x.type != op.y.type or not is_static(op.y.type):
            return  # changes the shape, or the shape is only known at run time
        replace_group(rewriter, op, [], op.x, [])


class FuseReshapeChain(RewritePattern):
    """`reshape(r(x), s)` -> `reshape(x, s')` for a reshape-like `r` with no other user.

    The element order never changes, so only the final shape matters. `s'` is `s` when its
    values do not refer to the intermediate shape (a constant without 0 = "copy the input
    dim", or with `allowzero`); otherwise a static result type gives `s'` itself.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter) -> None:
        inner = single_user_producer(op.x, *RESHAPE_LIKE)
        if inner is None:
            return  # not a chain, or the intermediate shape is used elsewhere
        source = inner.operands[0]
        target = const_array(op.shape)
        new_ops = []
        if target is not None and (op.allowzero.value.data or not np.any(target == 0)):
            shape = op.shape
        elif is_static(op.y.type):
            dims = np.array(tensor_shape(op.y.type), dtype=np.int64)
            const = new_const(dims, op, "shape")
            new_ops.append(const)
            shape = const.y
        else:
            return  # a 0 copies a dim of the intermediate shape, which is not known here
        allowzero = bool(op.allowzero.value.data)
        fused = ReshapeOp(source, shape, allowzero=allowzero, result_type=op.y.type)
        new_ops.append(carry_attributes(fused, op))
        replace_group(rewriter, op, new_ops, fused.y, [inner])


def reshape_patterns() -> tuple[RewritePattern, ...]:
    return (FoldNoOpReshape(), FuseReshapeChain())


@dataclass(frozen=True)
class FuseReshapesPass(ModulePass):
    """Collapses Reshape chains into one Reshape and removes Reshapes to the same static type.

    A Reshape whose input comes from a Reshape, Flatten, SqueezeV3 or UnsqueezeV3 with no
    other user reads that op's input directly (the intermediate shape never matters for the
    element order). The shape operand is kept when it is a constant free of 0s (ONNX "copy
    this dim", which would refer to the removed intermediate), else a static result type
    gives a new constant shape; otherwise the chain stays.
    """

    name = "ge-fuse-reshapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, reshape_patterns())
