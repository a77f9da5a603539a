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

PASS_VERBS: tuple[str, ...] = (
    "assign",
    "compile",
    "convert",
    "create",
    "delete",
    "dump",
    "eliminate",
    "expand",
    "fold",
    "fuse",
    "infer",
    "inline",
    "merge",
    "normalize",
    "optimize",
    "partition",
    "place",
    "plan",
    "prepare",
    "select",
    "sink",
    "split",
    "update",
    "verify",
)
"""The verbs pass names start with: every pass is `ge-<verb>-<object>` (MLIR's
`convert-x-to-y`, `canonicalize` style), so a name says what the pass does to what; a new verb
is added here, on purpose (tests/test_pass_names.py checks the names against this list)."""

UMBRELLA_PASSES: dict[str, str] = {
    "ge-compile": "the named compile pipeline (every stage, graph to task level)",
    "ge-fuse": "every fusion pattern of gedialects.passes.fusion in GE's order",
}
"""Passes named by the verb alone, with why: each runs every pass of its verb, so there is no
single object to name."""

PASSES: dict[str, tuple[str, str]] = {
    "ge-assign-streams": ("gedialects.passes.assign_streams", "AssignStreamsPass"),
    "ge-compile": ("gedialects.passes.pipelines", "CompilePipelinePass"),
    "ge-convert-graph-to-ascend": (
        "gedialects.passes.convert_graph_to_ascend",
        "ConvertGraphToAscendPass",
    ),
    "ge-convert-for-to-while": ("gedialects.passes.for_to_while", "ConvertForToWhilePass"),
    "ge-create-subgraph-with-scope": (
        "gedialects.passes.multibatch.create_scope",
        "CreateSubGraphWithScopePass",
    ),
    "ge-delete-variable-refs": (
        "gedialects.passes.delete_variable_refs",
        "DeleteVariableRefsPass",
    ),
    "ge-dump-dot": ("gedialects.passes.partition.dump_dot", "DumpDotPass"),
    "ge-eliminate-trans-op-symmetry": (
        "gedialects.passes.eliminate_trans_op_symmetry",
        "EliminateTransOpSymmetryPass",
    ),
    "ge-expand-multi-dims-subgraphs": (
        "gedialects.passes.multibatch.subgraph_multi_dims",
        "SubgraphMultiDimsClonePass",
    ),
    "ge-expand-multibatch": ("gedialects.passes.multibatch.expand", "MultibatchExpandPass"),
    "ge-fold-constants": ("gedialects.passes.fold_constants", "FoldConstantsPass"),
    "ge-sink-inputs": ("gedialects.passes.getnext", "SinkInputsPass"),
    "ge-fold-trans-data": ("gedialects.passes.fold_trans_data", "FoldTransDataPass"),
    "ge-fold-identity": ("gedialects.passes.fusion.fold_identity", "FoldIdentityPass"),
    "ge-fuse": ("gedialects.passes.fusion.fuse", "FusePass"),
    "ge-fuse-casts": ("gedialects.passes.fusion.fuse_casts", "FuseCastsPass"),
    "ge-fuse-conv-activation": (
        "gedialects.passes.fusion.fuse_conv_activation",
        "FuseConvActivationPass",
    ),
    "ge-fuse-conv-bias": ("gedialects.passes.fusion.fuse_conv_bias", "FuseConvBiasPass"),
    "ge-fuse-conv-bn": ("gedialects.passes.fusion.fuse_conv_bn", "FuseConvBnPass"),
    "ge-fuse-gelu": ("gedialects.passes.fusion.fuse_gelu", "FuseGeluPass"),
    "ge-fuse-hard-swish": ("gedialects.passes.fusion.fuse_hard_swish", "FuseHardSwishPass"),
    "ge-fuse-layer-norm": ("gedialects.passes.fusion.fuse_layer_norm", "FuseLayerNormPass"),
    "ge-fuse-matmul-activation": (
        "gedialects.passes.fusion.fuse_matmul_activation",
        "FuseMatMulActivationPass",
    ),
    "ge-fuse-matmul-bias": ("gedialects.passes.fusion.fuse_matmul_bias", "FuseMatMulBiasPass"),
    "ge-fuse-matmul-transpose": (
        "gedialects.passes.fusion.fuse_matmul_transpose",
        "FuseMatMulTransposePass",
    ),
    "ge-fuse-mul-add": ("gedialects.passes.fusion.fuse_mul_add", "FuseMulAddPass"),
    "ge-fuse-quant": ("gedialects.passes.fusion.fuse_quant", "FuseQuantPass"),
    "ge-fuse-reshapes": ("gedialects.passes.fusion.fuse_reshapes", "FuseReshapesPass"),
    "ge-fuse-transposes": ("gedialects.passes.fusion.fuse_transposes", "FuseTransposesPass"),
    "ge-infer-shapes": ("gedialects.passes.infer_shapes", "InferShapesPass"),
    "ge-inline-partitions": ("gedialects.passes.partition.inline", "InlinePartitionsPass"),
    "ge-merge-engine-partitions": (
        "gedialects.passes.partition.merge_engine_partitions",
        "MergeEnginePartitionsPass",
    ),
    "ge-merge-trans-op-breadth": (
        "gedialects.passes.merge_trans_op_breadth",
        "MergeTransOpBreadthPass",
    ),
    "ge-merge-trans-op-depth": ("gedialects.passes.merge_trans_op_depth", "MergeTransOpDepthPass"),
    "ge-normalize-conds": ("gedialects.passes.normalize_conds", "NormalizeCondsPass"),
    "ge-optimize-original-graph": (
        "gedialects.passes.partition.optimize_original_graph",
        "OptimizeOriginalGraphPass",
    ),
    "ge-optimize-stream-graph": (
        "gedialects.passes.partition.optimize_stream_graph",
        "OptimizeStreamGraphPass",
    ),
    "ge-optimize-subgraphs": (
        "gedialects.passes.partition.optimize_subgraphs",
        "OptimizeSubgraphsPass",
    ),
    "ge-optimize-whole-graph": (
        "gedialects.passes.partition.optimize_whole_graph",
        "OptimizeWholeGraphPass",
    ),
    "ge-partition-dynamic-shape": (
        "gedialects.passes.partition.dynamic_shape",
        "PartitionDynamicShapePass",
    ),
    "ge-partition-engine": ("gedialects.passes.partition.engine", "PartitionEnginePass"),
    "ge-partition-jit": ("gedialects.passes.partition.jit", "PartitionJitPass"),
    "ge-partition-stage": ("gedialects.passes.partition.stage", "PartitionStagePass"),
    "ge-place-engines": ("gedialects.passes.partition.place_engines", "PlaceEnginesPass"),
    "ge-plan-memory": ("gedialects.passes.plan_memory", "PlanMemoryPass"),
    "ge-prepare-variables": ("gedialects.passes.prepare_variables", "PrepareVariablesPass"),
    "ge-select-formats": ("gedialects.passes.select_formats", "SelectFormatsPass"),
    "ge-sink-loop": ("gedialects.passes.sink_loop", "SinkLoopPass"),
    "ge-split-variables-into-subgraphs": (
        "gedialects.passes.split_variables",
        "SplitVariablesIntoSubgraphsPass",
    ),
    "ge-update-hostcpu-engine": (
        "gedialects.passes.partition.hostcpu_engine_update",
        "UpdateHostcpuEnginePass",
    ),
    "ge-verify-aicpu-formats": (
        "gedialects.passes.partition.verify_aicpu_formats",
        "VerifyAicpuFormatsPass",
    ),
    "ge-verify-graph": ("gedialects.passes.verify_graph", "VerifyGraphPass"),
    "ge-verify-model": ("gedialects.passes.verify_model", "VerifyModelPass"),
}
"""Pass name -> (module, class)."""


def _load(module: str, attr: str) -> Callable[[], type[ModulePass]]:
    return lambda: getattr(importlib.import_module(module), attr)


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Name -> lazy factory of each gedialects pass class."""
    return {name: _load(module, attr) for name, (module, attr) in PASSES.items()}
