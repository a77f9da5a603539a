"""The compiled IRDL verifier (`gedialects.fast_verify`) decides exactly as xDSL's `OpDef.verify`.

Every op of our dialects in the text corpus (every lit input and example: valid IR and the
negative tests' invalid IR) is checked both ways, and so are mutants of one op of each kind
(a property dropped, replaced by an attribute of another kind or added, an operand or
result type of another kind, an operand too many or too few): the fast path accepts only
what xDSL accepts, accepts every op xDSL accepts in the corpus, and every rejection is
xDSL's own error message. The generated checks (`FastOpDef.accepts`) decide each op and mutant
as the definition's checks read in a loop (`accepts_reference`) do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from xdsl.dialects.builtin import FunctionType, IntegerAttr, ModuleOp, StringAttr, UnitAttr, i1, i32
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, OpDef
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.test_value import create_ssa_value

from gedialects import DIALECTS
from gedialects.fast_verify import FastOpDef
from tests import text_corpus

corpus_ops = text_corpus.our_ops


def fast_of(op: Operation) -> FastOpDef:
    assert isinstance(op, IRDLOperation)
    fast = op.get_irdl_definition().__dict__.get("verify")
    assert isinstance(fast, FastOpDef), f"{op.name} has no compiled verifier"
    return fast


def outcome(check: Callable[[Operation], None], op: Operation) -> str | None:
    """None when `check(op)` accepts `op`, else the error's type and message."""
    try:
        check(op)
    except (VerifyException, ValueError) as e:
        return f"{type(e).__name__}: {e}"
    return None


def xdsl_verify(op: Operation) -> None:
    assert isinstance(op, IRDLOperation)
    definition = op.get_irdl_definition()
    OpDef.verify(definition, op)


@pytest.fixture(scope="module")
def ops() -> list[tuple[str, Operation]]:
    return list(corpus_ops())


def test_every_op_definition_is_compiled() -> None:
    import importlib

    for module, attr in DIALECTS.values():
        for op in getattr(importlib.import_module(module), attr).operations:
            fast = op.get_irdl_definition().__dict__.get("verify")
            assert isinstance(fast, FastOpDef) and fast.fast, op.name
            assert fast.operands is not None and fast.results is not None, op.name


def test_corpus_ops_decided_as_xdsl_decides(ops: list[tuple[str, Operation]]) -> None:
    assert len(ops) > 1000
    rejected = 0
    for where, op in ops:
        fast, slow = fast_of(op), outcome(xdsl_verify, op)
        accepted = fast.accepts(op)
        # the compiled checks and the loop over the definition they were generated from
        assert accepted == fast.accepts_reference(op), f"{where}: {op.name}"
        # the fast path accepts only what xDSL's checks accept (the traits run after both),
        # and every valid op: none is left to the slow path
        if accepted:
            assert slow is None or fast_traits_fail(op), f"{where}: {op.name}: {slow}"
        else:
            assert slow is not None, f"{where}: {op.name} valid but not accepted"
        assert outcome(fast, op) == slow, f"{where}: {op.name}"
        rejected += slow is not None
    assert rejected > 0  # the negative tests give the fast path invalid ops too


def fast_traits_fail(op: Operation) -> bool:
    """Whether one of `op`'s traits rejects it (xDSL then fails after the checks passed)."""
    return any(outcome(trait.verify, op) for trait in fast_of(op).traits)


def mutants(op: Operation) -> Iterator[tuple[str, Operation]]:
    """Copies of `op` (no regions: the checks are per op) each broken or changed one way."""
    if op.regions:
        return
    wrong: tuple[Attribute, ...] = (StringAttr("x"), UnitAttr(), IntegerAttr(1, i32))

    def copy(
        props: dict[str, Attribute] | None = None,
        operand_types: list[Attribute] | None = None,
        result_types: list[Attribute] | None = None,
    ) -> Operation:
        types = operand_types if operand_types is not None else [v.type for v in op.operands]
        return type(op).create(
            operands=[create_ssa_value(t) for t in types],
            result_types=result_types if result_types is not None else list(op.result_types),
            properties=props if props is not None else dict(op.properties),
            attributes=dict(op.attributes),
        )

    for name in op.properties:
        props = dict(op.properties)
        del props[name]
        yield f"without {name}", copy(props)
        for attr in wrong:
            yield f"{name} = {attr}", copy({**op.properties, name: attr})
    yield "unknown property", copy({**op.properties, "not_a_property": UnitAttr()})
    other = (i1, FunctionType.from_lists([], []))
    operands = [v.type for v in op.operands]
    for i in range(len(operands)):
        for t in other:
            yield f"operand {i}: {t}", copy(operand_types=[*operands[:i], t, *operands[i + 1 :]])
    yield "an operand too many", copy(operand_types=[*operands, *(operands[:1] or [i1])])
    if operands:
        yield "an operand too few", copy(operand_types=operands[:-1])
    results = list(op.result_types)
    for i in range(len(results)):
        for t in other:
            yield f"result {i}: {t}", copy(result_types=[*results[:i], t, *results[i + 1 :]])
    yield "a result too many", copy(result_types=[*results, i1])


def test_mutants_rejected_with_xdsl_messages(ops: list[tuple[str, Operation]]) -> None:
    seen: set[str] = set()
    checked = differ = 0
    for where, op in ops:
        if op.name in seen or op.regions:
            continue
        seen.add(op.name)
        fast = fast_of(op)
        for what, mutant in mutants(op):
            slow = outcome(xdsl_verify, mutant)
            assert outcome(fast, mutant) == slow, f"{where}: {op.name} {what}"
            assert fast.accepts(mutant) == fast.accepts_reference(mutant), f"{op.name} {what}"
            checked += 1
            differ += slow is not None
    assert len(seen) > 100 and differ > checked // 2


RESHAPES = """
graph.graph @g(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<{t}>) {{
  %a = graph.const dense<[3, 4]> : tensor<2xi64>
  %b = graph.const dense<[4, 3]> : tensor<2xi64>
  %r = graph.reshape %x, %a : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  %s = graph.reshape %x, %b : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<{t}>
  graph.net_output %r, %s : tensor<3x4xf32>, tensor<{t}>
}}
"""


def test_inferred_types_are_kept_only_for_rules_that_read_no_constant() -> None:
    """Two Reshapes of one input type and shape type fed different constants: each rule runs
    (results are kept only for rules that read no constant value), so a wrong declared type
    is caught after the same ops verified with the right one."""
    good = text_corpus.parse(RESHAPES.format(t="4x3xf32"))
    bad = text_corpus.parse(RESHAPES.format(t="3x4xf32"))
    assert isinstance(good, ModuleOp) and isinstance(bad, ModuleOp)
    good.verify()
    good.verify()
    with pytest.raises(VerifyException, match="differs"):
        bad.verify()
