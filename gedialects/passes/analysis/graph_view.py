"""A `graph.graph` seen as GE sees a ComputeGraph: nodes in topological order with their edges.

Node `i < len(args)` is the Data node of block argument `i`; then come the ops of the body in
order (the verifier guarantees a topological order), the terminator `graph.net_output` last.
`preds[i]` lists the producer of every operand (one entry per use, as GE has one edge per
anchor pair); the cluster framework works on these indices.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation

from gedialects.base import NODE_NAME, GEOp, block_ops, new_i64, of_class
from gedialects.graph import GraphOp
from gedialects.graph.control import ControlFlowOp
from gedialects.multibatch import CaseOp
from gedialects.partition import PartitionedCallOp

DATA_TYPE = "Data"
TRUE = BoolAttr.from_bool(True)
FALSE = BoolAttr.from_bool(False)


def bool_value(value: bool) -> BoolAttr:
    """A shared `true`/`false` attribute (attributes are immutable; building one costs)."""
    return TRUE if value else FALSE


@lru_cache(maxsize=4096)
def i64_value(value: int) -> IntegerAttr:
    """A shared i64 attribute (xDSL verifies the range of every new IntegerAttr)."""
    return new_i64(value)


@lru_cache(maxsize=4096)
def string_value(value: str) -> StringAttr:
    return StringAttr(value)


def ge_type(op: Operation) -> str:
    """The GE node type of an op (`GE_TYPE`), or its IR name for foreign ops (the class test
    by `of_class`: every pass asks it of every node)."""
    return op.GE_TYPE if of_class(op, GEOp) else op.name


# The attribute readers test for a missing attribute first: `isinstance(None, StringAttr)`
# is a Python-level ABCMeta `__instancecheck__` (about 1 us), and most lookups miss; a hit's
# class test is `of_class`'s, once per attribute class (the node name of every node).


def str_attr(op: Operation, name: str) -> str | None:
    value = op.attributes.get(name)
    if value is None:
        return None
    return value.data if of_class(value, StringAttr) else None


def bool_attr(op: Operation, name: str) -> bool | None:
    """A GE bool attribute: `true`/`false` (i1) or any integer attribute."""
    value = op.attributes.get(name)
    if value is not None and of_class(value, IntegerAttr):
        return bool(value.value.data)
    return None


def int_attr(op: Operation, name: str) -> int | None:
    value = op.attributes.get(name)
    if value is not None and of_class(value, IntegerAttr):
        return int(value.value.data)
    return None


def is_unknown_type(t: Attribute) -> bool:
    """GE's unknown shape: a `?` dim (-1) or unknown rank (-2)."""
    if isinstance(t, UnrankedTensorType):
        return True
    return isinstance(t, TensorType) and any(d < 0 for d in t.get_shape())


GRAPH_CALLERS = (PartitionedCallOp, CaseOp, ControlFlowOp)
"""The op classes that name graphs, each through its `called_graphs()`: a call's callee, a
Case's branches, a control-flow op's subgraphs."""


def graphs_called_by(op: Operation) -> list[str]:
    """The graphs `op` names (none for an op of no `GRAPH_CALLERS` class: one cached class
    test, where most ops paid three ABC ones)."""
    if of_class(op, GRAPH_CALLERS):
        return op.called_graphs()  # pyright: ignore[reportAttributeAccessIssue]
    return []


def called_symbols(op: Operation) -> list[str]:
    """Graphs an op calls (PartitionedCall's callee, Case's branches): any symbol property.
    A property of a class that is neither a symbol nor an array is passed over by one
    lookup of its class: the partitioners ask this of every node."""
    names: list[str] = []
    for value in op.properties.values():
        holds = _MAY_HOLD_SYMBOLS.get(value.__class__)
        if holds is None:
            holds = _MAY_HOLD_SYMBOLS[value.__class__] = of_class(value, (ArrayAttr, SymbolRefAttr))
        if not holds:
            continue
        items = value.data if of_class(value, ArrayAttr) else (value,)
        names.extend(a.root_reference.data for a in items if of_class(a, SymbolRefAttr))
    return names


_MAY_HOLD_SYMBOLS: dict[type, bool] = {}
"""Property class -> whether a value of it is a symbol or an array (`called_symbols`)."""


@dataclass
class GraphNodes:
    """The nodes of one graph in topological order, with producer lists and names."""

    graph: GraphOp
    args: list[BlockArgument]
    ops: list[Operation]
    preds: list[list[int]]
    names: list[str]

    @classmethod
    def of(cls, graph: GraphOp) -> GraphNodes:
        block = graph.body.block
        args = list(block.args)
        ops = block_ops(block)
        # Keyed by `id` (xDSL's values hash by a Python-level `__hash__`); the graph keeps
        # the values alive.
        index: dict[int, int] = {id(a): i for i, a in enumerate(args)}
        preds: list[list[int]] = [[] for _ in args]
        names = list(graph.input_names)
        counts: dict[str, int] = {}
        base = len(args)
        for k, op in enumerate(ops):
            # the operand tuple itself: `operands` is a view, iterated by index
            preds.append([index[id(v)] for v in op._operands])  # pyright: ignore[reportPrivateUsage]
            for r in op.results:
                index[id(r)] = base + k
            name = str_attr(op, NODE_NAME)
            if name is None:
                kind = ge_type(op)
                count = counts.get(kind, 0)
                counts[kind] = count + 1
                name = f"{kind}_{count}"
            names.append(name)
        return cls(graph, args, ops, preds, names)

    def __len__(self) -> int:
        return len(self.args) + len(self.ops)

    def op(self, node: int) -> Operation | None:
        """The op of node `node`, None for a Data node."""
        k = node - len(self.args)
        return self.ops[k] if k >= 0 else None

    def node_type(self, node: int) -> str:
        op = self.op(node)
        return DATA_TYPE if op is None else ge_type(op)
