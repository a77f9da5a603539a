"""`ge-create-subgraph-with-scope`: GE's CreateSubGraphWithScopePass, one multi-dims subgraph
per scope of nodes (see `gedialects.passes.multibatch.subgraph_multi_dims` for both passes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import int_array
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.passes.multibatch.expand import direct_calls
from gedialects.passes.multibatch.subgraph_multi_dims import (
    IS_MULTI_DIMS,
    OP_INPUT_DIMS,
    SCOPE_INDEX,
    SCOPE_INPUT_DIMS,
    SCOPE_INPUT_SHAPE,
    describe_node,
    scope_config,
    str_attr_of,
)
from gedialects.passes.partition.dynamic_shape import NO_NEED_DYNAMIC_SHAPE_PARTITION
from gedialects.passes.partition.outline import outline_cluster, reorder_graph

# --------------------------------------------------------------------------------------------


def _check_convex(ops: Sequence[Operation], where: str) -> None:
    """No path leaves the scope and comes back: outlining it would make a cycle."""
    members = set(ops)
    outside: set[Operation] = set()  # ops outside that depend on the scope
    stack = [use.operation for op in ops for r in op.results for use in r.uses]
    while stack:
        op = stack.pop()
        if op in members or op in outside:
            continue
        outside.add(op)
        stack.extend(use.operation for r in op.results for use in r.uses)
    for op in ops:
        for v in op.operands:
            if isinstance(v.owner, Operation) and v.owner in outside:
                raise PassFailedException(
                    f"{where}: {describe_node(op)} reads {describe_node(v.owner)}, which depends "
                    "on the scope: the scope's nodes must not be connected through nodes outside "
                    "it"
                )


def _scope_attr(ops: Sequence[Operation], key: str, where: str) -> str:
    values = {v for v in (str_attr_of(op, key) for op in ops) if v is not None}
    if not values:
        raise PassFailedException(f"{where}: no node of the scope has {key}")
    if len(values) > 1:
        raise PassFailedException(
            f"{where}: the scope's nodes disagree on {key}: " + " and ".join(sorted(values))
        )
    return values.pop()


def create_scope(module: ModuleOp, graph: GraphOp, index: int, ops: list[Operation]) -> GraphOp:
    """Outlines scope `index` of `graph` (`ops`, in order) into a multi-dims subgraph, which
    the caller inserts into `module`."""
    where = f"ge-create-subgraph-with-scope: @{graph.sym_name.data} scope {index}"
    for op in ops:
        if isinstance(op, NetOutputOp):
            raise PassFailedException(
                f"{where}: {describe_node(op)} is a NetOutput; it cannot be scoped"
            )
        if op.regions:
            raise PassFailedException(
                f"{where}: {describe_node(op)} has regions; it cannot be scoped"
            )
    _check_convex(ops, where)
    config = scope_config(
        _scope_attr(ops, SCOPE_INPUT_SHAPE, where), _scope_attr(ops, SCOPE_INPUT_DIMS, where), where
    )
    name = f"{graph.sym_name.data}_multi_dims_{index}"
    if name in {g.sym_name.data for g in module.ops if isinstance(g, GraphOp)}:
        raise PassFailedException(f"{where}: the module already has a symbol @{name}")
    members = set(ops)
    inputs: list[SSAValue] = []
    for op in ops:
        for v in op.operands:
            if v not in inputs and v.owner not in members:
                inputs.append(v)
    full: dict[int, list[int]] = {}
    for item in config.inputs:
        if not item.name.isdigit() or int(item.name) >= len(inputs):
            raise PassFailedException(
                f"{where}: {SCOPE_INPUT_SHAPE} names input '{item.name}', but the scope has "
                f"{len(inputs)} inputs (numbered from 0 in the order the scope first uses them)"
            )
        k = int(item.name)
        t = inputs[k].type
        shape = t.get_shape() if isinstance(t, TensorType) else None
        if (
            shape is None
            or len(shape) != len(item.dims)
            or any(
                d != a and not (d == -1 and a < 0) and not (d >= 0 and a < 0)
                for d, a in zip(item.dims, shape, strict=True)
            )
        ):
            raise PassFailedException(
                f"{where}: {SCOPE_INPUT_SHAPE} gives input {k} the dims {list(item.dims)}, but it "
                f"has type {t} (a -1 dim must be ? in the graph, a fixed one agree with it)"
            )
        full[k] = [v for g in range(config.gear_count) for v in config.shape(item.name, g)]
    position = {op: i for i, op in enumerate(graph.body.block.ops)}
    first = position[ops[0]]
    for op in ops:
        for key in (SCOPE_INDEX, SCOPE_INPUT_SHAPE, SCOPE_INPUT_DIMS):
            op.attributes.pop(key, None)
    subgraph, call = outline_cluster(ops, name, f"{name}_PartitionedCall")
    reorder_graph(graph, [(call, first)], position)
    attrs = list(subgraph.arg_attrs.data) if subgraph.arg_attrs is not None else []
    for k, values in full.items():
        attrs[k] = DictionaryAttr(dict(attrs[k].data) | {OP_INPUT_DIMS: int_array(values)})
    subgraph.arg_attrs = ArrayAttr(attrs)
    subgraph.attributes[IS_MULTI_DIMS] = BoolAttr.from_bool(True)
    subgraph.attributes[NO_NEED_DYNAMIC_SHAPE_PARTITION] = BoolAttr.from_bool(True)
    return subgraph


def _stamp_all(graph: GraphOp, input_shape: str, dynamic_dims: str) -> None:
    """GE's heterogeneous case: every op of `graph` is scope 0, its dynamic inputs named by
    `--input_shape` (renumbered as scope inputs) with `--dynamic_dims`."""
    where = f"ge-create-subgraph-with-scope: @{graph.sym_name.data}"
    config = scope_config(input_shape, dynamic_dims, where)
    ops = [op for op in graph.body.block.ops if not isinstance(op, NetOutputOp)]
    members = set(ops)
    inputs: list[SSAValue] = []
    for op in ops:
        for v in op.operands:
            if v not in inputs and v.owner not in members:
                inputs.append(v)
    names: dict[SSAValue, str] = dict(zip(graph.body.block.args, graph.input_names, strict=True))
    number = {names[v]: k for k, v in enumerate(inputs) if v in names}
    items: list[str] = []
    for item in config.inputs:
        if item.name not in number:
            raise PassFailedException(
                f"{where}: --input_shape names '{item.name}', which is no input the graph's "
                "nodes read"
            )
        items.append(f"{number[item.name]}:{','.join(str(d) for d in item.dims)}")
    shape = StringAttr(";".join(items))
    dims = StringAttr(";".join(",".join(str(v) for v in gear) for gear in config.gears))
    for op in ops:
        op.attributes |= {
            SCOPE_INDEX: IntegerAttr(0, i64),
            SCOPE_INPUT_SHAPE: shape,
            SCOPE_INPUT_DIMS: dims,
        }


@dataclass(frozen=True)
class CreateSubGraphWithScopePass(ModulePass):
    """Wraps each scope of nodes (one `_subgraph_multi_dims_index`) in a multi-dims subgraph
    (GE's CreateSubGraphWithScopePass; module docstring of `subgraph_multi_dims`).

    Options `input-shape` and `dynamic-dims` (atc's grammar; give both or neither) make every
    node of the root graph scope 0 first, as GE does with `ge.inputShape` and `ge.dynamicDims`
    in the heterogeneous case.
    """

    name = "ge-create-subgraph-with-scope"

    input_shape: str = ""
    dynamic_dims: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        graphs = [g for g in op.ops if isinstance(g, GraphOp)]
        if bool(self.input_shape) != bool(self.dynamic_dims):
            raise PassFailedException(f"{self.name}: give input-shape and dynamic-dims together")
        if self.input_shape:
            called = {c for g in graphs for c in direct_calls(g)}
            roots = [g for g in graphs if g.sym_name.data not in called]
            if len(roots) != 1:
                raise PassFailedException(
                    f"{self.name}: input-shape stamps exactly one root graph, found "
                    + (", ".join("@" + g.sym_name.data for g in roots) or "none")
                )
            _stamp_all(roots[0], self.input_shape, self.dynamic_dims)
        for graph in graphs:
            scopes: dict[int, list[Operation]] = {}
            for node in graph.body.block.ops:
                value = node.attributes.get(SCOPE_INDEX)
                if value is None:
                    continue
                if not isinstance(value, IntegerAttr) or value.value.data < 0:
                    raise PassFailedException(
                        f"{self.name}: {describe_node(node)} in @{graph.sym_name.data} has "
                        f"{SCOPE_INDEX} {value}; it must be a non-negative integer"
                    )
                scopes.setdefault(value.value.data, []).append(node)
            anchor: Operation = graph
            for index in sorted(scopes):
                subgraph = create_scope(op, graph, index, scopes[index])
                Rewriter.insert_op(subgraph, InsertPoint.after(anchor))
                anchor = subgraph
