"""`ge-split-variables-into-subgraphs`: GE's SplitVariableIntoSubgraphPass
(`split_variable_into_subgraph_pass.cc`, from `GraphPrepare::CopyVarIntoSubgraph`).

A var-like node (`graph.variable`, `graph.ref_data`) that feeds an op with subgraphs would
reach each subgraph as a plain Data input: a copy of its value, which the subgraph could not
write through a ref port. GE copies the variable into the subgraph instead:

- If / Case / PartitionedCall: in each subgraph, the Data with that parent index (if it is
  used) hands its consumers to a copy of the variable (the same name, so the same memory),
  placed first in the subgraph. GE adds a control edge Data -> copy; here a block argument
  is defined on entry, before every op, so the copy needs no edge to run after it. Not for an
  unknown-shape PartitionedCall (`_is_unknown_shape`), as GE skips it.
- While: the same copies in `cond` and `body`; the variable -> While edge stays, and the
  consumers of the While's matching output are fed by the variable directly: a copy of it
  right after the While (the control edge While -> consumer of GE is that position: the copy
  reads the variable after the loop). Only where the body passes that input through,
  unchanged or written through its ref ports (a writer's ref output): a body that computes
  the next value from it carries a value, not the variable (GE's loops take variables as
  references; copying one there would change the numbers).

A subgraph that writes a variable through its Data input (a ref its callers feed) writes the
copy after this pass, so the writer writes the variable's own memory at every level.

A subgraph called from several places gets the copy only where every caller passes the same
variable at that input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gedialects.base import IS_UNKNOWN_SHAPE, NODE_NAME, block_ops, of_class
from gedialects.graph import GraphOp, NetOutputOp, VarLikeOp, WhileOp, ref_root, ref_source
from gedialects.graph.control import ControlFlowOp, ForOp
from gedialects.multibatch import CaseOp
from gedialects.partition import PartitionedCallOp
from gedialects.passes.analysis.graph_view import bool_attr

_Site = tuple[str, int]
"""(subgraph name, input index)."""


def _subgraph_inputs(op: Operation) -> list[tuple[str, Sequence[SSAValue]]] | None:
    """Each subgraph of `op` with the operands its inputs receive, in order; None for an op
    without subgraphs (or one whose inputs are not its operands one to one: For's body)."""
    if not of_class(op, _WITH_SUBGRAPHS):  # most ops: one cached test, not four ABC ones
        return None
    if isinstance(op, ForOp):
        return None
    if isinstance(op, ControlFlowOp):
        refs = op.subgraphs()
        return [(r.root_reference.data, op.subgraph_args(k)) for k, r in enumerate(refs)]
    if isinstance(op, CaseOp):
        return [(b.root_reference.data, op.inputs) for b in op.branches.data]
    if isinstance(op, PartitionedCallOp):
        if bool_attr(op, IS_UNKNOWN_SHAPE):
            return None
        return [(op.callee.root_reference.data, op.args)]
    return None


_WITH_SUBGRAPHS = (ControlFlowOp, CaseOp, PartitionedCallOp)
"""The op classes `_subgraph_inputs` looks into (ForOp is a ControlFlowOp)."""


def _carried_changes(loop: WhileOp, graphs: dict[str, GraphOp]) -> list[_Site]:
    """The While inputs its body does not pass through: a value computed from the input, not
    the variable, so the input is no variable inside the loop (no copy there). A body that
    writes the input (a ref through its Data) and returns the writer's ref output passes
    the variable through."""
    body = graphs.get(loop.body.root_reference.data)
    out = body.body.block.last_op if body is not None else None
    if body is None or not isinstance(out, NetOutputOp):
        return []
    args = body.body.block.args
    names = (loop.cond.root_reference.data, loop.body.root_reference.data)
    return [
        (name, d)
        for d in range(len(loop.inputs))
        if d >= len(out.outputs) or d >= len(args) or ref_root(out.outputs[d]) is not args[d]
        for name in names
    ]


def _copy(var: VarLikeOp, subgraph: str) -> VarLikeOp:
    """The variable's copy: same class, name, type and initial value (one memory); its node
    name says where it came from, as GE names the copies."""
    copy = var.clone()
    node = var.attributes.get(NODE_NAME)
    base = node.data if isinstance(node, StringAttr) else var.variable
    copy.attributes[NODE_NAME] = StringAttr(f"{base}_{subgraph}")
    return copy


@dataclass(frozen=True)
class SplitVariablesIntoSubgraphsPass(ModulePass):
    """Copies each variable an op with subgraphs takes into its subgraphs (GE's
    SplitVariableIntoSubgraphPass); see the module docstring."""

    name = "ge-split-variables-into-subgraphs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        graphs = {g.sym_name.data: g for g in op.body.block.ops if isinstance(g, GraphOp)}
        # What every caller passes at each subgraph input: a variable, or None for anything else.
        passed: dict[_Site, VarLikeOp | None] = {}
        conflicted: set[_Site] = set()
        whiles: list[WhileOp] = []  # in graph and block order (the copies made are no loops)
        for graph in graphs.values():
            for node in block_ops(graph.body.block):
                if not of_class(node, _WITH_SUBGRAPHS):
                    continue  # most nodes: one cached class test
                for name, args in _subgraph_inputs(node) or ():
                    for d, value in enumerate(args):
                        owner = value.owner
                        var = owner if isinstance(owner, VarLikeOp) else None
                        site = (name, d)
                        if site in passed:
                            earlier = passed[site]
                            same = (
                                earlier is not None
                                and var is not None
                                and earlier.variable == var.variable
                            )
                            if not same:
                                conflicted.add(site)
                        passed[site] = var
                if of_class(node, WhileOp):
                    conflicted.update(_carried_changes(node, graphs))
                    whiles.append(node)
        done: set[_Site] = set()
        for site, var in passed.items():
            if var is None or site in conflicted or site[0] not in graphs:
                continue
            self._copy_into(graphs[site[0]], site[1], var)
            done.add(site)
        for node in whiles:
            self._rewire_while_outputs(node, graphs, done)

    @staticmethod
    def _copy_into(subgraph: GraphOp, index: int, var: VarLikeOp) -> None:
        arg = subgraph.body.block.args[index]
        if not arg.uses or arg.type != var.y.type:
            return
        copy = _copy(var, subgraph.sym_name.data)
        first = subgraph.body.block.first_op
        assert first is not None  # a graph ends in its net_output
        Rewriter.insert_op(copy, InsertPoint.before(first))
        arg.replace_all_uses_with(copy.y)

    @staticmethod
    def _rewire_while_outputs(loop: WhileOp, graphs: dict[str, GraphOp], done: set[_Site]) -> None:
        body_name = loop.body.root_reference.data
        body = graphs.get(body_name)
        if body is None:
            return
        out = body.body.block.last_op
        if not isinstance(out, NetOutputOp):
            return
        for d, value in enumerate(loop.inputs):
            var = value.owner
            result = loop.results[d]
            if not isinstance(var, VarLikeOp) or (body_name, d) not in done or not result.uses:
                continue
            source = ref_source(out.outputs[d])
            if source is None or source.variable != var.variable:
                continue  # the body returns another value there: the output is not the variable
            copy = _copy(var, f"{loop.name.removeprefix('graph.')}_out{d}")
            Rewriter.insert_op(copy, InsertPoint.after(loop))
            result.replace_all_uses_with(copy.y)
