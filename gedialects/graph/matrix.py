"""Matrix ops (GE matrix_calculation_ops.h)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    BoolAttr,
    IntegerAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import (
    Pure,
)

from gedialects import fast_verify
from gedialects.base import (
    GEOp,
    NodeSyntax,
    OperandValues,
    element_type,
    tensor_shape,
)
from gedialects.graph.common import (
    FALSE,
    AnyTensor,
    bool_attr,
    broadcast_shape,
    fail,
    infer_or_fail,
    init_node,
    product_element_type,
    same_element_type,
    tensor_of,
    verify_element_types,
    verify_inferred,
    verify_product_types,
    verify_rank,
)
from gedialects.graph.elementwise import is_float


def flag(properties: Mapping[str, Attribute], key: str) -> bool:
    """A BoolAttr property as a Python bool (absent is false)."""
    attr = properties.get(key)
    return isinstance(attr, IntegerAttr) and bool(attr.value.data)


def ranked(what: str, t: Attribute, rank: int) -> tuple[int, ...] | None:
    """The shape of `t` (None when unranked); ValueError when its rank is not `rank`."""
    shape = tensor_shape(t)
    if shape is not None and len(shape) != rank:
        raise ValueError(f"{what} must be {rank}-D, got {t}")
    return shape


# --------------------------------------------------------------------------------------------
# Matrix (matrix_calculation_ops.h)
# --------------------------------------------------------------------------------------------


@irdl_op_definition
class MatMulOp(GEOp, NodeSyntax):
    """GE MatMul: 2-D matrix product `op(x1) @ op(x2) + bias`.

    `op` transposes its operand when `transpose_x1`/`transpose_x2` is set; `x1` is then [M, K]
    and `x2` [K, N] after transposition, the optional `bias` is 1-D of length N (or 1) and the
    result is [M, N]. Batched products are GE's BatchMatMul, not this op. GE's int8 form
    (what `ge-fuse-quant` makes): an i8 or ui8 x1, an i8 x2, an i32 bias and an i32 result,
    accumulated exactly (an activation's zero point is folded into the bias by the fusion).

        %y = graph.matmul %a, %b, %bias transpose_x2 true
            : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
    """

    name = "graph.matmul"
    GE_TYPE: ClassVar[str] = "MatMul"
    HEAVY_PORTS: ClassVar[Mapping[str, str]] = {
        "x1": "FRACTAL_NZ",
        "x2": "FRACTAL_NZ",
        "y": "FRACTAL_NZ",
    }

    x1 = operand_def(AnyTensor)
    x2 = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    transpose_x1 = prop_def(BoolAttr, default_value=FALSE)
    transpose_x2 = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        x1, x2, *bias = operand_types
        elem = product_element_type(operand_types, "x1, x2 and bias" if bias else "x1 and x2")
        s1, s2 = ranked("x1", x1, 2), ranked("x2", x2, 2)
        m = k1 = k2 = n = -1
        if s1 is not None:
            m, k1 = reversed(s1) if flag(properties, "transpose_x1") else s1
        if s2 is not None:
            k2, n = reversed(s2) if flag(properties, "transpose_x2") else s2
        if k1 >= 0 and k2 >= 0 and k1 != k2:
            raise ValueError(f"contracts K = {k1} of x1 with K = {k2} of x2")
        b = ranked("bias", bias[0], 1) if bias else None
        if b is not None and b[0] >= 0 and n >= 0 and b[0] not in (1, n):
            raise ValueError(f"bias has length {b[0]}, expected N = {n} (or 1)")
        if b is not None and n < 0 and b[0] > 1:
            n = b[0]  # a bias longer than 1 fixes N
        return (tensor_of(elem, (m, n)),)

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        bias: SSAValue | Operation | None = None,
        *,
        transpose_x1: bool = False,
        transpose_x2: bool = False,
        result_type: Attribute | None = None,
    ) -> None:
        operands = [x1, x2, [] if bias is None else [bias]]
        properties = {
            "transpose_x1": bool_attr(transpose_x1),
            "transpose_x2": bool_attr(transpose_x2),
        }
        init_node(self, operands, result_type, properties)

    @fast_verify.local
    def verify_(self) -> None:
        operands = [self.x1.type, self.x2.type]
        if self.bias is not None:
            operands.append(self.bias.type)
        verify_product_types(self, operands, self.y.type)
        inferred = infer_or_fail(self)
        verify_rank(self, "the result", self.y.type, 2)
        verify_inferred(self, "[M, N] =", inferred)


def batch_matmul_shape(
    a: Sequence[int], b: Sequence[int], adj_x1: bool, adj_x2: bool
) -> tuple[int, ...]:
    """numpy.matmul result shape after the adjoints; raises ValueError on a K or batch clash.

    A 1-D operand is a vector: its dim is contracted and does not appear in the result.
    """
    a, b = list(a), list(b)
    if len(a) >= 2 and adj_x1:
        a[-1], a[-2] = a[-2], a[-1]
    if len(b) >= 2 and adj_x2:
        b[-1], b[-2] = b[-2], b[-1]
    a_vec, b_vec = len(a) == 1, len(b) == 1
    if a_vec:
        a = [1, *a]
    if b_vec:
        b = [*b, 1]
    k1, k2 = a[-1], b[-2]
    if k1 >= 0 and k2 >= 0 and k1 != k2:
        raise ValueError(f"contracts K = {k1} of x1 with K = {k2} of x2")
    batch = broadcast_shape(a[:-2], b[:-2])
    assert batch is not None
    tail = ([] if a_vec else [a[-2]]) + ([] if b_vec else [b[-1]])
    return (*batch, *(d if d >= 0 else -1 for d in tail))


@irdl_op_definition
class BatchMatMulV2Op(GEOp, NodeSyntax):
    """GE BatchMatMulV2: batched matrix product with numpy broadcasting of the batch dims.

    `adj_x1`/`adj_x2` swap the last two dims of their operand; the optional `bias` broadcasts
    against the result. Deviation from GE: 1-D operands are accepted with numpy.matmul (and
    ONNX MatMul) semantics, a vector whose dim is contracted. ONNX MatMul imports as this op
    unless both operands are 2-D (then `graph.matmul`). GE's int8 form as `graph.matmul`'s.

        %y = graph.batch_mat_mul_v2 %a, %b adj_x2 true
            : (tensor<8x4x16xf32>, tensor<1x5x16xf32>) -> tensor<8x4x5xf32>
    """

    name = "graph.batch_mat_mul_v2"
    GE_TYPE: ClassVar[str] = "BatchMatMulV2"
    HEAVY_PORTS: ClassVar[Mapping[str, str]] = {
        "x1": "FRACTAL_NZ",
        "x2": "FRACTAL_NZ",
        "y": "FRACTAL_NZ",
    }

    x1 = operand_def(AnyTensor)
    x2 = operand_def(AnyTensor)
    bias = opt_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    adj_x1 = prop_def(BoolAttr, default_value=FALSE)
    adj_x2 = prop_def(BoolAttr, default_value=FALSE)

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        x1, x2, *bias = operand_types
        elem = product_element_type(operand_types, "x1, x2 and bias" if bias else "x1 and x2")
        s1, s2 = tensor_shape(x1), tensor_shape(x2)
        for what, shape in (("x1", s1), ("x2", s2)):
            if shape is not None and not shape:
                raise ValueError(f"{what} must have at least one dim")
        if s1 is None or s2 is None:
            return (tensor_of(elem, None),)  # a vector or a batch: the rank is open
        adj_x1, adj_x2 = flag(properties, "adj_x1"), flag(properties, "adj_x2")
        product = batch_matmul_shape(s1, s2, adj_x1, adj_x2)
        if bias:
            return (tensor_of(elem, broadcast_shape(product, tensor_shape(bias[0]))),)
        return (tensor_of(elem, product),)

    def __init__(
        self,
        x1: SSAValue | Operation,
        x2: SSAValue | Operation,
        bias: SSAValue | Operation | None = None,
        *,
        adj_x1: bool = False,
        adj_x2: bool = False,
        result_type: Attribute | None = None,
    ) -> None:
        operands = [x1, x2, [] if bias is None else [bias]]
        properties = {"adj_x1": bool_attr(adj_x1), "adj_x2": bool_attr(adj_x2)}
        init_node(self, operands, result_type, properties)

    def verify_(self) -> None:
        operands = [self.x1.type, self.x2.type]
        if self.bias is not None:
            operands.append(self.bias.type)
        verify_product_types(self, operands, self.y.type)
        verify_inferred(self, "the product shape")


def parse_einsum(equation: str, ranks: Sequence[int | None]) -> tuple[list[str], str]:
    """The input terms and the output term of an einsum equation, `...` kept as `.`.

    Spaces are ignored; without `->` the output is the letters used once, sorted, after the
    ellipsis dims (numpy's implicit mode). Raises ValueError naming what is wrong.
    """
    text = equation.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise ValueError(f"has {len(terms)} input terms for {len(ranks)} inputs")
    parsed: list[str] = []
    for term, rank in zip(terms, ranks, strict=True):
        short = term.replace("...", ".")
        if any(not (c.isalpha() or c == ".") for c in short) or short.count(".") > 1:
            raise ValueError(f"term '{term}' is not letters with at most one '...'")
        letters = len(short.replace(".", ""))
        if rank is not None and (letters > rank or ("." not in short and letters != rank)):
            raise ValueError(f"term '{term}' does not fit an input of rank {rank}")
        parsed.append(short)
    if arrow:
        out = rhs.replace("...", ".")
        if any(not (c.isalpha() or c == ".") for c in out) or len(set(out)) != len(out):
            raise ValueError(f"output '{rhs}' is not distinct letters with at most one '...'")
        used = set("".join(parsed))
        if any(c not in used for c in out):
            raise ValueError(f"output '{rhs}' names a letter no input has")
    else:
        joined = "".join(t.replace(".", "") for t in parsed)
        once = sorted(c for c in set(joined) if joined.count(c) == 1)
        out = ("." if any("." in t for t in parsed) else "") + "".join(once)
    return parsed, out


def einsum_shape(
    terms: Sequence[str], out: str, shapes: Sequence[Sequence[int] | None]
) -> tuple[int, ...] | None:
    """Result shape of an einsum; raises ValueError on a dim clash.

    An unranked input (None) leaves its letters open: such a letter is `?` unless a ranked
    input gives it n > 1 (a 1 may broadcast against the unranked input), and the result is
    unranked when that input and the output both have `...`.
    """
    dims: dict[str, int] = {}
    ellipsis: tuple[int, ...] | None = ()
    open_letters: set[str] = set()
    open_ellipsis = False
    for term, shape in zip(terms, shapes, strict=True):
        if shape is None:
            open_letters.update(term.replace(".", ""))
            open_ellipsis = open_ellipsis or "." in term
            continue
        n_ell = len(shape) - len(term.replace(".", ""))
        expanded: list[str] = []
        for c in term:
            if c == ".":
                ell = tuple(shape[len(expanded) : len(expanded) + n_ell])
                try:
                    ellipsis = broadcast_shape(ellipsis, ell)
                except ValueError:
                    raise ValueError(f"'...' dims {list(ell)} do not broadcast") from None
                expanded.extend("." * n_ell)
            else:
                expanded.append(c)
        for c, d in zip(expanded, shape, strict=True):
            if c == "." or d < 0:
                continue
            known = dims.get(c, -1)
            if known < 0 or known == 1:
                dims[c] = d
            elif d not in (1, known):
                raise ValueError(f"letter '{c}' is {known} in one place and {d} in another")
    result: list[int] = []
    for c in out:
        if c == "." and open_ellipsis:
            return None
        if c == ".":
            result.extend(d if d >= 0 else -1 for d in ellipsis or ())
        elif c in open_letters and dims.get(c, -1) <= 1:
            result.append(-1)
        else:
            result.append(dims.get(c, -1))
    return tuple(result)


@irdl_op_definition
class EinsumOp(GEOp, NodeSyntax):
    """GE Einsum: Einstein summation over the `N` inputs `x` as written in `equation`.

    numpy.einsum semantics (ONNX Einsum): explicit (`ij,jk->ik`) or implicit output, `...`
    for broadcast batch dims, repeated letters in one term take a diagonal. The verifier
    parses the equation against the input ranks and checks the letters' dims.

        %y = graph.einsum %a, %b equation "bij,bjk->bik" N 2
            : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    """

    name = "graph.einsum"
    GE_TYPE: ClassVar[str] = "Einsum"

    x = var_operand_def(AnyTensor)
    y = result_def(AnyTensor)

    equation = prop_def(StringAttr)
    N = prop_def(IntegerAttr[I64])

    traits = traits_def(Pure())

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        count, equation = properties["N"], properties["equation"]
        assert isinstance(count, IntegerAttr) and isinstance(equation, StringAttr)
        if count.value.data != len(operand_types):
            raise ValueError(f"N = {count.value.data} differs from its {len(operand_types)} inputs")
        if not operand_types:
            raise ValueError("needs at least one input")
        elem = same_element_type(operand_types, "inputs")
        shapes = [tensor_shape(t) for t in operand_types]
        try:
            terms, out = parse_einsum(
                equation.data, [None if s is None else len(s) for s in shapes]
            )
            return (tensor_of(elem, einsum_shape(terms, out, shapes)),)
        except ValueError as e:
            raise ValueError(f'equation "{equation.data}" {e}') from None

    def __init__(
        self,
        inputs: Sequence[SSAValue | Operation],
        *,
        equation: str,
        result_type: Attribute | None = None,
    ) -> None:
        operands = [list(inputs)]
        properties = {"equation": StringAttr(equation), "N": IntegerAttr(len(inputs), i64)}
        init_node(self, operands, result_type, properties)

    def verify_(self) -> None:
        inferred = infer_or_fail(self)
        verify_element_types(self, [*self.x.types, self.y.type], "inputs and result")
        verify_inferred(self, "the einsum shape", inferred)


# --------------------------------------------------------------------------------------------


@irdl_op_definition
class MatrixDeterminantOp(GEOp, NodeSyntax):
    """GE MatrixDeterminant: the determinants of the square matrices in the last two dims.

    `x` is `[..., M, M]`, the result `[...]`. ONNX Det imports to it.

        %y = graph.matrix_determinant %x : (tensor<2x3x3xf32>) -> tensor<2xf32>
    """

    name = "graph.matrix_determinant"
    GE_TYPE: ClassVar[str] = "MatrixDeterminant"

    x = operand_def(AnyTensor)
    y = result_def(AnyTensor)

    traits = traits_def(Pure())

    def __init__(self, x: SSAValue | Operation) -> None:
        init_node(self, [x], None)

    @classmethod
    def infer_result_types(
        cls,
        operand_types: Sequence[Attribute],
        properties: Mapping[str, Attribute],
        values: OperandValues,
    ) -> tuple[Attribute, ...]:
        """x's shape without the last two dims."""
        x = tensor_shape(operand_types[0])
        elem = element_type(operand_types[0])
        if x is None:
            return (tensor_of(elem, None),)
        if len(x) < 2 or (x[-1] >= 0 and x[-2] >= 0 and x[-1] != x[-2]):
            raise ValueError(f"x must end in square matrices, got {list(x)}")
        return (tensor_of(elem, x[:-2]),)

    def verify_(self) -> None:
        verify_element_types(self, (self.x.type, self.y.type), "x and result")
        if not is_float(element_type(self.x.type)):
            fail(self, f"x must be a floating-point tensor, got {self.x.type}")
        verify_inferred(self, "the batch shape")


__all__ = [
    "BatchMatMulV2Op",
    "EinsumOp",
    "MatMulOp",
    "MatrixDeterminantOp",
    "batch_matmul_shape",
    "parse_einsum",
]

OPS = (MatMulOp, BatchMatMulV2Op, EinsumOp, MatrixDeterminantOp)
"""The ops of this module, in the order the dialect lists them."""
