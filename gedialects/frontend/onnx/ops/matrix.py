"""ONNX converters: MatMul, Gemm and Einsum.

MatMul of two 2-D operands imports as `graph.matmul`, any other rank as
`graph.batch_mat_mul_v2` (numpy.matmul semantics). Gemm imports as `graph.matmul` with its
transposes; alpha is folded into a constant B or applied with `graph.mul`, beta into a constant
C or applied with `graph.mul`, and C becomes the matmul bias when it is 1-D, else a
`graph.add`.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from gedialects.base import element_type, tensor_shape
from gedialects.frontend.onnx.registry import NodeContext, Outputs, converter
from gedialects.graph import AddOp, BatchMatMulV2Op, EinsumOp, MatMulOp, MatrixDeterminantOp, MulOp
from gedialects.tensors import numpy_dtype


@converter("MatMul")
def matmul(ctx: NodeContext) -> Outputs:
    a, b = ctx.input(0), ctx.input(1)
    sa, sb = tensor_shape(a.type), tensor_shape(b.type)
    if sa is not None and sb is not None and len(sa) == len(sb) == 2:
        return [ctx.emit(MatMulOp(a, b)).results[0]]
    return [ctx.emit(BatchMatMulV2Op(a, b)).results[0]]


def _scaled(ctx: NodeContext, value: SSAValue, factor: float, suffix: str) -> SSAValue:
    """`value * factor`, computed at import time when `value` is known."""
    dtype = numpy_dtype(element_type(value.type))
    known = ctx.known(value)
    if known is not None:
        return ctx.const((known * factor).astype(dtype), suffix)
    scale = ctx.const(np.array(factor, dtype=dtype), f"{suffix}_factor")
    return ctx.emit(MulOp(value, scale), suffix).results[0]


@converter("Gemm")
def gemm(ctx: NodeContext) -> Outputs:
    a, b, c = ctx.input(0), ctx.input(1), ctx.optional_input(2)
    alpha, beta = ctx.attr("alpha", 1.0), ctx.attr("beta", 1.0)
    for what, value in (("A", a), ("B", b)):
        shape = tensor_shape(value.type)
        if shape is not None and len(shape) != 2:
            ctx.fail(f"{what} must be 2-D, got {value.type}")
    scale_after = alpha != 1.0 and ctx.known(b) is None
    if alpha != 1.0 and not scale_after:
        b = _scaled(ctx, b, alpha, "alpha_B")
    if c is not None and beta != 1.0:
        c = _scaled(ctx, c, beta, "beta_C")
    if c is not None and beta == 0.0:
        c = None
    bias = None
    cshape = None if c is None else tensor_shape(c.type)
    if c is not None and not scale_after and cshape is not None and len(cshape) == 1:
        bias, c = c, None
    op = MatMulOp(
        a,
        b,
        bias,
        transpose_x1=bool(ctx.attr("transA", 0)),
        transpose_x2=bool(ctx.attr("transB", 0)),
    )
    last = c is None and not scale_after
    y = ctx.emit(op, "" if last else "matmul").results[0]
    if scale_after:
        factor = ctx.const(np.array(alpha, dtype=numpy_dtype(element_type(y.type))), "alpha")
        y = ctx.emit(MulOp(y, factor), "" if c is None else "alpha_mul").results[0]
    if c is not None:
        y = ctx.emit(AddOp(y, c)).results[0]
    return [y]


@converter("Einsum")
def einsum(ctx: NodeContext) -> Outputs:
    inputs = [ctx.input(i) for i in range(len(ctx.node.input))]
    return [ctx.emit(EinsumOp(inputs, equation=ctx.attr("equation"))).results[0]]


@converter("Det")
def det(ctx: NodeContext) -> Outputs:
    return [ctx.emit(MatrixDeterminantOp(ctx.input(0))).results[0]]
