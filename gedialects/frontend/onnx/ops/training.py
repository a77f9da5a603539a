"""ONNX converters of the ai.onnx.preview.training optimisers: Adagrad, Momentum and Adam.

GE's optimiser ops (ApplyAdagradD, ApplyMomentumD, ApplyAdamD) update their variables in
place and know neither ONNX's learning-rate decay nor its norm coefficients; the ONNX ops are
pure functions of their inputs. So each imports as its formula over elementwise graph ops,
computed in X's element type (R and T are cast to it), one update per optimised tensor.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.ir import Operation, SSAValue

from gedialects.base import element_type
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    AddOp,
    CastOp,
    DivOp,
    GreaterOp,
    MaximumOp,
    MulOp,
    PowOp,
    SelectV2Op,
    SqrtOp,
    SubOp,
)
from gedialects.tensors import numpy_dtype

DOMAIN = "ai.onnx.preview.training"


class _Formula:
    """Emits the ops of one update, named `<node>/<tensor index>_<step>`."""

    def __init__(self, ctx: NodeContext, like: SSAValue, tag: str) -> None:
        self.ctx, self.tag, self.steps = ctx, tag, 0
        self.elem = element_type(like.type)
        self.dtype = numpy_dtype(self.elem)

    def emit(self, op: Operation, what: str) -> SSAValue:
        self.steps += 1
        return self.ctx.emit(op, f"{self.tag}{what}").results[0]

    def c(self, value: float) -> SSAValue:
        self.steps += 1
        return self.ctx.const(np.array(value, self.dtype), f"{self.tag}c{self.steps}")

    def cast(self, value: SSAValue, what: str) -> SSAValue:
        return self.emit(CastOp(value, self.elem), what)

    def add(self, a: SSAValue, b: SSAValue, what: str) -> SSAValue:
        return self.emit(AddOp(a, b), what)

    def sub(self, a: SSAValue, b: SSAValue, what: str) -> SSAValue:
        return self.emit(SubOp(a, b), what)

    def mul(self, a: SSAValue, b: SSAValue, what: str) -> SSAValue:
        return self.emit(MulOp(a, b), what)

    def div(self, a: SSAValue, b: SSAValue, what: str) -> SSAValue:
        return self.emit(DivOp(a, b), what)

    def regularized(self, x: SSAValue, g: SSAValue, norm: float) -> SSAValue:
        """`norm * x + g` (the gradient of the L2 regulariser added)."""
        return self.add(self.mul(self.c(norm), x, "norm_x"), g, "g_regularized")

    def when_started(self, t: SSAValue, then: SSAValue, first: SSAValue) -> SSAValue:
        """`then` where T > 0, else `first` (ONNX's first-iteration rule)."""
        started = self.emit(GreaterOp(t, self.c(0.0)), "started")
        return self.emit(SelectV2Op(started, then, first), "when_started")


def _groups(ctx: NodeContext, per_tensor: int) -> tuple[SSAValue, SSAValue, int]:
    """R, T and the number of optimised tensors (the inputs after R and T come in
    `per_tensor` groups of that many)."""
    rest = len(ctx.inputs) - 2
    if rest <= 0 or rest % per_tensor:
        ctx.fail(f"needs R, T and {per_tensor} inputs per optimised tensor, got {len(ctx.inputs)}")
    return ctx.input(0), ctx.input(1), rest // per_tensor


def _each(
    ctx: NodeContext, per_tensor: int, update: Callable[[_Formula, list[SSAValue]], list[SSAValue]]
) -> Outputs:
    r, t, n = _groups(ctx, per_tensor)
    results: list[list[SSAValue]] = []
    for i in range(n):
        group = [ctx.input(2 + k * n + i) for k in range(per_tensor)]
        f = _Formula(ctx, group[0], f"{i}_")
        results.append(update(f, [f.cast(r, "r"), f.cast(t, "t"), *group]))
    # outputs: every tensor's first result, then every tensor's second, ...
    return [results[i][k] for k in range(per_tensor - 1) for i in range(n)][: len(ctx.node.output)]


@converter("Adagrad", DOMAIN)
def adagrad(ctx: NodeContext) -> Outputs:
    decay = float(ctx.attr("decay_factor", 0.0))
    epsilon = float(ctx.attr("epsilon", 0.0))
    norm = float(ctx.attr("norm_coefficient", 0.0))

    def update(f: _Formula, v: list[SSAValue]) -> list[SSAValue]:
        r, t, x, g, h = v
        rate = f.div(r, f.add(f.c(1.0), f.mul(t, f.c(decay), "t_decay"), "decayed"), "rate")
        g_reg = f.regularized(x, g, norm)
        h_new = f.add(h, f.mul(g_reg, g_reg, "g_squared"), "h_new")
        scale = f.add(f.emit(SqrtOp(h_new), "h_sqrt"), f.c(epsilon), "h_sqrt_eps")
        step = f.div(f.mul(rate, g_reg, "step_raw"), scale, "step")
        return [f.sub(x, step, "x_new"), h_new]

    return _each(ctx, 3, update)


@converter("Momentum", DOMAIN)
def momentum(ctx: NodeContext) -> Outputs:
    alpha = float(ctx.attr("alpha"))
    beta = float(ctx.attr("beta"))
    norm = float(ctx.attr("norm_coefficient"))
    mode = ctx.attr("mode")
    if mode not in ("standard", "nesterov"):
        ctx.fail(f'mode must be "standard" or "nesterov", got "{mode}"')

    def update(f: _Formula, v: list[SSAValue]) -> list[SSAValue]:
        r, t, x, g, velocity = v
        g_reg = f.regularized(x, g, norm)
        b = f.when_started(t, f.c(beta), f.c(1.0))
        v_new = f.add(
            f.mul(f.c(alpha), velocity, "v_decayed"), f.mul(b, g_reg, "g_scaled"), "v_new"
        )
        direction = v_new
        if mode == "nesterov":
            direction = f.add(g_reg, f.mul(f.c(alpha), v_new, "v_ahead"), "nesterov")
        return [f.sub(x, f.mul(r, direction, "step"), "x_new"), v_new]

    return _each(ctx, 3, update)


@converter("Adam", DOMAIN)
def adam(ctx: NodeContext) -> Outputs:
    alpha = float(ctx.attr("alpha", 0.9))
    beta = float(ctx.attr("beta", 0.999))
    epsilon = float(ctx.attr("epsilon", 0.0))
    norm = float(ctx.attr("norm_coefficient", 0.0))
    post = float(ctx.attr("norm_coefficient_post", 0.0))

    def update(f: _Formula, v: list[SSAValue]) -> list[SSAValue]:
        r, t, x, g, first, second = v
        g_reg = f.regularized(x, g, norm)
        v_new = f.add(
            f.mul(f.c(alpha), first, "v_decayed"),
            f.mul(f.c(1 - alpha), g_reg, "g_scaled"),
            "v_new",
        )
        g_sq = f.mul(g_reg, g_reg, "g_squared")
        h_new = f.add(
            f.mul(f.c(beta), second, "h_decayed"),
            f.mul(f.c(1 - beta), g_sq, "g_sq_scaled"),
            "h_new",
        )
        h_sqrt = f.add(f.emit(SqrtOp(h_new), "h_sqrt"), f.c(epsilon), "h_sqrt_eps")
        # bias correction r * sqrt(1 - beta^t) / (1 - alpha^t) from the second step on
        t1 = f.emit(MaximumOp(t, f.c(1.0)), "t_at_least_1")
        beta_t = f.emit(PowOp(f.c(beta), t1), "beta_t")
        alpha_t = f.emit(PowOp(f.c(alpha), t1), "alpha_t")
        corrected = f.div(
            f.mul(r, f.emit(SqrtOp(f.sub(f.c(1.0), beta_t, "one_minus_beta_t")), "sqrt_b"), "r_b"),
            f.sub(f.c(1.0), alpha_t, "one_minus_alpha_t"),
            "r_corrected",
        )
        rate = f.when_started(t, corrected, r)
        x_new = f.sub(x, f.mul(rate, f.div(v_new, h_sqrt, "ratio"), "step"), "x_new")
        return [f.mul(f.c(1 - post), x_new, "x_final"), v_new, h_new]

    return _each(ctx, 4, update)
