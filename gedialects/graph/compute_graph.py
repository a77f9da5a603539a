"""GE's graph API over a module: `ComputeGraph` with GE's subgraph calls.

GE keeps every subgraph of a model on its root graph (`ComputeGraph::sub_graph_`, flattened
over all levels, with a name map); nodes name theirs (If's `then_branch`, PartitionedCall's
`f`). Here the root and its subgraphs are the `graph.graph` ops of one module, named by symbol
properties (`graph.if`, `partition.partitioned_call`, `multibatch.case`), so the API is a view
of the module:

    from gedialects.graph.compute_graph import ComputeGraph
    graph = ComputeGraph(module)            # the module's root graph
    [g.sym_name.data for g in graph.get_all_subgraphs()]
    body = graph.get_subgraph("loop_0_body")  # None when there is none
    graph.add_subgraph("then_1", new_graph)   # then a node may name @then_1
    graph.remove_subgraph("then_1")           # refused while a node still names it

Where GE's calls return a status, these raise `GraphError` with a one-line message; like GE's,
`get_subgraph` gives None for an unknown name and `remove_subgraph` of one does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, Operation

from gedialects.base import NODE_NAME
from gedialects.errors import GraphError
from gedialects.graph.structure import GraphOp


def _symbols(attr: Attribute) -> Iterator[str]:
    """The symbols an attribute names, through arrays and dictionaries (a Case's branches)."""
    if isinstance(attr, SymbolRefAttr):
        yield attr.root_reference.data
    elif isinstance(attr, ArrayAttr):
        for item in attr.data:
            yield from _symbols(item)
    elif isinstance(attr, DictionaryAttr):
        for item in attr.data.values():
            yield from _symbols(item)


def _named(op: Operation) -> set[str]:
    """The symbols `op` names in its properties and attributes."""
    values = (*op.properties.values(), *op.attributes.values())
    return {symbol for value in values for symbol in _symbols(value)}


def _named_symbols(module: ModuleOp) -> set[str]:
    return {s for op in module.walk() for s in _named(op)}


class ComputeGraph:
    """GE's `ComputeGraph` root graph of `module`: the `graph.graph` no node names, or
    `root` by name when the module holds several."""

    def __init__(self, module: ModuleOp, root: str | None = None) -> None:
        self.module = module
        graphs = self._graphs()
        if root is not None:
            if root not in graphs:
                known = ", ".join(graphs) or "none"
                raise GraphError(f"no graph.graph @{root} in the module (graphs: {known})")
            self.root = graphs[root]
            return
        named = _named_symbols(module)
        roots = [g for name, g in graphs.items() if name not in named]
        if len(roots) != 1:
            names = ", ".join(f"@{g.sym_name.data}" for g in roots) or "none"
            raise GraphError(
                f"the module has {len(roots)} root graphs ({names}); name the root: "
                "ComputeGraph(module, root=NAME)"
            )
        self.root = roots[0]

    @property
    def name(self) -> str:
        """GE's `GetName`: the root graph's symbol."""
        return self.root.sym_name.data

    def _graphs(self) -> dict[str, GraphOp]:
        return {op.sym_name.data: op for op in self.module.ops if isinstance(op, GraphOp)}

    def get_all_subgraphs(self) -> list[GraphOp]:
        """GE's `GetAllSubgraphs`: every subgraph, of all levels, in module order."""
        return [g for g in self._graphs().values() if g is not self.root]

    def get_subgraph(self, name: str) -> GraphOp | None:
        """GE's `GetSubgraph`: the subgraph named `name`, None when there is none."""
        graph = self._graphs().get(name)
        return None if graph is None or graph is self.root else graph

    def add_subgraph(self, name: str, subgraph: GraphOp) -> GraphOp:
        """GE's `AddSubgraph(name, subgraph)`: adds a detached `graph.graph` after the last
        graph of the module, under `name` (its symbol becomes `name`: nodes name it by that).
        A name in use (GE: "the subgraph already exists") or an attached graph is refused."""
        if not isinstance(subgraph, GraphOp):
            raise GraphError(f"add_subgraph takes a graph.graph, not {type(subgraph).__name__}")
        if subgraph.parent is not None:
            raise GraphError(
                f"add_subgraph: @{subgraph.sym_name.data} is already in a module; "
                "pass a detached graph (remove it or clone it first)"
            )
        if not isinstance(name, str) or not name:
            raise GraphError(f"add_subgraph: {name!r} is not a graph name")
        symbols = {
            symbol.data
            for op in self.module.ops
            if isinstance(symbol := op.properties.get("sym_name"), StringAttr)
        }
        if name in symbols:
            raise GraphError(f"add_subgraph: the module already has a symbol @{name}")
        subgraph.sym_name = StringAttr(name)
        graphs = list(self._graphs().values())
        if graphs:
            self.module.body.block.insert_op_after(subgraph, graphs[-1])
        else:
            self.module.body.block.add_op(subgraph)
        return subgraph

    def remove_subgraph(self, name: str) -> GraphOp | None:
        """GE's `RemoveSubgraph(name)`: takes the subgraph out of the module and returns it
        (None, and nothing done, when there is none). Refused while a node still names it:
        GE leaves that node dangling; here the module would no longer verify."""
        graph = self.get_subgraph(name)
        if graph is None:
            return None
        users = [op for op in self.module.walk() if name in _named(op)]
        if users:
            user = users[0]
            node = user.attributes.get(NODE_NAME)
            label = f" '{node.data}'" if isinstance(node, StringAttr) else ""
            raise GraphError(
                f"remove_subgraph: @{name} is still named by '{user.name}'{label}"
                f"{f' (and {len(users) - 1} more)' if len(users) > 1 else ''}; "
                "remove or rewrite the node first"
            )
        graph.detach()
        return graph
