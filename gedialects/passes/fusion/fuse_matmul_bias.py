"""`ge-fuse-matmul-bias`: an Add of a bias vector after a matrix product becomes its bias."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.base import element_type, new_op, tensor_shape
from gedialects.graph import AddOp, BatchMatMulV2Op, MatMulOp
from gedialects.passes.fusion.matching import (
    channel_vector,
    const_array,
    new_const,
    replace_group,
    rewrite_with,
    single_user_producer,
)


class FuseMatMulBiasAdd(RewritePattern):
    """`matmul(a, b, bias) + c` -> `matmul(a, b, bias + c)` for c constant along the rows.

    c must vary only along the last dim ([N], [1, N], [1, 1, N], or a splat). A run-time c
    is taken when it is already a 1-D [N] vector and the product has no bias.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddOp, rewriter: PatternRewriter) -> None:
        for out, c in ((op.x1, op.x2), (op.x2, op.x1)):
            product = single_user_producer(out, MatMulOp, BatchMatMulV2Op)
            if product is None or c is out:
                continue  # not a product's only use
            shape = tensor_shape(out.type)
            if op.y.type != out.type or not shape:
                return  # the Add broadcasts the product, or the product is a scalar
            if element_type(c.type) != element_type(out.type):
                return  # mixed element types are the verifier's business
            old_bias = product.operands[2] if len(product.operands) > 2 else None
            new_ops: list[Operation] = []
            bias: SSAValue
            added = const_array(c)
            if added is not None and shape[-1] >= 0:
                vector = channel_vector(added, len(shape), len(shape) - 1, shape[-1])
                old = None if old_bias is None else const_array(old_bias)
                if vector is None or (old_bias is not None and old is None):
                    return  # varies along other dims, or the old bias is a run-time value
                total = vector if old is None else old + vector
                const = new_const(np.asarray(total, dtype=added.dtype), product, "bias")
                new_ops.append(const)
                bias = const.y
            elif old_bias is None and tensor_shape(c.type) == (shape[-1],) and shape[-1] >= 0:
                bias = c
            else:
                return  # a run-time addend that is not already a bias vector
            # `build`'s result without its generic argument lists (`base.new_op`): the
            # bias is the one optional operand, so the operands are simply flat.
            fused = new_op(
                type(product),
                [product.operands[0], product.operands[1], bias],
                [op.y.type],
                properties=dict(product.properties),
                attributes=dict(product.attributes),
            )
            new_ops.append(fused)
            replace_group(rewriter, op, new_ops, fused.results[0], [product])
            return


def matmul_bias_patterns() -> tuple[RewritePattern, ...]:
    return (FuseMatMulBiasAdd(),)


@dataclass(frozen=True)
class FuseMatMulBiasPass(ModulePass):
    """Moves the bias Add after a MatMul or BatchMatMulV2 into the product's bias operand.

    GE's MatMulBiasAddFusionPass. This is how `nn.Linear` on 3-D input is exported (MatMul,
    then Add of the bias), and the Gemm form with a [1, N] C. The product must have no other
    user and the Add must not broadcast it; an existing constant bias is summed.
    """

    name = "ge-fuse-matmul-bias"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, matmul_bias_patterns())
