"""JIT slicing: GE's BinaryPartitioner (`ge-partition-jit` and `slice_known`).

In GE's JIT mode (`api/session/jit_execution`), `ExecutionOrder::AddNewSlice` infers shapes
with the real inputs and `BinaryPartitioner::Partition` cuts the graph into `Sliced_Graph`
(the inferred nodes, compiled and run now) and `Remaining_Graph` (the rest, sliced again when
it runs). `slice_known` is that split as a function (the Session's JIT mode calls it);
`PartitionJitPass` applies it to a module's root, which then calls both graphs.

The rules follow `binary_partitioner.cc` and `binary_graph_builder.cc`:

- a known node reading a node of the remaining part is refused (`CheckNodesContainsCycle`);
- every Data node is in the sliced graph, so the sliced graph takes all the original inputs;
- values crossing the cut leave through the sliced graph's NetOutput `Node_Output`, once per
  value however many remaining nodes read it (`MergeSameInputNode`);
- Consts and Variables are copied into the remaining graph instead of crossing the cut
  (`IsReplaceNode`);
- the remaining graph returns the original outputs.

One difference: GE routes the original inputs the remaining graph reads through the sliced
graph's NetOutput (Data nodes are sliced nodes); here the remaining graph takes them directly
as its first inputs, so that no value is copied through the sliced graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import NODE_NAME
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.partition import PartitionedCallOp
from gedialects.passes.analysis.graph_view import GraphNodes, ge_type, i64_value, is_unknown_type
from gedialects.passes.partition.stage import root_graphs

_NAME = "ge-partition-jit"

SLICED_GRAPH_NAME = "Sliced_Graph"
REMAINING_GRAPH_NAME = "Remaining_Graph"
REPLACE_NODE_TYPES = frozenset({"Variable", "VariableV2", "Const", "Constant"})
"""GE `IsReplaceNode`: copied into the remaining graph rather than cut."""
INDEX = "index"
"""GE `ATTR_NAME_INDEX` on the remaining graph's Data nodes: the input's position."""

T = TypeVar("T")


class SliceError(ValueError):
    """A node set the partitioner refuses (the message names the node)."""


@dataclass(frozen=True)
class JitWiring:
    """How the remaining graph's inputs are fed.

    `inputs[i]` is the source of remaining input `i`: `("input", k)` for original input `k`
    (all of which the sliced graph takes, in order), or `("sliced", j)` for sliced output `j`.
    """

    inputs: tuple[tuple[str, int], ...]

    @property
    def out_idx_2_in_idxs(self) -> tuple[tuple[int, int], ...]:
        """GE's `PartionResult::out_idx_2_in_idxs`: (sliced output, remaining input) pairs."""
        return tuple((j, i) for i, (kind, j) in enumerate(self.inputs) if kind == "sliced")

    def remaining_args(self, inputs: Sequence[T], sliced_outputs: Sequence[T]) -> list[T]:
        """The remaining graph's arguments from the original inputs and the sliced outputs."""
        return [inputs[j] if kind == "input" else sliced_outputs[j] for kind, j in self.inputs]


class JitSlice(NamedTuple):
    sliced: GraphOp
    remaining: GraphOp
    wiring: JitWiring


def _root(graph_or_module: GraphOp | ModuleOp) -> GraphOp:
    if isinstance(graph_or_module, GraphOp):
        return graph_or_module
    roots = root_graphs(graph_or_module)
    if len(roots) != 1:
        names = ", ".join(f"@{g.sym_name.data}" for g in roots) or "none"
        raise SliceError(f"expected one root graph to slice, found {len(roots)} ({names})")
    return roots[0]


def known_node_set(nodes: GraphNodes, names: Iterable[str]) -> set[int]:
    """The op nodes named in `names` (Data names are accepted: Data is always sliced);
    refuses unknown names, the NetOutput, and a set that reads the remaining part."""
    root = nodes.graph.sym_name.data
    by_name: dict[str, list[int]] = {}
    for node, name in enumerate(nodes.names):
        by_name.setdefault(name, []).append(node)
    n_args, terminator = len(nodes.args), len(nodes) - 1
    known: set[int] = set()
    for name in names:
        found = by_name.get(name)
        if found is None:
            raise SliceError(f"@{root}: no node named '{name}'")
        if len(found) > 1:
            raise SliceError(f"@{root}: several nodes are named '{name}'")
        node = found[0]
        if node == terminator:
            raise SliceError(f"@{root}: '{name}' is the NetOutput, which the remaining graph keeps")
        if node >= n_args:
            known.add(node)
    if not known:
        raise SliceError(f"@{root}: the known node set is empty")
    for node in sorted(known):
        for p in nodes.preds[node]:
            if p >= n_args and p not in known:
                raise SliceError(
                    f"@{root}: known node '{nodes.names[node]}' reads '{nodes.names[p]}', "
                    "which is not known: the sliced graph cannot depend on the remaining graph"
                )
    return known


def static_nodes(nodes: GraphNodes) -> list[str]:
    """Names of the op nodes whose tensors are all static and whose producers are too (the
    largest known set closed under predecessors; NetOutput excluded)."""
    n_args = len(nodes.args)
    known = [not is_unknown_type(a.type) for a in nodes.args]
    for op in nodes.ops:
        node = len(known)
        known.append(
            not isinstance(op, NetOutputOp)
            and not any(is_unknown_type(t) for t in (*op.operand_types, *op.result_types))
            and all(known[p] for p in nodes.preds[node])
        )
    return [nodes.names[i] for i in range(n_args, len(nodes)) if known[i]]


def _slice_in_place(
    graph: GraphOp, known_names: Iterable[str], sliced_name: str, remaining_name: str
) -> JitSlice:
    """Moves the ops of `graph` into the two new graphs; `graph` keeps only its arguments."""
    nodes = GraphNodes.of(graph)
    known = known_node_set(nodes, known_names)
    n_args = len(nodes.args)
    args = nodes.args
    known_ops = [op for k, op in enumerate(nodes.ops) if n_args + k in known]
    rest_ops = [op for k, op in enumerate(nodes.ops) if n_args + k not in known]
    known_set = set(known_ops)
    cut: list[SSAValue] = []
    replaced: list[Operation] = []
    for op in known_ops:
        used_outside = [r for r in op.results if any(u.operation not in known_set for u in r.uses)]
        if not used_outside:
            continue
        if ge_type(op) in REPLACE_NODE_TYPES:
            replaced.append(op)
        else:
            cut.extend(used_outside)
    rest_args = [i for i, a in enumerate(args) if any(u.operation not in known_set for u in a.uses)]
    # The sliced graph: every original input, the known ops, the cut values as outputs.
    sliced = GraphOp(sliced_name, [a.type for a in args], [v.type for v in cut])
    sliced.arg_attrs = graph.arg_attrs
    s_block = sliced.body.block
    for op in known_ops:
        op.detach()
        s_block.add_op(op)
    for a, new in zip(args, s_block.args, strict=True):
        a.replace_uses_with_if(new, lambda use: use.operation in known_set)
        new.name_hint = a.name_hint
    net_output = NetOutputOp(cut)
    net_output.attributes[NODE_NAME] = StringAttr("Node_Output")
    s_block.add_op(net_output)
    sliced_side = known_set | {net_output}
    # The remaining graph: original inputs it reads, then the cut values it reads.
    wiring = [("input", i) for i in rest_args] + [("sliced", j) for j in range(len(cut))]
    in_types = [args[i].type for i in rest_args] + [v.type for v in cut]
    out_types = graph.function_type.outputs.data
    remaining = GraphOp(remaining_name, in_types, out_types)
    old_attrs = graph.arg_attrs.data if graph.arg_attrs is not None else None
    attrs: list[DictionaryAttr] = []
    for i, (kind, j) in enumerate(wiring):
        entries: dict[str, Attribute]
        if kind == "input":
            entries = dict(old_attrs[j].data) if old_attrs is not None else {}
        else:
            entries = {NODE_NAME: StringAttr(f"{remaining_name}_Data_{i}")}
        entries[INDEX] = i64_value(i)
        attrs.append(DictionaryAttr(entries))
    remaining.arg_attrs = ArrayAttr(attrs)
    remaining.res_attrs = graph.res_attrs
    r_block: Block = remaining.body.block
    for new, (kind, j) in zip(r_block.args, wiring, strict=True):
        if kind == "input":
            args[j].replace_all_uses_with(new)
            new.name_hint = args[j].name_hint
        else:
            cut[j].replace_uses_with_if(new, lambda use: use.operation not in sliced_side)
            new.name_hint = cut[j].name_hint
    for op in replaced:
        copy = op.clone()
        r_block.add_op(copy)
        for r, new in zip(op.results, copy.results, strict=True):
            r.replace_uses_with_if(new, lambda use: use.operation not in known_set)
            new.name_hint = r.name_hint
    for op in rest_ops:
        op.detach()
        r_block.add_op(op)
    return JitSlice(sliced, remaining, JitWiring(tuple(wiring)))


def slice_known(
    graph_or_module: GraphOp | ModuleOp,
    known_nodes: Iterable[str],
    *,
    sliced_name: str = SLICED_GRAPH_NAME,
    remaining_name: str = REMAINING_GRAPH_NAME,
) -> JitSlice:
    """Splits a graph (or a module's root graph) into the sliced graph of the `known_nodes`
    (node names) and the remaining graph, without changing the input.

    Returns `(sliced, remaining, wiring)`: two new `graph.graph`s (not in any module; graphs
    they call stay where they are) and the `JitWiring`. Running `sliced` on the original
    inputs, then `remaining` on `wiring.remaining_args(inputs, sliced_outputs)`, gives the
    original outputs. Raises `SliceError` for a name that is not a node, the NetOutput, an
    empty set, or a set with a node that reads a node outside it (the message names both).
    """
    graph = _root(graph_or_module).clone()
    return _slice_in_place(graph, known_nodes, sliced_name, remaining_name)


@dataclass(frozen=True)
class PartitionJitPass(ModulePass):
    """Splits the root graph into `@Sliced_Graph` and `@Remaining_Graph` (GE BinaryPartitioner).

    `nodes=a,b,c` names the known nodes, `known=auto` takes every node whose tensors are all
    static and whose producers are known. The root then calls `@Sliced_Graph` on all its
    inputs and `@Remaining_Graph` on the inputs it reads and the sliced outputs it consumes
    (the wiring), and returns the remaining graph's outputs. A known node that reads a node
    outside the set is refused, naming both.
    """

    name = "ge-partition-jit"

    nodes: tuple[str, ...] = ()
    known: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.known not in ("", "auto"):
            raise PassFailedException(f"{_NAME}: known must be 'auto', got '{self.known}'")
        if bool(self.nodes) == (self.known == "auto"):
            raise PassFailedException(f"{_NAME}: give either nodes=<names> or known=auto")
        taken = {g.sym_name.data for g in op.ops if isinstance(g, GraphOp)}
        for name in (SLICED_GRAPH_NAME, REMAINING_GRAPH_NAME):
            if name in taken:
                raise PassFailedException(f"{_NAME}: symbol @{name} already exists")
        try:
            root = _root(op)
            names = self.nodes or static_nodes(GraphNodes.of(root))
            if not names:
                raise SliceError(f"@{root.sym_name.data}: no node has static shapes")
            sliced, remaining, wiring = _slice_in_place(
                root, names, SLICED_GRAPH_NAME, REMAINING_GRAPH_NAME
            )
        except SliceError as e:
            raise PassFailedException(f"{_NAME}: {e}") from None
        op.body.block.insert_op_after(sliced, root)
        op.body.block.insert_op_after(remaining, sliced)
        block = root.body.block
        args = list(block.args)
        s_call = PartitionedCallOp(SLICED_GRAPH_NAME, args, sliced.function_type.outputs.data)
        s_call.attributes[NODE_NAME] = StringAttr(f"{SLICED_GRAPH_NAME}_PartitionedCall")
        r_call = PartitionedCallOp(
            REMAINING_GRAPH_NAME,
            wiring.remaining_args(args, s_call.results),
            remaining.function_type.outputs.data,
        )
        r_call.attributes[NODE_NAME] = StringAttr(f"{REMAINING_GRAPH_NAME}_PartitionedCall")
        block.add_ops([s_call, r_call, NetOutputOp(r_call.results)])
