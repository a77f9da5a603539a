"""The builders of `graph.graph`, `graph.net_output` and the partition ops skip
`irdl_op_init` (and xDSL's generic attribute verification) for speed: the op they build must
be the op the generic IRDL builder builds from the same arguments."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import VerifyException

from gedialects.base import new_dict, new_string
from gedialects.graph import GraphOp, NetOutputOp, ReluOp
from gedialects.graph.structure import function_type
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp, symbol_ref

T = TensorType(f32, [2, 3])
U = TensorType(i32, [4])


def _same(fast: Operation, generic: Operation) -> None:
    """Same class, properties, attributes, operands, result types, regions and text."""
    assert type(fast) is type(generic)
    assert fast.properties == generic.properties
    assert fast.attributes == generic.attributes
    assert list(fast.operands) == list(generic.operands)
    assert list(fast.result_types) == list(generic.result_types)
    assert len(fast.regions) == len(generic.regions)
    assert fast.location == generic.location
    assert str(fast) == str(generic)


def _generic(cls: type[IRDLOperation], **kwargs: object) -> IRDLOperation:
    op = cls.__new__(cls)
    IRDLOperation.__init__(op, **kwargs)  # pyright: ignore[reportArgumentType]
    return op


@pytest.mark.parametrize("text", ["", "a", "partition0_rank1_new_sub_graph3", 'q"\\é\0'])
def test_new_string_equals_string_attr(text: str) -> None:
    fast = new_string(text)
    assert fast == StringAttr(text) and hash(fast) == hash(StringAttr(text))
    assert str(fast) == str(StringAttr(text))


def test_new_string_of_a_str_subclass_takes_xdsls_path() -> None:
    class Text(str):
        pass

    assert new_string(Text("x")) == StringAttr(Text("x"))  # a subclass takes xDSL's path


@pytest.mark.parametrize(
    "entries",
    [{}, {"perm": IntegerAttr(1, i64)}, {"b": StringAttr("x"), "a": ArrayAttr([T]), "c": T}],
)
def test_new_dict_equals_dictionary_attr(entries: dict[str, Attribute]) -> None:
    fast = new_dict(entries)
    assert fast == DictionaryAttr(entries) and hash(fast) == hash(DictionaryAttr(entries))
    assert str(fast) == str(DictionaryAttr(entries))
    assert list(fast.data) == list(entries)  # the order kept


def test_new_dict_of_a_non_attribute_takes_xdsls_path() -> None:
    entries = {"a": 1}
    fast = new_dict(entries)  # pyright: ignore[reportArgumentType]
    assert fast == DictionaryAttr(entries)  # pyright: ignore[reportArgumentType]


@pytest.mark.parametrize(
    ("inputs", "outputs"),
    [([], []), ([T], [T]), ([T, U], []), ([], [U, T, FunctionType.from_lists([], [])])],
)
def test_function_type_equals_from_lists(inputs: list[object], outputs: list[object]) -> None:
    fast = function_type(inputs, outputs)  # pyright: ignore[reportArgumentType]
    want = FunctionType.from_lists(inputs, outputs)  # pyright: ignore[reportArgumentType]
    assert fast == want and hash(fast) == hash(want) and str(fast) == str(want)
    assert isinstance(fast.inputs, ArrayAttr) and isinstance(fast.outputs, ArrayAttr)


def test_symbol_ref_equals_symbol_ref_attr() -> None:
    for name in ("g", "partition0_rank0_inputNodeGraph"):
        fast, want = symbol_ref(name), SymbolRefAttr(name)
        assert fast == want and hash(fast) == hash(want) and str(fast) == str(want)


def test_graph_builder_equals_generic_build() -> None:
    for inputs, outputs in (([], []), ([T], [T]), ([T, U], [U])):
        fast = GraphOp("g", inputs, outputs, input_names=None)
        props = {
            "sym_name": StringAttr("g"),
            "function_type": FunctionType.from_lists(inputs, outputs),
        }
        generic = _generic(GraphOp, properties=props, regions=[Region(Block(arg_types=inputs))])
        _same(fast, generic)
        assert isinstance(generic, GraphOp)
        assert fast.body.block.arg_types == generic.body.block.arg_types
    named = GraphOp("n", [T], [T], input_names=["x"], output_names=["y"])
    assert named.arg_attrs is not None and named.res_attrs is not None
    assert 'node_name = "x"' in str(named) and 'node_name = "y"' in str(named)


def test_net_output_and_call_builders_equal_generic_build() -> None:
    graph = GraphOp("main", [T, U], [T, U])
    block = graph.body.block
    x, y = block.args
    relu = ReluOp(x)
    block.add_op(relu)
    for values in ([], [x], [x, y], [relu]):
        fast = NetOutputOp(values)
        generic = _generic(NetOutputOp, operands=[values])
        _same(fast, generic)
        fast.drop_all_references()
        generic.drop_all_references()
    for args, results in (([], []), ([x], [T]), ([x, y], [T, U]), ([relu], [])):
        fast = PartitionedCallOp("callee", args, results)
        generic = _generic(
            PartitionedCallOp,
            operands=[args],
            result_types=[results],
            properties={"callee": SymbolRefAttr("callee")},
        )
        _same(fast, generic)
        fast.drop_all_references()
        generic.drop_all_references()
    relu.detach()
    relu.erase()


def test_end_and_place_holder_builders_equal_generic_build() -> None:
    graph = GraphOp("main", [T], [])
    x = graph.body.block.args[0]
    fast = EndOp(x, peer_index=7, parent_op_type="Relu", end_rear_node_engine_name="AIcoreEngine")
    generic = _generic(
        EndOp,
        operands=[x],
        properties={
            "peerIndex": IntegerAttr(7, i64),
            "parentOpType": StringAttr("Relu"),
            "end_rear_node_engine_name": StringAttr("AIcoreEngine"),
        },
    )
    _same(fast, generic)
    fast.drop_all_references()
    generic.drop_all_references()
    fast_pld = PlaceHolderOp(
        T,
        peer_index=3,
        parent_op_type="Conv2D",
        parent_node_name="conv1",
        anchor_index=1,
        pld_front_node_engine_name="AIcoreEngine",
        peer_node_name="e",
    )
    generic_pld = _generic(
        PlaceHolderOp,
        result_types=[T],
        properties={
            "peerIndex": IntegerAttr(3, i64),
            "parentOpType": StringAttr("Conv2D"),
            "_parentNodeName": StringAttr("conv1"),
            "anchorIndex": IntegerAttr(1, i64),
            "pld_front_node_engine_name": StringAttr("AIcoreEngine"),
            "_peerNodeName": StringAttr("e"),
        },
    )
    _same(fast_pld, generic_pld)
    with pytest.raises(VerifyException, match="peerIndex must be >= 0"):
        PlaceHolderOp(T, peer_index=-1).verify_()


def test_built_module_verifies() -> None:
    """A module of the fast-built ops verifies as the generic ones do."""
    sub = GraphOp("sub", [T], [T])
    sub.body.block.add_op(NetOutputOp([sub.body.block.args[0]]))
    main = GraphOp("main", [T], [T])
    call = PartitionedCallOp("sub", [main.body.block.args[0]], [T])
    main.body.block.add_ops([call, NetOutputOp([call.res[0]])])
    ModuleOp([main, sub]).verify()
    bad = GraphOp("bad", [T], [U])
    bad.body.block.add_op(NetOutputOp([bad.body.block.args[0]]))
    with pytest.raises(VerifyException, match="do not match the outputs"):
        ModuleOp([bad]).verify()


def test_called_symbol_counts_equal_called_symbols() -> None:
    """The merge's call counter counts what `called_symbols` names, op by op (symbol
    properties and arrays of them, e.g. a Case's branches), and nothing else."""
    from collections import Counter

    from xdsl.parser import Parser

    from gedialects import make_context
    from gedialects.passes.analysis.graph_view import called_symbols
    from gedialects.passes.partition.engine import called_symbol_counts

    text = """
    graph.graph @b0(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
      graph.net_output %x : tensor<1x3xf32>
    }
    graph.graph @b1(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
      %r = partition.partitioned_call @b0(%x) : (tensor<1x3xf32>) -> tensor<1x3xf32>
      graph.net_output %r : tensor<1x3xf32>
    }
    graph.graph @main(%i: tensor<i32>, %x: tensor<1x3xf32>) -> tensor<1x3xf32> {
      %r = multibatch.case %i, %x branches [@b0, @b1]
        : (tensor<i32>, tensor<1x3xf32>) -> tensor<1x3xf32>
      %s = partition.partitioned_call @b1(%r) : (tensor<1x3xf32>) -> tensor<1x3xf32>
      %t = graph.relu %s : (tensor<1x3xf32>) -> tensor<1x3xf32>
      graph.net_output %t : tensor<1x3xf32>
    }
    """
    module = Parser(make_context(), text).parse_module()
    want: Counter[str] = Counter()
    for op in module.walk():
        want.update(called_symbols(op))
    assert called_symbol_counts(module) == want == Counter({"b0": 2, "b1": 2})


def test_new_op_equals_create() -> None:
    """`new_op` (the binary loader's and the partitioners' builder) builds what
    `Operation.create` builds: uses linked, IRDL's default properties filled, the default
    location, regions attached."""
    from gedialects.base import new_op

    graph = GraphOp("main", [T], [])
    x = graph.body.block.args[0]
    fast = new_op(EndOp, [x], properties={"peerIndex": IntegerAttr(2, i64)})
    generic = EndOp.create(operands=[x], properties={"peerIndex": IntegerAttr(2, i64)})
    _same(fast, generic)
    assert fast.parentOpType == StringAttr("")  # IRDL's default, as `create` fills it in
    assert [u.operation for u in x.uses] == [generic, fast]
    fast.drop_all_references()
    generic.drop_all_references()
    peer = {"peerIndex": IntegerAttr(0, i64)}
    pld = new_op(PlaceHolderOp, result_types=[T], properties=peer)
    _same(pld, PlaceHolderOp.create(result_types=[T], properties=peer))
    assert pld.y.owner is pld and pld.y.index == 0
    body = Region(Block(arg_types=[T]))
    props = {"sym_name": StringAttr("g"), "function_type": FunctionType.from_lists([T], [])}
    built = new_op(GraphOp, properties=dict(props), regions=[body])
    assert body.parent is built
    _same(built, GraphOp.create(properties=props, regions=[Region(Block(arg_types=[T]))]))
