"""`ge-fuse-matmul-activation`: a matrix product and the activation after it become
`graph.fused_mat_mul`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.utils.exceptions import VerifyException

from gedialects.base import tensor_shape
from gedialects.graph import BatchMatMulV2Op, FusedMatMulOp, MatMulOp
from gedialects.graph.fused import activation_properties
from gedialects.passes.fusion.fuse_matmul_transpose import FLAGS
from gedialects.passes.fusion.matching import (
    ACTIVATION_TYPES,
    activation_input,
    carry_attributes,
    match_activation,
    replace_group,
    rewrite_with,
    single_user_producer,
)


class FuseMatMulActivation(RewritePattern):
    """`act(matmul(a, b, bias))` -> `fused_mat_mul(a, b, bias) activation "act"`."""

    ROOTS: ClassVar[tuple[type[Operation], ...]] = ACTIVATION_TYPES
    """What `match_activation` accepts (`matching.root_type`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        activation = match_activation(op)
        if activation is None:
            return  # not an activation a product can apply
        product = single_user_producer(activation_input(op), MatMulOp, BatchMatMulV2Op)
        if product is None or op.results[0].type != product.results[0].type:
            return  # not after a product, which has no other user, of the same type
        flag1, flag2 = FLAGS[type(product)]
        props: dict[str, Attribute] = {
            "adj_x1": product.properties[flag1],
            "adj_x2": product.properties[flag2],
        }
        fused = FusedMatMulOp.build(
            operands=[product.operands[0], product.operands[1], list(product.operands[2:])],
            result_types=[op.results[0].type],
            properties=props | activation_properties(*activation),
        )
        bias = product.operands[2:]
        if bias and tensor_shape(bias[0].type) != (tensor_shape(fused.y.type) or (0,))[-1:]:
            try:
                fused.verify()
            except VerifyException:
                return  # a BatchMatMulV2 bias that widens the product has no fused form
        carry_attributes(fused, product)
        replace_group(rewriter, op, [fused], fused.y, [product])


def matmul_activation_patterns() -> tuple[RewritePattern, ...]:
    return (FuseMatMulActivation(),)


@dataclass(frozen=True)
class FuseMatMulActivationPass(ModulePass):
    """Fuses Relu, Relu6, constant ClipByValue, Sigmoid, HardSwish or Gelu after a MatMul or
    BatchMatMulV2 (with its bias) into one `graph.fused_mat_mul`. The product must have no
    other user; run `ge-fuse-matmul-bias` first so that the bias Add is inside."""

    name = "ge-fuse-matmul-activation"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, matmul_activation_patterns())
