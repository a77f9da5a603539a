"""Materialising clusters as subgraphs: GE's BuildPartitionFrame / BuildPartitionSubgraph.

`outline_cluster` moves the ops of one cluster into a new `graph.graph` and leaves a
`partition.partitioned_call` of it in their place:

- inputs: each value produced outside the cluster and used inside, once per value (GE's
  `merge_inputs_`), in the order of first use; the callee's Data inputs are named
  `<subgraph>_Data_<i>` and carry `_parent_node_index = i`;
- outputs: each result of a cluster op with a use outside, in node order; the callee's
  NetOutput is named `<subgraph>_Node_Output` and its inputs carry `_parent_node_index`;
- uses outside the cluster now read the call's results;
- the registered partition attributes the cluster's nodes share go on the call
  (`attr_names`, GE's PartitionNodeAttrNameManager).

`reorder_graph` then puts the calls where GE inserts them (at the cluster's first node) and
restores a topological order of the parent, which the graph verifier requires.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.traits import IsTerminator

from gedialects.base import (
    NODE_NAME,
    PARENT_NODE_INDEX,
    detach_ops,
    i64_interned,
    new_array,
    new_dict,
    new_string,
    set_block_ops,
)
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.partition import PartitionedCallOp
from gedialects.passes.partition import attr_names
from gedialects.passes.partition.engine import replace_operands
from gedialects.passes.partition.merge_engine_partitions import PendingOperands


def outline_cluster(
    ops: Sequence[Operation], subgraph: str, call_name: str
) -> tuple[GraphOp, PartitionedCallOp]:
    """Moves `ops` (in topological order) into graph `@subgraph`; returns it and its call.

    The call is not inserted anywhere yet (see `reorder_graph`).
    """
    # Keyed by `id`: xDSL's ops and values hash by a Python-level `__hash__`, a call per test.
    members = {id(op) for op in ops}
    inputs: list[SSAValue] = []
    input_index: dict[int, int] = {}
    outputs: list[SSAValue] = []
    # Operands read from each op's tuple (`operands` is a view iterated by index).
    for op in ops:
        for v in op._operands:  # pyright: ignore[reportPrivateUsage]
            if id(v) not in input_index and id(v.owner) not in members:
                input_index[id(v)] = len(inputs)
                inputs.append(v)
        for r in op.results:
            for use in r.uses:
                if id(use.operation) not in members:
                    outputs.append(r)
                    break
    in_types = [v.type for v in inputs]
    graph = GraphOp(subgraph, in_types, [r.type for r in outputs])
    # The attributes built without xDSL's generic verification (`base.new_dict`): an input
    # cluster of every Const has thousands of outputs.
    graph.arg_attrs = new_array(
        [
            new_dict(
                {
                    NODE_NAME: new_string(f"{subgraph}_Data_{i}"),
                    PARENT_NODE_INDEX: i64_interned(i),
                }
            )
            for i in range(len(inputs))
        ]
    )
    graph.res_attrs = new_array(
        [new_dict({PARENT_NODE_INDEX: i64_interned(i)}) for i in range(len(outputs))]
    )
    block = graph.body.block
    args = block.args
    # Operand tuples are written once per op (`replace_operands`, `PendingOperands`): xDSL's
    # `operands[k] = v` copies the whole tuple per write, quadratic in the arity of a user
    # such as the parent's NetOutput. The use lists change in xDSL's order all the same.
    detach_ops(ops)
    for op in ops:
        changes: dict[int, SSAValue] = {}
        for k, v in enumerate(op._operands):  # pyright: ignore[reportPrivateUsage]
            index = input_index.get(id(v))
            if index is not None:  # an input: produced outside the cluster
                changes[k] = args[index]
        replace_operands(op, changes)
    net_output = NetOutputOp(outputs)
    net_output.attributes[NODE_NAME] = StringAttr(f"{subgraph}_Node_Output")
    # The detached ops in order, as `add_op` one by one would link them (without its checks
    # per op; the new block is empty).
    set_block_ops(block, [*ops, net_output])
    call = PartitionedCallOp(subgraph, inputs, [r.type for r in outputs])
    call.attributes[NODE_NAME] = StringAttr(call_name)
    attr_names.to_call(ops, call)
    pending = PendingOperands()
    for r, new in zip(outputs, call.res, strict=True):
        pending.replace_all_uses(
            r,
            new,
            lambda use: id(use.operation) not in members and use.operation is not net_output,
        )
        new.name_hint = r.name_hint
    pending.flush()
    return graph, call


def reorder_graph(
    graph: GraphOp, placed: Sequence[tuple[Operation, int]], position: Mapping[Operation, int]
) -> None:
    """Rebuilds the body of `graph` from `placed` ops (each with its GE position key) and the
    ops still in it (keyed by `position`, their index before partitioning), in a topological
    order that follows the keys (a min-heap Kahn sort)."""
    block = graph.body.block
    terminator = block.last_op
    assert terminator is not None and terminator.has_trait(IsTerminator)
    items: list[tuple[int, int, Operation]] = []
    for op in block.ops:
        if op is not terminator:
            items.append((position[op], len(items), op))
    for op, key in placed:
        items.append((key, len(items), op))
    index = {op: i for _, i, op in items}
    users: list[list[int]] = [[] for _ in items]
    pending = [0] * len(items)
    for _, i, op in items:
        owners = (v.owner for v in op.operands)
        producers = {index[o] for o in owners if isinstance(o, Operation) and o in index}
        pending[i] = len(producers)
        for p in producers:
            users[p].append(i)
    heap = [(key, i) for key, i, _ in items if pending[i] == 0]
    heapq.heapify(heap)
    order: list[Operation] = []
    ops = [op for _, _, op in items]
    while heap:
        _, i = heapq.heappop(heap)
        order.append(ops[i])
        for u in users[i]:
            pending[u] -= 1
            if pending[u] == 0:
                heapq.heappush(heap, (items[u][0], u))
    if len(order) != len(items):
        raise ValueError(f"@{graph.sym_name.data}: partition calls form a cycle")
    for op in order:
        if op.parent is not None:
            op.detach()
    block.insert_ops_before(order, terminator)
