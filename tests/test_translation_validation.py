"""Translation validation: the pytest helper catches a pass that changes numbers, and
`ge-run --compare` does the same for two files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from gedialects.graph import NegOp, ReluOp
from gedialects.passes.fold_constants import FoldConstantsPass
from gedialects.passes.translation_validation import (
    NumbersChanged,
    check_pass_keeps_numbers,
    compare_outputs,
)
from tests.conftest import EXAMPLES, parse, run_tool

GRAPH = """
graph.graph @main(%x: tensor<?x4xf32> {node_name = "x"}) -> (tensor<?x4xf32> {node_name = "y"}) {
  %c = graph.const dense<0.25> : tensor<4xf32>
  %r = graph.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %y = graph.add %r, %c : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  graph.net_output %y : tensor<?x4xf32>
}
"""


@dataclass(frozen=True)
class ReluToNeg(ModulePass):
    """A wrong rewrite: Relu becomes Neg."""

    name = "test-relu-to-neg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for relu in [o for o in op.walk() if isinstance(o, ReluOp)]:
            neg = NegOp(relu.x, result_type=relu.y.type)
            relu.parent_block().insert_op_before(neg, relu)
            relu.y.replace_all_uses_with(neg.y)
            relu.parent_block().erase_op(relu)


def test_a_wrong_pass_is_caught_with_seed_and_output() -> None:
    module = parse(GRAPH.replace("?x4", "2x4"))
    with pytest.raises(NumbersChanged) as info:
        check_pass_keeps_numbers(
            module, [ReluToNeg()], inputs={"x": np.ones((2, 4), np.float32)}, seeds=(7,)
        )
    message = str(info.value)
    assert message.startswith("'test-relu-to-neg' changed the numbers: inputs #0: output 'y'")
    assert "max abs diff 2" in message and "seed 7: output 'y'" in message
    # The module given is left as it was.
    assert "graph.relu" in str(module)


def test_random_inputs_come_from_the_pinned_signature() -> None:
    result = check_pass_keeps_numbers(
        parse(GRAPH), 'ge-infer-shapes{input-shape="x:3,4"},ge-fold-constants', seeds=(0, 1)
    )
    assert result.runs == 2 and result.max_abs_diff == {"y": 0.0}


def test_dynamic_inputs_without_pins_need_given_inputs() -> None:
    from gedialects.interpreters.run import RunError

    with pytest.raises(RunError, match="random inputs need static shapes"):
        check_pass_keeps_numbers(parse(GRAPH), FoldConstantsPass())


def test_compare_outputs_reports_shape_dtype_and_missing() -> None:
    a = {"y": np.zeros((2,), np.float32), "z": np.zeros(1, np.int32)}
    b = {"y": np.zeros((3,), np.float32), "z": np.zeros(1, np.int64), "w": np.zeros(1)}
    assert compare_outputs(a, b) == [
        "output 'w' is missing after",
        "output 'y' has shape [2], expected [3]",
        "output 'z' has dtype int32, expected int64",
    ]
    nan = {"y": np.array([np.nan, 1.0])}
    assert compare_outputs(nan, {"y": np.array([np.nan, 1.0])}) == []


def test_ge_run_compare(tmp_path: Path) -> None:
    folded = tmp_path / "folded.mlir"
    done = run_tool("ge-opt", str(EXAMPLES / "conv_block.mlir"), "-p", "ge-fold-constants")
    assert done.returncode == 0, done.stderr
    folded.write_text(done.stdout)
    same = run_tool(
        "ge-run",
        "--compare",
        str(EXAMPLES / "conv_block.mlir"),
        str(folded),
        "--random-inputs",
        "4",
    )
    assert same.returncode == 0, same.stderr
    assert same.stdout.startswith("MATCH: ") and "agree on all 1 outputs" in same.stdout
    changed = tmp_path / "changed.mlir"
    changed.write_text(
        (EXAMPLES / "conv_block.mlir")
        .read_text()
        .replace("graph.relu %conv2", "graph.sigmoid %conv2")
    )
    diff = run_tool(
        "ge-run",
        "--compare",
        str(EXAMPLES / "conv_block.mlir"),
        str(changed),
        "--random-inputs",
        "0",
    )
    assert diff.returncode == 1
    assert "MISMATCH between" in diff.stdout and "seed 0: output 'logits' differs" in diff.stdout
    usage = run_tool("ge-run", "--compare", str(folded), str(folded))
    assert usage.returncode == 1
    assert "error: --compare needs --random-inputs SEED, --inputs or --input" in usage.stderr


def test_string_outputs_compare_as_text_whatever_their_widths() -> None:
    """Strings of another numpy width are the same output; other text is one line naming the
    count and the first difference (not np.allclose, which refuses strings)."""
    want = {"y": np.array([["ab", ""], ["c", "d"]], dtype="<U2")}
    assert compare_outputs({"y": want["y"].astype("<U9")}, want) == []
    got = {"y": np.array([["ab", ""], ["c", "e"]])}
    assert compare_outputs(got, want) == [
        "output 'y' differs: 1 of 4 strings, first at [1, 1]: 'e', expected 'd'"
    ]
