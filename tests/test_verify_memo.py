"""Kept verdicts of local verifiers (`fast_verify.local`, `fast_verify.install`) never let an
invalid op pass: an op verified once and then mutated is verified again and fails with the
verifier's own message; a verdict that read a constant is kept for that constant only; and
every op of the text corpus gets the same verdict with a warm table as it got fresh."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType, f32, i64
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import VerifyException

from gedialects import fast_verify, make_context
from gedialects.graph import AddOp, ConstOp, ReshapeOp
from tests import text_corpus

GRAPH = """
graph.graph @g(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>) {
  %s = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %t = graph.add %s, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %shape = graph.const dense<[3, 2]> : tensor<2xi64>
  %r = graph.reshape %t, %shape : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  graph.net_output %t, %r : tensor<2x3xf32>, tensor<3x2xf32>
}
"""


def parsed() -> ModuleOp:
    return Parser(make_context(), GRAPH).parse_module()


def error(op: Operation) -> str | None:
    try:
        op.verify()
    except VerifyException as e:
        return str(e)
    return None


def fresh_error(op: Operation) -> str | None:
    """`error(op)` with no kept verdict."""
    fast_verify._PASSED.clear()  # pyright: ignore[reportPrivateUsage]
    return error(op)


def ops_of(module: ModuleOp, kind: type[Operation]) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, kind)]


def test_hot_verifiers_keep_their_verdicts() -> None:
    for kind in (AddOp, ReshapeOp):
        assert kind.verify_.__qualname__ == "_memoised.<locals>.verify_", kind.name
    module = parsed()
    fast_verify._PASSED.clear()  # pyright: ignore[reportPrivateUsage]
    module.verify()
    kept = fast_verify._PASSED  # pyright: ignore[reportPrivateUsage]
    assert any(key[0] is AddOp and -4 not in key for key in kept)
    assert any(key[0] is ReshapeOp and -4 in key for key in kept), "keyed by its constant too"


def test_mutated_result_type_fails_after_a_kept_pass() -> None:
    module = parsed()
    module.verify()
    add = ops_of(module, AddOp)[1]
    Rewriter.replace_value_with_new_type(add.results[0], TensorType(f32, [2, 4]))
    want = "'graph.add' result shape [2, 4] differs from the broadcast shape [2, 3]"
    got = error(add)
    assert got is not None and want in got
    assert got == fresh_error(add)


def test_mutated_operand_fails_after_a_kept_pass() -> None:
    module = parsed()
    module.verify()
    first, second = ops_of(module, AddOp)
    second.operands[1] = ops_of(module, ReshapeOp)[0].results[0]  # now (2x3, 3x2)
    got = error(second)
    assert got is not None and "'graph.add'" in got
    assert got == fresh_error(second)
    assert error(first) is None


def test_changed_constant_fails_although_the_op_passed_before() -> None:
    module = parsed()
    module.verify()
    (const,) = ops_of(module, ConstOp)
    const.properties["value"] = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [2]), [2, 3])
    (reshape,) = ops_of(module, ReshapeOp)
    got = error(reshape)
    assert got is not None and "'graph.reshape'" in got
    assert got == fresh_error(reshape)


def test_corpus_verdicts_do_not_depend_on_kept_ones() -> None:
    ops = [op for _, op in text_corpus.our_ops()]
    fast_verify._PASSED.clear()  # pyright: ignore[reportPrivateUsage]
    first = [_own(op) for op in ops]
    assert fast_verify._PASSED  # pyright: ignore[reportPrivateUsage]
    assert [_own(op) for op in ops] == first
    assert any(first) and not all(first)


def _own(op: Operation) -> str | None:
    """The op's own verdict (`verify_`, nested ops left out: they have theirs; an op holding
    an invalid one may raise anything, as `verify` never gets that far)."""
    try:
        op.verify_()
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return None


def test_verify_graph_verifies_a_module_changed_since_it_was_verified() -> None:
    from xdsl.utils.exceptions import PassFailedException

    from gedialects.fingerprint import fingerprint, mark_verified, still_verified
    from gedialects.passes.verify_graph import VerifyGraphPass

    module = parsed()
    module.verify()
    mark_verified(module, fingerprint(module))
    assert still_verified(module)
    VerifyGraphPass().apply(make_context(), module)
    add = ops_of(module, AddOp)[1]
    Rewriter.replace_value_with_new_type(add.results[0], TensorType(f32, [2, 4]))
    assert not still_verified(module)
    with pytest.raises(PassFailedException, match="differs from the broadcast shape"):
        VerifyGraphPass().apply(make_context(), module)
    assert not still_verified(parsed()), "another module"


MODEL = """
ascend.model @main arena_size 4096 weight_size 0 {
  ascend.stream 0 engine "AIcoreEngine"
  ascend.input "x" arena[0] : tensor<2xf32>
  ascend.output "y" arena[1024] : tensor<2xf32>
  ascend.kernel "Relu" "relu" engine "AIcoreEngine" stream 0
    ins(arena[0] : tensor<2xf32>) outs(arena[1024] : tensor<2xf32>)
  ascend.kernel "Relu" "relu2" engine "AIcoreEngine" stream 0
    ins(arena[0] : tensor<2xf32>) outs(arena[2048] : tensor<2xf32>)
}
"""


def test_kernel_types_verified_again_after_a_kept_pass() -> None:
    from xdsl.dialects.builtin import ArrayAttr, i8

    from gedialects.ascend import BufferAttr, KernelOp

    module = Parser(make_context(), MODEL).parse_module()
    module.verify()
    second = ops_of(module, KernelOp)[1]
    second.properties["outputs"] = ArrayAttr([BufferAttr(2048, TensorType(i8, [2]))])
    with pytest.raises(VerifyException, match="has element type i8, but Relu of"):
        module.verify()
