"""ge-fold-constants: folding with the interpreter's kernels and a size limit, CSE, dead nodes,
and numerical before/after checks (hand-written graphs, the example, the exported models)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from gedialects import make_context
from gedialects.graph import ConstOp, GraphOp
from gedialects.passes.fold_constants import FoldConstantsPass, FoldStats, fold_module
from gedialects.passes.translation_validation import check_pass_keeps_numbers
from gedialects.tensors import numpy_from_dense
from tests.conftest import EXAMPLES, ROOT, parse

MODELS = ROOT / "tests" / "models"


def body(module: ModuleOp, name: str = "main") -> list:
    for op in module.ops:
        if isinstance(op, GraphOp) and op.sym_name.data == name:
            return list(op.body.block.ops)
    raise KeyError(name)


def names(module: ModuleOp, graph: str = "main") -> list[str]:
    return [op.name for op in body(module, graph)]


def fold(text: str, **options) -> tuple[ModuleOp, FoldStats]:
    module = parse(text)
    stats = fold_module(module, **options)
    module.verify()
    return module, stats


CHAIN = """
graph.graph @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %a = graph.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32> {node_name = "a"}
  %b = graph.const dense<0.5> : tensor<2x2xf32> {node_name = "b"}
  %m = graph.mul %a, %b {node_name = "m"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %e = graph.exp %m {node_name = "e"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = graph.add %x, %e {node_name = "y"} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.net_output %y : tensor<2x2xf32>
}
"""


def test_constant_chain_folds_into_one_const_named_after_the_last_node() -> None:
    module, stats = fold(CHAIN)
    assert names(module) == ["graph.const", "graph.add", "graph.net_output"]
    const = body(module)[0]
    assert isinstance(const, ConstOp)
    assert const.attributes["node_name"].data == "e"  # type: ignore[attr-defined]
    expected = np.exp(np.array([[1, 2], [3, 4]], np.float32) * np.float32(0.5))
    np.testing.assert_array_equal(numpy_from_dense(const.value), expected)
    assert (stats.folded, stats.merged, stats.dead) == (2, 0, 3)


def test_max_size_keeps_large_results_unmaterialised() -> None:
    text = """
graph.graph @main() -> tensor<64x64xf32> {
  %d = graph.const dense<[64, 64]> : tensor<2xi64>
  %v = graph.const dense<1.5> : tensor<f32>
  %f = graph.fill %d, %v {node_name = "big"} : (tensor<2xi64>, tensor<f32>) -> tensor<64x64xf32>
  graph.net_output %f : tensor<64x64xf32>
}
"""
    small, stats = fold(text, max_size=4095)
    assert "graph.fill" in names(small) and stats.folded == 0
    large, stats = fold(text, max_size=4096)
    assert names(large) == ["graph.const", "graph.net_output"] and stats.folded == 1
    const = body(large)[0]
    assert isinstance(const, ConstOp)
    # All-equal results are stored as one element (a splat), not 4096.
    assert len(const.value.data.data) == 4
    np.testing.assert_array_equal(numpy_from_dense(const.value), np.full((64, 64), 1.5, np.float32))


def test_shape_and_size_of_static_tensors_fold_whatever_produces_them() -> None:
    module, _ = fold(
        """
graph.graph @main(%x: tensor<3x5xf32>) -> (tensor<2xi32>, tensor<i64>) {
  %r = graph.relu %x : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %s = graph.shape %r dtype i32 : (tensor<3x5xf32>) -> tensor<2xi32>
  %n = graph.size %r : (tensor<3x5xf32>) -> tensor<i64>
  graph.net_output %s, %n : tensor<2xi32>, tensor<i64>
}
"""
    )
    ops = body(module)
    assert [op.name for op in ops] == ["graph.const", "graph.const", "graph.net_output"]
    assert numpy_from_dense(ops[0].value).tolist() == [3, 5]
    assert numpy_from_dense(ops[0].value).dtype == np.int32
    assert numpy_from_dense(ops[1].value).tolist() == 15


def test_what_must_not_fold_stays() -> None:
    module, stats = fold(
        """
graph.graph @main(%x: tensor<?xf32>)
    -> (tensor<?xi64>, tensor<2xf32>, tensor<1xi64>, tensor<1xi64>) {
  %c = graph.const dense<[1.0, -2.0]> : tensor<2xf32>
  partition.end %c peerIndex 0 : (tensor<2xf32>) -> ()
  %p = partition.place_holder peerIndex 0 : () -> tensor<2xf32>
  %a = graph.abs %p : (tensor<2xf32>) -> tensor<2xf32>
  %s = graph.shape %x : (tensor<?xf32>) -> tensor<1xi64>
  %n = graph.const dense<[0.0, 3.0, 0.0]> : tensor<3xf32>
  %z = graph.non_zero %n : (tensor<3xf32>) -> tensor<1x?xi64>
  %f = graph.flatten %z axis 0 : (tensor<1x?xi64>) -> tensor<1x?xi64>
  %q = graph.squeeze_v3 %f : (tensor<1x?xi64>) -> tensor<?xi64>
  %i = graph.const dense<[7]> : tensor<1xi64>
  %v = graph.const dense<[1, 2]> : tensor<2xi64>
  %g = graph.gather_v2d %v, %i : (tensor<2xi64>, tensor<1xi64>) -> tensor<1xi64>
  graph.net_output %q, %a, %g, %s : tensor<?xi64>, tensor<2xf32>, tensor<1xi64>, tensor<1xi64>
}
"""
    )
    kept = names(module)
    # End/PlaceHolder have side effects; Shape of a dynamic tensor and NonZero (unknown result
    # shape) cannot become constants; the out-of-range Gather is left for the runtime to report.
    for name in ("partition.end", "partition.place_holder", "graph.abs", "graph.shape"):
        assert name in kept
    for name in ("graph.non_zero", "graph.gather_v2d"):
        assert name in kept
    assert stats.folded == 0


def test_cse_merges_nodes_that_differ_only_by_name() -> None:
    module, stats = fold(
        """
graph.graph @main(%x: tensor<4xf32>) -> tensor<12xf32> {
  %c1 = graph.const dense<2.0> : tensor<4xf32> {node_name = "c1"}
  %c2 = graph.const dense<2.0> : tensor<4xf32> {node_name = "c2"}
  %a = graph.mul %x, %c1 {node_name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = graph.mul %x, %c2 {node_name = "b"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %p = graph.pow %x, %c1 {node_name = "p"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s1 = graph.add %a, %b {node_name = "s1"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s2 = graph.add %a, %p {_stream_label = "x", node_name = "s2"}
      : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s3 = graph.add %a, %p {node_name = "s3"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = graph.concat_d %s1, %s2, %s3 concat_dim 0
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<12xf32>
  graph.net_output %t : tensor<12xf32>
}
"""
    )
    ops = body(module)
    labels = [op.attributes["node_name"].data for op in ops if "node_name" in op.attributes]
    # c2 == c1, then b == a; s2 keeps its own _stream_label so it does not merge with s3.
    assert labels == ["c1", "a", "p", "s1", "s2", "s3"]
    assert stats.merged == 2
    add = next(op for op in ops if op.attributes.get("node_name") == ops[3].attributes["node_name"])
    assert add.operands[0] is add.operands[1]


def test_dead_nodes_go_and_impure_ops_stay() -> None:
    module, stats = fold(
        """
graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d1 = graph.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %d2 = graph.relu %d1 : (tensor<4xf32>) -> tensor<4xf32>
  %t = "test.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %y = graph.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
""",
    )
    assert names(module) == ["test.op", "graph.neg", "graph.net_output"]
    assert stats.dead == 2


def test_cse_and_dce_can_be_turned_off() -> None:
    text = """
graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = graph.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %y = graph.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
"""
    module, stats = fold(text, cse=False)
    assert names(module).count("graph.neg") == 2 and stats.merged == 0
    module, stats = fold(text, cse=True, dce=False)
    assert names(module).count("graph.neg") == 1 and stats.dead == 0


def test_long_constant_chain_folds_in_one_walk() -> None:
    lines = [
        f"  %v{i + 1} = graph.add %v{i}, %one : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>"
        for i in range(300)
    ]
    text = (
        "graph.graph @main() -> tensor<3xi32> {\n"
        "  %v0 = graph.const dense<[1, 2, 3]> : tensor<3xi32>\n"
        "  %one = graph.const dense<1> : tensor<3xi32>\n" + "\n".join(lines) + "\n"
        "  graph.net_output %v300 : tensor<3xi32>\n}\n"
    )
    module, stats = fold(text)
    assert stats.folded == 300
    const = body(module)[0]
    assert isinstance(const, ConstOp)
    assert numpy_from_dense(const.value).tolist() == [301, 302, 303]


def test_pass_options_and_error() -> None:
    from xdsl.utils.exceptions import PassFailedException

    module = parse(CHAIN)
    FoldConstantsPass(max_size=0).apply(make_context(), module)
    assert "graph.mul" in names(module)
    with pytest.raises(
        PassFailedException, match="ge-fold-constants: max-size must be >= 0, got -1"
    ):
        FoldConstantsPass(max_size=-1).apply(make_context(), module)


# --------------------------------------------------------------------------------------------
# Numbers before/after
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [CHAIN], ids=["chain"])
def test_hand_written_graphs_keep_their_numbers(text: str) -> None:
    check_pass_keeps_numbers(parse(text), FoldConstantsPass(), rtol=0, atol=0)


def test_conv_block_keeps_its_numbers() -> None:
    module = parse((EXAMPLES / "conv_block.mlir").read_text())
    check_pass_keeps_numbers(module, FoldConstantsPass(), rtol=0, atol=0)


def _model_cases() -> list[Path]:
    return sorted(MODELS.glob("*.onnx")) if MODELS.is_dir() else []


@pytest.mark.parametrize("path", _model_cases(), ids=lambda p: p.stem)
def test_exported_models_keep_their_numbers(path: Path) -> None:
    from gedialects.frontend.onnx import import_model
    from gedialects.interpreters.run import run

    module = import_model(path)
    cases = sorted(MODELS.glob(f"{path.stem}*.inputs.npz"))
    inputs = [dict(np.load(c)) for c in cases]
    result = check_pass_keeps_numbers(
        module, "ge-infer-shapes,ge-fold-constants", seeds=(), inputs=inputs, rtol=1e-5, atol=1e-6
    )
    for case, values in zip(cases, inputs, strict=True):
        expected = dict(np.load(str(case).replace(".inputs.npz", ".expected.npz")))
        got = run(result.after, values)
        for name, want in expected.items():
            np.testing.assert_allclose(got[name], want, rtol=1e-4, atol=1e-4, err_msg=name)


def test_cse_merges_into_the_first_equal_op_when_an_unequal_one_shares_its_operands() -> None:
    # n1, n2 and n3 share name and operands; only n1 and n3 are equal (n2 has no label)
    module, stats = fold(
        """
graph.graph @main(%x: tensor<4xf32>) -> tensor<12xf32> {
  %n1 = graph.neg %x {_stream_label = "x", node_name = "n1"} : (tensor<4xf32>) -> tensor<4xf32>
  %n2 = graph.neg %x {node_name = "n2"} : (tensor<4xf32>) -> tensor<4xf32>
  %n3 = graph.neg %x {_stream_label = "x", node_name = "n3"} : (tensor<4xf32>) -> tensor<4xf32>
  %t = graph.concat_d %n1, %n2, %n3 concat_dim 0
      : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<12xf32>
  graph.net_output %t : tensor<12xf32>
}
"""
    )
    ops = body(module)
    assert [op.attributes["node_name"].data for op in ops[:2]] == ["n1", "n2"]  # type: ignore[attr-defined]
    assert stats.merged == 1
    assert ops[2].operands[0] is ops[2].operands[2] is ops[0].results[0]


DCE_SORTED = """
graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d1 = graph.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %a = graph.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %d2 = graph.add %d1, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %t = "test.op"(%d1) : (tensor<4xf32>) -> tensor<4xf32>
  %d3 = graph.relu %t : (tensor<4xf32>) -> tensor<4xf32>
  %y = graph.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
"""

DCE_UNSORTED = """
graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d2 = graph.relu %d1 : (tensor<4xf32>) -> tensor<4xf32>
  %d1 = graph.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %y = graph.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  %a = graph.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
"""


@pytest.mark.parametrize("text", [DCE_SORTED, DCE_UNSORTED], ids=["sorted", "unsorted"])
def test_dead_nodes_are_those_xdsl_region_dce_finds(text: str) -> None:
    """One backward sweep on a sorted body, xDSL's fixed point on an unsorted one: both
    leave what `region_dce` leaves."""
    from xdsl.parser import Parser
    from xdsl.transforms.dead_code_elimination import region_dce

    from gedialects.passes.fold_constants import eliminate_dead_nodes

    def unverified() -> ModuleOp:  # the unsorted body does not verify
        return Parser(make_context(), text).parse_module()

    ours, theirs = unverified(), unverified()
    dead = eliminate_dead_nodes(next(op for op in ours.ops if isinstance(op, GraphOp)))
    region_dce(next(op for op in theirs.ops if isinstance(op, GraphOp)).body)
    assert names(ours) == names(theirs)
    assert len(body(ours)) < len(body(unverified()))  # something was dead
    assert dead == len(body(unverified())) - len(body(ours))
