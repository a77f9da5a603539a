"""ge-verify-graph: cycles, op checks and the memory estimate, on parsed and hand-built graphs."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType, f32
from xdsl.ir import Block, ErasedSSAValue, Operation, Region
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException, VerifyException

from gedialects import make_context
from gedialects.base import GEOp
from gedialects.graph import AddOp, ExpOp, GraphOp, NetOutputOp, ReluOp
from gedialects.passes.translation_validation import check_pass_keeps_numbers
from gedialects.passes.verify_graph import MemoryModel, VerifyGraphPass
from tests.conftest import EXAMPLES, parse


def unverified(text: str) -> ModuleOp:
    """Parsed but not verified: stands for a graph built with the Python API."""
    return Parser(make_context(), text).parse_module()


def error(module: ModuleOp, device_memory: int = 0) -> str:
    with pytest.raises(PassFailedException) as info:
        VerifyGraphPass(device_memory=device_memory).apply(make_context(), module)
    return str(info.value)


def test_a_valid_graph_passes_unchanged() -> None:
    text = (EXAMPLES / "conv_block.mlir").read_text()
    module = parse(text)
    VerifyGraphPass(device_memory=1 << 20).apply(make_context(), module)
    assert str(module) == str(parse(text))


def test_cycle_is_reported_with_its_ops() -> None:
    module = unverified(
        """
graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.add %x, %c {node_name = "a"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = graph.relu %a {node_name = "b"} : (tensor<4xf32>) -> tensor<4xf32>
  %c = graph.neg %b {node_name = "c"} : (tensor<4xf32>) -> tensor<4xf32>
  %y = graph.exp %x {node_name = "y"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %y : tensor<4xf32>
}
"""
    )
    assert error(module) == (
        "ge-verify-graph: @main: the graph has a cycle: 'graph.add' \"a\" -> 'graph.relu' \"b\" "
        "-> 'graph.neg' \"c\" -> 'graph.add' \"a\""
    )


def test_an_acyclic_body_out_of_order_is_named() -> None:
    module = unverified(
        """
graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %b = graph.relu %a {node_name = "b"} : (tensor<4xf32>) -> tensor<4xf32>
  %a = graph.neg %x {node_name = "a"} : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %b : tensor<4xf32>
}
"""
    )
    assert error(module) == (
        "ge-verify-graph: @main: 'graph.relu' \"b\" uses the result of 'graph.neg' \"a\" before "
        "it is defined (no cycle, but the body is not in topological order)"
    )


def test_a_cycle_built_with_the_python_api() -> None:
    t = TensorType(f32, [4])
    block = Block(arg_types=[t])
    relu = ReluOp(block.args[0])
    add = AddOp(relu.y, block.args[0])
    relu.operands = [add.y]  # relu <- add <- relu
    block.add_ops([relu, add, NetOutputOp([add.y])])
    module = ModuleOp([GraphOp("g", [t], [t], Region(block))])
    assert error(module) == (
        "ge-verify-graph: @g: the graph has a cycle: 'graph.relu' -> 'graph.add' -> 'graph.relu'"
    )


def test_graphs_calling_each_other_are_a_cycle() -> None:
    # The module verifier names the cycle before ge-verify-graph is reached.
    cycle = r"graphs call each other in a cycle @a -> @b -> @a"
    with pytest.raises(VerifyException, match=cycle):
        parse(
            """
graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = partition.partitioned_call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = partition.partitioned_call @b(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
graph.graph @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = partition.partitioned_call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %r : tensor<4xf32>
}
"""
        )


def test_foreign_ops_are_unsupported() -> None:
    module = parse(
        """
graph.graph @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = "test.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  graph.net_output %t : tensor<4xf32>
}
"""
    )
    assert error(module) == (
        "ge-verify-graph: @main: 'test.op' %t is not a GE node type (unsupported op)"
    )


def test_op_verifier_failures_name_graph_and_node() -> None:
    t = TensorType(f32, [4])
    block = Block(arg_types=[t, TensorType(f32, [3])])
    add = AddOp(block.args[0], block.args[1], result_type=t)
    add.attributes["node_name"] = StringAttr("bad_add")
    block.add_ops([add, NetOutputOp([add.y])])
    module = ModuleOp([GraphOp("g", [t, TensorType(f32, [3])], [t], Region(block))])
    message = error(module)
    assert message.startswith("ge-verify-graph: @g: 'graph.add' \"bad_add\": 'graph.add' ")
    assert "[4] and [3]" in message


MEMORY = """
graph.graph @main(%x: tensor<1024xf32> {node_name = "x"}) -> tensor<1024xf32> {
  %w = graph.const dense<1.0> : tensor<1024xf32> {node_name = "w"}
  %a = graph.exp %x {node_name = "a"} : (tensor<1024xf32>) -> tensor<1024xf32>
  %b = graph.relu %a {node_name = "b"} : (tensor<1024xf32>) -> tensor<1024xf32>
  %c = graph.add %a, %b {node_name = "c"} : (tensor<1024xf32>, tensor<1024xf32>)
      -> tensor<1024xf32>
  %d = partition.partitioned_call @sub(%c) {node_name = "d"}
      : (tensor<1024xf32>) -> tensor<1024xf32>
  %e = graph.mul %d, %w {node_name = "e"} : (tensor<1024xf32>, tensor<1024xf32>)
      -> tensor<1024xf32>
  graph.net_output %e : tensor<1024xf32>
}
graph.graph @sub(%p: tensor<1024xf32>) -> tensor<1024xf32> {
  %m = graph.const dense<8> : tensor<1xi64> {node_name = "m"}
  %axes = graph.const dense<0> : tensor<1xi64> {node_name = "axes"}
  %big = graph.tile %p, %m {node_name = "big"} : (tensor<1024xf32>, tensor<1xi64>)
      -> tensor<8192xf32>
  %s = graph.reduce_sum %big, %axes {node_name = "s"} : (tensor<8192xf32>, tensor<1xi64>)
      -> tensor<f32>
  %y = graph.add %p, %s {node_name = "y"} : (tensor<1024xf32>, tensor<f32>) -> tensor<1024xf32>
  graph.net_output %y : tensor<1024xf32>
}
"""


def _memory_module() -> ModuleOp:
    return parse(MEMORY)


def test_memory_peak_includes_the_working_set_of_a_callee() -> None:
    module = _memory_module()
    graphs = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    model = MemoryModel(graphs)
    sub = model.estimate("sub")
    # At `s`: p (4 KiB, still needed by y), big (32 KiB) and s (4 B).
    assert sub.peak == 4096 + 32768 + 4
    main = model.estimate("main")
    # At `d`: c (operand) and d (result) plus the callee's peak minus its inputs and outputs.
    assert main.peak == 4096 + 4096 + (sub.peak - 4096 - 4096)
    assert sum(main.weights.values()) == 4096 + 8 + 8


def test_memory_that_does_not_fit_names_the_largest_tensors() -> None:
    module = _memory_module()
    VerifyGraphPass(device_memory=40980).apply(make_context(), module)
    assert error(module, 40979) == (
        "ge-verify-graph: @main: needs about 40980 bytes (weights 4112, peak activations 36868 "
        "at 'partition.partitioned_call' \"d\"), more than device-memory=40979; largest tensors: "
        "'graph.add' \"c\" : tensor<1024xf32> (4096 B); 'graph.const' \"w\" : tensor<1024xf32> "
        "(4096 B); 'partition.partitioned_call' \"d\" : tensor<1024xf32> (4096 B)"
    )


def test_unknown_sizes_are_counted_and_reported() -> None:
    module = parse(
        """
graph.graph @main(%x: tensor<?x256xf32>, %y: tensor<256xf32>) -> tensor<?x256xf32> {
  %a = graph.add %x, %y : (tensor<?x256xf32>, tensor<256xf32>) -> tensor<?x256xf32>
  graph.net_output %a : tensor<?x256xf32>
}
"""
    )
    assert error(module, 100) == (
        "ge-verify-graph: @main: needs about 1024 bytes (weights 0, peak activations 1024 at "
        "'graph.add' %a), more than device-memory=100; largest tensors: input 'y' : "
        "tensor<256xf32> (1024 B); 'graph.add' %a : tensor<?x256xf32> (0 B); input 'x' : "
        "tensor<?x256xf32> (0 B); 2 tensors of unknown size not counted"
    )


def test_negative_device_memory_is_refused() -> None:
    with pytest.raises(PassFailedException, match="device-memory must be >= 0, got -5"):
        VerifyGraphPass(device_memory=-5).apply(make_context(), parse(MEMORY))


def test_verification_keeps_the_numbers() -> None:
    module = parse((EXAMPLES / "conv_block.mlir").read_text())
    check_pass_keeps_numbers(module, VerifyGraphPass(device_memory=1 << 20), rtol=0, atol=0)
    check_pass_keeps_numbers(_memory_module(), VerifyGraphPass(device_memory=1 << 20))


def _outcomes(op: Operation, monkeypatch: pytest.MonkeyPatch) -> tuple[str | None, str | None]:
    """What `op.verify()` raises (type and message, None when it passes): with GEOp's shortcut
    for inner ops, then with xDSL's own `Operation.verify` in its place."""

    def outcome() -> str | None:
        try:
            op.verify()
        except (VerifyException, ValueError) as e:
            return f"{type(e).__name__}: {e}"
        return None

    fast = outcome()
    with monkeypatch.context() as patch:
        patch.setattr(GEOp, "_verify_inner_op", Operation.verify)
        return fast, outcome()


def _relu_graph() -> tuple[Block, ReluOp]:
    """The body of `@g(x) { relu(x) -> net_output }` and its relu."""
    t = TensorType(f32, [4])
    block = Block(arg_types=[t])
    relu = ReluOp(block.args[0])
    block.add_ops([relu, NetOutputOp([relu.y])])
    GraphOp("g", [t], [t], Region(block))
    return block, relu


def test_an_inner_op_still_rejects_an_erased_operand(monkeypatch: pytest.MonkeyPatch) -> None:
    _, relu = _relu_graph()
    exp = ExpOp(relu.y)
    relu.y.erase(safe_erase=False)  # exp now uses an ErasedSSAValue
    assert isinstance(exp.x, ErasedSSAValue)
    fast, xdsl = _outcomes(exp, monkeypatch)
    assert fast == xdsl == "ValueError: Erased SSA value is used by the operation"


def test_an_inner_op_still_runs_its_own_verifier(monkeypatch: pytest.MonkeyPatch) -> None:
    block, relu = _relu_graph()
    bad = AddOp(relu.y, relu.y, result_type=TensorType(f32, [3]))
    block.insert_op_after(bad, relu)
    fast, xdsl = _outcomes(bad, monkeypatch)
    assert fast == xdsl
    assert fast is not None and fast.startswith("VerifyException: 'graph.add' ")


def test_an_op_ending_a_graph_must_still_be_a_terminator(monkeypatch: pytest.MonkeyPatch) -> None:
    block, relu = _relu_graph()
    last = block.last_op
    assert last is not None
    last.detach()
    fast, xdsl = _outcomes(relu, monkeypatch)
    assert fast == xdsl
    assert fast == (
        "VerifyException: Operation graph.relu terminates block in single-block region "
        "but is not a terminator"
    )


def test_valid_and_detached_inner_ops_pass_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    _, relu = _relu_graph()
    assert _outcomes(relu, monkeypatch) == (None, None)
    relu.detach()
    assert _outcomes(relu, monkeypatch) == (None, None)
