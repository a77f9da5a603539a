"""ONNX converters of the ai.onnx.ml ops: Binarizer (a Greater cast to x's type) and
ArrayFeatureExtractor (a GatherV2 on the last axis), which are existing graph ops, and
TreeEnsemble (opset 5), `graph.tree_ensemble`, and LabelEncoder, `graph.label_encoder`."""

from __future__ import annotations

import numpy as np

from gedialects.base import element_type, tensor_shape
from gedialects.frontend.onnx.ops.array import ints_const
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    AGGREGATE_FUNCTIONS,
    POST_TRANSFORMS,
    CastOp,
    GatherV2DOp,
    GreaterOp,
    LabelEncoderOp,
    ReshapeOp,
    TreeEnsembleOp,
)
from gedialects.tensors import const_from_numpy, numpy_dtype

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


@converter("TreeEnsemble", DOMAIN)
def tree_ensemble(ctx: NodeContext) -> Outputs:
    """ONNX's enum numbers become the op's names; tensors of x's type become f64 arrays."""

    def numbers(name: str, default: object = None) -> list[float]:
        value = ctx.attr(name, default)
        return [] if value is None else [float(v) for v in np.asarray(value).ravel()]

    def index(name: str, table: tuple[str, ...], default: int) -> str:
        value = ctx.attr(name, default)
        if not 0 <= value < len(table):
            ctx.fail(f"{name} {value} is not one of 0..{len(table) - 1} ({', '.join(table)})")
        return table[value]

    op = TreeEnsembleOp(
        ctx.input(0),
        n_targets=ctx.attr("n_targets"),
        nodes_featureids=ctx.attr("nodes_featureids"),
        nodes_modes=[int(m) for m in np.asarray(ctx.attr("nodes_modes")).ravel()],
        nodes_splits=numbers("nodes_splits"),
        nodes_truenodeids=ctx.attr("nodes_truenodeids"),
        nodes_falsenodeids=ctx.attr("nodes_falsenodeids"),
        nodes_trueleafs=ctx.attr("nodes_trueleafs"),
        nodes_falseleafs=ctx.attr("nodes_falseleafs"),
        nodes_missing_value_tracks_true=ctx.attr("nodes_missing_value_tracks_true", []),
        membership_values=numbers("membership_values"),
        leaf_targetids=ctx.attr("leaf_targetids"),
        leaf_weights=numbers("leaf_weights"),
        tree_roots=ctx.attr("tree_roots"),
        aggregate_function=index("aggregate_function", AGGREGATE_FUNCTIONS, 1),
        post_transform=_post_transform(ctx),
    )
    return [ctx.emit(op).results[0]]


def _post_transform(ctx: NodeContext) -> str:
    value = ctx.attr("post_transform", 0)
    if value != 0:
        name = POST_TRANSFORMS[value] if 0 <= value < len(POST_TRANSFORMS) else str(value)
        ctx.fail(f"post_transform {name} is not supported (only NONE: see POST_TRANSFORMS)")
    return "NONE"


@converter("LabelEncoder", DOMAIN)
def label_encoder(ctx: NodeContext) -> Outputs:
    """`keys_*`/`values_*` lists (strings, int64s, floats) or `keys_tensor`/`values_tensor`
    (opset 4) become the op's constants; the default is `default_tensor`, or the
    `default_<kind>` of the values' kind, else ONNX's: "_Unused" for strings, -1 of the
    values' dtype for any integers (int64, int32, int16), -0.0 of it for any floats (float,
    double): onnxruntime's too, for the int64, float and double it implements."""
    x = ctx.input(0)

    def table(side: str) -> np.ndarray:
        given = [k for k in ("strings", "int64s", "floats") if ctx.has_attr(f"{side}_{k}")]
        if ctx.has_attr(f"{side}_tensor"):
            given.append("tensor")
        if len(given) != 1:
            ctx.fail(f"needs exactly one {side}_* attribute, got {len(given)}")
        kind = given[0]
        value = ctx.attr(f"{side}_{kind}")
        if kind == "strings":
            return np.array(value, dtype=np.str_)
        if kind == "int64s":
            return np.array(value, dtype=np.int64)
        if kind == "floats":
            return np.array(value, dtype=np.float32)
        return np.asarray(value).reshape(-1)

    keys, values = table("keys"), table("values")
    if ctx.has_attr("default_tensor"):
        default = np.asarray(ctx.attr("default_tensor")).reshape(())
    elif values.dtype.kind == "U":
        default = np.array(ctx.attr("default_string", "_Unused"), dtype=np.str_)
    elif values.dtype == np.int64:
        default = np.array(ctx.attr("default_int64", -1), dtype=np.int64)
    elif values.dtype == np.float32:
        default = np.array(ctx.attr("default_float", -0.0), dtype=np.float32)
    elif values.dtype.kind == "i":
        default = np.array(-1, dtype=values.dtype)
    elif values.dtype.kind == "f":
        default = np.array(-0.0, dtype=values.dtype)
    else:
        default = np.zeros((), values.dtype)
    try:
        op = LabelEncoderOp(
            x, const_from_numpy(keys), const_from_numpy(values), const_from_numpy(default)
        )
    except ValueError as e:
        ctx.fail(str(e))
    return [ctx.emit(op).results[0]]
