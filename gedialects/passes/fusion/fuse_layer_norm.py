"""`ge-fuse-layer-norm`: a LayerNorm spelled out in elementwise ops becomes `graph.layer_norm_v3`.

PyTorch exports `nn.LayerNorm` below opset 17 (and hand-written layer norms at any opset) as

    m = ReduceMean(x, axes, keepdims=1); d = Sub(x, m)
    v = ReduceMean(Pow(d, 2), axes, keepdims=1)      (or Mul(d, d))
    n = Div(d, Sqrt(Add(v, eps)))
    y = Add(Mul(n, gamma), beta)                     (affine part optional, operands in any order)

with `axes` the last k dims. That is LayerNormV3 with `begin_norm_axis = begin_params_axis = -k`
(its `mean`/`rstd` results are left unused).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from gedialects.base import element_type, is_static, tensor_shape
from gedialects.graph import (
    AddOp,
    DivOp,
    LayerNormV3Op,
    MulOp,
    PowOp,
    ReduceMeanOp,
    SqrtOp,
    SubOp,
)
from gedialects.graph.elementwise import is_float
from gedialects.passes.fusion.matching import (
    carry_attributes,
    const_array,
    const_scalar,
    fusable,
    new_const,
    producer,
    replace_group,
    rewrite_with,
)
from gedialects.tensors import numpy_dtype


@dataclass
class Normalization:
    """The matched core `(x - mean(x)) / sqrt(var(x) + eps)` over the last `dims` axes."""

    x: SSAValue
    dims: int
    epsilon: float
    ops: list[Operation]


def _reduced_axes(mean: ReduceMeanOp, rank: int) -> tuple[int, ...] | None:
    """The axes a keep-dims ReduceMean reduces, in [0, rank), or None when unknown."""
    if not mean.keep_dims.value.data:
        return None
    if mean.axes is None:
        return tuple(range(rank))
    axes = const_array(mean.axes)
    if axes is None or axes.size == 0 or np.any(axes < -rank) or np.any(axes >= rank):
        return None
    return tuple(sorted({int(a) % rank for a in axes.flat}))


def match_normalization(div: Operation) -> Normalization | None:
    if not isinstance(div, DivOp):
        return None
    sub, sqrt = producer(div.x1, SubOp), producer(div.x2, SqrtOp)
    if not isinstance(sub, SubOp) or not isinstance(sqrt, SqrtOp):
        return None
    x = sub.x1
    mean = producer(sub.x2, ReduceMeanOp)
    add = producer(sqrt.x, AddOp)
    shape = tensor_shape(x.type)
    if not isinstance(mean, ReduceMeanOp) or mean.x is not x or not isinstance(add, AddOp):
        return None
    if shape is None or not is_float(element_type(x.type)):
        return None
    var_value, eps_value = add.x1, add.x2
    if const_scalar(var_value) is not None:
        var_value, eps_value = eps_value, var_value
    epsilon, var = const_scalar(eps_value), producer(var_value, ReduceMeanOp)
    if epsilon is None or epsilon < 0 or not isinstance(var, ReduceMeanOp):
        return None
    square = var.x.owner
    if isinstance(square, PowOp):
        if square.x1 is not sub.y or const_scalar(square.x2) != 2.0:
            return None
    elif isinstance(square, MulOp):
        if square.x1 is not sub.y or square.x2 is not sub.y:
            return None
    else:
        return None
    rank = len(shape)
    axes = _reduced_axes(mean, rank)
    if axes is None or axes != _reduced_axes(var, rank) or axes != tuple(range(axes[0], rank)):
        return None  # not a reduction over the last dims
    return Normalization(x, rank - axes[0], epsilon, [mean, sub, square, var, add, sqrt, div])


def _param(value: SSAValue, x: SSAValue, dims: int) -> SSAValue | np.ndarray | None:
    """`value` as gamma/beta of the last `dims` dims of x: itself when its shape is exactly
    those dims, else a constant reshaped to them (when it only varies along them)."""
    xshape = tensor_shape(x.type)
    assert xshape is not None
    norm = xshape[len(xshape) - dims :]
    if element_type(value.type) != element_type(x.type):
        return None
    if tensor_shape(value.type) == norm:
        return value
    array = const_array(value)
    if array is None or array.ndim > len(xshape) or any(d < 0 for d in norm):
        return None
    padded = (1,) * (len(xshape) - array.ndim) + array.shape
    outer, inner = padded[: len(xshape) - dims], padded[len(xshape) - dims :]
    if any(d != 1 for d in outer) or any(d not in (1, n) for d, n in zip(inner, norm, strict=True)):
        return None  # would broadcast over the batch dims, or enlarge x
    return np.broadcast_to(array.reshape(inner), norm)


@dataclass
class LayerNormMatch:
    norm: Normalization
    gamma: SSAValue | np.ndarray | None
    beta: SSAValue | np.ndarray | None
    interior: list[Operation]


def match_layer_norm(root: Operation) -> LayerNormMatch | None:
    """The layer norm ending at `root` (Div, Mul by gamma, or Add of beta), else None."""
    norm = match_normalization(root)
    if norm is not None:
        return LayerNormMatch(norm, None, None, norm.ops[:-1])
    if not isinstance(root, MulOp | AddOp) or len(root.operands) != 2:
        return None
    for inner, param in (
        (root.operands[0], root.operands[1]),
        (root.operands[1], root.operands[0]),
    ):
        owner = inner.owner
        if not isinstance(owner, Operation):
            continue
        if isinstance(root, MulOp):
            found = match_normalization(owner)
            if found is None:
                continue
            gamma = _param(param, found.x, found.dims)
            if gamma is not None:
                return LayerNormMatch(found, gamma, None, found.ops)
        else:
            below = match_layer_norm(owner)
            if below is None or below.beta is not None:
                continue
            beta = _param(param, below.norm.x, below.norm.dims)
            if beta is not None:
                return LayerNormMatch(below.norm, below.gamma, beta, [*below.interior, owner])
    return None


def _extends(root: Operation) -> bool:
    """True when the single user of `root` continues the layer norm (the larger match wins)."""
    if not root.results or not root.results[0].has_one_use():
        return False
    user = root.results[0].get_user_of_unique_use()
    return (
        user is not None and isinstance(user, MulOp | AddOp) and match_layer_norm(user) is not None
    )


class FuseDecomposedLayerNorm(RewritePattern):
    """ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div (+ Mul gamma, + Add beta) -> LayerNormV3."""

    ROOTS: ClassVar[tuple[type[Operation], ...]] = (DivOp, MulOp, AddOp)
    """The types its first check accepts (`matching.root_type`)."""

    ANCHORS: ClassVar[tuple[type[Operation], ...]] = (ReduceMeanOp,)
    """Every match holds the mean's and the variance's ReduceMean (`matching.ByOpType`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, DivOp | MulOp | AddOp):
            return  # a layer norm ends in one of these
        match = match_layer_norm(op)
        if match is None or _extends(op):
            return  # not a layer norm, or a larger one ends further down
        x, dims = match.norm.x, match.norm.dims
        if op.results[0].type != x.type or not fusable(op, match.interior):
            return  # broadcasts beyond x, or an intermediate is used elsewhere
        new_ops: list[Operation] = []
        params: list[SSAValue] = []
        for which, value, fill in (("gamma", match.gamma, 1), ("beta", match.beta, 0)):
            if isinstance(value, SSAValue):
                params.append(value)
                continue
            if value is None:
                xshape = tensor_shape(x.type)
                assert xshape is not None
                if not is_static(x.type) and any(d < 0 for d in xshape[len(xshape) - dims :]):
                    return  # the identity gamma/beta needs the normalised dims
                dtype = numpy_dtype(element_type(x.type))
                value = np.full(xshape[len(xshape) - dims :], fill, dtype=dtype)
            const = new_const(np.asarray(value), op, which)
            new_ops.append(const)
            params.append(const.y)
        fused = LayerNormV3Op(
            x,
            params[0],
            params[1],
            begin_norm_axis=-dims,
            begin_params_axis=-dims,
            epsilon=match.norm.epsilon,
        )
        new_ops.append(carry_attributes(fused, op))
        replace_group(rewriter, op, new_ops, fused.y, match.interior)


def layer_norm_patterns() -> tuple[RewritePattern, ...]:
    return (FuseDecomposedLayerNorm(),)


@dataclass(frozen=True)
class FuseLayerNormPass(ModulePass):
    """Replaces decomposed layer norms by `graph.layer_norm_v3`.

    Matches the PyTorch/ONNX export (ReduceMean over the last k dims with keepdims, Sub,
    Pow 2 or Mul by itself, ReduceMean, Add epsilon, Sqrt, Div, then optionally Mul by
    gamma and Add of beta, either operand order). `epsilon` comes from the constant, the
    axes must be the last dims of x, gamma/beta must have the normalised shape (a constant
    that only varies along those dims is reshaped), and every intermediate must feed only
    the pattern. Missing gamma/beta become constant ones/zeros.
    """

    name = "ge-fuse-layer-norm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, layer_norm_patterns())
