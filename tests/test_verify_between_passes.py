"""`ge-opt` verifies after every pass, and skips only what cannot have changed.

A pass that breaks the IR is reported in one line naming the pass, wherever it runs in the
pipeline (also right after a stage that changed nothing); a stage that leaves the IR as it
was verified (`gedialects.fingerprint`) is not verified again; `--disable-verify` verifies
nothing. The fingerprint itself changes with every kind of edit a pass makes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, f32, i1
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gedialects.fingerprint import fingerprint
from gedialects.graph import AddOp, GraphOp
from gedialects.tools import ge_opt
from tests import text_corpus

GRAPH = """
graph.graph @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = graph.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = graph.mul %a, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  graph.net_output %b : tensor<2x3xf32>
}
"""


@dataclass(frozen=True)
class BreakIRPass(ModulePass):
    """Gives the first graph.add a result type its rule refuses (a broken pass)."""

    name = "test-break-ir"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        add = next(o for o in op.walk() if isinstance(o, AddOp))
        Rewriter.replace_value_with_new_type(add.results[0], TensorType(i1, [2, 3]))


@pytest.fixture
def opt(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Path, list[int]]:
    """The input file, and a counter of whole-module verifications `ge-opt` runs."""
    passes = ge_opt.get_all_passes()
    monkeypatch.setattr(
        ge_opt, "get_all_passes", lambda: {**passes, BreakIRPass.name: lambda: BreakIRPass}
    )
    calls = [0]
    verify = ModuleOp.verify

    def counted(self: ModuleOp, verify_nested_ops: bool = True) -> None:
        calls[0] += 1
        verify(self, verify_nested_ops)

    monkeypatch.setattr(ModuleOp, "verify", counted)
    path = tmp_path / "g.mlir"
    path.write_text(GRAPH)
    return path, calls


@pytest.mark.parametrize(
    "pipeline, after",
    [
        ("test-break-ir", "test-break-ir"),
        ("ge-infer-shapes,test-break-ir", "test-break-ir"),  # after a stage that changes nothing
        ("test-break-ir,ge-partition-stage", "test-break-ir"),
    ],
)
def test_a_pass_that_breaks_the_ir_is_named(
    opt: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str], pipeline: str, after: str
) -> None:
    path, _ = opt
    assert ge_opt.main([str(path), "-p", pipeline]) == 1
    # one error line at the op's place, then the source line and its caret (MLIR's form)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and err[0].startswith(f"{path}:3:8: error: "), err
    assert f"the IR does not verify after pass '{after}'" in err[0]
    assert "graph.add" in err[0] and "i1" in err[0] and "graph.add" in err[1]


def test_unchanged_stages_are_not_verified_again(
    opt: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, calls = opt
    # the input, then after each pass: infer-shapes and partition-stage change nothing here
    assert ge_opt.main([str(path), "-p", "ge-infer-shapes,ge-partition-stage"]) == 0
    assert calls[0] == 1
    assert ge_opt.main([str(path), "-p", "ge-infer-shapes,ge-place-engines"]) == 0
    assert calls[0] == 1 + 2  # placement writes each node's engine: verified again
    capsys.readouterr()
    assert ge_opt.main([str(path), "-p", "test-break-ir", "--disable-verify"]) == 0
    assert calls[0] == 3
    assert "tensor<2x3xi1>" in capsys.readouterr().out


def fresh() -> tuple[ModuleOp, GraphOp, AddOp]:
    module = text_corpus.parse(GRAPH)
    assert isinstance(module, ModuleOp)
    graph = next(o for o in module.walk() if isinstance(o, GraphOp))
    add = next(o for o in module.walk() if isinstance(o, AddOp))
    return module, graph, add


def edit_attribute(_: GraphOp, add: AddOp) -> None:
    add.attributes["_n"] = StringAttr("x")


def edit_property(_: GraphOp, add: AddOp) -> None:
    add.properties["p"] = StringAttr("x")


def edit_operand_order(_: GraphOp, add: AddOp) -> None:
    add.operands = [add.operands[1], add.operands[0]]


def edit_result_type(_: GraphOp, add: AddOp) -> None:
    Rewriter.replace_value_with_new_type(add.results[0], TensorType(f32, [3, 2]))


def edit_block_argument_type(graph: GraphOp, _: AddOp) -> None:
    Rewriter.replace_value_with_new_type(graph.body.block.args[0], TensorType(f32, [3, 2]))


def edit_op_order(_: GraphOp, add: AddOp) -> None:
    mul = add.next_op
    assert mul is not None
    mul.detach()
    Rewriter.insert_op(mul, InsertPoint.before(add))


def edit_new_op(_: GraphOp, add: AddOp) -> None:
    Rewriter.insert_op(add.clone(), InsertPoint.after(add))


def edit_erased_op(graph: GraphOp, add: AddOp) -> None:
    mul = add.next_op
    assert mul is not None
    out = graph.body.block.last_op
    assert out is not None
    out.operands = [add.results[0]]
    Rewriter.erase_op(mul)


@pytest.mark.parametrize(
    "edit",
    [
        edit_attribute,
        edit_property,
        edit_operand_order,
        edit_result_type,
        edit_block_argument_type,
        edit_op_order,
        edit_new_op,
        edit_erased_op,
    ],
)
def test_every_kind_of_edit_changes_the_fingerprint(
    edit: Callable[[GraphOp, AddOp], None],
) -> None:
    module, graph, add = fresh()
    before = fingerprint(module)
    assert fingerprint(module) == before
    assert fingerprint(fresh()[0]) == before  # the same text: the same fingerprint
    edit(graph, add)
    assert fingerprint(module) != before


def test_the_session_compile_verifies_as_ge_opt_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """`runtime.compile.run_stages` (the Session's compile) skips only unchanged stages too."""
    from gedialects.errors import GraphError
    from gedialects.passes.infer_shapes import InferShapesPass
    from gedialects.runtime.compile import run_stages

    calls = [0]
    verify = ModuleOp.verify

    def counted(self: ModuleOp, verify_nested_ops: bool = True) -> None:
        calls[0] += 1
        verify(self, verify_nested_ops)

    monkeypatch.setattr(ModuleOp, "verify", counted)
    module = text_corpus.parse(GRAPH)
    assert isinstance(module, ModuleOp)
    run_stages(module, [InferShapesPass(), InferShapesPass()], None)  # the second: unchanged
    assert calls[0] == 1
    with pytest.raises(GraphError, match="i1"):
        run_stages(module, [InferShapesPass(), BreakIRPass()], None)
    assert calls[0] == 3
