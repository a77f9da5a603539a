"""`ge-fuse`: every fusion pass of this package, in an order where each sees the previous ones'
results (clean-ups, then the multi-op patterns, then producers absorbing their consumers)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern
from xdsl.utils.exceptions import PassFailedException

from gedialects.passes.fusion.fold_identity import identity_patterns
from gedialects.passes.fusion.fuse_casts import cast_patterns
from gedialects.passes.fusion.fuse_conv_activation import conv_activation_patterns
from gedialects.passes.fusion.fuse_conv_bias import conv_bias_patterns
from gedialects.passes.fusion.fuse_conv_bn import conv_bn_patterns
from gedialects.passes.fusion.fuse_gelu import gelu_patterns
from gedialects.passes.fusion.fuse_hard_swish import hard_swish_patterns
from gedialects.passes.fusion.fuse_layer_norm import layer_norm_patterns
from gedialects.passes.fusion.fuse_matmul_activation import matmul_activation_patterns
from gedialects.passes.fusion.fuse_matmul_bias import matmul_bias_patterns
from gedialects.passes.fusion.fuse_matmul_transpose import matmul_transpose_patterns
from gedialects.passes.fusion.fuse_mul_add import mul_add_patterns
from gedialects.passes.fusion.fuse_quant import quant_patterns
from gedialects.passes.fusion.fuse_reshapes import reshape_patterns
from gedialects.passes.fusion.fuse_transposes import transpose_patterns
from gedialects.passes.fusion.matching import rewrite_with

FUSIONS: dict[str, Callable[[], tuple[RewritePattern, ...]]] = {
    "identity": identity_patterns,
    "quant": quant_patterns,
    "casts": cast_patterns,
    "transposes": transpose_patterns,
    "reshapes": reshape_patterns,
    "layer-norm": layer_norm_patterns,
    "gelu": gelu_patterns,
    "hard-swish": hard_swish_patterns,
    "conv-bias": conv_bias_patterns,
    "conv-bn": conv_bn_patterns,
    "conv-activation": conv_activation_patterns,
    "matmul-transpose": matmul_transpose_patterns,
    "matmul-bias": matmul_bias_patterns,
    "matmul-activation": matmul_activation_patterns,
    "mul-add": mul_add_patterns,
}
"""Fusion kind -> its patterns. Kind `k` is the pass `ge-fuse-k` (`ge-fold-identity` for
"identity")."""

STAGES: tuple[tuple[str, ...], ...] = (
    ("identity", "quant", "casts", "transposes", "reshapes"),
    ("layer-norm", "gelu", "hard-swish"),
    ("conv-bias", "conv-bn", "matmul-transpose", "matmul-bias"),
    ("conv-activation", "matmul-activation"),
    ("mul-add",),
)
"""The order `ge-fuse` runs the kinds in: one greedy walk per stage over the patterns of its
enabled kinds. Kinds in one stage have disjoint roots or feed each other (a bias Add after
a BatchNorm, or a BatchNorm after a bias Add), so one fixed point covers any interleaving."""


@dataclass(frozen=True)
class FusePass(ModulePass):
    """Runs all fusions in five stages (see `STAGES`): clean-ups and the int8 products
    (`ge-fold-identity`, `ge-fuse-quant`, `ge-fuse-casts`, `-transposes`, `-reshapes`);
    multi-op patterns (`-layer-norm`, `-gelu`, `-hard-swish`); weights and biases
    (`-conv-bias`, `-conv-bn`, `-matmul-transpose`, `-matmul-bias`); activations
    (`-conv-activation`, `-matmul-activation`); `-mul-add`.

    The multi-op patterns run before `ge-fuse-mul-add` so that it does not split their
    Mul/Add chains, and bias/BatchNorm folding before activation fusion so that conv + bias +
    BatchNorm + Relu ends as one node. Option `disable` lists kinds to leave out:
    `ge-fuse{disable=mul-add,conv-bn}`.
    """

    name = "ge-fuse"
    OPTION_CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"disable": tuple(FUSIONS)}
    """Checked by `ge-opt` when it reads the pipeline (`tools.pass_catalog`)."""

    disable: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from gedialects.base import paused_gc

        with paused_gc():  # the IR's millions of objects: each collection would walk them all
            self._apply(ctx, op)

    def _apply(self, ctx: Context, op: ModuleOp) -> None:
        unknown = [kind for kind in self.disable if kind not in FUSIONS]
        if unknown:
            kinds = ", ".join(FUSIONS)
            raise PassFailedException(
                f"ge-fuse: unknown fusion kind '{unknown[0]}' in disable (kinds: {kinds})"
            )
        for stage in STAGES:
            patterns = [p for kind in stage if kind not in self.disable for p in FUSIONS[kind]()]
            if patterns:
                rewrite_with(op, patterns)
