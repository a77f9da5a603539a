"""`ge-verify-aicpu-formats`: GE's `AicpuGraphOptimizer::VerifyPldAndEndNode`.

AI CPU kernels read and write tensors in their origin layout: FE may give AI Core tensors a
heavy storage format, but the values that cross into an AI CPU subgraph (its PlaceHolders) and
out of it (its Ends) must be in the origin format or ND, with the TransData that converts them
on the AI Core side. A tensor type whose storage differs from its origin carries an encoding
(`tensor<..., #graph.format<...>>`); a plain tensor is in its origin format.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, NoneAttr, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import AICPU_ENGINE, ENGINE_NAME, NODE_NAME, block_ops, of_class
from gedialects.graph import GraphOp
from gedialects.partition import EndOp, PlaceHolderOp
from gedialects.passes.analysis.graph_view import str_attr

_NAME = "ge-verify-aicpu-formats"


def storage_encoding(t: Attribute) -> Attribute | None:
    """The storage-format encoding of a tensor type, None for a tensor in its origin format."""
    if of_class(t, TensorType) and not of_class(t.encoding, NoneAttr):
        return t.encoding
    return None


def _check(graph: GraphOp, op: Operation, kind: str, t: Attribute) -> None:
    encoding = storage_encoding(t)
    if encoding is not None:
        name = str_attr(op, NODE_NAME) or op.name
        raise PassFailedException(
            f"{_NAME}: @{graph.sym_name.data}: {kind} '{name}' of an AI CPU subgraph has storage "
            f"format {encoding}; AI CPU takes its inputs and outputs in the origin format or ND "
            "(GE VerifyPldAndEndNode): convert it on the producer's side"
        )


@dataclass(frozen=True)
class VerifyAicpuFormatsPass(ModulePass):
    """Checks that the PlaceHolders and Ends of every AI CPU subgraph (`_engine_name =
    DNN_VM_AICPU`) carry tensors in their origin format or ND (GE `VerifyPldAndEndNode`, AI
    CPU's `OptimizeFusedGraph` hook); a heavy storage format there is an error naming the node.
    """

    name = "ge-verify-aicpu-formats"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in op.ops:
            if not isinstance(graph, GraphOp) or str_attr(graph, ENGINE_NAME) != AICPU_ENGINE:
                continue
            # Class tests once per class and the values as stored, not by the IRDL accessors
            # `y` and `x` (each searches the op's definition): 100k pair halves at 100k bench
            # nodes.
            for node in block_ops(graph.body.block):
                if of_class(node, PlaceHolderOp):
                    _check(graph, node, "PlaceHolder", node.results[0].type)
                elif of_class(node, EndOp):
                    _check(graph, node, "End", node.operands[0].type)
