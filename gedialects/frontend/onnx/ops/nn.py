"""ONNX converters: convolutions, pooling, normalisation, softmax, LRN, Resize/Upsample and
DepthToSpace/SpaceToDepth.

ONNX lists pads as [x1_begin, x2_begin, ..., x1_end, x2_end]; GE as [begin, end] per spatial
dim. auto_pad SAME_UPPER/SAME_LOWER/VALID is resolved to explicit pads here, which needs the
input's spatial dims. 1-D convolutions run as 2-D ones over an inserted H = 1 axis.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue

from gedialects.base import element_type, tensor_shape
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import (
    AddOp,
    AvgPoolV2Op,
    BatchNormOp,
    Col2imOp,
    Conv2DOp,
    Conv2DTransposeOp,
    Conv3DOp,
    Conv3DTransposeOp,
    DeformableConv2DOp,
    DepthToSpaceOp,
    DivOp,
    EqualOp,
    EuclideanNormOp,
    GlobalAveragePoolOp,
    GlobalLpPoolOp,
    GlobalMaxPoolOp,
    GroupNormOp,
    HardmaxOp,
    InstanceNormOp,
    LayerNormV3Op,
    LogSoftmaxV2Op,
    LpPoolOp,
    LRNOp,
    MaxPoolV3Op,
    MaxPoolWithArgmaxOp,
    MulOp,
    ReduceL1Op,
    ReduceMeanOp,
    ReshapeOp,
    ResizeDOp,
    ResizeOp,
    RmsNormOp,
    SelectV2Op,
    SoftmaxV2Op,
    SpaceToDepthOp,
    SqrtOp,
    SubOp,
    resize_plan,
)
from gedialects.tensors import numpy_dtype

# --------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------


def _shape(ctx: NodeContext, value: SSAValue, what: str) -> tuple[int, ...]:
    shape = tensor_shape(value.type)
    if shape is None:
        ctx.fail(f"{what} must have a known rank")
    return shape


def _ge_pads(onnx_pads: Sequence[int]) -> list[int]:
    """[b1, b2, ..., e1, e2, ...] -> [b1, e1, b2, e2, ...]."""
    n = len(onnx_pads) // 2
    return [p for i in range(n) for p in (onnx_pads[i], onnx_pads[n + i])]


def _window_pads(
    ctx: NodeContext,
    sizes: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> list[int]:
    """GE pads for ONNX `pads`/`auto_pad` of a windowed op over spatial `sizes`."""
    auto_pad = ctx.attr("auto_pad", "NOTSET")
    n = len(kernel)
    if auto_pad == "NOTSET":
        pads = list(ctx.attr("pads", [0] * 2 * n))
        if len(pads) != 2 * n:
            ctx.fail(f"pads {pads} must have {2 * n} values")
        return _ge_pads(pads)
    if auto_pad == "VALID":
        return [0] * 2 * n
    if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        ctx.fail(f"unknown auto_pad '{auto_pad}'")
    if any(s < 0 for s in sizes):
        ctx.fail(f"auto_pad {auto_pad} needs static spatial dims, got {list(sizes)}")
    pads: list[int] = []
    for size, k, s, d in zip(sizes, kernel, strides, dilations, strict=True):
        out = -(-size // s)
        total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
        small, big = total // 2, total - total // 2
        pads += [small, big] if auto_pad == "SAME_UPPER" else [big, small]
    return pads


def _ints(ctx: NodeContext, name: str, n: int, default: int) -> list[int]:
    values = list(ctx.attr(name, [default] * n))
    if len(values) != n:
        ctx.fail(f"{name} {values} must have {n} values")
    return values


def _reshape(ctx: NodeContext, x: SSAValue, shape: Sequence[int], suffix: str) -> SSAValue:
    """`x` reshaped (0 copies a dim); a known `x` is reshaped at import time."""
    known = ctx.known(x)
    if known is not None:
        dims = [known.shape[i] if d == 0 else d for i, d in enumerate(shape)]
        return ctx.const(known.reshape(dims), suffix)
    target = ctx.const(np.array(shape, dtype=np.int64), f"{suffix}_shape")
    return ctx.emit(ReshapeOp(x, target), suffix).results[0]


# --------------------------------------------------------------------------------------------
# Convolution
# --------------------------------------------------------------------------------------------


@converter("Conv")
def conv(ctx: NodeContext) -> Outputs:
    return [convolution(ctx, ctx.input(0), ctx.input(1), ctx.optional_input(2))]


def convolution(ctx: NodeContext, x: SSAValue, w: SSAValue, bias: SSAValue | None) -> SSAValue:
    """The node's convolution (its attributes) of `x` by `w` (ConvInteger and QLinearConv
    reuse it on dequantised operands)."""
    wshape = _shape(ctx, w, "the weight")
    n = len(wshape) - 2
    if n not in (1, 2, 3):
        ctx.fail(f"{n}-D convolution is not supported (1-D, 2-D and 3-D are)")
    xshape = tensor_shape(x.type) or (-1,) * (n + 2)
    kernel = _ints(ctx, "kernel_shape", n, 0) if ctx.has_attr("kernel_shape") else wshape[2:]
    strides = _ints(ctx, "strides", n, 1)
    dilations = _ints(ctx, "dilations", n, 1)
    pads = _window_pads(ctx, xshape[2:], kernel, strides, dilations)
    groups = ctx.attr("group", 1)
    if n == 1:
        x4 = _reshape(ctx, x, (0, 0, 1, -1), "as_2d")
        w4 = _reshape(ctx, w, (0, 0, 1, -1), "weight_2d")
        op = Conv2DOp(
            x4,
            w4,
            bias,
            strides=(1, 1, 1, strides[0]),
            pads=(0, 0, *pads),
            dilations=(1, 1, 1, dilations[0]),
            groups=groups,
        )
        y = ctx.emit(op, "conv2d").results[0]
        return _reshape_back(ctx, y)
    op_type = Conv2DOp if n == 2 else Conv3DOp
    op = op_type(
        x,
        w,
        bias,
        strides=(1, 1, *strides),
        pads=pads,
        dilations=(1, 1, *dilations),
        groups=groups,
    )
    return ctx.emit(op).results[0]


def _reshape_back(ctx: NodeContext, y: SSAValue) -> SSAValue:
    """[N, C, 1, L] -> [N, C, L], named after the node itself."""
    target = ctx.const(np.array((0, 0, -1), dtype=np.int64), "as_1d_shape")
    return ctx.emit(ReshapeOp(y, target)).results[0]


@converter("ConvTranspose")
def conv_transpose(ctx: NodeContext) -> Outputs:
    x, w, bias = ctx.input(0), ctx.input(1), ctx.optional_input(2)
    wshape = _shape(ctx, w, "the weight")
    xshape = _shape(ctx, x, "the input")
    n = len(wshape) - 2
    if n not in (1, 2, 3) or len(xshape) != n + 2:
        ctx.fail(f"{n}-D transposed convolution is not supported (1-D, 2-D and 3-D are)")
    sizes = xshape[2:]
    if any(s < 0 for s in sizes):
        ctx.fail(f"needs static spatial input dims, got {list(sizes)}")
    kernel = _ints(ctx, "kernel_shape", n, 0) if ctx.has_attr("kernel_shape") else wshape[2:]
    strides = _ints(ctx, "strides", n, 1)
    dilations = _ints(ctx, "dilations", n, 1)
    output_padding = _ints(ctx, "output_padding", n, 0)
    groups = ctx.attr("group", 1)
    auto_pad = ctx.attr("auto_pad", "NOTSET")
    full = [
        s * (i - 1) + op + d * (k - 1) + 1
        for i, s, op, d, k in zip(sizes, strides, output_padding, dilations, kernel, strict=True)
    ]
    if ctx.has_attr("output_shape") or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = list(ctx.attr("output_shape", [i * s for i, s in zip(sizes, strides, strict=True)]))
        out = out[-n:]
        pads = []
        for f, o in zip(full, out, strict=True):
            total = f - o
            small, big = total // 2, total - total // 2
            pads += [small, big] if auto_pad == "SAME_UPPER" else [big, small]
    elif auto_pad == "VALID":
        pads = [0] * 2 * n
        out = full
    else:
        pads = _ge_pads(_ints(ctx, "pads", 2 * n, 0))
        out = [f - pads[2 * i] - pads[2 * i + 1] for i, f in enumerate(full)]
    for i in range(n):  # an output longer than the full one: zeros past its end
        if pads[2 * i + 1] < 0:
            output_padding[i] -= pads[2 * i + 1]
            pads[2 * i + 1] = 0
    if any(p < 0 for p in pads):
        ctx.fail(f"output_shape {out} does not fit the full output {full}")
    c_out = wshape[1] * groups if wshape[1] >= 0 else -1
    size = [xshape[0] if xshape[0] >= 0 else -1, c_out, *out]
    if n == 1:
        x4 = _reshape(ctx, x, (0, 0, 1, -1), "as_2d")
        w4 = _reshape(ctx, w, (0, 0, 1, -1), "weight_2d")
        size4 = ctx.const(np.array([size[0], size[1], 1, out[0]], dtype=np.int64), "input_size")
        op = Conv2DTransposeOp(
            size4,
            x4,
            w4,
            bias,
            strides=(1, 1, 1, strides[0]),
            pads=(0, 0, *pads),
            dilations=(1, 1, 1, dilations[0]),
            groups=groups,
            output_padding=(0, 0, 0, output_padding[0]),
        )
        y = ctx.emit(op, "conv2d_transpose").results[0]
        return [_reshape_back(ctx, y)]
    op_type = Conv2DTransposeOp if n == 2 else Conv3DTransposeOp
    op = op_type(
        ctx.const(np.array(size, dtype=np.int64), "input_size"),
        x,
        w,
        bias,
        strides=(1, 1, *strides),
        pads=pads,
        dilations=(1, 1, *dilations),
        groups=groups,
        output_padding=(0, 0, *output_padding),
    )
    return [ctx.emit(op).results[0]]


# --------------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------------


def _pool_window(
    ctx: NodeContext, x: SSAValue
) -> tuple[list[int], list[int], list[int], list[int], bool]:
    """ksize, strides, GE pads, dilations (all per dim of x but pads) and ceil_mode."""
    kernel = list(ctx.attr("kernel_shape"))
    n = len(kernel)
    xshape = tensor_shape(x.type) or (-1,) * (n + 2)
    if len(xshape) != n + 2:
        ctx.fail(f"kernel_shape {kernel} does not fit an input of rank {len(xshape)}")
    strides = _ints(ctx, "strides", n, 1)
    dilations = _ints(ctx, "dilations", n, 1)
    pads = _window_pads(ctx, xshape[2:], kernel, strides, dilations)
    ceil = bool(ctx.attr("ceil_mode", 0))
    return [1, 1, *kernel], [1, 1, *strides], pads, [1, 1, *dilations], ceil


@converter("MaxPool")
def max_pool(ctx: NodeContext) -> Outputs:
    x = ctx.input(0)
    ksize, strides, pads, dilations, ceil = _pool_window(ctx, x)
    if len(ctx.node.output) > 1 and ctx.node.output[1]:
        op = MaxPoolWithArgmaxOp(
            x,
            ksize=ksize,
            strides=strides,
            pads=pads,
            dilations=dilations,
            ceil_mode=ceil,
            storage_order=ctx.attr("storage_order", 0),
        )
        emitted = ctx.emit(op)
        return [emitted.results[0], emitted.results[1]]
    op = MaxPoolV3Op(
        x, ksize=ksize, strides=strides, pads=pads, dilations=dilations, ceil_mode=ceil
    )
    return [ctx.emit(op).results[0]]


@converter("AveragePool")
def average_pool(ctx: NodeContext) -> Outputs:
    x = ctx.input(0)
    ksize, strides, pads, dilations, ceil = _pool_window(ctx, x)
    op = AvgPoolV2Op(
        x,
        ksize=ksize,
        strides=strides,
        pads=pads,
        dilations=dilations,
        ceil_mode=ceil,
        exclusive=not ctx.attr("count_include_pad", 0),
    )
    return [ctx.emit(op).results[0]]


@converter("LpPool")
def lp_pool(ctx: NodeContext) -> Outputs:
    x = ctx.input(0)
    ksize, strides, pads, dilations, ceil = _pool_window(ctx, x)
    op = LpPoolOp(
        x,
        ksize=ksize,
        strides=strides,
        pads=pads,
        dilations=dilations,
        ceil_mode=ceil,
        p=float(ctx.attr("p", 2)),
    )
    return [ctx.emit(op).results[0]]


@converter("GlobalAveragePool")
def global_average_pool(ctx: NodeContext) -> Outputs:
    return [ctx.emit(GlobalAveragePoolOp(ctx.input(0))).results[0]]


@converter("GlobalMaxPool")
def global_max_pool(ctx: NodeContext) -> Outputs:
    return [ctx.emit(GlobalMaxPoolOp(ctx.input(0))).results[0]]


@converter("GlobalLpPool")
def global_lp_pool(ctx: NodeContext) -> Outputs:
    return [ctx.emit(GlobalLpPoolOp(ctx.input(0), p=float(ctx.attr("p", 2)))).results[0]]


# --------------------------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------------------------


@converter("BatchNormalization")
def batch_normalization(ctx: NodeContext) -> Outputs:
    training = bool(ctx.attr("training_mode", 0))
    if any(ctx.node.output[1:]) and not training:
        ctx.fail("the running mean/variance outputs exist only in training mode")
    x, scale, bias, mean, var = (ctx.input(i) for i in range(5))
    params = (scale, bias, mean, var)
    if len({element_type(p.type) for p in params}) != 1:
        ctx.fail("scale, B, input_mean and input_var must have one element type")
    if not training:
        op = BatchNormOp(x, scale, bias, mean, var, epsilon=ctx.attr("epsilon", 1e-5))
        return [ctx.emit(op).results[0]]
    return _training_batch_norm(ctx, x, scale, bias, mean, var)


def _training_batch_norm(
    ctx: NodeContext, x: SSAValue, scale: SSAValue, bias: SSAValue, mean: SSAValue, var: SSAValue
) -> Outputs:
    """Training mode as GE's BNTrainingReduce + BNTrainingUpdate split it: the batch's mean
    and (biased) variance over every axis but C, the normalisation by them (an inference
    BatchNorm fed the batch statistics), and the running statistics
    `running * momentum + batch * (1 - momentum)`."""
    rank = len(_shape(ctx, x, "the input"))
    axes = ctx.const(np.array([a for a in range(rank) if a != 1], dtype=np.int64), "axes")
    batch_mean = ctx.emit(ReduceMeanOp(x, axes), "batch_mean").results[0]
    kept = ctx.emit(ReduceMeanOp(x, axes, keep_dims=True), "batch_mean_kept").results[0]
    centred = ctx.emit(SubOp(x, kept), "centred").results[0]
    square = ctx.emit(MulOp(centred, centred), "square").results[0]
    batch_var = ctx.emit(ReduceMeanOp(square, axes), "batch_var").results[0]
    op = BatchNormOp(x, scale, bias, batch_mean, batch_var, epsilon=ctx.attr("epsilon", 1e-5))
    y = ctx.emit(op).results[0]
    momentum = float(ctx.attr("momentum", 0.9))
    keep = ctx.const(np.array(momentum, dtype=numpy_dtype(element_type(mean.type))), "momentum")
    take = ctx.const(np.array(1 - momentum, dtype=numpy_dtype(element_type(mean.type))), "1-m")
    outputs: list[SSAValue | None] = [y]
    for name, running, batch in (
        ("running_mean", mean, batch_mean),
        ("running_var", var, batch_var),
    ):
        old = ctx.emit(MulOp(running, keep), f"{name}_kept").results[0]
        new = ctx.emit(MulOp(batch, take), f"{name}_batch").results[0]
        outputs.append(ctx.emit(AddOp(old, new), name).results[0])
    return outputs[: len(ctx.node.output)]


@converter("InstanceNormalization")
def instance_normalization(ctx: NodeContext) -> Outputs:
    op = InstanceNormOp(ctx.input(0), ctx.input(1), ctx.input(2), epsilon=ctx.attr("epsilon", 1e-5))
    return [ctx.emit(op).results[0]]


@converter("GroupNormalization")
def group_normalization(ctx: NodeContext) -> Outputs:
    """GroupNormalization-21 (per-channel scale and bias; the checker rejects opset 18's)."""
    x, scale, bias = ctx.input(0), ctx.input(1), ctx.input(2)
    groups = ctx.attr("num_groups")
    op = GroupNormOp(x, scale, bias, num_groups=groups, eps=ctx.attr("epsilon", 1e-5))
    return [ctx.emit(op).results[0]]


@converter("LayerNormalization")
def layer_normalization(ctx: NodeContext) -> Outputs:
    x, scale, bias = ctx.input(0), ctx.input(1), ctx.optional_input(2)
    if bias is None:
        sshape = tensor_shape(scale.type)
        if sshape is None or any(d < 0 for d in sshape):
            ctx.fail("without B, the scale must have a static shape")
        bias = ctx.const(np.zeros(sshape, dtype=numpy_dtype(element_type(scale.type))), "B")
    axis = ctx.attr("axis", -1)
    elem = element_type(x.type)
    stash = ctx.attr("stash_type", 1)
    stats_type = f32 if stash == 1 and numpy_dtype(elem).itemsize < 4 else elem
    op = LayerNormV3Op(
        x,
        scale,
        bias,
        begin_norm_axis=axis,
        begin_params_axis=axis,
        epsilon=ctx.attr("epsilon", 1e-5),
        stats_type=stats_type,
    )
    return list(ctx.emit(op).results)[: len(ctx.node.output)]


@converter("RMSNormalization")
def rms_normalization(ctx: NodeContext) -> Outputs:
    """GE RmsNorm; its statistics are float32 for 16-bit inputs, ONNX's default stash_type."""
    if ctx.attr("stash_type", 1) != 1:
        ctx.fail("stash_type other than 1 (float32) is not supported")
    op = RmsNormOp(
        ctx.input(0),
        ctx.input(1),
        begin_norm_axis=ctx.attr("axis", -1),
        epsilon=ctx.attr("epsilon", 1e-5),
    )
    return [ctx.emit(op).results[0]]


def _softmax_axes(ctx: NodeContext, x: SSAValue) -> list[int]:
    if ctx.opset >= 13:
        return [ctx.attr("axis", -1)]
    # opset < 13 coerces x to 2-D at `axis`: the trailing dims act as one axis
    rank = len(_shape(ctx, x, "the input"))
    axis = ctx.attr("axis", 1)
    if not -rank <= axis < rank:
        ctx.fail(f"axis {axis} is out of range for rank {rank}")
    return list(range(axis % rank, rank))


@converter("Softmax")
def softmax(ctx: NodeContext) -> Outputs:
    x = ctx.input(0)
    return [ctx.emit(SoftmaxV2Op(x, axes=_softmax_axes(ctx, x))).results[0]]


@converter("LogSoftmax")
def log_softmax(ctx: NodeContext) -> Outputs:
    x = ctx.input(0)
    return [ctx.emit(LogSoftmaxV2Op(x, axes=_softmax_axes(ctx, x))).results[0]]


@converter("Hardmax")
def hardmax(ctx: NodeContext) -> Outputs:
    x = ctx.input(0)
    return [ctx.emit(HardmaxOp(x, axes=_softmax_axes(ctx, x))).results[0]]


@converter("LRN")
def lrn(ctx: NodeContext) -> Outputs:
    size = ctx.attr("size")
    if size < 1 or size % 2 == 0:
        ctx.fail(f"size {size} must be odd (GE LRN sums a symmetric window)")
    op = LRNOp(
        ctx.input(0),
        depth_radius=(size - 1) // 2,
        bias=ctx.attr("bias", 1.0),
        alpha=ctx.attr("alpha", 1e-4) / size,
        beta=ctx.attr("beta", 0.75),
    )
    return [ctx.emit(op).results[0]]


# --------------------------------------------------------------------------------------------
# Resize, Upsample, depth <-> space
# --------------------------------------------------------------------------------------------


def _known_list(ctx: NodeContext, value: SSAValue | None) -> list[float] | None:
    """A 1-D input's values: [] when absent or empty, None when not known at import time."""
    if value is None:
        return []
    known = ctx.known(value)
    return None if known is None else np.asarray(known).reshape(-1).tolist()


@converter("Resize")
def resize(ctx: NodeContext) -> Outputs:
    """`graph.resize_d` when scales/sizes/roi are known at import time, else `graph.resize`."""
    x = ctx.input(0)
    xshape = _shape(ctx, x, "the input")
    if ctx.opset < 11:  # Resize-10: (X, scales), asymmetric coordinates
        inputs = [None, ctx.input(1), None]
        coordinate_mode = "asymmetric"
    else:
        inputs = [ctx.optional_input(i) for i in (1, 2, 3)]
        coordinate_mode = ctx.attr("coordinate_transformation_mode", "half_pixel")
    mode = ctx.attr("mode", "nearest")
    props = {
        "mode": mode,
        "coordinate_transformation_mode": coordinate_mode,
        "nearest_mode": ctx.attr("nearest_mode", "round_prefer_floor"),
        "cubic_coeff_a": ctx.attr("cubic_coeff_a", -0.75),
        "exclude_outside": ctx.attr("exclude_outside", 0),
        "extrapolation_value": ctx.attr("extrapolation_value", 0.0),
        "antialias": 0 if mode == "nearest" else ctx.attr("antialias", 0),
    }
    axes = list(ctx.attr("axes", []))
    policy = ctx.attr("keep_aspect_ratio_policy", "stretch")
    roi, scales, sizes = (_known_list(ctx, v) for v in inputs)
    if coordinate_mode != "tf_crop_and_resize":
        roi = []
    if scales is not None and sizes is not None and roi is not None:
        try:
            full_sizes, full_scales, full_roi = resize_plan(
                xshape, roi, scales, [int(v) for v in sizes], axes, policy
            )
        except ValueError as e:
            ctx.fail(str(e))
        if scales or all(d >= 0 for d in full_sizes):
            sizes_prop = full_sizes if all(d >= 0 for d in full_sizes) else []
            op = ResizeDOp(x, sizes=sizes_prop, scales=full_scales, roi=full_roi, **props)
            return [ctx.emit(op).results[0]]
    operands = []
    for value, dtype, what in zip(
        inputs, (np.float32, np.float32, np.int64), ("roi", "scales", "sizes"), strict=True
    ):
        if value is None or (what == "roi" and coordinate_mode != "tf_crop_and_resize"):
            value = ctx.const(np.zeros(0, dtype=dtype), what)
        operands.append(value)
    op = ResizeOp(x, *operands, axes=axes, keep_aspect_ratio_policy=policy, **props)
    return [ctx.emit(op).results[0]]


@converter("Upsample")
def upsample(ctx: NodeContext) -> Outputs:
    """Upsample (opset 7-9): asymmetric coordinates, nearest rounds down."""
    x = ctx.input(0)
    xshape = _shape(ctx, x, "the input")
    if ctx.has_attr("scales"):
        scales = [float(s) for s in ctx.attr("scales")]
    else:
        scales = _known_list(ctx, ctx.input(1)) or []
    if len(scales) != len(xshape):
        ctx.fail(f"{len(scales)} scales for an input of rank {len(xshape)}")
    sizes = [int(d * s) for d, s in zip(xshape, scales, strict=True)] if min(xshape) >= 0 else []
    mode = ctx.attr("mode", "nearest")
    op = ResizeDOp(
        x,
        sizes=sizes,
        scales=scales,
        mode="linear" if mode in ("linear", "bilinear") else "nearest",
        coordinate_transformation_mode="asymmetric",
        nearest_mode="floor",
    )
    return [ctx.emit(op).results[0]]


@converter("DepthToSpace")
def depth_to_space(ctx: NodeContext) -> Outputs:
    op = DepthToSpaceOp(
        ctx.input(0), block_size=ctx.attr("blocksize"), mode=ctx.attr("mode", "DCR")
    )
    return [ctx.emit(op).results[0]]


@converter("SpaceToDepth")
def space_to_depth(ctx: NodeContext) -> Outputs:
    op = SpaceToDepthOp(
        ctx.input(0), block_size=ctx.attr("blocksize"), mode=ctx.attr("mode", "DCR")
    )
    return [ctx.emit(op).results[0]]


@converter("LpNormalization")
def lp_normalization(ctx: NodeContext) -> Outputs:
    """`x / ||x||_p` along `axis` (p 1 or 2): GE's ReduceL1 / EuclideanNorm (keep_dims) and
    a Div, as GE's L2Normalize computes the p = 2 case."""
    p = ctx.attr("p", 2)
    if p not in (1, 2):
        ctx.fail(f"p must be 1 or 2, got {p}")
    x = ctx.input(0)
    axes = ctx.const(np.array([ctx.attr("axis", -1)], dtype=np.int64), "axes")
    norm_type = ReduceL1Op if p == 1 else EuclideanNormOp
    norm = ctx.emit(norm_type(x, axes, keep_dims=True), "norm").results[0]
    # a zero norm (all of x zero there) divides by 1: 0, as ONNX defines it
    zero = ctx.const(np.array(0, dtype=numpy_dtype(element_type(x.type))), "zero")
    one = ctx.const(np.array(1, dtype=numpy_dtype(element_type(x.type))), "one")
    is_zero = ctx.emit(EqualOp(norm, zero), "norm_is_zero").results[0]
    safe = ctx.emit(SelectV2Op(is_zero, one, norm), "safe_norm").results[0]
    return [ctx.emit(DivOp(x, safe)).results[0]]


@converter("MeanVarianceNormalization")
def mean_variance_normalization(ctx: NodeContext) -> Outputs:
    """`(x - mean) / (sqrt(E[x^2] - mean^2) + 1e-9)` over `axes`, ONNX's function body (GE's
    MVNV2 with eps outside the root)."""
    x = ctx.input(0)
    axes = ctx.const(np.array(ctx.attr("axes", [0, 2, 3]), dtype=np.int64), "axes")
    dtype = numpy_dtype(element_type(x.type))
    mean = ctx.emit(ReduceMeanOp(x, axes, keep_dims=True), "mean").results[0]
    square = ctx.emit(MulOp(x, x), "square").results[0]
    mean_square = ctx.emit(ReduceMeanOp(square, axes, keep_dims=True), "mean_square").results[0]
    squared_mean = ctx.emit(MulOp(mean, mean), "squared_mean").results[0]
    variance = ctx.emit(SubOp(mean_square, squared_mean), "variance").results[0]
    std = ctx.emit(SqrtOp(variance), "std").results[0]
    eps = ctx.const(np.array(1e-9, dtype=dtype), "epsilon")
    denominator = ctx.emit(AddOp(std, eps), "std_eps").results[0]
    centred = ctx.emit(SubOp(x, mean), "centred").results[0]
    return [ctx.emit(DivOp(centred, denominator)).results[0]]


@converter("Col2Im")
def col2im(ctx: NodeContext) -> Outputs:
    """GE Col2im; image_shape and block_shape must be known (they fix the result's shape)."""
    sizes: list[tuple[int, ...]] = []
    for index, what in ((1, "image_shape"), (2, "block_shape")):
        known = ctx.known(ctx.input(index))
        if known is None:
            ctx.fail(f"{what} must be a constant (it fixes the result's shape)")
        sizes.append(tuple(int(v) for v in np.asarray(known).reshape(-1)))
    op = Col2imOp(
        ctx.input(0),
        output_size=sizes[0],
        kernel_size=sizes[1],
        dilation=ctx.attr("dilations", []),
        pads=ctx.attr("pads", []),
        stride=ctx.attr("strides", []),
    )
    return [ctx.emit(op).results[0]]


@converter("DeformConv")
def deform_conv(ctx: NodeContext) -> Outputs:
    """GE DeformableConv2D (2-D only, as GE's); an absent bias is zeros."""
    x, w = ctx.input(0), ctx.input(1)
    shape = tensor_shape(w.type)
    if shape is None or len(shape) != 4 or shape[0] < 0:
        ctx.fail("W must be a static 4-D filter (GE's DeformableConv2D is 2-D)")
    bias = ctx.optional_input(3)
    if bias is None:
        bias = ctx.const(np.zeros(shape[0], numpy_dtype(element_type(x.type))), "bias")
    op = DeformableConv2DOp(
        x,
        w,
        ctx.input(2),
        bias,
        ctx.optional_input(4),
        strides=ctx.attr("strides", [1, 1]),
        pads=ctx.attr("pads", [0, 0, 0, 0]),
        dilations=ctx.attr("dilations", [1, 1]),
        groups=ctx.attr("group", 1),
        deformable_groups=ctx.attr("offset_group", 1),
    )
    return [ctx.emit(op).results[0]]
