"""`ge-convert-for-to-while`: GE's ForPass, every `graph.for` becomes a counted `graph.while`.

GE (`for_pass.cc`, in GraphPrepare::GraphEquivalentTransformation) has no label maker for
For: it rewrites each For into `<for>_While` with the carried values

    [i, |delta|, |limit - start|, start, delta, inputs...]

where `i = Identity(Const 0)`, a cond graph `<body>_Cond` giving `Less(Mul(i, |delta|), range)`
and a body graph `<body>_Body` giving `i + 1`, the four bounds unchanged and the original
body's outputs on the loop variable `start + i * delta`. GE's body calls the original body
through a PartitionedCall; here its ops are cloned into the new body (the same tasks once
inlined, and no call for the partitioners to look into). The While's first five results are
the counter and the bounds; the For's results are the rest. Trip count and loop variable are
the interpreter's `graph.for` semantics, so the rewrite changes no numbers. The original body
is erased when nothing else names it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from gedialects.base import NODE_NAME, PARENT_NODE_INDEX, of_class, walk_ops
from gedialects.graph import ConstOp, GraphOp, NetOutputOp
from gedialects.graph.array import IdentityOp
from gedialects.graph.control import ForOp, WhileOp
from gedialects.graph.elementwise import AbsOp, AddOp, MulOp, SubOp
from gedialects.graph.logical import LessOp
from gedialects.passes.analysis.graph_view import graphs_called_by

_SCALAR = TensorType(i32, [])


def _int32(value: int) -> ConstOp:
    return ConstOp(DenseIntOrFPElementsAttr.from_list(_SCALAR, [value]))


def _named(op: Operation, name: str | None) -> Operation:
    if name is not None:
        op.attributes[NODE_NAME] = StringAttr(name)
    return op


def _parent_attrs(count: int) -> ArrayAttr[DictionaryAttr]:
    """While's Data d has parent index d (DataPass::PostParseSubgraph)."""
    return ArrayAttr(
        [DictionaryAttr({PARENT_NODE_INDEX: IntegerAttr(d, i64)}) for d in range(count)]
    )


def _unique(module: ModuleOp, base: str) -> str:
    names = {g.sym_name.data for g in module.ops if isinstance(g, GraphOp)}
    name, k = base, 0
    while name in names:
        k += 1
        name = f"{base}_{k}"
    return name


def _cond_graph(name: str, types: list[Attribute]) -> GraphOp:
    block = Block(arg_types=types)
    i, absd, span = block.args[:3]
    mul = MulOp(i, absd)
    less = LessOp(mul, span)
    block.add_ops([mul, less, NetOutputOp([less.results[0]])])
    graph = GraphOp(name, types, [less.results[0].type], Region(block))
    graph.arg_attrs = _parent_attrs(len(types))
    return graph


def _body_graph(name: str, types: list[Attribute], body: GraphOp) -> GraphOp:
    block = Block(arg_types=types)
    i, absd, span, start, delta, *carried = block.args
    one = _int32(1)
    step = AddOp(i, one)
    offset = MulOp(i, delta)
    variable = AddOp(start, offset)
    block.add_ops([one, step, offset, variable])
    mapping: dict[SSAValue, SSAValue] = dict(
        zip(body.body.block.args, [variable.results[0], *carried], strict=True)
    )
    outputs: list[SSAValue] = []
    for op in body.body.block.ops:
        if isinstance(op, NetOutputOp):
            outputs = [mapping.get(v, v) for v in op.outputs]
            continue
        clone = op.clone(value_mapper=mapping)
        block.add_op(clone)
    next_values = [step.results[0], absd, span, start, delta, *outputs]
    block.add_op(NetOutputOp(next_values))
    graph = GraphOp(name, types, types, Region(block))
    graph.arg_attrs = _parent_attrs(len(types))
    return graph


def rewrite_for(module: ModuleOp, op: ForOp, graphs: dict[str, GraphOp]) -> WhileOp:
    """Replaces `op` by ForPass's While (module docstring); returns the While."""
    body = graphs[op.body.root_reference.data]
    name = op.attributes.get(NODE_NAME)
    node = name.data if isinstance(name, StringAttr) else None
    base = body.sym_name.data
    zero = _int32(0)
    counter = _named(IdentityOp(zero), f"{node}_i" if node else None)
    absd = AbsOp(op.delta)
    diff = SubOp(op.limit, op.start)
    span = AbsOp(diff)
    pre = [zero, counter, absd, diff, span]
    Rewriter.insert_op(pre, InsertPoint.before(op))
    operands = [
        counter.results[0],
        absd.results[0],
        span.results[0],
        op.start,
        op.delta,
        *op.inputs,
    ]
    types = [v.type for v in operands]
    cond = _cond_graph(_unique(module, f"{base}_Cond"), types)
    module.body.block.insert_op_after(cond, body)
    new_body = _body_graph(_unique(module, f"{base}_Body"), types, body)
    module.body.block.insert_op_after(new_body, cond)
    graphs[cond.sym_name.data] = cond
    graphs[new_body.sym_name.data] = new_body
    loop = WhileOp(operands, cond.sym_name.data, new_body.sym_name.data, types)
    _named(loop, f"{node}_While" if node else None)
    Rewriter.replace_op(op, loop, new_results=loop.results[5:])
    return loop


def called_symbols(module: ModuleOp) -> set[str]:
    """The graphs some op of `module` calls (a call, a Case branch, a control-flow subgraph)."""
    named: set[str] = set()
    for node in walk_ops(module):
        named.update(graphs_called_by(node))
    return named


def convert_for_to_while(module: ModuleOp) -> list[WhileOp]:
    """Rewrites every `graph.for` of `module`; erases bodies nothing names any more."""
    graphs = {g.sym_name.data: g for g in module.ops if isinstance(g, GraphOp)}
    fors = [op for op in walk_ops(module) if of_class(op, ForOp)]
    if not fors:
        return []
    loops = [rewrite_for(module, op, graphs) for op in fors]
    named = called_symbols(module)
    for op in fors:
        symbol = op.body.root_reference.data
        graph = graphs.get(symbol)
        if graph is not None and symbol not in named and graph.parent is not None:
            Rewriter.erase_op(graph)
    return loops


@dataclass(frozen=True)
class ConvertForToWhilePass(ModulePass):
    """GE's ForPass: each `graph.for` becomes a counted `graph.while` (module docstring)."""

    name = "ge-convert-for-to-while"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_for_to_while(op)
