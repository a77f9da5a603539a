"""`ge-fuse-quant`: dequantise -> Conv2D / MatMul <- dequantise becomes an int8 Conv2D or
MatMul with an int32 accumulator and one AscendDequant, as GE's quantisation fusion does."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, f32, i32
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from gedialects.base import NODE_NAME, element_type, is_static, tensor_shape
from gedialects.formats import kernel_attrs
from gedialects.graph import (
    AddOp,
    AscendAntiQuantV2Op,
    AscendDequantOp,
    BatchMatMulV2Op,
    ConstOp,
    Conv2DOp,
    MatMulOp,
    QuantizeOp,
    ReluOp,
)
from gedialects.graph.common import i64_attr, is_int8, tensor_of
from gedialects.interpreters.kernels import run_kernel
from gedialects.passes.fusion.matching import (
    carry_attributes,
    const_array,
    new_const,
    producer,
    replace_group,
    rewrite_with,
    single_user_producer,
)
from gedialects.tensors import dense_from_numpy, numpy_dtype

logger = logging.getLogger(__name__)

_INT32 = np.iinfo(np.int32)


class _Refused(Exception):
    """A reason not to fuse, logged at debug level; the QDQ graph stays (it still runs)."""


def _node(op: Operation) -> str:
    name = op.attributes.get(NODE_NAME)
    return f"'{name.data}'" if isinstance(name, StringAttr) else op.name


def _activation(value: SSAValue) -> tuple[SSAValue, float, int]:
    """x_q, its one scale and its integer zero point, for a dequantised float32 activation
    (AscendDequant's float32 deq_scale gives float32; a float16 graph stays as it is)."""
    if element_type(value.type) != f32:
        raise _Refused(f"the activation is {element_type(value.type)}, not float32")
    dq = producer(value, AscendAntiQuantV2Op)
    if dq is None:
        raise _Refused("the activation is not dequantised (no AscendAntiQuantV2)")
    if not is_int8(element_type(dq.x.type)):
        raise _Refused(f"the activation is {element_type(dq.x.type)}, not int8/uint8")
    if dq.block_size.value.data:
        raise _Refused("the activation is quantised in blocks")
    scale = const_array(dq.scale)
    if scale is None or scale.size != 1:
        raise _Refused("the activation scale is not one constant value (per-axis activations)")
    zero = 0
    if dq.offset is not None:
        offset = const_array(dq.offset)
        if offset is None or offset.size != 1 or offset.flat[0] != np.rint(offset.flat[0]):
            raise _Refused("the activation zero point is not one constant integer")
        zero = -int(offset.flat[0])
    return dq.x, float(scale.flat[0]), zero


def _weight(value: SSAValue, axis: int) -> tuple[np.ndarray, SSAValue, np.ndarray]:
    """The int8 weight, its quantised value and its scales (one, or one per index of `axis`)."""
    dq = producer(value, AscendAntiQuantV2Op)
    if dq is None:
        raise _Refused("the weight is not dequantised (no AscendAntiQuantV2)")
    w = quantized_const(dq.x)
    if w is None or w.dtype != np.int8:
        raise _Refused("the weight is not a constant int8 tensor")
    if dq.block_size.value.data:
        raise _Refused("the weight is quantised in blocks")
    scale = const_array(dq.scale)
    if scale is None:
        raise _Refused("the weight scale is not constant")
    if scale.size > 1 and (scale.ndim != 1 or dq.axis.value.data % w.ndim != axis):
        raise _Refused(f"the weight scale is per-axis on axis {dq.axis.value.data}, not {axis}")
    if dq.offset is not None:
        offset = const_array(dq.offset)
        if offset is None or np.any(offset != 0):
            raise _Refused("the weight zero point is not 0 (GE's int8 weights are symmetric)")
    return w, dq.x, scale.reshape(-1)


def quantized_const(value: SSAValue) -> np.ndarray | None:
    """A constant's value, or that of a Quantize of constants (a float weight quantised in
    the graph, as fake-quantised exports write it), computed with the Quantize kernel; None
    for anything else."""
    array = const_array(value)
    if array is not None or not isinstance(quantize := value.owner, QuantizeOp):
        return array
    inputs = [const_array(v) for v in quantize.operands]
    if any(i is None for i in inputs) or not is_static(quantize.y.type):
        return None
    attrs = kernel_attrs(quantize.operand_types, quantize.properties)
    (result,) = run_kernel(
        quantize.GE_TYPE, [i for i in inputs if i is not None], attrs, [quantize.y.type]
    )
    return result


def _weight_const(
    w: np.ndarray, w_q: SSAValue, root: Operation, suffix: str
) -> tuple[list[Operation], SSAValue, list[Operation]]:
    """The int8 weight as a constant: `w_q` itself, or a new constant for a Quantize of
    constants (quantised offline, as GE's weights are), with that Quantize to erase."""
    if isinstance(w_q.owner, ConstOp):
        return [], w_q, []
    const = new_const(w, root, suffix)
    return [const], const.y, [w_q.owner] if isinstance(w_q.owner, Operation) else []


def _bias(
    value: SSAValue | None, deq_scale: np.ndarray, channels: int
) -> tuple[np.ndarray, np.ndarray | None, list[Operation]]:
    """The int32 bias, a float bias to add after the dequantisation, and the ops only the bias
    used. A dequantised int32 constant whose scale is x_scale * w_scale (as QDQ exporters
    write it) is the int32 bias, which adds exactly to the accumulator; a float constant
    (PyTorch's exports keep the bias in float) or an int32 one of another scale is added in
    float after AscendDequant, as the float graph adds it (GE would quantise it to int32)."""
    zeros = np.zeros(channels, dtype=np.int64)
    if value is None:
        return zeros, None, []
    floats = const_array(value)
    if floats is not None and floats.dtype.kind == "f" and floats.size in (1, channels):
        return zeros, np.broadcast_to(floats.reshape(-1), (channels,)), []
    dq = producer(value, AscendAntiQuantV2Op)
    if dq is None:
        raise _Refused("the bias is neither constant nor dequantised")
    b = const_array(dq.x)
    scale = const_array(dq.scale)
    if b is None or b.dtype != np.int32 or scale is None or dq.block_size.value.data:
        raise _Refused("the bias is not a constant int32 tensor with a constant scale")
    if dq.offset is not None and np.any(const_array(dq.offset) != 0):
        raise _Refused("the bias zero point is not 0")
    s, d = scale.reshape(-1), deq_scale.reshape(-1)
    if s.size not in (1, channels) or b.size not in (1, channels):
        raise _Refused("the bias is not one value per output channel")
    if np.all(s == d):
        return np.broadcast_to(b.reshape(-1).astype(np.int64), (channels,)), None, [dq]
    # another scale: the float values AscendAntiQuantV2's kernel gives (float64, then float32)
    values = (b.reshape(-1).astype(np.float64) * s.astype(np.float64)).astype(np.float32)
    return zeros, np.broadcast_to(values, (channels,)), [dq]


def _int32(values: np.ndarray) -> np.ndarray:
    if values.size and (values.min() < _INT32.min or values.max() > _INT32.max):
        raise _Refused("the bias with the zero-point correction overflows int32")
    return values.astype(np.int32)


def _check_accumulator(abs_sums: np.ndarray, bias: np.ndarray) -> None:
    """Refuses a product whose int32 result could leave int32: the accumulator wraps where the
    float graph does not. The fused kernel gives the exact `sum((x_q - zx) * w_q) + b_q`
    modulo 2**32, right whenever that value fits; `|x_q - zx| <= 255` for 8-bit activations,
    so `255 * sum|w_q[:, n]| + |b_q[n]| < 2**31` per output channel proves it fits (reached
    only by sums over tens of thousands of terms)."""
    bound = 255 * abs_sums.astype(np.int64) + np.abs(bias.astype(np.int64))
    if bound.size and bound.max() > _INT32.max:
        raise _Refused(
            f"the int32 accumulator may overflow (255 * sum|w| + |b| reaches {int(bound.max())})"
        )


def _dequant(
    rewriter: PatternRewriter,
    root: Operation,
    product: Operation,
    deq_scale: np.ndarray,
    shape: tuple[int, ...],
    float_bias: np.ndarray | None,
    interior: list[Operation],
    consts: list[Operation],
) -> None:
    """AscendDequant of `product` (and the Add of a float bias) in place of `root`."""
    name = root.attributes.get(NODE_NAME)
    if not shape:  # one value: a scalar tensor (new_const keeps at least one dim)
        scale = ConstOp(dense_from_numpy(deq_scale.reshape(())))
        scale.attributes |= new_const(deq_scale.reshape(-1), root, "deq_scale").attributes
    else:
        scale = new_const(deq_scale.reshape(shape), root, "deq_scale")
    dequant = AscendDequantOp(product.results[0], scale.y)
    new_ops: list[Operation] = [*consts, product, scale, dequant]
    result = dequant.y
    if isinstance(name, StringAttr):
        dequant.attributes[NODE_NAME] = StringAttr(f"{name.data}/dequant")
    if float_bias is not None:
        dims = (1, -1, 1, 1) if isinstance(root, Conv2DOp) else (-1,)
        dtype = numpy_dtype(element_type(root.results[0].type))
        bias = new_const(float_bias.astype(dtype).reshape(dims), root, "float_bias")
        add = AddOp(dequant.y, bias.y)
        if isinstance(name, StringAttr):
            add.attributes[NODE_NAME] = StringAttr(f"{name.data}/bias_add")
        new_ops += [bias, add]
        result = add.y
    replace_group(rewriter, root, new_ops, result, interior)


def _refuse(op: Operation, reason: _Refused) -> None:
    logger.debug("ge-fuse-quant: %s not fused: %s", _node(op), reason)


class FuseQuantConv2D(RewritePattern):
    """`conv2d(dequant(x_q), dequant(w_q), dequant(b_q))` -> `ascend_dequant(conv2d(x_q, w_q,
    b'), x_scale * w_scale)` with `offset_x` the activation's zero point zx and
    `b' = b_q - zx * sum(w_q[o])`: exactly `sum((x_q - zx) * w_q) + b_q` per output, the
    padding reading zx (the quantised zero)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Conv2DOp, rewriter: PatternRewriter) -> None:
        if is_int8(element_type(op.x.type)):
            return  # already the int8 form
        try:
            if op.data_format.data != "NCHW":
                raise _Refused(f"data_format {op.data_format.data} (the fusion takes NCHW)")
            x_q, x_scale, zero = _activation(op.x)
            w, w_q, w_scale = _weight(op.filter, 0)
            channels = w.shape[0]
            deq_scale = (np.float32(x_scale) * w_scale.astype(np.float32)).astype(np.float32)
            deq_scale = np.broadcast_to(deq_scale, (channels,)) if deq_scale.size > 1 else deq_scale
            bias, float_bias, bias_ops = _bias(op.bias, deq_scale, channels)
            sums = w.reshape(channels, -1).sum(axis=1, dtype=np.int64)
            _check_accumulator(np.abs(w.reshape(channels, -1).astype(np.int64)).sum(axis=1), bias)
            corrected = _int32(bias - zero * sums)
        except _Refused as reason:
            _refuse(op, reason)
            return
        result = tensor_shape(op.y.type)
        b = new_const(corrected, op, "bias")
        consts, w_q, quantize = _weight_const(w, w_q, op, "filter")
        props = dict(op.properties)
        if zero:
            props["offset_x"] = i64_attr(zero)
        conv = Conv2DOp.build(
            operands=[x_q, w_q, [b.y]], result_types=[tensor_of(i32, result)], properties=props
        )
        carry_attributes(conv, op)
        interior = [o for o in (op.x.owner, op.filter.owner) if isinstance(o, Operation)]
        interior += [*quantize, *bias_ops]
        shape = (1, -1, 1, 1) if deq_scale.size > 1 else ()
        _dequant(rewriter, op, conv, deq_scale, shape, float_bias, interior, [b, *consts])


def _fuse_product(
    op: MatMulOp | BatchMatMulV2Op, rewriter: PatternRewriter, transposed: bool
) -> None:
    """The int8 form of a MatMul or BatchMatMulV2 whose x2 is a 2-D dequantised int8 weight
    ([K, N], or [N, K] when `transposed`): `b' = b_q - za * sum_k(w_q[k, n])`."""
    if is_int8(element_type(op.x1.type)):
        return
    try:
        if len(tensor_shape(op.x1.type) or ()) < 2 or len(tensor_shape(op.x2.type) or ()) != 2:
            raise _Refused("the product is not of a matrix (or a batch of them) by a matrix")
        a_q, a_scale, zero = _activation(op.x1)
        w, w_q, w_scale = _weight(op.x2, 0 if transposed else 1)
        kn = w.T if transposed else w
        channels = kn.shape[1]
        deq_scale = (np.float32(a_scale) * w_scale.astype(np.float32)).astype(np.float32)
        deq_scale = np.broadcast_to(deq_scale, (channels,)) if deq_scale.size > 1 else deq_scale
        bias, float_bias, bias_ops = _bias(op.bias, deq_scale, channels)
        _check_accumulator(np.abs(kn.astype(np.int64)).sum(axis=0), bias)
        corrected = _int32(bias - zero * kn.sum(axis=0, dtype=np.int64))
    except _Refused as reason:
        _refuse(op, reason)
        return
    b = new_const(corrected, op, "bias")
    consts, w_q, quantize = _weight_const(w, w_q, op, "x2")
    product = type(op).build(
        operands=[a_q, w_q, [b.y]],
        result_types=[tensor_of(i32, tensor_shape(op.y.type))],
        properties=dict(op.properties),
    )
    carry_attributes(product, op)
    interior = [o for o in (op.x1.owner, op.x2.owner) if isinstance(o, Operation)]
    interior += [*quantize, *bias_ops]
    shape = (-1,) if deq_scale.size > 1 else ()
    _dequant(rewriter, op, product, deq_scale, shape, float_bias, interior, [b, *consts])


class FuseQuantMatMul(RewritePattern):
    """`matmul(dequant(a_q), dequant(w_q), dequant(b_q))` -> `ascend_dequant(matmul(a_q, w_q,
    b'), a_scale * w_scale)` with `b' = b_q - za * sum_k(w_q[k, n])`, the activation zero
    point's correction term (exact: `sum((a_q - za) * w_q) + b_q`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatMulOp, rewriter: PatternRewriter) -> None:
        _fuse_product(op, rewriter, op.transpose_x2.value.data != 0)


class FuseQuantBatchMatMul(RewritePattern):
    """`FuseQuantMatMul` for a BatchMatMulV2 of a batch of dequantised activations by one
    dequantised 2-D weight (ONNX MatMul of a [B, S, K] activation, as in transformers)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BatchMatMulV2Op, rewriter: PatternRewriter) -> None:
        _fuse_product(op, rewriter, op.adj_x2.value.data != 0)


class FuseDequantRelu(RewritePattern):
    """`relu(ascend_dequant(acc, s))` -> `ascend_dequant(acc, s) relu_flag true` (GE's
    `relu_flag`; exact, the ReLU of the same float)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReluOp, rewriter: PatternRewriter) -> None:
        dequant = single_user_producer(op.x, AscendDequantOp)
        if dequant is None or dequant.relu_flag.value.data or op.y.type != dequant.y.type:
            return
        fused = AscendDequantOp(dequant.x, dequant.deq_scale, relu_flag=True)
        carry_attributes(fused, dequant)
        replace_group(rewriter, op, [fused], fused.y, [dequant])


def quant_patterns() -> tuple[RewritePattern, ...]:
    return (FuseQuantConv2D(), FuseQuantMatMul(), FuseQuantBatchMatMul(), FuseDequantRelu())


@dataclass(frozen=True)
class FuseQuantPass(ModulePass):
    """Fuses QDQ around Conv2D, MatMul and BatchMatMulV2 into GE's int8 kernels.

    GE's quantised inference graph (FE's `OptimizeOriginalGraphForQuantize`, then the UB
    fusions `TbeConvDequantFusionPass`, `TbeMatmulDequantFusionPass`) runs Conv2D/MatMul on
    int8 operands with an int32 accumulator, followed by AscendDequant (`deq_scale =
    x_scale * w_scale`, `relu_flag` for a ReLU after it). Here the dequantised activation
    (AscendAntiQuantV2 of an int8/uint8 tensor, one scale, one constant zero point) and the
    dequantised constant int8 weight (zero point 0, one scale or one per output channel:
    axis 0 of an OIHW filter, N of a MatMul's or BatchMatMulV2's 2-D x2; a Quantize of
    constants is quantised here) become the int8 operands. A dequantised int32 bias of scale
    `x_scale * w_scale` (ONNX QDQ's bias) is the int32 bias; a float constant bias
    (PyTorch's exports) is added after AscendDequant. An activation zero point zx is exact:
    its correction `-zx * sum(w)` joins the bias, and Conv2D's `offset_x` = zx makes the
    padding read zx.

    The accumulation is exact: the result is the integer sum times float32(x_scale *
    w_scale), rounded once, and it differs from the float QDQ graph only by the float
    graph's own roundings of its products and K-term sums (both lie within
    (K + 3) * 2^-24 * sum|terms| of the exact value; `tests/test_fuse_quant.py`). A uint8
    activation stays uint8 (GE's TBE kernels take int8 x; its AscendQuant re-centring by
    -128 is not modelled). Anything else (per-axis or blocked activations, a weight zero
    point, a run-time bias, NHWC) stays as it is, the reason in the debug log (`-vv`). A
    Quantize after the Dequant stays a Quantize: GE's AscendRequant
    (`TbeConvRequantFusionPass`) is not made. `ge-compile` runs this pass before constant
    folding, which would fold the weights' dequantisation into float constants.
    """

    name = "ge-fuse-quant"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewrite_with(op, quant_patterns())
