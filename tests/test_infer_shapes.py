"""ge-infer-shapes: the type lattice, input-shape pinning, the worklist, subgraphs, errors and
numerical before/after checks."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType, UnrankedTensorType, f16, f32, i64
from xdsl.utils.exceptions import PassFailedException

from gedialects import make_context
from gedialects.graph import GraphOp
from gedialects.passes.infer_shapes import (
    InferShapesPass,
    ShapeInference,
    TypeConflict,
    join_types,
    meet_types,
    parse_input_shape,
)
from gedialects.passes.translation_validation import check_pass_keeps_numbers
from tests.conftest import EXAMPLES, parse

Q = -1


def t(*dims: int, elem=f32) -> TensorType:
    from gedialects.graph import tensor_of

    return tensor_of(elem, dims)  # type: ignore[return-value]


def infer(module: ModuleOp, input_shape: str = "") -> ModuleOp:
    InferShapesPass(input_shape=input_shape).apply(make_context(), module)
    module.verify()
    return module


def graph(module: ModuleOp, name: str) -> GraphOp:
    for op in module.ops:
        if isinstance(op, GraphOp) and op.sym_name.data == name:
            return op
    raise KeyError(name)


def result_types(module: ModuleOp, name: str) -> dict[str, str]:
    """SSA name -> printed type of every result in graph `name`."""
    return {
        r.name_hint or "": str(r.type)
        for op in graph(module, name).body.block.ops
        for r in op.results
    }


# --------------------------------------------------------------------------------------------
# Lattice and option grammar
# --------------------------------------------------------------------------------------------


def test_meet_refines_unknown_dims_and_ranks() -> None:
    assert meet_types(t(Q, 4), t(3, Q)) == t(3, 4)
    assert meet_types(UnrankedTensorType(f32), t(2, Q)) == t(2, Q)
    assert meet_types(t(2, 4), UnrankedTensorType(f32)) == t(2, 4)


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (t(2, 4), t(3, 4), "dim 0 is 2 in one and 3 in the other"),
        (t(2, 4), t(2, 4, 1), "ranks 2 and 3 differ"),
        (t(2), t(2, elem=f16), "element types f32 and f16 differ"),
    ],
)
def test_meet_conflicts(a: TensorType, b: TensorType, message: str) -> None:
    with pytest.raises(TypeConflict, match=message):
        meet_types(a, b)


def test_join_generalises_dims_then_ranks() -> None:
    assert join_types(t(2, 3), t(4, 3)) == t(Q, 3)
    assert join_types(t(2, 3), t(2, 3)) == t(2, 3)
    assert join_types(t(2, 3), t(2, 3, 1)) == UnrankedTensorType(f32)
    with pytest.raises(TypeConflict, match="element types f32 and i64 differ"):
        join_types(t(2), t(2, elem=i64))


def test_input_shape_grammar_splits_at_the_last_colon() -> None:
    assert parse_input_shape("x:1,3,224,224; y:2,-1 ;") == {"x": (1, 3, 224, 224), "y": (2, -1)}
    assert parse_input_shape("scope:inner:5") == {"scope:inner": (5,)}
    assert parse_input_shape("s:") == {"s": ()}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x:1,a", "input-shape dim 'a' of 'x' is not an integer"),
        ("x:1.5", "input-shape dim '1.5' of 'x' is not an integer"),
        ("x", "input-shape item 'x' is not NAME:DIMS"),
        ("x:1;x:2", "input-shape names 'x' twice"),
        ("x:-3", "input-shape dim -3 of 'x' must be >= -1"),
    ],
)
def test_input_shape_grammar_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_input_shape(text)


# --------------------------------------------------------------------------------------------
# Pinning and refinement
# --------------------------------------------------------------------------------------------

DYNAMIC = """
graph.graph @main(%x: tensor<?x4xf32> {node_name = "x"}, %b: tensor<4xf32> {node_name = "b"})
    -> tensor<?x4xf32> {
  %r = graph.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %s = graph.add %r, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %e = graph.exp %s : (tensor<?x4xf32>) -> tensor<?x4xf32>
  graph.net_output %e : tensor<?x4xf32>
}
"""


def test_pinned_input_makes_the_graph_static() -> None:
    module = infer(parse(DYNAMIC), "x:3,4")
    main = graph(module, "main")
    assert result_types(module, "main") == {
        "r": "tensor<3x4xf32>",
        "s": "tensor<3x4xf32>",
        "e": "tensor<3x4xf32>",
    }
    assert main.function_type.inputs.data == (t(3, 4), t(4))
    assert main.function_type.outputs.data == (t(3, 4),)


def test_without_pins_dynamic_dims_stay() -> None:
    module = infer(parse(DYNAMIC))
    assert set(result_types(module, "main").values()) == {"tensor<?x4xf32>"}


def test_declared_types_are_never_made_less_precise() -> None:
    module = infer(
        parse(
            """
graph.graph @main(%x: tensor<?x4xf32>) -> tensor<2x4xf32> {
  %r = graph.relu %x : (tensor<?x4xf32>) -> tensor<2x4xf32>
  %n = graph.neg %r : (tensor<2x4xf32>) -> tensor<?x4xf32>
  %a = graph.abs %n : (tensor<?x4xf32>) -> tensor<*xf32>
  %c = graph.relu %a : (tensor<*xf32>) -> tensor<2x4xf32>
  graph.net_output %c : tensor<2x4xf32>
}
"""
        )
    )
    types = result_types(module, "main")
    assert types == {
        "r": "tensor<2x4xf32>",
        "n": "tensor<2x4xf32>",
        "a": "tensor<2x4xf32>",
        "c": "tensor<2x4xf32>",
    }


def test_shape_arithmetic_through_shape_gather_reshape() -> None:
    module = infer(
        parse(
            """
graph.graph @main(%x: tensor<?x4xf32> {node_name = "x"}, %y: tensor<?xf32> {node_name = "y"})
    -> tensor<?x?xf32> {
  %s = graph.shape %x : (tensor<?x4xf32>) -> tensor<2xi64>
  %i = graph.const dense<[1, 0]> : tensor<2xi64>
  %g = graph.gather_v2d %s, %i : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %r = graph.reshape %y, %g : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  graph.net_output %r : tensor<?x?xf32>
}
"""
        ),
        "x:3,4;y:12",
    )
    assert result_types(module, "main")["r"] == "tensor<4x3xf32>"
    # Nothing was folded: the values were computed during inference only.
    assert [op.name for op in graph(module, "main").body.block.ops].count("graph.shape") == 1


def test_worklist_visits_each_op_a_bounded_number_of_times(monkeypatch) -> None:
    length = 200
    lines = [
        f"  %v{i + 1} = graph.relu %v{i} : (tensor<?x4xf32>) -> tensor<?x4xf32>"
        for i in range(length)
    ]
    text = (
        "graph.graph @main(%v0: tensor<?x4xf32>) -> tensor<?x4xf32> {\n"
        + "\n".join(lines)
        + f"\n  graph.net_output %v{length} : tensor<?x4xf32>\n}}\n"
    )
    visits = 0
    original = ShapeInference.visit

    def counting(self: ShapeInference, op) -> None:
        nonlocal visits
        visits += 1
        original(self, op)

    monkeypatch.setattr(ShapeInference, "visit", counting)
    module = infer(parse(text), "v0:5,4")
    assert result_types(module, "main")[f"v{length}"] == "tensor<5x4xf32>"
    # One visit per op from the initial list, one more for each op whose operand changed after
    # it was visited (none here: ops are queued in topological order). Repeated sweeps would
    # need length + 1 sweeps of length + 1 ops.
    assert visits <= 2 * (length + 1)


# --------------------------------------------------------------------------------------------
# Subgraphs
# --------------------------------------------------------------------------------------------

CALLS = """
graph.graph @main(%x: tensor<?x4xf32> {node_name = "x"}) -> tensor<?x4xf32> {
  %c = partition.partitioned_call @sub(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %r = graph.relu %c : (tensor<?x4xf32>) -> tensor<?x4xf32>
  graph.net_output %r : tensor<?x4xf32>
}
graph.graph @sub(%a: tensor<*xf32>) -> tensor<*xf32> {
  %n = graph.neg %a : (tensor<*xf32>) -> tensor<*xf32>
  graph.net_output %n : tensor<*xf32>
}
"""


def test_types_flow_into_and_out_of_a_partitioned_call() -> None:
    module = infer(parse(CALLS), "x:2,4")
    sub = graph(module, "sub")
    assert tuple(sub.body.block.arg_types) == (t(2, 4),)
    assert sub.function_type.outputs.data == (t(2, 4),)
    assert result_types(module, "main") == {"c": "tensor<2x4xf32>", "r": "tensor<2x4xf32>"}


def test_a_callee_with_two_callers_takes_their_join() -> None:
    module = infer(
        parse(
            """
graph.graph @main(%x: tensor<2x4xf32>, %y: tensor<3x4xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %c = partition.partitioned_call @sub(%x) : (tensor<2x4xf32>) -> tensor<*xf32>
  %d = partition.partitioned_call @sub(%y) : (tensor<3x4xf32>) -> tensor<*xf32>
  graph.net_output %c, %d : tensor<*xf32>, tensor<*xf32>
}
graph.graph @sub(%a: tensor<*xf32>) -> tensor<*xf32> {
  %n = graph.neg %a : (tensor<*xf32>) -> tensor<*xf32>
  graph.net_output %n : tensor<*xf32>
}
"""
        )
    )
    assert tuple(graph(module, "sub").body.block.arg_types) == (t(Q, 4),)
    assert result_types(module, "main") == {"c": "tensor<?x4xf32>", "d": "tensor<?x4xf32>"}


CASE = """
graph.graph @main(%i: tensor<i32>, %x: tensor<*xf32>) -> tensor<*xf32> {
  %r = multibatch.case %i, %x branches [@b0, @b1] : (tensor<i32>, tensor<*xf32>) -> tensor<*xf32>
  graph.net_output %r : tensor<*xf32>
}
graph.graph @b0(%a: tensor<*xf32>) -> tensor<*xf32> {
  %s = graph.const dense<[2, 3]> : tensor<2xi64>
  %y = graph.reshape %a, %s : (tensor<*xf32>, tensor<2xi64>) -> tensor<*xf32>
  graph.net_output %y : tensor<*xf32>
}
graph.graph @b1(%a: tensor<*xf32>) -> tensor<*xf32> {
  %s = graph.const dense<[SHAPE]> : tensor<RANKxi64>
  %y = graph.reshape %a, %s : (tensor<*xf32>, tensor<RANKxi64>) -> tensor<*xf32>
  graph.net_output %y : tensor<*xf32>
}
"""


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        ("2, 3", "tensor<2x3xf32>"),
        ("6, 1", "tensor<?x?xf32>"),
        ("1, 3", "tensor<?x3xf32>"),
        ("1, 2, 3", "tensor<*xf32>"),
    ],
)
def test_case_results_join_the_branch_outputs(shape: str, expected: str) -> None:
    rank = str(len(shape.split(",")))
    module = infer(parse(CASE.replace("SHAPE", shape).replace("RANK", rank)))
    assert result_types(module, "main")["r"] == expected


def test_case_branches_with_different_dtypes_are_an_error() -> None:
    # Programmatically built (nothing verified it): branch @b1 yields f16.
    module = parse(CASE.replace("SHAPE", "2, 3").replace("RANK", "2"))
    b1 = graph(module, "b1")
    from xdsl.dialects.builtin import FunctionType

    b1.function_type = FunctionType.from_lists([UnrankedTensorType(f32)], [UnrankedTensorType(f16)])
    with pytest.raises(
        PassFailedException,
        match=(
            r"ge-infer-shapes: @main: 'multibatch.case' %r: branches @b0 and @b1 give result 0 "
            r"different element types \(tensor<\*xf32> and tensor<\*xf16>\)"
        ),
    ):
        InferShapesPass().apply(make_context(), module)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pins", "message"),
    [
        (
            DYNAMIC.replace(
                "%r = graph.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>",
                '%r = graph.relu %x {node_name = "r"} : (tensor<?x4xf32>) -> tensor<2x4xf32>',
            ).replace("graph.add %r, %b : (tensor<?x4xf32>", "graph.add %r, %b : (tensor<2x4xf32>"),
            "x:3,4",
            "ge-infer-shapes: @main: 'graph.relu' \"r\": result 0 is declared tensor<2x4xf32> but "
            "inference gives tensor<3x4xf32> (dim 0 is 2 in one and 3 in the other)",
        ),
        (
            DYNAMIC,
            "b:5",
            "ge-infer-shapes: input-shape dim 0 of 'b' is 5 but @main declares 4 (tensor<4xf32>)",
        ),
        (
            DYNAMIC,
            "x:3,4,1",
            "ge-infer-shapes: input-shape gives 'x' 3 dims (3,4,1) but @main declares rank 2 "
            "(tensor<?x4xf32>)",
        ),
        (
            DYNAMIC,
            "z:1",
            "ge-infer-shapes: input-shape names 'z', which is not a graph input (x, b)",
        ),
    ],
)
def test_errors_name_the_op_or_input(text: str, pins: str, message: str) -> None:
    with pytest.raises(PassFailedException) as info:
        infer(parse(text), pins)
    assert str(info.value) == message


def test_operands_that_cannot_go_together_are_an_error() -> None:
    module = parse(
        """
graph.graph @main(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s = graph.add %x, %y {node_name = "sum"} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  graph.net_output %s : tensor<?x4xf32>
}
"""
    )
    with pytest.raises(PassFailedException) as info:
        infer(module, "x:3,4;y:5,4")
    assert str(info.value) == (
        "ge-infer-shapes: @main: 'graph.add' \"sum\": cannot infer its result types: operand "
        "shapes [3, 4] and [5, 4] do not broadcast"
    )


# --------------------------------------------------------------------------------------------
# Numbers before/after
# --------------------------------------------------------------------------------------------


def test_conv_block_keeps_its_numbers() -> None:
    module = parse((EXAMPLES / "conv_block.mlir").read_text())
    check_pass_keeps_numbers(module, InferShapesPass(), seeds=(0, 1, 2), rtol=0, atol=0)


def test_pinned_graph_keeps_its_numbers() -> None:
    module = parse(DYNAMIC)
    result = check_pass_keeps_numbers(
        module, 'ge-infer-shapes{input-shape="x:3,4"}', rtol=0, atol=0
    )
    assert graph(result.after, "main").function_type.outputs.data == (t(3, 4),)


def test_subgraph_graph_keeps_its_numbers() -> None:
    module = parse(CALLS)
    result = check_pass_keeps_numbers(module, InferShapesPass(input_shape="x:2,4"), rtol=0, atol=0)
    assert result.runs == 3


def test_pinned_transformer_becomes_static_and_keeps_its_numbers() -> None:
    import numpy as np

    from gedialects.frontend.onnx import import_model
    from tests.conftest import ROOT

    models = ROOT / "tests" / "models"
    if not (models / "transformer.onnx").exists():
        pytest.skip("tests/models/transformer.onnx is not exported")
    module = import_model(models / "transformer.onnx")
    inputs = dict(np.load(models / "transformer.inputs.npz"))
    dims = ",".join(str(d) for d in inputs["tokens"].shape)
    pipeline = f'ge-infer-shapes{{input-shape="tokens:{dims}"}},ge-fold-constants'
    result = check_pass_keeps_numbers(module, pipeline, seeds=(0, 1), inputs=inputs)
    ops = list(result.after.walk())
    # The Shape -> Gather -> Concat -> Reshape chains of the attention heads all became static
    # and folded away.
    assert not any("?" in str(t) for op in ops for t in (*op.operand_types, *op.result_types))
    assert not [op.name for op in ops if op.name in ("graph.shape", "graph.gather_v2d")]
