"""ONNX converters: Unique (GE UniqueWithCountsAndSorting), TensorScatter (GE Scatter) and
TfIdfVectorizer (integer pools)."""

from __future__ import annotations

from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    SCATTER_MODES,
    ScatterOp,
    TfIdfVectorizerOp,
    UniqueWithCountsAndSortingOp,
)


@converter("Unique")
def unique(ctx: NodeContext) -> Outputs:
    op = UniqueWithCountsAndSortingOp(
        ctx.input(0), sorted=bool(ctx.attr("sorted", 1)), axis=ctx.attr("axis", None)
    )
    return list(ctx.emit(op).results)[: len(ctx.node.output)]


@converter("TensorScatter")
def tensor_scatter(ctx: NodeContext) -> Outputs:
    mode = ctx.attr("mode", "linear")
    if mode not in SCATTER_MODES:
        ctx.fail(f'mode must be "linear" or "circular", got "{mode}"')
    op = ScatterOp(
        ctx.input(0), ctx.input(1), ctx.optional_input(2), axis=ctx.attr("axis", -2), mode=mode
    )
    return [ctx.emit(op).results[0]]


@converter("TfIdfVectorizer")
def tf_idf_vectorizer(ctx: NodeContext) -> Outputs:
    if ctx.has_attr("pool_strings"):
        ctx.fail(
            "pool_strings: string n-gram pools are not supported (graph.tf_idf_vectorizer "
            "counts integer n-grams)"
        )
    op = TfIdfVectorizerOp(
        ctx.input(0),
        min_gram_length=ctx.attr("min_gram_length"),
        max_gram_length=ctx.attr("max_gram_length"),
        max_skip_count=ctx.attr("max_skip_count"),
        mode=ctx.attr("mode"),
        ngram_counts=ctx.attr("ngram_counts"),
        ngram_indexes=ctx.attr("ngram_indexes"),
        pool=ctx.attr("pool_int64s"),
        weights=ctx.attr("weights", []),
    )
    return [ctx.emit(op).results[0]]
