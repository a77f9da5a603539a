"""ONNX converters: Attention (opsets 23-25) as GE's FusedInferAttentionScore, RotaryEmbedding
as GE's RotaryPositionEmbedding."""

from __future__ import annotations

from xdsl.ir import SSAValue

from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import OPTIONAL_INPUTS, FusedInferAttentionScoreOp, RotaryPositionEmbeddingOp


@converter("Attention")
def attention(ctx: NodeContext) -> Outputs:
    optional: dict[str, SSAValue] = {}
    for index, name in enumerate(OPTIONAL_INPUTS, start=3):
        value = ctx.optional_input(index)
        if value is not None:
            optional[name] = value
    precision = ctx.attr("softmax_precision", 0)
    if precision not in (0, 1, 10, 11):
        ctx.fail(f"softmax_precision {precision} is not supported (float, float16, double)")
    scale = ctx.attr("scale", None)
    op = FusedInferAttentionScoreOp(
        ctx.input(0),
        ctx.input(1),
        ctx.input(2),
        optional,
        num_heads=ctx.attr("q_num_heads", 0),
        num_key_value_heads=ctx.attr("kv_num_heads", 0),
        scale_value=None if scale is None else float(scale),
        is_causal=bool(ctx.attr("is_causal", 0)),
        softcap=float(ctx.attr("softcap", 0.0)),
        qk_matmul_output_mode=ctx.attr("qk_matmul_output_mode", 0),
        softmax_precision=precision,
        left_window_size=ctx.attr("left_window_size", -1),
        right_window_size=ctx.attr("right_window_size", -1),
    )
    return list(ctx.emit(op).results)[: len(ctx.node.output)]


@converter("RotaryEmbedding")
def rotary_embedding(ctx: NodeContext) -> Outputs:
    op = RotaryPositionEmbeddingOp(
        ctx.input(0),
        ctx.input(1),
        ctx.input(2),
        ctx.optional_input(3),
        mode=1 if ctx.attr("interleaved", 0) else 0,
        num_heads=ctx.attr("num_heads", 0),
        rotary_dim=ctx.attr("rotary_embedding_dim", 0),
    )
    return [ctx.emit(op).results[0]]
