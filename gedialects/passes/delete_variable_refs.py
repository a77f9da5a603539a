"""`ge-delete-variable-refs`: GE's VariableRefDeleteOpPass (Stage 2,
`compiler/graph/passes/variable_optimize/variable_ref_delete_op_pass.cc`).

Each VariableRef (`ge-prepare-variables`) goes: its consumers read the writer's output again
and the writer carries `ref_var_src_var_name`, so that memory assignment places its output in
the variable (`ge-convert-graph-to-ascend` checks the name against the writer's ref chain).
GE follows PartitionedCall NetOutputs to the writer; here a VariableRef is always in its
writer's graph (the verifier wants a writer before it, and `ge-partition-dynamic-shape`
merges a ref variable into its writer's cluster, GE's MergeRefVariableCluster).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from gedialects.base import of_class
from gedialects.graph import REF_VAR_SRC_VAR_NAME, GraphOp, RefWriterOp, VariableRefOp


@dataclass(frozen=True)
class DeleteVariableRefsPass(ModulePass):
    """GE's VariableRefDeleteOpPass: each VariableRef removed, `ref_var_src_var_name` on the
    output it followed."""

    name = "ge-delete-variable-refs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        graphs = {g.sym_name.data: g for g in op.body.block.ops if isinstance(g, GraphOp)}
        for graph in graphs.values():
            for ref in [o for o in graph.body.block.ops if of_class(o, VariableRefOp)]:
                name = ref.ref_var_src_var_name
                writer = _writer_behind(ref.ref, graphs)
                if writer is not None:
                    writer.attributes[REF_VAR_SRC_VAR_NAME] = name
                ref.y.replace_all_uses_with(ref.ref)
                Rewriter.erase_op(ref)


def _writer_behind(value: SSAValue, graphs: dict[str, GraphOp]) -> RefWriterOp | None:
    """The writer whose output `value` is (through VariableRefs: the verifier has a VariableRef
    follow a writer in its own graph, which DSP's ref-variable merge keeps together)."""
    while isinstance(value.owner, VariableRefOp):
        value = value.owner.ref
    owner = value.owner
    return owner if isinstance(owner, RefWriterOp) else None


__all__ = ["DeleteVariableRefsPass"]
