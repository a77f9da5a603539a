"""`ge-prepare-variables`: GE's VariablePrepareOpPass
(`compiler/graph/passes/variable_optimize/variable_prepare_op_pass.cc`).

Ref ports (GenerateRefTypeAndInputOutputMap): input `i` of a node is a ref port when an output
has the same name; the writers here (Assign, AssignAdd, AssignSub) have input 0 `ref` and
output 0 `ref` in GE's port names (`GE_INPUTS` / `GE_OUTPUTS`), which `ref_ports` reads by
GE's rule.

Prepare: following the writers from each variable to the last one of its chain, a
`graph.variable_ref` named `<var>_TO_<writer>_REF_<out>` with `ref_var_src_var_name=<var>` is
added behind the last writer, with the writer's `_stream_label`; GE adds control edges from it
to every other consumer of the writer, which here read the VariableRef's result instead (the
same value; the SSA use orders them after it). GE's `RefIdentity` for ref inputs without an
output has nothing to do here: every writer has its ref output.

`ge-delete-variable-refs` (GE's VariableRefDeleteOpPass) removes the VariableRefs again.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gedialects.base import NODE_NAME, STREAM_LABEL
from gedialects.graph import (
    GraphOp,
    RefWriterOp,
    VariableRefOp,
    VarLikeOp,
)


def ref_ports(op_type: type[IRDLOperation]) -> dict[int, int]:
    """Input index -> output index of each ref port of `op_type`: an input with an output of
    the same name (GE's GenerateRefTypeAndInputOutputMap), in GE's port names where the op
    gives them (`GE_INPUTS` / `GE_OUTPUTS`), else its IRDL names."""
    op_def = op_type.get_irdl_definition()
    inputs = getattr(op_type, "GE_INPUTS", None) or tuple(n for n, _ in op_def.operands)
    names = getattr(op_type, "GE_OUTPUTS", None) or tuple(n for n, _ in op_def.results)
    outputs = {name: j for j, name in enumerate(names)}
    return {i: outputs[name] for i, name in enumerate(inputs) if name in outputs}


def _node_name(op: Operation, fallback: str) -> str:
    name = op.attributes.get(NODE_NAME)
    return name.data if isinstance(name, StringAttr) else fallback


def last_writer(var: VarLikeOp) -> RefWriterOp | None:
    """The last writer of the chain that starts at `var` (each ref value has one writer)."""
    last: RefWriterOp | None = None
    value: SSAValue = var.y
    while True:
        nxt = next(
            (
                u.operation
                for u in value.uses
                if isinstance(u.operation, RefWriterOp) and u.index == 0
            ),
            None,
        )
        if nxt is None:
            return last
        last, value = nxt, nxt.y


@dataclass(frozen=True)
class PrepareVariablesPass(ModulePass):
    """GE's VariablePrepareOpPass: a VariableRef behind the last writer of each variable."""

    name = "ge-prepare-variables"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for graph in op.body.block.ops:
            if not isinstance(graph, GraphOp):
                continue
            for var in [o for o in graph.body.block.ops if isinstance(o, VarLikeOp)]:
                writer = last_writer(var)
                if writer is None or any(
                    isinstance(u.operation, VariableRefOp) for u in writer.y.uses
                ):
                    continue
                (out,) = ref_ports(type(writer)).values()
                ref = VariableRefOp(writer.y, var.variable)
                who = _node_name(writer, writer.GE_TYPE)
                ref.attributes[NODE_NAME] = StringAttr(f"{var.variable}_TO_{who}_REF_{out}")
                label = writer.attributes.get(STREAM_LABEL)
                if label is not None:
                    ref.attributes[STREAM_LABEL] = label
                Rewriter.insert_op(ref, InsertPoint.after(writer))
                writer.y.replace_uses_with_if(ref.y, lambda use, ref=ref: use.operation is not ref)


__all__ = ["PrepareVariablesPass", "last_writer", "ref_ports"]
