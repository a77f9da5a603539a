"""ONNX converters of the small ai.onnx.ml ops that are existing graph ops: Binarizer (a
Greater cast to x's type) and ArrayFeatureExtractor (a GatherV2 on the last axis)."""

from __future__ import annotations

import numpy as np

from gedialects.base import element_type, tensor_shape
from gedialects.frontend.onnx.ops.array import ints_const
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import CastOp, GatherV2DOp, GreaterOp, ReshapeOp
from gedialects.tensors import numpy_dtype

DOMAIN = "ai.onnx.ml"


@converter("Binarizer", DOMAIN)
def binarizer(ctx: NodeContext) -> Outputs:
    x = ctx.input(0)
    elem = element_type(x.type)
    threshold = ctx.const(np.array(ctx.attr("threshold", 0.0), numpy_dtype(elem)), "threshold")
    above = ctx.emit(GreaterOp(x, threshold), "above").results[0]
    return [ctx.emit(CastOp(above, elem)).results[0]]


@converter("ArrayFeatureExtractor", DOMAIN)
def array_feature_extractor(ctx: NodeContext) -> Outputs:
    """The selected columns of the last axis; a 1-D X gives `[1, k]` (onnxruntime's shape)."""
    x, indices = ctx.input(0), ctx.input(1)
    shape = tensor_shape(x.type)
    if shape is None:
        ctx.fail("X must have a known rank")
    flat = ctx.emit(ReshapeOp(indices, ints_const(ctx, [-1], "flat")), "indices").results[0]
    picked = GatherV2DOp(x, flat, axis=len(shape) - 1)
    if len(shape) != 1:
        return [ctx.emit(picked).results[0]]
    row = ctx.emit(picked, "picked").results[0]
    return [ctx.emit(ReshapeOp(row, ints_const(ctx, [1, -1], "row"))).results[0]]
