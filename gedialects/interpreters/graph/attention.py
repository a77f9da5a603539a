"""Kernel of the fused attention op: batched matmuls over all heads at once."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import FloatAttr
from xdsl.ir import Attribute

from gedialects.graph import FusedInferAttentionScoreOp, RotaryPositionEmbeddingOp, present_names
from gedialects.interpreters.graph.common import Arrays, bool_, compute, float_, int_
from gedialects.interpreters.kernels import KernelAttrs, KernelError, check_output, kernel

_PRECISION = {1: np.float32, 10: np.float16, 11: np.float64}
"""ONNX dtype codes of `softmax_precision`."""

OP = FusedInferAttentionScoreOp


def _heads(x: np.ndarray, heads: int, what: str) -> np.ndarray:
    """`[B, S, heads * D]` -> `[B, heads, S, D]`."""
    if x.shape[2] % heads:
        raise KernelError(f"FusedInferAttentionScore: {what} {x.shape[2]} is not split by {heads}")
    b, s, _ = x.shape
    return x.reshape(b, s, heads, -1).transpose(0, 2, 1, 3)


def _position_masks(
    attrs: KernelAttrs, s_q: int, total: int, offset: np.ndarray | int
) -> np.ndarray | None:
    """Additive 0 / -inf bias of the causal and window rules, `[s_q, total]` or
    `[B, 1, s_q, total]` for a per-batch offset; None when neither applies."""
    causal = bool_(attrs, "is_causal", OP)
    left, right = int_(attrs, "left_window_size", OP), int_(attrs, "right_window_size", OP)
    if not causal and left < 0 and right < 0:
        return None
    shift = np.asarray(offset).reshape(-1, 1, 1, 1) if np.ndim(offset) else int(offset)
    rows = np.arange(s_q).reshape(s_q, 1) + shift
    diff = rows - np.arange(total)  # query position minus key position
    allowed = np.ones(diff.shape, dtype=bool)
    if causal:
        allowed &= diff >= 0
    if left >= 0:
        allowed &= diff <= left
    if right >= 0:
        allowed &= -diff <= right
    return np.where(allowed, np.float32(0), np.float32(-np.inf))


@kernel("FusedInferAttentionScore")
def fused_infer_attention_score(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    names = present_names(attrs, OP)
    if len(inputs) != 3 + len(names):
        raise KernelError(f"FusedInferAttentionScore: expected {3 + len(names)} inputs")
    q, k, v = inputs[:3]
    given = dict(zip(names, inputs[3:], strict=True))
    three_d = q.ndim == 3
    if three_d:
        heads, kv_heads = int_(attrs, "num_heads", OP), int_(attrs, "num_key_value_heads", OP)
        q, k, v = _heads(q, heads, "Q"), _heads(k, kv_heads, "K"), _heads(v, kv_heads, "V")
    work = np.float64 if q.dtype == np.float64 else np.float32
    if "past_key" in given:
        k = np.concatenate([given["past_key"], k], axis=2)
        v = np.concatenate([given["past_value"], v], axis=2)
    present_k, present_v = k, v
    batch, heads, s_q, head_size = q.shape
    kv_heads, total = k.shape[1], k.shape[2]
    if heads != kv_heads:
        if heads % kv_heads:
            raise KernelError(
                f"FusedInferAttentionScore: {heads} heads are not a multiple of {kv_heads}"
            )
        k = np.repeat(k, heads // kv_heads, axis=1)
        v = np.repeat(v, heads // kv_heads, axis=1)
    check_output("FusedInferAttentionScore", (batch, heads, s_q, total), np.dtype(work), 12)
    scale_attr = attrs.get("scale_value")
    scale = (
        float(scale_attr.value.data)
        if isinstance(scale_attr, FloatAttr)
        else 1 / np.sqrt(head_size)
    )
    logits = np.matmul(q.astype(work), np.swapaxes(k, 2, 3).astype(work)) * work(scale)
    raw = logits
    softcap = float_(attrs, "softcap", OP)
    if softcap > 0:
        logits = np.tanh(logits / work(softcap)) * work(softcap)
    bias: np.ndarray = np.zeros((s_q, total), dtype=work)
    mask = given.get("attn_mask")
    if mask is not None:
        pad = total - mask.shape[-1]
        if pad < 0:
            raise KernelError(
                f"FusedInferAttentionScore: attn_mask has {mask.shape[-1]} keys, more than {total}"
            )
        if mask.dtype == np.bool_:
            mask = np.where(mask, work(0), work(-np.inf))
        mask = mask.astype(work)
        if pad:
            widths = [(0, 0)] * (mask.ndim - 1) + [(0, pad)]
            mask = np.pad(mask, widths, constant_values=-np.inf)
        bias = bias + mask
    lengths = given.get("nonpad_kv_seqlen")
    offset: np.ndarray | int = given["past_key"].shape[2] if "past_key" in given else 0
    if lengths is not None:
        lengths = lengths.reshape(-1).astype(np.int64)
        if lengths.shape[0] != batch:
            raise KernelError("FusedInferAttentionScore: nonpad_kv_seqlen must be [batch]")
        offset = lengths - s_q
        padding = np.arange(total) < lengths[:, None]
        bias = bias + np.where(padding, work(0), work(-np.inf)).reshape(batch, 1, 1, total)
    positions = _position_masks(attrs, s_q, total, offset)
    if positions is not None:
        bias = bias + positions.astype(work)
    with np.errstate(invalid="ignore"):
        biased = logits + bias
        precision = int_(attrs, "softmax_precision", OP)
        scores = biased.astype(_PRECISION.get(precision, work))
        top = np.max(scores, axis=-1, keepdims=True)
        top = np.where(np.isneginf(top), 0, top)
        weights = np.exp(scores - top)
        sums = np.sum(weights, axis=-1, keepdims=True)
        weights = (weights / np.where(sums == 0, 1, sums)).astype(work)
    all_masked = np.isneginf(np.max(bias, axis=-1, keepdims=True))
    if all_masked.any():
        weights = np.where(all_masked, work(0), weights)
    y = np.matmul(weights, v.astype(work))
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(batch, s_q, -1)
    mode = int_(attrs, "qk_matmul_output_mode", OP)
    qk = (raw, logits, biased, weights)[mode]
    return (y, present_k, present_v, np.broadcast_to(qk, (batch, heads, s_q, total)))


@kernel("RotaryPositionEmbedding")
def rotary_position_embedding(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    op = RotaryPositionEmbeddingOp
    x, cos, sin = (compute(v) for v in inputs[:3])
    original = x.shape
    if x.ndim == 4:  # [B, heads, S, D] -> [B, S, heads, D]
        x = x.transpose(0, 2, 1, 3)
    elif x.ndim == 3:
        heads = int_(attrs, "num_heads", op)
        if heads <= 0 or x.shape[2] % heads:
            raise KernelError(f"RotaryPositionEmbedding: {x.shape[2]} features, {heads} heads")
        x = x.reshape(x.shape[0], x.shape[1], heads, -1)
    else:
        raise KernelError(f"RotaryPositionEmbedding: x must be 3-D or 4-D, got {list(original)}")
    rotary = int_(attrs, "rotary_dim", op) or x.shape[3]
    half = rotary // 2
    if len(inputs) > 3:
        positions = inputs[3].astype(np.int64)
        if (positions < 0).any() or (positions >= cos.shape[0]).any():
            raise KernelError("RotaryPositionEmbedding: position_ids beyond the cache")
        cos, sin = cos[positions], sin[positions]
    if cos.shape[-1] != half or sin.shape[-1] != half:
        raise KernelError(f"RotaryPositionEmbedding: caches must end in {half}")
    cos, sin = cos[:, :, None, :], sin[:, :, None, :]
    rotate = x[..., :rotary]
    if int_(attrs, "mode", op) == 1:
        a, b = rotate[..., 0::2], rotate[..., 1::2]
    else:
        a, b = rotate[..., :half], rotate[..., half:]
    real, imag = a * cos - b * sin, a * sin + b * cos
    if int_(attrs, "mode", op) == 1:
        turned = np.stack([real, imag], axis=-1).reshape(rotate.shape)
    else:
        turned = np.concatenate([real, imag], axis=-1)
    y = np.concatenate([turned, x[..., rotary:]], axis=-1)
    return (y.reshape(original) if len(original) == 3 else y.transpose(0, 2, 1, 3),)
