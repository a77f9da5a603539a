"""`ge-fuse-casts`: consecutive Casts become one Cast, or none when they convert back.

Legality: `cast(cast(x, B), C)` equals `cast(x, C)` exactly when every value of x's element
type A is representable in B (A -> B is exact). Then the second cast sees the very value x
held, and each conversion (float rounding, float -> int truncation, int wrap-around,
`!= 0` for i1) depends only on that value. When also C = A, the pair is the identity. A
narrowing first cast (f32 -> f16 -> f32, i32 -> i8 -> i32, f32 -> i32 -> f32) loses
information and is never fused.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    ModuleOp,
    Signedness,
)
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.base import element_type
from gedialects.graph import CastOp
from gedialects.passes.fusion.matching import (
    carry_attributes,
    producer,
    replace_group,
    rewrite_with,
)

_MANTISSA_BITS = {Float16Type: 11, BFloat16Type: 8, Float32Type: 24, Float64Type: 53}
"""Significand precision p (with the implicit bit): every integer |n| <= 2**p is exact."""

_FLOAT_WIDENINGS = {
    (Float16Type, Float32Type),
    (Float16Type, Float64Type),
    (BFloat16Type, Float32Type),
    (BFloat16Type, Float64Type),
    (Float32Type, Float64Type),
}
"""Float pairs (A, B) whose every A value, inf and NaN included, is a B value."""


def integer_range(t: IntegerType) -> tuple[int, int]:
    """Values of an integer type: i1 is {0, 1}; signless iN is signed, as numpy reads it."""
    width = t.width.data
    if width == 1:
        return (0, 1)
    if t.signedness.data == Signedness.UNSIGNED:
        return (0, 2**width - 1)
    return (-(2 ** (width - 1)), 2 ** (width - 1) - 1)


def is_exact_conversion(src: Attribute, dst: Attribute) -> bool:
    """True when every value of element type `src` is exactly a value of `dst`."""
    if src == dst:
        return True
    if isinstance(src, IntegerType):
        lo, hi = integer_range(src)
        if isinstance(dst, IntegerType):
            dst_lo, dst_hi = integer_range(dst)
            return dst_lo <= lo and hi <= dst_hi
        bits = _MANTISSA_BITS.get(type(dst))
        return bits is not None and max(-lo, hi) <= 2**bits
    return (type(src), type(dst)) in _FLOAT_WIDENINGS  # floats never fit an integer type


class FoldNoOpCast(RewritePattern):
    """`cast(x : T, T)` -> `x`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter) -> None:
        if op.x.type != op.y.type:
            return  # a real conversion
        rewriter.replace(op, [], [op.x])


class FuseCastPair(RewritePattern):
    """`cast(cast(x : A, B), C)` -> `x` if C = A, else `cast(x, C)`, when A -> B is exact."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter) -> None:
        first = producer(op.x, CastOp)
        if not isinstance(first, CastOp):
            return  # not a pair
        if not is_exact_conversion(element_type(first.x.type), element_type(first.y.type)):
            return  # the first cast may change the value
        if first.x.type == op.y.type:
            replace_group(rewriter, op, [], first.x, [first] if first.y.has_one_use() else [])
            return
        if not first.y.has_one_use():
            return  # the first cast stays for its other users: fusing saves nothing
        fused = CastOp(first.x, op.dst_type, result_type=op.y.type)
        replace_group(rewriter, op, [carry_attributes(fused, op)], fused.y, [first])


def cast_patterns() -> tuple[RewritePattern, ...]:
    return (FoldNoOpCast(), FuseCastPair())


@dataclass(frozen=True)
class FuseCastsPass(ModulePass):
    """Removes Casts to the type a value already has, and fuses a Cast of a Cast.

    `cast(cast(x : A, B), C)` becomes `cast(x, C)`, or `x` when C is A, only when the first
    conversion is exact: A -> B widens (f16/bf16 -> f32 -> f64; an integer type into a wider
    one whose range contains it, i1 into anything; an integer into a float whose
    significand holds it, e.g. i16 -> f32, i32 -> f64). Narrowing pairs such as
    f32 -> f16 -> f32 round, and are kept.
    """

    name = "ge-fuse-casts"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, cast_patterns())
