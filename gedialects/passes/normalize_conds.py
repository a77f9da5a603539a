"""`ge-normalize-conds`: GE's CondPass, every If cond and While cond output an int32 scalar.

GE (`cond_pass.cc`, in GraphPrepare::PrepareOptimize) rewrites input 0 of an If and the one
output of a While's cond graph so that the label switch can read an int32 index in place:

- int32 scalar: kept;
- non-scalar: `Size` (int32; GE names it `<consumer>_Size`): true when it has elements;
- bool scalar: `Cast` to int32 (`<consumer>_Cast`);
- unknown rank: left as it is (GE too).

A cond graph that something else also calls (another op's body or branch) is left alone.

Other numeric scalars GE casts to int32 directly, which truncates a float 0.5 to 0 (so a
sunk If takes `else` where GE's own hybrid executor takes `then`) and wraps an int64 2^32 to
0. Here they become `Cast(LogicalNot(Equal(x, 0)))`: the same int32 scalar, with the
truthiness every interpreter level uses (non-zero is true), so the pass changes no numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    TensorType,
    i1,
    i32,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gedialects.base import NODE_NAME, block_ops, of_class, walk_ops
from gedialects.graph import ConstOp, GraphOp, NetOutputOp
from gedialects.graph.array import SizeOp
from gedialects.graph.control import IfOp, WhileOp
from gedialects.graph.logical import CastOp, EqualOp, LogicalNotOp


def _name(op: Operation) -> str | None:
    name = op.attributes.get(NODE_NAME)
    return name.data if isinstance(name, StringAttr) else None


def _named(op: Operation, name: str | None) -> Operation:
    if name is not None:
        op.attributes[NODE_NAME] = StringAttr(name)
    return op


def normalize(value: SSAValue, before: Operation, consumer: str | None) -> SSAValue | None:
    """The int32 scalar standing for cond `value`, built just before `before`; None when
    `value` already is one or has unknown rank (both kept, as GE does)."""
    t = value.type
    if not isinstance(t, TensorType):
        return None
    if t.get_num_dims() > 0:
        size = SizeOp(value, dtype=i32)
        ops: list[Operation] = [_named(size, f"{consumer}_Size" if consumer else None)]
    elif t.element_type == i32:
        return None
    elif t.element_type == i1:
        ops = [_named(CastOp(value, i32), f"{consumer}_Cast" if consumer else None)]
    else:
        zero = ConstOp(DenseIntOrFPElementsAttr.from_list(t, [0]))
        equal = EqualOp(value, zero)
        nonzero = LogicalNotOp(equal)
        cast = _named(CastOp(nonzero, i32), f"{consumer}_Cast" if consumer else None)
        ops = [zero, equal, nonzero, cast]
    Rewriter.insert_op(ops, InsertPoint.before(before))
    return ops[-1].results[0]


def normalize_if(op: IfOp) -> bool:
    new = normalize(op.cond, op, _name(op))
    if new is None:
        return False
    op.operands[0] = new
    return True


def normalize_cond_graph(graph: GraphOp, consumer: str | None) -> bool:
    """The While cond graph's one output becomes an int32 scalar (its type too)."""
    out = graph.body.block.last_op
    if not isinstance(out, NetOutputOp) or len(out.outputs) != 1:
        return False  # the While verifier reports a cond graph without exactly one output
    new = normalize(out.outputs[0], out, consumer)
    if new is None:
        return False
    out.operands[0] = new
    graph.function_type = FunctionType.from_lists(graph.function_type.inputs.data, [new.type])
    return True


@dataclass(frozen=True)
class NormalizeCondsPass(ModulePass):
    """GE's CondPass: If conds and While cond outputs become int32 scalars (module docstring)."""

    name = "ge-normalize-conds"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        graphs = {g.sym_name.data: g for g in op.ops if isinstance(g, GraphOp)}
        # A graph called other than as a While's cond keeps its output type (its other
        # callers expect it): GE's CondPass rewrites cond graphs only.
        done: set[str] = set()
        calling: dict[type, bool] = {}  # per class: a failed getattr per node is slow
        for node in walk_ops(op):
            kind = type(node)
            has = calling.get(kind)
            if has is None:
                has = calling[kind] = getattr(kind, "called_graphs", None) is not None
            if not has:
                continue
            callees = node.called_graphs  # pyright: ignore[reportAttributeAccessIssue]
            names = list(callees())
            if isinstance(node, WhileOp):
                names.remove(node.cond.root_reference.data)
            done.update(names)
        for graph in list(graphs.values()):
            for node in block_ops(graph.body.block):
                if of_class(node, IfOp):  # cached per class: no ABC test per node
                    normalize_if(node)
                elif of_class(node, WhileOp):
                    cond = graphs.get(node.cond.root_reference.data)
                    if cond is not None and cond.sym_name.data not in done:
                        done.add(cond.sym_name.data)
                        normalize_cond_graph(cond, _name(node))
