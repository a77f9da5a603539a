"""`ge-inline-partitions`: GE's ExpandPartitionedCallToParentGraph."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import PassFailedException

from gedialects.graph import GraphOp, NetOutputOp
from gedialects.partition import PartitionedCallOp
from gedialects.passes.analysis.graph_view import called_symbols
from gedialects.passes.partition import attr_names

_NAME = "ge-inline-partitions"


def inline_call(call: PartitionedCallOp, callee: GraphOp) -> list[Operation]:
    """Copies the callee's nodes in place of `call`; returns the copies."""
    block = call.parent_block()
    assert block is not None
    mapping: dict[SSAValue, SSAValue] = dict(zip(callee.body.block.args, call.args, strict=True))
    copies: list[Operation] = []
    inherited = attr_names.carried(call)
    for op in callee.body.block.ops:
        if isinstance(op, NetOutputOp):
            for r, v in zip(call.res, op.outputs, strict=True):
                r.replace_all_uses_with(mapping.get(v, v))
            continue
        copy = op.clone(value_mapper=mapping)
        attr_names.to_nodes(inherited, copy)
        block.insert_op_before(copy, call)
        copies.append(copy)
    Rewriter.erase_op(call)
    return copies


@dataclass(frozen=True)
class InlinePartitionsPass(ModulePass):
    """Expands every `partition.partitioned_call` into its parent graph (GE
    ExpandPartitionedCallToParentGraph), recursively, and removes the graphs no longer called.

    The callee's Data inputs become the call's operands, its NetOutput values replace the
    call's results. GE brackets the expanded nodes with NoOps to carry control edges; this IR
    has no control edges, so none are added. Discardable attributes stay on the nodes, and
    the call's registered partition attributes (`attr_names`) go to nodes that lack them.
    """

    name = "ge-inline-partitions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        callees: set[str] = set()
        graphs = [g for g in op.ops if isinstance(g, GraphOp)]
        by_name = {g.sym_name.data: g for g in graphs}
        for graph in graphs:
            worklist = [c for c in graph.body.block.ops if isinstance(c, PartitionedCallOp)]
            active: list[tuple[PartitionedCallOp, tuple[str, ...]]] = [
                (c, (graph.sym_name.data,)) for c in worklist
            ]
            while active:
                call, stack = active.pop()
                name = call.callee.root_reference.data
                if name in stack:
                    raise PassFailedException(f"{_NAME}: @{name} calls itself")
                callee = by_name.get(name)
                if callee is None:
                    raise PassFailedException(f"{_NAME}: @{name} is not a graph.graph")
                callees.add(name)
                for copy in inline_call(call, callee):
                    if isinstance(copy, PartitionedCallOp):
                        active.append((copy, (*stack, name)))
        still_called: set[str] = set()
        for o in op.walk():
            still_called.update(called_symbols(o))
        for graph in graphs:
            name = graph.sym_name.data
            if name in callees and name not in still_called:
                Rewriter.erase_op(graph)
