"""ONNX converters of the string ops: StringNormalizer (GE StringNormalizer), RegexFullMatch
(GE StaticRegexFullMatch: the pattern is an attribute in both), StringConcat (GE StringJoin
of two inputs, no separator) and StringSplit (`graph.string_split_padded`: GE's StringSplit is
sparse, ONNX's padded)."""

from __future__ import annotations

from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    CASE_CHANGE_ACTIONS,
    StaticRegexFullMatchOp,
    StringJoinOp,
    StringNormalizerOp,
    StringSplitPaddedOp,
    compile_regex,
)


@converter("StringNormalizer")
def string_normalizer(ctx: NodeContext) -> Outputs:
    action = ctx.attr("case_change_action", "NONE")
    if action not in CASE_CHANGE_ACTIONS:
        ctx.fail(
            f"case_change_action must be one of {', '.join(CASE_CHANGE_ACTIONS)}, got {action!r}"
        )
    op = StringNormalizerOp(
        ctx.input(0),
        stopwords=ctx.attr("stopwords", []),
        is_case_sensitive=bool(ctx.attr("is_case_sensitive", 0)),
        case_change_action=action,
        locale=ctx.attr("locale", "C"),
    )
    return [ctx.emit(op).results[0]]


@converter("RegexFullMatch")
def regex_full_match(ctx: NodeContext) -> Outputs:
    pattern = ctx.attr("pattern")
    try:
        compile_regex(pattern)
    except ValueError as e:
        ctx.fail(str(e))
    return [ctx.emit(StaticRegexFullMatchOp(ctx.input(0), pattern)).results[0]]


@converter("StringConcat")
def string_concat(ctx: NodeContext) -> Outputs:
    return [ctx.emit(StringJoinOp([ctx.input(0), ctx.input(1)])).results[0]]


@converter("StringSplit")
def string_split(ctx: NodeContext) -> Outputs:
    """ONNX StringSplit to `graph.string_split_padded`; a negative `maxsplit` means no limit
    (as in onnx's reference and onnxruntime), which the op spells by leaving it out."""
    maxsplit = ctx.attr("maxsplit", None)
    if maxsplit is not None and maxsplit < 0:
        maxsplit = None
    op = ctx.emit(
        StringSplitPaddedOp(ctx.input(0), delimiter=ctx.attr("delimiter", ""), maxsplit=maxsplit)
    )
    return [op.results[0], op.results[1]]
