"""Shape and dtype inference: `GEOp.infer_result_types` against the IR, builders and verifiers.

The generic test runs every rule on the ops of the graph dialect's lit round-trip files: the
inferred types must be compatible with the declared ones, and equal to them when the operand
types are static (unless the rule asked for a constant operand it was not given). The unit
tests pin `?` and unranked propagation and the errors of the elementwise, activation,
logical and matrix rules; the builder tests check that a builder without a result type
gives the inferred one.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

import pytest
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    f16,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.test_value import create_ssa_value

from gedialects import make_context
from gedialects.base import GEOp, OperandValues, const_values, is_static, types_compatible
from gedialects.formats import origin_type
from gedialects.graph import (
    AddOp,
    BatchMatMulV2Op,
    CastOp,
    ClipByValueOp,
    ConstOp,
    EinsumOp,
    EluOp,
    EqualOp,
    GreaterOp,
    IsNanOp,
    LogicalNotOp,
    MatMulOp,
    PowOp,
    PReluOp,
    ReluOp,
    SelectV2Op,
    SubOp,
    activation,
    elementwise,
    logical,
    matrix,
)
from gedialects.graph.common import bool_attr, build_result_types

Q = DYNAMIC_INDEX
LIT = Path(__file__).resolve().parent / "lit" / "dialects" / "graph"
ROUND_TRIP_FILES = sorted(p for p in LIT.glob("*.mlir") if "invalid" not in p.name)
MY_OPS = (*elementwise.OPS, *activation.OPS, *logical.OPS, *matrix.OPS)


def tensor(*dims: int, elem: Attribute = f32) -> TensorType:
    return TensorType(elem, list(dims))


def unranked(elem: Attribute = f32) -> UnrankedTensorType:
    return UnrankedTensorType(elem)


def value(t: Attribute) -> SSAValue:
    return create_ssa_value(t)


def infer(op_type: type[GEOp], *types: Attribute, **props: Attribute) -> Attribute:
    """The single result type `op_type`'s rule gives operands of `types`."""
    defaults = {
        k: p.default_value
        for k, p in op_type.get_irdl_definition().properties.items()
        if p.default_value is not None
    }
    result = op_type.infer_result_types(types, defaults | props, lambda i: None)
    assert result is not None
    (t,) = result
    return t


# --------------------------------------------------------------------------------------------
# Every rule on the lit round-trip files
# --------------------------------------------------------------------------------------------


def run_rule(op: GEOp) -> tuple[tuple[Attribute, ...] | None, bool]:
    """The op's inferred types, and whether the rule asked for a value that is not constant."""
    missing: list[int] = []

    def values(i: int) -> tuple[int | float, ...] | None:
        found = const_values(op.operands[i])
        if found is None:
            missing.append(i)
        return found

    inferred = type(op).infer_result_types(tuple(op.operand_types), op.properties, values)
    return inferred, bool(missing)


def check_rules(text: str, only: Collection[str] | None = None) -> set[str]:
    """Checks the rules of the ops in `text` (one `// -----` split), of those named in `only`
    when given; returns the names of the ops whose rule gave types."""
    module = Parser(make_context(), text).parse_module()
    module.verify()
    checked: set[str] = set()
    for op in module.walk():
        if not isinstance(op, GEOp) or (only is not None and op.name not in only):
            continue
        inferred, asked_unknown = run_rule(op)
        if inferred is None:
            continue
        inferred = tuple(origin_type(t) for t in inferred)
        # a tensor in a storage format (NC1HWC0, ...) is compared by its origin type: some
        # rules give origin shapes (ge-infer-shapes keeps the declared storage), others storage
        declared = tuple(origin_type(t) for t in op.result_types)
        where = f"{op.name} {[str(t) for t in op.operand_types]} -> {[str(t) for t in declared]}"
        assert len(inferred) == len(declared), where
        for got, want in zip(inferred, declared, strict=True):
            assert types_compatible(got, want), f"{where}: inferred {got}"
        if all(is_static(t) for t in op.operand_types) and not asked_unknown:
            assert inferred == declared, f"{where}: inferred {[str(t) for t in inferred]}"
        checked.add(op.name)
    return checked


@pytest.mark.parametrize("path", ROUND_TRIP_FILES, ids=lambda p: p.name)
def test_rules_agree_with_the_round_trip_files(path: Path) -> None:
    for chunk in path.read_text().split("// -----"):
        check_rules(chunk)


def test_every_elementwise_activation_logical_matrix_rule_meets_the_lit_files() -> None:
    names = {op.name for op in MY_OPS}
    checked: set[str] = set()
    for path in ROUND_TRIP_FILES:
        for chunk in path.read_text().split("// -----"):
            checked |= check_rules(chunk, names)
    missing = sorted(names - checked)
    assert not missing, f"ops without a rule or without a lit round trip: {missing}"


def test_the_generic_check_catches_a_wrong_declared_type() -> None:
    text = """
    %a = "test.op"() : () -> tensor<2x3xf32>
    %b = graph.relu %a : (tensor<2x3xf32>) -> tensor<2x?xf32>
    """
    with pytest.raises(AssertionError, match=r"graph\.relu"):
        check_rules(text)


# --------------------------------------------------------------------------------------------
# Per-op rules: `?`, unranked, dtypes, errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (tensor(2, 3), tensor(3), tensor(2, 3)),
        (tensor(Q, 3), tensor(3), tensor(Q, 3)),
        (tensor(Q, 3), tensor(4, 1), tensor(4, 3)),  # `?` against 4 can only be 4 (or 1)
        (tensor(Q), tensor(1), tensor(Q)),
        (tensor(Q), tensor(Q), tensor(Q)),
        (tensor(Q), tensor(2, 1, 1), tensor(2, 1, Q)),
        (tensor(2, 3), unranked(), unranked()),
        (tensor(), tensor(5), tensor(5)),
    ],
)
def test_binary_broadcasts_unknown_dims(a: TensorType, b: TensorType, expected: Attribute) -> None:
    assert infer(AddOp, a, b) == expected
    assert infer(AddOp, b, a) == expected
    shape = expected.get_shape() if isinstance(expected, TensorType) else None
    assert infer(GreaterOp, a, b) == (unranked(i1) if shape is None else tensor(*shape, elem=i1))


def test_binary_errors() -> None:
    with pytest.raises(ValueError, match=r"operand shapes \[2, 3\] and \[4\] do not broadcast"):
        infer(SubOp, tensor(2, 3), tensor(4))
    with pytest.raises(ValueError, match="one element type for x1 and x2, got f32, i32"):
        infer(AddOp, tensor(3), tensor(3, elem=i32))
    with pytest.raises(ValueError, match="one element type for x1 and x2, got f32, f16"):
        infer(EqualOp, tensor(3), tensor(3, elem=f16))


def test_unary_and_predicate_keep_the_shape() -> None:
    assert infer(ReluOp, tensor(Q, 4)) == tensor(Q, 4)
    assert infer(EluOp, unranked(f16)) == unranked(f16)
    assert infer(LogicalNotOp, tensor(2, elem=i1)) == tensor(2, elem=i1)
    assert infer(IsNanOp, tensor(Q, 2)) == tensor(Q, 2, elem=i1)
    assert infer(IsNanOp, unranked()) == unranked(i1)


def test_cast_gives_its_dst_type() -> None:
    assert infer(CastOp, tensor(Q, 3), dst_type=f16) == tensor(Q, 3, elem=f16)
    assert infer(CastOp, unranked(i32), dst_type=i1) == unranked(i1)


def test_pow_keeps_the_base_dtype() -> None:
    assert infer(PowOp, tensor(3, elem=i64), tensor(Q, 1)) == tensor(Q, 3, elem=i64)
    with pytest.raises(ValueError, match="do not broadcast"):
        infer(PowOp, tensor(3), tensor(2))


def test_select_v2_broadcasts_all_three() -> None:
    cond = tensor(2, 1, elem=i1)
    assert infer(SelectV2Op, cond, tensor(3), tensor()) == tensor(2, 3)
    assert infer(SelectV2Op, cond, tensor(Q), tensor(Q)) == tensor(2, Q)
    assert infer(SelectV2Op, unranked(i1), tensor(3), tensor(3)) == unranked()
    with pytest.raises(ValueError, match=r"shapes \[2\], \*, \[3\] do not broadcast"):
        infer(SelectV2Op, tensor(2, elem=i1), unranked(), tensor(3))
    with pytest.raises(ValueError, match="one element type for x1 and x2"):
        infer(SelectV2Op, cond, tensor(3), tensor(3, elem=f16))


def test_slope_and_bounds_refine_unknown_dims_of_x() -> None:
    # The slope must broadcast to x unchanged, so a `?` facing 3 is 3; 1 tells nothing.
    assert infer(PReluOp, tensor(1, Q, 4, 4), tensor(3, 1, 1)) == tensor(1, 3, 4, 4)
    assert infer(PReluOp, tensor(1, Q, 4, 4), tensor(1, 1, 1)) == tensor(1, Q, 4, 4)
    assert infer(PReluOp, unranked(), tensor(3, 1, 1)) == unranked()
    assert infer(PReluOp, tensor(Q, 3), unranked()) == tensor(Q, 3)
    lo, hi = tensor(), tensor(Q, 5)
    assert infer(ClipByValueOp, tensor(2, Q), lo, hi) == tensor(2, 5)
    with pytest.raises(ValueError, match=r"weight of type tensor<3xf32> does not broadcast to x"):
        infer(PReluOp, tensor(1, 3, 4, 4), tensor(3))
    with pytest.raises(ValueError, match="clip_value_max of type tensor<2x3xf32> does not broad"):
        infer(ClipByValueOp, tensor(3), tensor(), tensor(2, 3))
    with pytest.raises(ValueError, match="one element type for x and weight"):
        infer(PReluOp, tensor(3), tensor(3, elem=f16))


def test_matmul_fixes_rank_two() -> None:
    t = bool_attr(True)
    assert infer(MatMulOp, tensor(4, 8), tensor(16, 8), transpose_x2=t) == tensor(4, 16)
    assert infer(MatMulOp, tensor(8, 4), tensor(8, 16), transpose_x1=t) == tensor(4, 16)
    assert infer(MatMulOp, unranked(), tensor(8, 16)) == tensor(Q, 16)
    assert infer(MatMulOp, tensor(4, 8), unranked()) == tensor(4, Q)
    # A bias longer than 1 fixes N; a bias of 1 does not.
    assert infer(MatMulOp, tensor(4, 8), tensor(8, Q), tensor(16)) == tensor(4, 16)
    assert infer(MatMulOp, tensor(4, 8), tensor(8, Q), tensor(1)) == tensor(4, Q)
    with pytest.raises(ValueError, match="contracts K = 3 of x1 with K = 4 of x2"):
        infer(MatMulOp, tensor(2, 3), tensor(4, 5))
    with pytest.raises(ValueError, match=r"x1 must be 2-D, got tensor<5x2x3xf32>"):
        infer(MatMulOp, tensor(5, 2, 3), tensor(3, 4))
    with pytest.raises(ValueError, match=r"bias has length 3, expected N = 4 \(or 1\)"):
        infer(MatMulOp, tensor(2, 3), tensor(3, 4), tensor(3))
    with pytest.raises(ValueError, match="bias must be 1-D"):
        infer(MatMulOp, tensor(2, 3), tensor(3, 4), tensor(1, 4))


def test_batch_matmul_ranks() -> None:
    t = bool_attr(True)
    assert infer(BatchMatMulV2Op, tensor(8, 4, 16), tensor(1, 5, 16), adj_x2=t) == tensor(8, 4, 5)
    assert infer(BatchMatMulV2Op, tensor(Q, 3, 4), tensor(4, Q)) == tensor(Q, 3, Q)
    assert infer(BatchMatMulV2Op, tensor(16), tensor(2, 16, 3)) == tensor(2, 3)
    assert infer(BatchMatMulV2Op, tensor(3, 4), unranked()) == unranked()
    assert infer(BatchMatMulV2Op, tensor(3, 4), tensor(4, 5), tensor(2, 1, 5)) == tensor(2, 3, 5)
    with pytest.raises(ValueError, match="contracts K = 3 of x1 with K = 4 of x2"):
        infer(BatchMatMulV2Op, tensor(2, 3), tensor(4, 5))
    with pytest.raises(ValueError, match="x2 must have at least one dim"):
        infer(BatchMatMulV2Op, tensor(2, 3), tensor())
    with pytest.raises(ValueError, match=r"shapes \[2\] and \[3\] do not broadcast"):
        infer(BatchMatMulV2Op, tensor(2, 4, 4), tensor(3, 4, 4))


def einsum(equation: str, *types: Attribute) -> Attribute:
    props = {"equation": StringAttr(equation), "N": IntegerAttr(len(types), i64)}
    return infer(EinsumOp, *types, **props)


def test_einsum_through_unknown_inputs() -> None:
    assert einsum("bij,bjk->bik", tensor(2, 3, 4), tensor(2, 4, 5)) == tensor(2, 3, 5)
    assert einsum("ij,jk", tensor(Q, 4), tensor(4, 5)) == tensor(Q, 5)
    # An unranked input leaves the explicit output rank known; letters it shares become `?`
    # unless a ranked input fixes them to n > 1 (a 1 could broadcast).
    assert einsum("ij,jk->ik", tensor(3, 4), unranked()) == tensor(3, Q)
    assert einsum("ij,jk->ijk", tensor(1, 4), unranked()) == tensor(1, 4, Q)
    assert einsum("ij,jk->ki", unranked(), tensor(1, 5)) == tensor(5, Q)
    assert einsum("...ij,jk->...ik", unranked(), tensor(4, 5)) == unranked()
    assert einsum("...ij,jk->...ik", tensor(7, 3, 4), unranked()) == tensor(7, 3, Q)
    with pytest.raises(ValueError, match="letter 'j' is 3 in one place and 4 in another"):
        einsum("ij,jk->ik", tensor(2, 3), tensor(4, 5))
    with pytest.raises(ValueError, match="N = 2 differs from its 1 inputs"):
        infer(EinsumOp, tensor(2), equation=StringAttr("i"), N=IntegerAttr(2, i64))
    with pytest.raises(ValueError, match="one element type for inputs, got f32, f16"):
        einsum("i,i", tensor(2), tensor(2, elem=f16))


# --------------------------------------------------------------------------------------------
# Builders use the rule; verifiers check against it
# --------------------------------------------------------------------------------------------


def built_cases() -> list[tuple[Operation, Attribute]]:
    a, row = value(tensor(Q, 3)), value(tensor(3))
    x4 = value(tensor(1, Q, 4, 4))
    b = value(tensor(2, 3, elem=i1))
    return [
        (AddOp(a, row), tensor(Q, 3)),
        (SubOp(row, value(unranked())), unranked()),
        (EluOp(a, alpha=0.5), tensor(Q, 3)),
        (GreaterOp(a, value(tensor(4, 1))), tensor(4, 3, elem=i1)),
        (IsNanOp(a), tensor(Q, 3, elem=i1)),
        (LogicalNotOp(b), tensor(2, 3, elem=i1)),
        (CastOp(a, f16), tensor(Q, 3, elem=f16)),
        (PowOp(value(tensor(3, elem=i32)), a), tensor(Q, 3, elem=i32)),
        (SelectV2Op(b, row, value(tensor())), tensor(2, 3)),
        (ClipByValueOp(a, value(tensor()), value(tensor(2, 1))), tensor(2, 3)),
        (PReluOp(x4, value(tensor(5, 1, 1))), tensor(1, 5, 4, 4)),
        (MatMulOp(value(unranked()), value(tensor(3, Q)), value(tensor(7))), tensor(Q, 7)),
        (MatMulOp(a, value(tensor(5, 3)), transpose_x2=True), tensor(Q, 5)),
        (BatchMatMulV2Op(value(tensor(2, 4, 3)), a, adj_x1=True), tensor(2, 3, 3)),
        (EinsumOp([a, value(unranked())], equation="ij,jk->ik"), tensor(Q, Q)),
    ]


@pytest.mark.parametrize(("op", "expected"), built_cases(), ids=lambda v: getattr(v, "name", ""))
def test_builders_give_the_inferred_type(op: GEOp, expected: Attribute) -> None:
    assert tuple(op.result_types) == (expected,)
    assert op.infer_types() == (expected,)
    op.verify()


def test_builders_pass_constants_and_defaults_to_the_rule() -> None:
    seen: list[tuple[object, ...]] = []

    class Probe(EluOp):
        @classmethod
        def infer_result_types(
            cls,
            operand_types: Sequence[Attribute],
            properties: Mapping[str, Attribute],
            values: OperandValues,
        ) -> tuple[Attribute, ...]:
            seen.append((values(0), values(1), properties["alpha"], properties["scale"]))
            return (operand_types[0],)

    const = ConstOp(DenseIntOrFPElementsAttr.from_list(tensor(2), [1.5, -2.0]))
    operands = [const, value(tensor(2))]
    assert build_result_types(Probe, operands, {"alpha": FloatAttr(0.5, f32)}) == [tensor(2)]
    assert seen == [((1.5, -2.0), None, FloatAttr(0.5, f32), FloatAttr(1.0, f32))]


def test_builder_errors_come_from_the_rule() -> None:
    with pytest.raises(ValueError, match="contracts K = 3 of x1 with K = 4 of x2"):
        MatMulOp(value(tensor(2, 3)), value(tensor(4, 5)))
    with pytest.raises(ValueError, match="weight of type tensor<3xf32> does not broadcast"):
        PReluOp(value(tensor(2, 4)), value(tensor(3)))
    with pytest.raises(ValueError, match=r"equation \"ij->k\" output 'k' names a letter"):
        EinsumOp([value(tensor(2, 3))], equation="ij->k")


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (
            PReluOp(value(tensor(1, Q)), value(tensor(3)), result_type=tensor(1, 4)),
            r"'graph.prelu' result type tensor<1x4xf32> differs from tensor<1x3xf32>, the type "
            r"weight implies for x",
        ),
        (
            ClipByValueOp(
                value(tensor(Q)), value(tensor()), value(tensor(3)), result_type=tensor(2)
            ),
            r"'graph.clip_by_value' result type tensor<2xf32> differs from tensor<3xf32>, the "
            r"type the bounds imply for x",
        ),
        (
            MatMulOp(
                value(tensor(4, 8)),
                value(tensor(8, Q)),
                value(tensor(16)),
                result_type=tensor(4, 8),
            ),
            r"'graph.matmul' result shape \[4, 8\] differs from \[M, N\] = \[4, 16\]",
        ),
        (
            AddOp(value(tensor(Q)), value(tensor(4)), result_type=tensor(3)),
            r"'graph.add' result shape \[3\] differs from the broadcast shape \[4\]",
        ),
        (
            EinsumOp(
                [value(tensor(2, 3)), value(unranked())],
                equation="ij,jk->ik",
                result_type=tensor(3, 3),
            ),
            r"'graph.einsum' result shape \[3, 3\] differs from the einsum shape \[2, \?\]",
        ),
    ],
    ids=lambda v: getattr(v, "name", ""),
)
def test_verifiers_reject_what_the_rule_excludes(op: GEOp, message: str) -> None:
    with pytest.raises(VerifyException, match=message):
        op.verify()


def test_verifiers_accept_less_precise_declared_types() -> None:
    ops: Sequence[GEOp] = [
        PReluOp(value(tensor(1, Q)), value(tensor(3)), result_type=tensor(1, Q)),
        MatMulOp(value(tensor(4, 8)), value(tensor(8, 2)), result_type=tensor(Q, Q)),
        AddOp(value(tensor(2)), value(tensor(2)), result_type=unranked()),
    ]
    for op in ops:
        op.verify()
