"""Issue 16 part 6: GE's graph API over a module (`ComputeGraph`) and the Session's inputs and
outputs described as onnxruntime describes them (`get_inputs`, `get_outputs`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from gedialects import Session, make_context
from gedialects.errors import GraphError, GraphIdError
from gedialects.graph import GraphOp
from gedialects.graph.compute_graph import ComputeGraph
from gedialects.interpreters.run import run
from gedialects.session import NodeArg

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "tests" / "models"

IF_MODULE = """
graph.graph @then(%x: tensor<2xf32> {_parent_node_index = 1 : i64}) -> tensor<2xf32> {
  %y = graph.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
graph.graph @else(%x: tensor<2xf32> {_parent_node_index = 1 : i64}) -> tensor<2xf32> {
  graph.net_output %x : tensor<2xf32>
}
graph.graph @main(%c: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = graph.if %c, %x then_branch @then else_branch @else {node_name = "cond_node"}
      : (tensor<i1>, tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %r : tensor<2xf32>
}
"""

NEG = """
graph.graph @neg(%x: tensor<2xf32> {_parent_node_index = 1 : i64}) -> tensor<2xf32> {
  %y = graph.neg %x : (tensor<2xf32>) -> tensor<2xf32>
  graph.net_output %y : tensor<2xf32>
}
"""


def _parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def _names(graphs: list[GraphOp]) -> list[str]:
    return [g.sym_name.data for g in graphs]


# --------------------------------------------------------------------------------------------
# ComputeGraph: get_all_subgraphs, get_subgraph, add_subgraph, remove_subgraph
# --------------------------------------------------------------------------------------------


def test_the_root_is_the_graph_no_node_names() -> None:
    graph = ComputeGraph(_parse(IF_MODULE))
    assert graph.name == "main"
    assert _names(graph.get_all_subgraphs()) == ["then", "else"]
    then = graph.get_subgraph("then")
    assert isinstance(then, GraphOp) and then.sym_name.data == "then"
    assert graph.get_subgraph("missing") is None  # GE: nullptr
    assert graph.get_subgraph("main") is None  # the root is no subgraph of itself


def test_add_subgraph_then_a_node_calls_it() -> None:
    module = _parse(IF_MODULE)
    graph = ComputeGraph(module)
    new = _parse(NEG).ops.first
    assert isinstance(new, GraphOp)
    new.detach()
    assert graph.add_subgraph("negate", new) is new
    assert new.sym_name.data == "negate"  # stored under the name given, as GE's map is
    assert _names(graph.get_all_subgraphs()) == ["then", "else", "negate"]
    assert _names([op for op in module.ops if isinstance(op, GraphOp)])[-1] == "negate"
    # point the If's else branch at it: the module verifies and runs the new branch
    from xdsl.dialects.builtin import SymbolRefAttr

    from gedialects.graph.control import IfOp

    node = next(op for op in module.walk() if isinstance(op, IfOp))
    node.else_branch = SymbolRefAttr("negate")
    module.verify()
    x = np.array([1.0, -2.0], np.float32)
    out = run(module, {"c": np.array(False), "x": x}, "main")
    np.testing.assert_array_equal(next(iter(out.values())), -x)
    # @else is named by nobody now: a second root, so the root must be named
    with pytest.raises(GraphError, match=r"2 root graphs \(@else, @main\); name the root"):
        ComputeGraph(module)
    assert ComputeGraph(module, root="main").remove_subgraph("else") is not None
    assert _names(ComputeGraph(module).get_all_subgraphs()) == ["then", "negate"]


def test_add_subgraph_refuses_a_used_name_and_an_attached_graph() -> None:
    module = _parse(IF_MODULE)
    graph = ComputeGraph(module)
    new = _parse(NEG).ops.first
    assert isinstance(new, GraphOp)
    with pytest.raises(GraphError, match="@neg is already in a module; pass a detached graph"):
        graph.add_subgraph("neg", new)
    new.detach()
    with pytest.raises(GraphError, match="already has a symbol @then"):
        graph.add_subgraph("then", new)
    with pytest.raises(GraphError, match=r"takes a graph\.graph, not ModuleOp"):
        graph.add_subgraph("x", module)  # pyright: ignore[reportArgumentType]
    with pytest.raises(GraphError, match="'' is not a graph name"):
        graph.add_subgraph("", new)
    assert _names(graph.get_all_subgraphs()) == ["then", "else"]


def test_remove_subgraph_is_refused_while_a_node_names_it() -> None:
    module = _parse(IF_MODULE)
    graph = ComputeGraph(module)
    with pytest.raises(GraphError) as error:
        graph.remove_subgraph("then")
    assert str(error.value) == (
        "remove_subgraph: @then is still named by 'graph.if' 'cond_node'; "
        "remove or rewrite the node first"
    )
    assert graph.remove_subgraph("missing") is None  # GE: nothing to do
    assert graph.remove_subgraph("main") is None  # the root is not a subgraph
    assert _names(graph.get_all_subgraphs()) == ["then", "else"]
    module.verify()


def test_compute_graph_over_an_imported_control_flow_model(tmp_path: Path) -> None:
    """The subgraphs of an ONNX If come in as module graphs named by GE's scheme."""
    import onnx
    from onnx import TensorProto
    from onnx import helper as h

    from gedialects.frontend.onnx import import_model

    def branch(name: str, op: str) -> onnx.GraphProto:
        out = h.make_tensor_value_info(f"{name}_y", TensorProto.FLOAT, [2])
        return h.make_graph([h.make_node(op, ["x"], [f"{name}_y"])], name, [], [out])

    node = h.make_node(
        "If", ["c"], ["y"], name="pick", then_branch=branch("t", "Relu"),
        else_branch=branch("e", "Neg"),
    )  # fmt: skip
    g = h.make_graph(
        [node],
        "net",
        [
            h.make_tensor_value_info("c", TensorProto.BOOL, []),
            h.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
        ],
        [h.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    path = tmp_path / "if.onnx"
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]), path)
    graph = ComputeGraph(import_model(path))
    assert graph.name == "net"
    subgraphs = _names(graph.get_all_subgraphs())
    assert len(subgraphs) == 2 and all(name.startswith("pick_") for name in subgraphs)
    with pytest.raises(GraphError, match=r"still named by 'graph\.if'"):
        graph.remove_subgraph(subgraphs[0])


def test_a_named_root_must_exist() -> None:
    with pytest.raises(GraphError, match=r"no graph.graph @nope in the module \(graphs: then, "):
        ComputeGraph(_parse(IF_MODULE), root="nope")
    with pytest.raises(GraphError, match=r"0 root graphs \(none\)"):
        ComputeGraph(ModuleOp([]))


# --------------------------------------------------------------------------------------------
# Session.get_inputs / get_outputs (onnxruntime's NodeArg: name, shape, type)
# --------------------------------------------------------------------------------------------


def test_get_inputs_and_outputs_like_onnxruntime() -> None:
    ort = pytest.importorskip("onnxruntime")
    session = Session()
    session.add_graph(0, str(MODELS / "mlp.onnx"))
    reference = ort.InferenceSession(str(MODELS / "mlp.onnx"))
    for ours, theirs in (
        (session.get_inputs(), reference.get_inputs()),
        (session.get_outputs(), reference.get_outputs()),
    ):
        assert [(a.name, list(a.shape or ()), a.type) for a in ours] == [
            (a.name, a.shape, a.type) for a in theirs
        ]
    assert session.get_inputs()[0].dtype == np.float32
    # what get_inputs says is what run takes and returns
    feed = {a.name: np.zeros(a.shape, a.dtype) for a in session.get_inputs()}
    (out,) = session.run(None, feed)
    assert out.shape == session.get_outputs()[0].shape


def test_get_inputs_of_a_gear_graph_leaves_the_gear_dim_open() -> None:
    session = Session()
    options = {"ge.inputShape": "image:-1,3,16,16", "ge.dynamicBatchSize": "1,4,8"}
    session.add_graph(1, str(MODELS / "cnn.onnx"), options)
    assert session.get_inputs() == (
        NodeArg("image", (None, 3, 16, 16), "tensor(float)", np.dtype(np.float32)),
    )
    assert session.get_outputs() == (
        NodeArg("logits", (None, 10), "tensor(float)", np.dtype(np.float32)),
    )


def test_get_outputs_of_a_data_dependent_shape() -> None:
    session = Session()
    session.add_graph(3, str(MODELS / "nonzero.onnx"))
    outputs = session.get_outputs(3)
    assert [(a.name, a.shape, a.type) for a in outputs] == [
        ("indices", (None, 2), "tensor(int64)"),
        ("picked", (None,), "tensor(float)"),
        ("total", (1,), "tensor(float)"),
    ]


def test_get_inputs_needs_a_graph_id_with_several_graphs() -> None:
    session = Session()
    with pytest.raises(GraphIdError, match=r"get_inputs needs graph_id: .* 0 graphs \(none\)"):
        session.get_inputs()
    session.add_graph(1, str(MODELS / "mlp.onnx"))
    session.add_graph(2, str(MODELS / "mlp.onnx"))
    with pytest.raises(GraphIdError, match=r"get_outputs needs graph_id: .* 2 graphs \(1, 2\)"):
        session.get_outputs()
    assert session.get_outputs(2)[0].name == "scores"
    with pytest.raises(GraphIdError, match="graph id 9 was not added"):
        session.get_inputs(9)
