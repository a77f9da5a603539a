"""gedialects passes: transformations of the graph/partition/multibatch/ascend dialects.

Passes are registered lazily by name (importing this package imports no pass module), so
`ge-opt` starts fast; `get_all_passes()` is the name -> class-factory map that `ge-opt` and
the `xdsl.universe` entry point hand to xDSL.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.passes import ModulePass

PASSES: dict[str, tuple[str, str]] = {
    "ge-assign-streams": ("passes.assign_streams", "AssignStreamsPass"),
    "ge-compile": ("passes.pipelines", "CompilePipelinePass"),
    "ge-convert-graph-to-ascend": ("passes.convert_graph_to_ascend", "ConvertGraphToAscendPass"),
    "ge-dump-dot": ("passes.partition.dump_dot", "DumpDotPass"),
    "ge-fold-constants": ("passes.fold_constants", "FoldConstantsPass"),
    "ge-fold-identity": ("passes.fusion.fold_identity", "FoldIdentityPass"),
    "ge-fuse": ("passes.fusion.fuse", "FusePass"),
    "ge-fuse-casts": ("passes.fusion.fuse_casts", "FuseCastsPass"),
    "ge-fuse-conv-activation": ("passes.fusion.fuse_conv_activation", "FuseConvActivationPass"),
    "ge-fuse-conv-bias": ("passes.fusion.fuse_conv_bias", "FuseConvBiasPass"),
    "ge-fuse-conv-bn": ("passes.fusion.fuse_conv_bn", "FuseConvBnPass"),
    "ge-fuse-gelu": ("passes.fusion.fuse_gelu", "FuseGeluPass"),
    "ge-fuse-hard-swish": ("passes.fusion.fuse_hard_swish", "FuseHardSwishPass"),
    "ge-fuse-layer-norm": ("passes.fusion.fuse_layer_norm", "FuseLayerNormPass"),
    "ge-fuse-matmul-activation": (
        "passes.fusion.fuse_matmul_activation",
        "FuseMatMulActivationPass",
    ),
    "ge-fuse-matmul-bias": ("passes.fusion.fuse_matmul_bias", "FuseMatMulBiasPass"),
    "ge-fuse-matmul-transpose": ("passes.fusion.fuse_matmul_transpose", "FuseMatMulTransposePass"),
    "ge-fuse-mul-add": ("passes.fusion.fuse_mul_add", "FuseMulAddPass"),
    "ge-fuse-reshapes": ("passes.fusion.fuse_reshapes", "FuseReshapesPass"),
    "ge-fuse-transposes": ("passes.fusion.fuse_transposes", "FuseTransposesPass"),
    "ge-infer-shapes": ("passes.infer_shapes", "InferShapesPass"),
    "ge-inline-partitions": ("passes.partition.inline", "InlinePartitionsPass"),
    "ge-merge-engine-partitions": ("passes.partition.engine", "MergeEnginePartitionsPass"),
    "ge-multibatch-expand": ("passes.multibatch.expand", "MultibatchExpandPass"),
    "ge-partition-dynamic-shape": ("passes.partition.dynamic_shape", "PartitionDynamicShapePass"),
    "ge-partition-engine": ("passes.partition.engine", "PartitionEnginePass"),
    "ge-partition-jit": ("passes.partition.jit", "PartitionJitPass"),
    "ge-partition-stage": ("passes.partition.stage", "PartitionStagePass"),
    "ge-place-engines": ("passes.partition.place_engines", "PlaceEnginesPass"),
    "ge-plan-memory": ("passes.plan_memory", "PlanMemoryPass"),
    "ge-sink-loop": ("passes.sink_loop", "SinkLoopPass"),
    "ge-verify-graph": ("passes.verify_graph", "VerifyGraphPass"),
    "ge-verify-model": ("passes.verify_model", "VerifyModelPass"),
}
"""Pass name -> (module, class)."""


def _load(module: str, attr: str) -> Callable[[], type[ModulePass]]:
    return lambda: getattr(importlib.import_module(module), attr)


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Name -> lazy factory of each gedialects pass class."""
    return {name: _load(module, attr) for name, (module, attr) in PASSES.items()}
