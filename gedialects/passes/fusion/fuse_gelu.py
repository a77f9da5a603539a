"""`ge-fuse-gelu`: GELU spelled out in elementwise ops becomes `graph.gelu`.

PyTorch exports `nn.GELU()` below opset 20 as `Mul(Mul(x, Add(Erf(Div(x, 1.4142135)), 1)), 0.5)`
and `nn.GELU(approximate="tanh")` as
`Mul(Mul(x, Add(Tanh(Mul(Add(x, Mul(Mul(x, Mul(x, x)), 0.044715)), 0.7978846)), 1)), 0.5)`;
hand-written versions reorder the factors, use `Pow(x, 3)` or multiply by 1/sqrt(2). The
patterns flatten each product into its factors to find a candidate, but fuse it only when it is
the exported order itself (`exported_order`): like GE's GeluFusionPass, a fusion must not change
the numbers, and `graph.gelu`'s kernel evaluates exactly those ops in that order and dtype.
Another grouping differs at the f32 limit (`(0.5 * x) * 2` is finite where `(x * 2) * 0.5`
overflows), `x * (1 / sqrt(2))` rounds differently from `x / sqrt(2)`, so these stay unfused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.base import element_type
from gedialects.graph import AddOp, DivOp, ErfOp, GeluOp, MulOp, PowOp, TanhOp
from gedialects.graph.elementwise import is_float
from gedialects.passes.fusion.matching import (
    carry_attributes,
    const_array,
    const_scalar,
    fusable,
    is_close,
    producer,
    replace_group,
    rewrite_with,
)
from gedialects.tensors import numpy_dtype

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
    if len(product.factors) != 3:
        return None  # not three factors (the structure first: the constant test decodes)
    rest = split_constant(product.factors, 0.5)
    if rest is None or len(rest) != 2:
        return None
    for x, term in ((rest[0], rest[1]), (rest[1], rest[0])):
        inner = match_one_plus(term, op_type)
        if inner is not None and isinstance(add := term.owner, Operation):
            return x, inner, [*product.muls, add, inner]
    return None


def _exact_const(value: SSAValue, dtype: np.dtype, expected: float) -> bool:
    """`value` is a constant of `dtype` whose elements all equal `expected` rounded to it."""
    array = const_array(value)
    return (
        array is not None
        and array.size > 0
        and array.dtype == dtype
        and bool(np.all(array == dtype.type(expected)))
    )


def _by_const(
    value: SSAValue, op_type: type[Operation], dtype: np.dtype, c: float, commutes: bool = True
) -> SSAValue | None:
    """`a` where `value = op_type(a, c)` (or `op_type(c, a)` when it commutes), else None."""
    op = producer(value, op_type)
    if op is None:
        return None
    a, b = op.operands
    for other, const in ((a, b), (b, a)) if commutes else ((a, b),):
        if _exact_const(const, dtype, c):
            return other
    return None


def _times_x(value: SSAValue | None, x: SSAValue) -> SSAValue | None:
    """`b` where `value = x * b` (either order), else None."""
    op = producer(value, MulOp) if value is not None else None
    if op is None:
        return None
    a, b = op.operands
    return b if a is x else a if b is x else None


def exported_order(root: MulOp, x: SSAValue, approximate: str) -> bool:
    """`root` is GELU in the order of PyTorch's export and of `graph.gelu`'s kernel, with its
    constants exactly (in x's dtype): `(x * (f + 1)) * 0.5` with f `erf(x / sqrt(2))` or
    `tanh((x + (x * (x * x)) * 0.044715) * sqrt(2 / pi))`. Swapping the operands of one op
    keeps the numbers (IEEE `+` and `*` commute); regrouping does not."""
    if not isinstance(element_type(x.type), Float16Type | Float32Type | Float64Type):
        return False
    dtype = numpy_dtype(element_type(x.type))
    one_plus = _times_x(_by_const(root.y, MulOp, dtype, 0.5), x)
    f = _by_const(one_plus, AddOp, dtype, 1.0) if one_plus is not None else None
    if approximate == "none":
        erf = producer(f, ErfOp) if f is not None else None
        return erf is not None and _by_const(erf.operands[0], DivOp, dtype, SQRT_2, False) is x
    tanh = producer(f, TanhOp) if f is not None else None
    poly = _by_const(tanh.operands[0], MulOp, dtype, SQRT_2_OVER_PI) if tanh else None
    add = producer(poly, AddOp) if poly is not None else None
    if add is None:
        return False
    cubic = add.x2 if add.x1 is x else add.x1 if add.x2 is x else None
    cube = _by_const(cubic, MulOp, dtype, TANH_CUBIC) if cubic is not None else None
    squared = _times_x(cube, x) if cube is not None else None
    square = producer(squared, MulOp) if squared is not None else None
    return square is not None and square.x1 is x and square.x2 is x


def _fuse(
    rewriter: PatternRewriter, root: MulOp, x: SSAValue, group: list[Operation], approximate: str
) -> None:
    if root.y.type != x.type or not is_float(element_type(x.type)) or not fusable(root, group):
        return  # broadcasts beyond x, not a float, or an intermediate is used elsewhere
    if any(r.type != x.type for op in group for r in op.results):
        return  # an intermediate of another type: the kernel rounds every step to x's type
    if not exported_order(root, x, approximate):
        return  # another grouping or constant: fusing would change the numbers
    gelu = carry_attributes(GeluOp(x, approximate=approximate), root)
    replace_group(rewriter, root, [gelu], gelu.results[0], group)


class FuseErfGelu(RewritePattern):
    """`0.5 * x * (1 + erf(x / sqrt(2)))` -> `gelu(x)`."""

    ANCHORS: ClassVar[tuple[type[Operation], ...]] = (ErfOp,)
    """Every match holds an Erf (`matching.ByOpType`)."""

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
        elif isinstance(scale, MulOp):
            rest = split_constant(list(scale.operands), 1 / SQRT_2)
            ok = rest is not None and rest[0] is x
        else:
            return  # erf of a graph input (a block argument) or of another op
        if not ok:
            return  # erf's argument is not x / sqrt(2)
        _fuse(rewriter, op, x, [*group, scale], "none")


class FuseTanhGelu(RewritePattern):
    """`0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))` -> `gelu(x, "tanh")`."""

    ANCHORS: ClassVar[tuple[type[Operation], ...]] = (TanhOp,)
    """Every match holds a Tanh (`matching.ByOpType`)."""

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

    Only the order of PyTorch's export (`exported_order`; each op's operands either way),
    with the constants exactly in x's dtype (f16, f32 or f64), is fused: `graph.gelu`'s kernel
    evaluates those very ops, so overflow, inf and NaN come out as before (GE's
    GeluFusionPass likewise must keep the numbers). Every intermediate must feed only the
    pattern and have the type of x.
    """

    name = "ge-fuse-gelu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, gelu_patterns())
