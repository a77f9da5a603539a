"""`ge-fuse-gelu`: GELU spelled out in elementwise ops becomes `graph.gelu`.

PyTorch exports `nn.GELU()` below opset 20 as `Mul(Mul(x, Add(Erf(Div(x, 1.4142135)), 1)), 0.5)`
and `nn.GELU(approximate="tanh")` as
`Mul(Mul(x, Add(Tanh(Mul(Add(x, Mul(Mul(x, Mul(x, x)), 0.044715)), 0.7978846)), 1)), 0.5)`;
hand-written versions reorder the factors, use `Pow(x, 3)` or multiply by 1/sqrt(2). The
patterns flatten each product into its factors, so any order and grouping matches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.base import element_type
from gedialects.graph import AddOp, DivOp, ErfOp, GeluOp, MulOp, PowOp, TanhOp
from gedialects.graph.elementwise import is_float
from passes.fusion.matching import (
    carry_attributes,
    const_scalar,
    fusable,
    is_close,
    producer,
    replace_group,
    rewrite_with,
)

SQRT_2 = math.sqrt(2.0)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
TANH_CUBIC = 0.044715


@dataclass
class Product:
    """A product tree of single-use Muls: its leaf factors and the Muls below the top."""

    factors: list[SSAValue]
    muls: list[Operation]


def flatten_product(value: SSAValue, depth: int = 4) -> Product:
    """The factors of `value` when it is a Mul (its inner Muls must have one use each)."""
    owner = value.owner
    if not isinstance(owner, MulOp) or depth == 0:
        return Product([value], [])
    factors: list[SSAValue] = []
    muls: list[Operation] = []
    for operand in owner.operands:
        inner = operand.owner
        if isinstance(inner, MulOp) and operand.has_one_use():
            below = flatten_product(operand, depth - 1)
            factors += below.factors
            muls += [inner, *below.muls]
        else:
            factors.append(operand)
    return Product(factors, muls)


def split_constant(factors: list[SSAValue], expected: float) -> list[SSAValue] | None:
    """`factors` without one constant equal to `expected`, or None if there is none."""
    for i, f in enumerate(factors):
        if is_close(const_scalar(f), expected):
            return factors[:i] + factors[i + 1 :]
    return None


def match_one_plus(value: SSAValue, op_type: type[Operation]) -> Operation | None:
    """The `op_type` op `f` in `Add(f(...), 1)` (either order), else None."""
    add = producer(value, AddOp)
    if not isinstance(add, AddOp):
        return None
    for f, one in ((add.x1, add.x2), (add.x2, add.x1)):
        inner = producer(f, op_type)
        if inner is not None and const_scalar(one) == 1.0:
            return inner
    return None


def match_gelu_outer(
    root: MulOp, op_type: type[Operation]
) -> tuple[SSAValue, Operation, list[Operation]] | None:
    """`0.5 * x * (1 + f(...))` at `root`: returns x, the `f` op and the ops matched so far."""
    product = flatten_product(root.y)
    rest = split_constant(product.factors, 0.5)
    if rest is None or len(rest) != 2:
        return None
    for x, term in ((rest[0], rest[1]), (rest[1], rest[0])):
        inner = match_one_plus(term, op_type)
        if inner is not None:
            return x, inner, [*product.muls, term.owner, inner]  # type: ignore[list-item]
    return None


def _fuse(
    rewriter: PatternRewriter, root: MulOp, x: SSAValue, group: list[Operation], approximate: str
) -> None:
    if root.y.type != x.type or not is_float(element_type(x.type)) or not fusable(root, group):
        return  # broadcasts beyond x, not a float, or an intermediate is used elsewhere
    gelu = carry_attributes(GeluOp(x, approximate=approximate), root)
    replace_group(rewriter, root, [gelu], gelu.results[0], group)


class FuseErfGelu(RewritePattern):
    """`0.5 * x * (1 + erf(x / sqrt(2)))` -> `gelu(x)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
        outer = match_gelu_outer(op, ErfOp)
        if outer is None:
            return  # not 0.5 * x * (1 + erf(...))
        x, erf, group = outer
        scaled = erf.operands[0]
        scale = scaled.owner
        if isinstance(scale, DivOp):
            ok = scale.x1 is x and is_close(const_scalar(scale.x2), SQRT_2)
        else:
            rest = split_constant(list(scale.operands), 1 / SQRT_2)
            ok = isinstance(scale, MulOp) and rest is not None and rest[0] is x
        if not ok:
            return  # erf's argument is not x / sqrt(2)
        _fuse(rewriter, op, x, [*group, scale], "none")


class FuseTanhGelu(RewritePattern):
    """`0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))` -> `gelu(x, "tanh")`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
        outer = match_gelu_outer(op, TanhOp)
        if outer is None:
            return  # not 0.5 * x * (1 + tanh(...))
        x, tanh, group = outer
        inner = flatten_product(tanh.operands[0])
        rest = split_constant(inner.factors, SQRT_2_OVER_PI)
        if rest is None or len(rest) != 1 or not isinstance(rest[0].owner, AddOp):
            return  # tanh's argument is not sqrt(2 / pi) * (...)
        poly = rest[0].owner
        group += [*inner.muls, tanh.operands[0].owner, poly]
        cubic = other = None
        for a, b in ((poly.x1, poly.x2), (poly.x2, poly.x1)):
            if a is x:
                cubic, other = b, a
        if cubic is None or other is None or not isinstance(cubic.owner, MulOp):
            return  # not x + (...)
        terms = flatten_product(cubic)
        powers = split_constant(terms.factors, TANH_CUBIC)
        if powers is None:
            return  # no 0.044715 factor
        group += [cubic.owner, *terms.muls]
        if len(powers) == 1 and isinstance(pow_op := powers[0].owner, PowOp):
            if pow_op.x1 is not x or const_scalar(pow_op.x2) != 3.0:
                return  # not x^3
            group.append(pow_op)
        elif len(powers) != 3 or any(p is not x for p in powers):
            return  # not x * x * x
        _fuse(rewriter, op, x, group, "tanh")


def gelu_patterns() -> tuple[RewritePattern, ...]:
    return (FuseErfGelu(), FuseTanhGelu())


@dataclass(frozen=True)
class FuseGeluPass(ModulePass):
    """Replaces decomposed GELUs by `graph.gelu` (exact erf form and tanh approximation).

    The products may be written in any order and grouping (they are flattened into their
    factors), the erf argument as `x / sqrt(2)` or `x * (1 / sqrt(2))`, the cube as
    `x * x * x` or `Pow(x, 3)`; constants match to float32 precision. Every intermediate must
    feed only the pattern, and the result must have the type of x.
    """

    name = "ge-fuse-gelu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, gelu_patterns())
