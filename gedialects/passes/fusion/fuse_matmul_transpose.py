"""`ge-fuse-matmul-transpose`: a Transpose of the last two dims feeding a matrix product
becomes the product's transpose flag (Gemm's `transB` after an explicit Transpose)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import BoolAttr, IntegerAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from gedialects.base import int_array_values
from gedialects.graph import BatchMatMulV2Op, MatMulOp, TransposeOp
from gedialects.passes.fusion.matching import (
    carry_attributes,
    replace_group,
    rewrite_with,
    single_user_producer,
)

FLAGS = {MatMulOp: ("transpose_x1", "transpose_x2"), BatchMatMulV2Op: ("adj_x1", "adj_x2")}
"""The property that transposes each operand of a product, per op."""


def swaps_last_two(perm: tuple[int, ...]) -> bool:
    rank = len(perm)
    return rank >= 2 and perm == (*range(rank - 2), rank - 1, rank - 2)


class FuseTransposeIntoMatMul(RewritePattern):
    """`matmul(transpose(a, [.., n-1, n-2]), b)` -> `matmul(a, b)` with the flag toggled."""

    ROOTS: ClassVar[tuple[type[Operation], ...]] = (MatMulOp, BatchMatMulV2Op)
    """The types its first check accepts (`matching.root_type`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, MatMulOp | BatchMatMulV2Op):
            return  # not a matrix product
        for index, flag in enumerate(FLAGS[type(op)]):
            transpose = single_user_producer(op.operands[index], TransposeOp)
            if not isinstance(transpose, TransposeOp):
                continue  # not transposed, or the transposed tensor is used elsewhere
            if not swaps_last_two(int_array_values(transpose.perm)):
                continue  # moves other dims than the matrix ones
            operands = list(op.operands)
            operands[index] = transpose.x
            props = dict(op.properties)
            current = props[flag]
            if not isinstance(current, IntegerAttr):
                continue  # not a bool flag (the verifier refuses that)
            props[flag] = BoolAttr.from_bool(not current.value.data)
            fused = type(op).build(
                operands=[operands[0], operands[1], operands[2:]],
                result_types=[op.results[0].type],
                properties=props,
            )
            carry_attributes(fused, op)
            replace_group(rewriter, op, [fused], fused.results[0], [transpose])
            return


def matmul_transpose_patterns() -> tuple[RewritePattern, ...]:
    return (FuseTransposeIntoMatMul(),)


@dataclass(frozen=True)
class FuseMatMulTransposePass(ModulePass):
    """Folds a Transpose that swaps the last two dims of a MatMul/BatchMatMulV2 operand into
    the op's `transpose_x*`/`adj_x*` flag (the Transpose must have no other user)."""

    name = "ge-fuse-matmul-transpose"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, matmul_transpose_patterns())
