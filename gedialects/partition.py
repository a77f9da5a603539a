"""The `partition` dialect: the ops GE's graph partitioners leave behind.

GE cuts a `ComputeGraph` in two ways, and both are modelled here on top of `graph.graph`:

- The DynamicShapePartitioner and the StagePartitioner outline clusters into subgraphs and call
  each one from its parent with a `PartitionedCall` node (`partition.partitioned_call`, a call of a
  `graph.graph` symbol; the callee's inputs and outputs are the call's operands and results).
- The EnginePartitioner splits a graph into one subgraph per engine. Every edge that crosses two
  engine subgraphs is cut into an `End` in the producer's subgraph and a `PlaceHolder` in the
  consumer's subgraph; the two halves share a `peerIndex` (GE's shared counter, one pair per
  edge). `partition.end` writes the value into a channel keyed by `peerIndex`,
  `partition.place_holder` reads it. GE's own attribute names are kept as properties
  (`peerIndex`, `parentOpType`, `_parentNodeName`, `anchorIndex`, `_peerNodeName`,
  `pld_front_node_engine_name`, `end_rear_node_engine_name`).

A `peerIndex` names one edge of the module (GE's shared counter): two Ends, or two
PlaceHolders, with one `peerIndex` are an error (`check_peer_indices`, a module rule run once
per verification by the module's first `graph.graph`; the interpreter's channels would
otherwise hand one of the values to both). Whether every PlaceHolder has an End is left to the
interpreter, which reports a PlaceHolder whose End has not run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    ArrayAttr,
    FlatSymbolRefAttrConstr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import SymbolUserOpInterface
from xdsl.utils.exceptions import VerifyException

from gedialects import fast_verify
from gedialects.base import (
    GEOp,
    NodeSyntax,
    const_reads,
    fast_single_accessors,
    init_op,
    new_i64,
    new_string,
)
from gedialects.graph import GraphOp
from gedialects.graph.control import GE_TENSOR, check_signature, lookup_graph
from gedialects.graph.structure import module_rule, ssa_values

_NO_NESTED = ArrayAttr[StringAttr](())

__all__ = ["GE_TENSOR", "check_signature", "lookup_graph"]


def _i64(value: int) -> IntegerAttr:
    return new_i64(value)


def symbol_ref(name: str) -> SymbolRefAttr:
    """`SymbolRefAttr(name)` without xDSL's generic verification of its three attributes
    (a string and an empty array of strings, by construction): one per call the
    partitioners make."""
    attr = SymbolRefAttr.__new__(SymbolRefAttr)
    object.__setattr__(attr, "root_reference", new_string(name))
    object.__setattr__(attr, "nested_references", _NO_NESTED)
    return attr


# --------------------------------------------------------------------------------------------
# Subgraph calls
# --------------------------------------------------------------------------------------------


class PartitionedCallSymbolUser(SymbolUserOpInterface):
    """The callee is a `graph.graph` whose signature fits the call."""

    def verify(self, op: Operation) -> None:
        assert isinstance(op, PartitionedCallOp)
        graph = lookup_graph(op, op.callee, "callee")
        ftype = graph.function_type
        check_signature(op, str(op.callee), "operand", op.args.types, ftype.inputs.data)
        check_signature(op, str(op.callee), "result", op.res.types, ftype.outputs.data)


@irdl_op_definition
class PartitionedCallOp(GEOp):
    """GE PartitionedCall: runs the subgraph `callee` on the operands; its outputs are the results.

    Produced by the dynamic-shape and stage partitioners for every outlined cluster. Tensor types
    need only be compatible with the callee's (`?` and unranked act as wildcards, element types
    are equal), as in GE where a subgraph Data may be more dynamic than the parent's tensor.

        %r:2 = partition.partitioned_call @cluster0(%a, %b)
            : (tensor<1x4xf32>, tensor<4xf32>) -> (tensor<1x4xf32>, tensor<?x4xf32>)
    """

    name = "partition.partitioned_call"
    GE_TYPE: ClassVar[str] = "PartitionedCall"
    OWN_FORMATS: ClassVar[bool] = True
    """Its tensors have the formats of the callee's Data and NetOutput (FE's propagation
    crosses them, `ge-select-formats`); the signature check compares the types."""

    args = var_operand_def(GE_TENSOR)
    res = var_result_def(GE_TENSOR)
    callee = prop_def(FlatSymbolRefAttrConstr)

    traits = traits_def(PartitionedCallSymbolUser())

    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $res)"

    def __init__(
        self,
        callee: str | SymbolRefAttr,
        args: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
    ) -> None:
        ref = symbol_ref(callee) if isinstance(callee, str) else callee
        # `irdl_op_init` without its generic argument lists (one variadic operand and result,
        # no segments): one call per engine subgraph; tests/test_partition_builders.py checks
        # it against the generic build.
        init_op(self, ssa_values(args), tuple(result_types), {"callee": ref})

    def called_graphs(self) -> list[str]:
        """For the call-cycle module rule of `gedialects.graph.structure`."""
        return [self.callee.root_reference.data]


# --------------------------------------------------------------------------------------------
# Engine boundaries
# --------------------------------------------------------------------------------------------


def _check_non_negative(op: Operation, prop: str, attr: IntegerAttr) -> None:
    if attr.value.data < 0:
        raise VerifyException(f"'{op.name}' {prop} must be >= 0, got {attr.value.data}")


@irdl_op_definition
class EndOp(NodeSyntax, GEOp):
    """GE End: the producer half of an edge cut between two engine subgraphs.

    Sends `x` to the `partition.place_holder` with the same `peerIndex`. `parentOpType` is the
    type of the consumer node in the other subgraph, `end_rear_node_engine_name` its engine.

        partition.end %y peerIndex 0 parentOpType "Relu"
            end_rear_node_engine_name "AIcoreEngine" : (tensor<1x4xf32>) -> ()
    """

    name = "partition.end"
    GE_TYPE: ClassVar[str] = "End"
    FORMAT_AGNOSTIC: ClassVar[bool] = True
    """Carries the producer's tensor desc as it is, storage format included (GE copies the
    desc onto End/PlaceHolder; only AI CPU refuses heavy formats there: ge-verify-aicpu-formats)."""

    x = operand_def(GE_TENSOR)
    peerIndex = prop_def(IntegerAttr[I64])
    parentOpType = prop_def(StringAttr, default_value=StringAttr(""))
    end_rear_node_engine_name = prop_def(StringAttr, default_value=StringAttr(""))

    def __init__(
        self,
        x: SSAValue | Operation,
        *,
        peer_index: int,
        parent_op_type: str = "",
        end_rear_node_engine_name: str = "",
    ) -> None:
        init_op(
            self,
            ssa_values([x]),
            properties={
                "peerIndex": _i64(peer_index),
                "parentOpType": new_string(parent_op_type),
                "end_rear_node_engine_name": new_string(end_rear_node_engine_name),
            },
        )

    def verify_(self) -> None:
        _check_non_negative(self, "peerIndex", self.peerIndex)


@irdl_op_definition
class PlaceHolderOp(NodeSyntax, GEOp):
    """GE PlaceHolder: the consumer half of an edge cut between two engine subgraphs.

    Yields the value sent by the `partition.end` with the same `peerIndex`. The producer is named
    by `_parentNodeName` (its type `parentOpType`, its output `anchorIndex`, its engine
    `pld_front_node_engine_name`); `_peerNodeName` names the paired End.

        %p = partition.place_holder peerIndex 0 parentOpType "Conv2D" _parentNodeName "conv1"
            pld_front_node_engine_name "AIcoreEngine" : () -> tensor<1x4xf32>
    """

    name = "partition.place_holder"
    GE_TYPE: ClassVar[str] = "PlaceHolder"
    FORMAT_AGNOSTIC: ClassVar[bool] = True
    """Carries the producer's tensor desc as it is, storage format included (GE copies the
    desc onto End/PlaceHolder; only AI CPU refuses heavy formats there: ge-verify-aicpu-formats)."""

    y = result_def(GE_TENSOR)
    peerIndex = prop_def(IntegerAttr[I64])
    parentOpType = prop_def(StringAttr, default_value=StringAttr(""))
    _parentNodeName = prop_def(StringAttr, default_value=StringAttr(""))
    anchorIndex = prop_def(IntegerAttr[I64], default_value=_i64(0))
    pld_front_node_engine_name = prop_def(StringAttr, default_value=StringAttr(""))
    _peerNodeName = prop_def(StringAttr, default_value=StringAttr(""))

    def __init__(
        self,
        result_type: Attribute,
        *,
        peer_index: int,
        parent_op_type: str = "",
        parent_node_name: str = "",
        anchor_index: int = 0,
        pld_front_node_engine_name: str = "",
        peer_node_name: str = "",
    ) -> None:
        init_op(
            self,
            result_types=(result_type,),
            properties={
                "peerIndex": _i64(peer_index),
                "parentOpType": new_string(parent_op_type),
                "_parentNodeName": new_string(parent_node_name),
                "anchorIndex": _i64(anchor_index),
                "pld_front_node_engine_name": new_string(pld_front_node_engine_name),
                "_peerNodeName": new_string(peer_node_name),
            },
        )

    def verify_(self) -> None:
        _check_non_negative(self, "peerIndex", self.peerIndex)
        _check_non_negative(self, "anchorIndex", self.anchorIndex)


def _pairs(kind: type[Operation]) -> bool:
    return issubclass(kind, EndOp | PlaceHolderOp)


@module_rule(_pairs)
def check_peer_indices(module: ModuleOp) -> None:
    """One `partition.end` and one `partition.place_holder` per `peerIndex` in the module."""
    seen: dict[tuple[type, int], tuple[Operation, str]] = {}
    for graph in module.body.block.ops:
        if not isinstance(graph, GraphOp):
            continue
        for op in graph.body.block.ops:
            if not isinstance(op, EndOp | PlaceHolderOp):
                continue
            peer = op.peerIndex.value.data
            first = seen.setdefault((type(op), peer), (op, graph.sym_name.data))
            if first[0] is not op:
                raise VerifyException(
                    f"'{op.name}' peerIndex {peer} in @{graph.sym_name.data} is already used by "
                    f"the '{op.name}' in @{first[1]}; each End/PlaceHolder pair has its own "
                    "peerIndex"
                )


Partition = Dialect(
    "partition",
    [
        # Subgraph calls
        PartitionedCallOp,
        # Engine boundaries
        EndOp,
        PlaceHolderOp,
    ],
    [],
)
fast_single_accessors(Partition.operations)
fast_verify.install(Partition, const_reads)  # compiled IRDL checks, kept verdicts
