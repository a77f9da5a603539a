"""Interpreter semantics and numpy kernels of the `graph` dialect.

The kernels are shared with the `ascend` interpreter, which runs them from kernel tasks whose
`attrs` are a copy of the op's properties; a property missing from `attrs` takes the default of
the op definition, so both levels agree on defaults without a second table. float16 inputs are
computed in float32 (numpy has no float16 BLAS) and cast back by `run_kernel`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, FloatAttr, IntegerAttr, StringAttr
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_callable,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation

from gedialects.base import GEOp, int_array_values
from gedialects.graph import (
    BatchNormOp,
    ConstOp,
    Conv2DOp,
    Graph,
    GraphOp,
    MatMulOp,
    NetOutputOp,
    TransposeOp,
    channel_axis,
    reshape_shape,
)
from gedialects.interpreters.kernels import KernelAttrs, KernelError, kernel, run_kernel
from gedialects.tensors import numpy_from_dense

Arrays = tuple[np.ndarray, ...]

# --------------------------------------------------------------------------------------------
# Reading kernel attributes
# --------------------------------------------------------------------------------------------


def _attr(attrs: KernelAttrs, key: str, op: type[IRDLOperation]) -> Attribute:
    """`attrs[key]`, else the default of property `key` in the definition of `op`."""
    value = attrs.get(key)
    if value is None:
        value = op.get_irdl_definition().properties[key].default_value
        if value is None:
            raise KernelError(f"'{op.name}': required attribute '{key}' is missing")
    return value


def _ints(attrs: KernelAttrs, key: str, op: type[IRDLOperation]) -> tuple[int, ...]:
    value = _attr(attrs, key, op)
    if isinstance(value, DenseArrayBase):
        return int_array_values(value)
    if isinstance(value, ArrayAttr):
        return tuple(int(v.value.data) for v in value.data if isinstance(v, IntegerAttr))
    raise KernelError(f"'{op.name}': attribute '{key}' is not an integer list: {value}")


def _int(attrs: KernelAttrs, key: str, op: type[IRDLOperation]) -> int:
    value = _attr(attrs, key, op)
    if not isinstance(value, IntegerAttr):
        raise KernelError(f"'{op.name}': attribute '{key}' is not an integer: {value}")
    return int(value.value.data)


def _bool(attrs: KernelAttrs, key: str, op: type[IRDLOperation]) -> bool:
    return _int(attrs, key, op) != 0


def _float(attrs: KernelAttrs, key: str, op: type[IRDLOperation]) -> float:
    value = _attr(attrs, key, op)
    if not isinstance(value, FloatAttr):
        raise KernelError(f"'{op.name}': attribute '{key}' is not a float: {value}")
    return float(value.value.data)


def _str(attrs: KernelAttrs, key: str, op: type[IRDLOperation]) -> str:
    value = _attr(attrs, key, op)
    if not isinstance(value, StringAttr):
        raise KernelError(f"'{op.name}': attribute '{key}' is not a string: {value}")
    return value.data


def _compute(x: np.ndarray) -> np.ndarray:
    """`x` in a dtype worth computing in: float16 goes to float32, others stay."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


# --------------------------------------------------------------------------------------------
# Elementwise and activations
# --------------------------------------------------------------------------------------------


@kernel("Add")
def add(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.add(inputs[0], inputs[1]),)


@kernel("Mul")
def mul(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.multiply(inputs[0], inputs[1]),)


@kernel("Sub")
def sub(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    return (np.subtract(inputs[0], inputs[1]),)


@kernel("Relu")
def relu(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    return (np.maximum(x, x.dtype.type(0)),)


# --------------------------------------------------------------------------------------------
# Matrix and NN
# --------------------------------------------------------------------------------------------


@kernel("MatMul")
def matmul(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    a, b = _compute(inputs[0]), _compute(inputs[1])
    if a.ndim != 2 or b.ndim != 2:
        raise KernelError(f"MatMul: operands must be 2-D, got shapes {a.shape} and {b.shape}")
    if _bool(attrs, "transpose_x1", MatMulOp):
        a = a.T
    if _bool(attrs, "transpose_x2", MatMulOp):
        b = b.T
    if a.shape[1] != b.shape[0]:
        raise KernelError(f"MatMul: cannot multiply {a.shape} by {b.shape}")
    y = a @ b
    if len(inputs) > 2:
        y = y + _compute(inputs[2])
    return (y,)


@kernel("BatchNorm")
def batch_norm(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """Inference: `scale * (x - mean) / sqrt(variance + epsilon) + offset` along C."""
    if _bool(attrs, "is_training", BatchNormOp):
        raise KernelError("BatchNorm: only inference (is_training = false) is supported")
    x = _compute(inputs[0])
    axis = channel_axis(_str(attrs, "data_format", BatchNormOp), x.ndim)
    shape = [1] * x.ndim
    shape[axis] = -1
    scale, offset, mean, variance = (_compute(p).reshape(shape) for p in inputs[1:5])
    epsilon = np.asarray(_float(attrs, "epsilon", BatchNormOp), dtype=variance.dtype)
    return (scale * (x - mean) / np.sqrt(variance + epsilon) + offset,)


@kernel("Conv2D")
def conv2d(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    """NHWC/HWIO is transposed (as views) to NCHW/OIHW and back around one NCHW routine."""
    x, w = _compute(inputs[0]), _compute(inputs[1])
    if x.ndim != 4 or w.ndim != 4:
        raise KernelError(f"Conv2D: x and filter must be 4-D, got {x.shape} and {w.shape}")
    nhwc = _str(attrs, "data_format", Conv2DOp) == "NHWC"
    strides = _ints(attrs, "strides", Conv2DOp)
    dilations = _ints(attrs, "dilations", Conv2DOp)
    hw = (1, 2) if nhwc else (2, 3)
    if nhwc:
        x, w = x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1)
    y = conv2d_nchw(
        x,
        w,
        strides=tuple(strides[i] for i in hw),
        pads=_ints(attrs, "pads", Conv2DOp),
        dilations=tuple(dilations[i] for i in hw),
        groups=_int(attrs, "groups", Conv2DOp),
    )
    if len(inputs) > 2:
        y = y + _compute(inputs[2]).reshape(1, -1, 1, 1)
    return (y.transpose(0, 2, 3, 1) if nhwc else y,)


def conv2d_nchw(
    x: np.ndarray,
    w: np.ndarray,
    *,
    strides: Sequence[int],
    pads: Sequence[int],
    dilations: Sequence[int],
    groups: int,
) -> np.ndarray:
    """Grouped, dilated, strided, padded 2-D convolution of NCHW `x` with OIHW `w`.

    im2col through a strided window view, then one batched matmul over the groups:
    [G, N*Ho*Wo, C/G*kh*kw] @ [G, C/G*kh*kw, O/G].
    """
    n, c = x.shape[:2]
    o, cg, kh, kw = w.shape
    if groups < 1 or c != cg * groups or o % groups:
        raise KernelError(
            f"Conv2D: x has {c} channels, filter {tuple(w.shape)} (OIHW), groups = {groups}"
        )
    top, bottom, left, right = pads
    if any(pads):
        x = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    (sh, sw), (dh, dw) = strides, dilations
    eh, ew = dh * (kh - 1) + 1, dw * (kw - 1) + 1
    if x.shape[2] < eh or x.shape[3] < ew:
        raise KernelError(f"Conv2D: dilated kernel {eh}x{ew} exceeds padded input {x.shape[2:]}")
    windows = sliding_window_view(x, (eh, ew), axis=(2, 3))[:, :, ::sh, ::sw, ::dh, ::dw]
    ho, wo = windows.shape[2:4]
    og, k = o // groups, cg * kh * kw
    cols = (
        windows.reshape(n, groups, cg, ho, wo, kh, kw)
        .transpose(1, 0, 3, 4, 2, 5, 6)
        .reshape(groups, n * ho * wo, k)
    )
    weights = w.reshape(groups, og, k).transpose(0, 2, 1)
    y = cols @ weights
    return y.reshape(groups, n, ho, wo, og).transpose(1, 0, 4, 2, 3).reshape(n, o, ho, wo)


# --------------------------------------------------------------------------------------------
# Shape manipulation
# --------------------------------------------------------------------------------------------


@kernel("Reshape")
def reshape(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x, shape = inputs[0], inputs[1]
    if shape.ndim != 1 or shape.dtype.kind not in "iu":
        raise KernelError(
            f"Reshape: shape must be a 1-D integer tensor, got {shape.dtype}{shape.shape}"
        )
    try:
        dims = reshape_shape(x.shape, [int(d) for d in shape])
    except ValueError as e:
        raise KernelError(f"Reshape: {e} (x has shape {list(x.shape)})") from None
    return (x.reshape(dims),)


@kernel("Transpose")
def transpose(
    inputs: Sequence[np.ndarray], attrs: KernelAttrs, result_types: Sequence[Attribute]
) -> Arrays:
    x = inputs[0]
    perm = _ints(attrs, "perm", TransposeOp)
    if sorted(perm) != list(range(x.ndim)):
        raise KernelError(f"Transpose: perm {list(perm)} does not permute {x.ndim} dims")
    return (x.transpose(perm),)


# --------------------------------------------------------------------------------------------
# Interpreter functions
# --------------------------------------------------------------------------------------------

_OWN_IMPLS = (GraphOp, NetOutputOp, ConstOp)
"""Graph ops with a dedicated implementation below; every other op runs its kernel."""


def _run_node(
    self: InterpreterFunctions, interpreter: Interpreter, op: GEOp, args: PythonValues
) -> PythonValues:
    return run_kernel(op.GE_TYPE, args, op.properties, op.result_types)


def _dispatch_to_kernels(cls: type[InterpreterFunctions]) -> type[InterpreterFunctions]:
    """Registers `_run_node` as the `@impl` of each node op of the graph dialect.

    The op's kernel is looked up by `GE_TYPE` when it runs; `tests/test_graph_dialect.py`
    checks that each of these ops has one.
    """
    for op_type in kernel_ops():
        setattr(cls, f"run_{op_type.name.removeprefix('graph.')}", impl(op_type)(_run_node))
    return cls


def kernel_ops() -> tuple[type[GEOp], ...]:
    """The graph ops interpreted by their kernel."""
    return tuple(op for op in Graph.operations if issubclass(op, GEOp) and op not in _OWN_IMPLS)


@register_impls
@_dispatch_to_kernels
class GraphFunctions(InterpreterFunctions):
    @impl_callable(GraphOp)
    def call_graph(self, interpreter: Interpreter, op: GraphOp, args: PythonValues) -> PythonValues:
        return interpreter.run_ssacfg_region(op.body, args, op.sym_name.data)

    @impl_terminator(NetOutputOp)
    def run_net_output(
        self, interpreter: Interpreter, op: NetOutputOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl(ConstOp)
    def run_const(self, interpreter: Interpreter, op: ConstOp, args: PythonValues) -> PythonValues:
        return (numpy_from_dense(op.value),)
