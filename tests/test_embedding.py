"""Embedding: our dialects and passes inside a plain xDSL context and inside stock xdsl-opt."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.parser import Parser
from xdsl.universe import Universe

import gedialects
from gedialects.ascend import ModelOp
from gedialects.interpreters.run import run
from gedialects.passes import get_all_passes
from gedialects.passes.convert_graph_to_ascend import ConvertGraphToAscendPass
from tests.conftest import EXAMPLES, run_tool

RELU = """
graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
"""


def test_dialect_objects_and_register_all() -> None:
    assert [gedialects.Graph.name, gedialects.Partition.name] == ["graph", "partition"]
    assert [gedialects.Multibatch.name, gedialects.Ascend.name] == ["multibatch", "ascend"]
    ctx = Context()
    for name, factory in get_all_dialects().items():  # every stock xDSL dialect ...
        ctx.register_dialect(name, factory)
    gedialects.register_all(ctx)  # ... plus ours, without clashes
    assert {"graph", "partition", "multibatch", "ascend", "func", "linalg"} <= set(
        ctx.registered_dialect_names
    )
    gedialects.register_all(ctx)  # idempotent


def test_run_our_pass_in_a_plain_xdsl_context() -> None:
    ctx = Context()
    for name in ("builtin", "func", "arith"):
        ctx.register_dialect(name, get_all_dialects()[name])
    gedialects.register_all(ctx)
    module = Parser(ctx, RELU).parse_module()
    pass_cls = get_all_passes()["ge-convert-graph-to-ascend"]()
    assert pass_cls is ConvertGraphToAscendPass and pass_cls.name == "ge-convert-graph-to-ascend"
    pass_cls().apply(ctx, module)
    module.verify()
    assert isinstance(module.body.block.first_op, ModelOp)
    out = run(module, {"x": np.array([-1, 2, -3, 4], np.float32)})
    np.testing.assert_array_equal(out["output0"], [0, 2, 0, 4])


def test_multiverse_sees_our_entry_point_without_clashes() -> None:
    multiverse = Universe.get_multiverse()  # raises on a dialect or pass name clash
    assert {"graph", "partition", "multibatch", "ascend"} <= set(multiverse.all_dialects)
    assert set(get_all_passes()) <= set(multiverse.all_passes)


def test_stock_xdsl_opt_runs_our_pass() -> None:
    result = run_tool("xdsl-opt", str(EXAMPLES / "conv_block.mlir"), "-p", "ge-compile")
    assert result.returncode == 0, result.stderr
    assert "ascend.model @conv_block" in result.stdout
    assert "graph.graph" not in result.stdout
