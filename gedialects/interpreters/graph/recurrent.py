"""Kernels of the recurrent layers: the time loop in Python, every step one matmul over the
whole batch (per direction); sequences of different lengths run together, masked."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Attribute

from gedialects.graph import DynamicGRUV2Op, DynamicRNNOp, RecurrentOpBase, RNNOp
from gedialects.interpreters.graph.common import Arrays, bool_, compute, float_, int_, str_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel

Activation = Callable[[np.ndarray], np.ndarray]


def _activation(name: str, alpha: float, beta: float) -> Activation:
    def sigmoid(x: np.ndarray) -> np.ndarray:
        return 0.5 * (np.tanh(0.5 * x) + 1)

    table: dict[str, Activation] = {
        "Relu": lambda x: np.maximum(x, 0),
        "Tanh": np.tanh,
        "Sigmoid": sigmoid,
        "Affine": lambda x: alpha * x + beta,
        "LeakyRelu": lambda x: np.where(x >= 0, x, alpha * x),
        "ThresholdedRelu": lambda x: np.where(x > alpha, x, 0),
        "ScaledTanh": lambda x: alpha * np.tanh(beta * x),
        "HardSigmoid": lambda x: np.clip(alpha * x + beta, 0, 1),
        "Elu": lambda x: np.where(x >= 0, x, alpha * (np.exp(np.minimum(x, 0)) - 1)),
        "Softsign": lambda x: x / (1 + np.abs(x)),
        "Softplus": lambda x: np.logaddexp(x, 0),
    }
    if name not in table:
        raise KernelError(f"recurrent op: unknown activation {name}")
    return table[name]


def _setup(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, op: type[RecurrentOpBase]
) -> tuple[np.ndarray, np.ndarray, list[list[Activation]], int, bool, float]:
    """x as `[S, B, I]`, per-batch lengths, activations per direction, dirs, time_major, clip."""
    x = compute(inputs[0])
    major = bool_(attrs, "time_major", op)
    if x.ndim != 3:
        raise KernelError(f"{op.GE_TYPE}: x must be 3-D, got {list(x.shape)}")
    if not major:
        x = x.transpose(1, 0, 2)
    steps, batch = x.shape[0], x.shape[1]
    fixed = op.fixed_operands()
    if len(inputs) > fixed:
        lengths = inputs[fixed].reshape(-1).astype(np.int64)
        if lengths.shape != (batch,) or (lengths < 0).any() or (lengths > steps).any():
            raise KernelError(
                f"{op.GE_TYPE}: seq_length {lengths.tolist()} must be [batch] in [0, {steps}]"
            )
    else:
        lengths = np.full(batch, steps, dtype=np.int64)
    dirs = 2 if str_(attrs, "direction", op) == "bidirectional" else 1
    names = str_(attrs, "activations", op).split(",")
    values = []
    for key in ("activation_alpha", "activation_beta"):
        attr = attrs.get(key)
        values.append(list(attr.get_values()) if isinstance(attr, DenseArrayBase) else [])
    alpha = values[0] + [0.0] * (len(names) - len(values[0]))
    beta = values[1] + [0.0] * (len(names) - len(values[1]))
    funcs = [_activation(n, float(a), float(b)) for n, a, b in zip(names, alpha, beta, strict=True)]
    per = len(funcs) // dirs
    return (
        x,
        lengths,
        [funcs[d * per : (d + 1) * per] for d in range(dirs)],
        dirs,
        major,
        float_(attrs, "cell_clip", op),
    )


def _state(value: np.ndarray, major: bool, dirs: int, batch: int, hidden: int) -> np.ndarray:
    """An initial state as `[dirs, B, H]` (a batch of 1 broadcasts)."""
    state = compute(value)
    if not major:
        state = state.transpose(1, 0, 2)
    if state.shape[0] != dirs or state.shape[2] != hidden or state.shape[1] not in (1, batch):
        raise KernelError(f"recurrent op: initial state {list(value.shape)} does not fit")
    return np.broadcast_to(state, (dirs, batch, hidden)).copy()


Step = Callable[[int, np.ndarray, np.ndarray, list[np.ndarray]], list[np.ndarray]]
"""`step(direction, rows, x_t, states) -> new states` for the batch rows that are active."""


def _run(
    x: np.ndarray,
    lengths: np.ndarray,
    dirs: int,
    reverse: bool,
    states: list[np.ndarray],
    step: Step,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Y `[S, dirs, B, H]` and the last states; the reverse pass walks each sequence backwards
    from its own last element."""
    steps, batch = x.shape[0], x.shape[1]
    hidden = states[0].shape[2]
    y = np.zeros((steps, dirs, batch, hidden), dtype=states[0].dtype)
    columns = np.arange(batch)
    for d in range(dirs):
        backwards = reverse or d == 1
        for s in range(steps):
            active = lengths > s
            if not active.any():
                break
            rows = columns[active]
            t = lengths[rows] - 1 - s if backwards else np.full(rows.shape, s)
            new = step(d, rows, x[t, rows], [st[d, rows] for st in states])
            for st, value in zip(states, new, strict=True):
                st[d, rows] = value
            y[t, d, rows] = new[0]
    return y, states


def _outputs(y: np.ndarray, states: list[np.ndarray], major: bool) -> Arrays:
    if major:
        return (y, *states)
    return (y.transpose(2, 0, 1, 3), *(s.transpose(1, 0, 2) for s in states))


def _clip(value: np.ndarray, clip: float) -> np.ndarray:
    return np.clip(value, -clip, clip) if clip >= 0 else value


@kernel("DynamicRNN")
def dynamic_rnn(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    op = DynamicRNNOp
    x, lengths, funcs, dirs, major, clip = _setup(inputs, attrs, op)
    hidden = int_(attrs, "hidden_size", op)
    w, r, b, p = (compute(v) for v in (inputs[1], inputs[2], inputs[3], inputs[6]))
    bias = b[:, : 4 * hidden] + b[:, 4 * hidden :]
    h = _state(inputs[4], major, dirs, x.shape[1], hidden)
    c = _state(inputs[5], major, dirs, x.shape[1], hidden)
    coupled = bool_(attrs, "input_forget", op)

    def step(d: int, rows: np.ndarray, xt: np.ndarray, st: list[np.ndarray]) -> list[np.ndarray]:
        f, g, act_h = funcs[d]
        h_prev, c_prev = st
        gates = xt @ w[d].T + h_prev @ r[d].T + bias[d]
        gi, go, gf, gc = (gates[:, k * hidden : (k + 1) * hidden] for k in range(4))
        pi, po, pf = (p[d, k * hidden : (k + 1) * hidden] for k in range(3))
        i = f(_clip(gi + pi * c_prev, clip))
        forget = 1 - i if coupled else f(_clip(gf + pf * c_prev, clip))
        cell = forget * c_prev + i * g(_clip(gc, clip))
        o = f(_clip(go + po * cell, clip))
        return [o * act_h(cell), cell]

    reverse = str_(attrs, "direction", op) == "reverse"
    y, states = _run(x, lengths, dirs, reverse, [h, c], step)
    return _outputs(y, states, major)


@kernel("DynamicGRUV2")
def dynamic_gru_v2(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    op = DynamicGRUV2Op
    x, lengths, funcs, dirs, major, clip = _setup(inputs, attrs, op)
    hidden = int_(attrs, "hidden_size", op)
    w, r, b = (compute(v) for v in inputs[1:4])
    wb, rb = b[:, : 3 * hidden], b[:, 3 * hidden :]
    h = _state(inputs[4], major, dirs, x.shape[1], hidden)
    after = bool_(attrs, "reset_after", op)

    def step(d: int, rows: np.ndarray, xt: np.ndarray, st: list[np.ndarray]) -> list[np.ndarray]:
        f, g = funcs[d]
        (h_prev,) = st
        xw = xt @ w[d].T + wb[d]
        rz = h_prev @ r[d, : 2 * hidden].T + rb[d, : 2 * hidden]
        z = f(_clip(xw[:, :hidden] + rz[:, :hidden], clip))
        reset = f(_clip(xw[:, hidden : 2 * hidden] + rz[:, hidden:], clip))
        rh, rbh = r[d, 2 * hidden :], rb[d, 2 * hidden :]
        # reset_after: the reset gate scales the recurrent product, else its input
        recurrent = reset * (h_prev @ rh.T + rbh) if after else (reset * h_prev) @ rh.T + rbh
        candidate = g(_clip(xw[:, 2 * hidden :] + recurrent, clip))
        return [(1 - z) * candidate + z * h_prev]

    reverse = str_(attrs, "direction", op) == "reverse"
    y, states = _run(x, lengths, dirs, reverse, [h], step)
    return _outputs(y, states, major)


@kernel("RNN")
def rnn(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    op = RNNOp
    x, lengths, funcs, dirs, major, clip = _setup(inputs, attrs, op)
    hidden = int_(attrs, "hidden_size", op)
    w, r, b = (compute(v) for v in inputs[1:4])
    bias = b[:, :hidden] + b[:, hidden:]
    h = _state(inputs[4], major, dirs, x.shape[1], hidden)

    def step(d: int, rows: np.ndarray, xt: np.ndarray, st: list[np.ndarray]) -> list[np.ndarray]:
        return [funcs[d][0](_clip(xt @ w[d].T + st[0] @ r[d].T + bias[d], clip))]

    reverse = str_(attrs, "direction", op) == "reverse"
    y, states = _run(x, lengths, dirs, reverse, [h], step)
    return _outputs(y, states, major)
