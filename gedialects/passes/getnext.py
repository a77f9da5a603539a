"""GetNext sink: `ge-sink-inputs` feeds a root graph from a GetNext, and GE's
`CreateOriGraph` / `LinkGetDynamicDimsToNetOutput` steps of MultiBatchClonePass for a root
with a GetNext (`ge-expand-multibatch` calls them).

- `ge-sink-inputs` turns the root's inputs (Data) into the outputs of one `graph.get_next`,
  as TF's dataset sink feeds a GE graph (`IteratorV2` -> `GetNext`): the root then takes no
  arguments and each run pulls its input set from a queue (`interpreters.getnext`).
- `create_ori_graph` (GE's CreateOriGraph, on the body that becomes the branches): each of the
  GetNext's N data outputs becomes a Data (a root argument, index after the other Data), its
  consumers re-wired, the GetNext removed. The gear expansion then clones the branches with
  `multibatch.get_dynamic_dims` gathering the gear from the inputs' shapes.
- `link_get_next` (on the new root): the GetNext comes back, feeding the Case with its data
  outputs and `get_dynamic_dims` with its shape outputs (GE's `InitParamsOfGetNext`: the
  N int32 shape tensors); the GetDynamicDims output stays the hidden last NetOutput input,
  and the NetOutput gets `getnext_sink_dynamic = true`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import BlockArgument
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import NODE_NAME
from gedialects.graph import GraphOp, NetOutputOp, ShapeOp
from gedialects.graph.getnext import GETNEXT_OUTPUT_ATTRS, GETNEXT_SINK_DYNAMIC, GetNextOp

_SINK = "ge-sink-inputs"


def find_get_next(graph: GraphOp) -> GetNextOp | None:
    """The root's GetNext (at most one: GE's InitParamsOfGetNext takes one)."""
    found = [op for op in graph.body.block.ops if isinstance(op, GetNextOp)]
    if len(found) > 1:
        raise PassFailedException(
            f"@{graph.sym_name.data} has {len(found)} graph.get_next ops; GetNext sink takes one"
        )
    return found[0] if found else None


def _arg_attrs(graph: GraphOp) -> list[DictionaryAttr]:
    count = len(graph.body.block.args)
    if graph.arg_attrs is None:
        return [DictionaryAttr({}) for _ in range(count)]
    return list(graph.arg_attrs.data)


def _retype(graph: GraphOp) -> None:
    graph.function_type = FunctionType.from_lists(
        graph.body.block.arg_types, graph.function_type.outputs.data
    )


@dataclass(frozen=True)
class OriGraph:
    """What `create_ori_graph` took out of the root: the GetNext's names, its node name and
    the position of its first data output among the root's arguments."""

    names: tuple[str, ...]
    node: str
    first: int


def create_ori_graph(graph: GraphOp, get_next: GetNextOp, where: str) -> OriGraph:
    """GE's CreateOriGraph: the GetNext's data outputs become Data (root arguments)."""
    n = get_next.count
    used = [i for i in range(n, 2 * n) if get_next.outputs[i].uses]
    if used:
        raise PassFailedException(
            f"{where}: the shape output {used[0]} of graph.get_next is read in the graph; only "
            "the gear lookup GetNext sink inserts reads the shapes"
        )
    block = graph.body.block
    first = len(block.args)
    taken = set(graph.input_names)
    attrs = _arg_attrs(graph)
    for name, result in zip(get_next.names, get_next.outputs[:n], strict=True):
        if name in taken:
            raise PassFailedException(
                f"{where}: graph.get_next output '{name}' has the name of an input of "
                f"@{graph.sym_name.data}"
            )
        arg = block.insert_arg(result.type, len(block.args))
        arg.name_hint = result.name_hint
        result.replace_all_uses_with(arg)
        attrs.append(DictionaryAttr({NODE_NAME: StringAttr(name)}))
    node = get_next.attributes.get(NODE_NAME)
    Rewriter.erase_op(get_next)
    graph.arg_attrs = ArrayAttr(attrs)
    _retype(graph)
    return OriGraph(
        get_next.names, node.data if isinstance(node, StringAttr) else "IteratorGetNext", first
    )


def link_get_next(root: GraphOp, ori: OriGraph) -> GetNextOp:
    """The GetNext back on the expanded root: its data outputs replace the Data arguments
    `create_ori_graph` made, its shape outputs the shapes `get_dynamic_dims` read."""
    block = root.body.block
    n = len(ori.names)
    args = list(block.args[ori.first : ori.first + n])
    attrs = _arg_attrs(root)
    get_next = GetNextOp(ori.names, [a.type for a in args])
    get_next.attributes[NODE_NAME] = StringAttr(ori.node)
    get_next.attributes[GETNEXT_OUTPUT_ATTRS] = ArrayAttr(attrs[ori.first : ori.first + n])
    first_op = block.first_op
    assert first_op is not None
    Rewriter.insert_op(get_next, InsertPoint.before(first_op))
    for i, arg in enumerate(args):
        get_next.outputs[i].name_hint = arg.name_hint
        for use in list(arg.uses):
            user = use.operation
            if isinstance(user, ShapeOp):
                user.y.replace_all_uses_with(get_next.outputs[n + i])
                Rewriter.erase_op(user)
        arg.replace_all_uses_with(get_next.outputs[i])
    for arg in reversed(args):
        block.erase_arg(arg)
    del attrs[ori.first : ori.first + n]
    root.arg_attrs = ArrayAttr(attrs) if attrs else None
    _retype(root)
    out = block.last_op
    assert isinstance(out, NetOutputOp)
    out.attributes[GETNEXT_SINK_DYNAMIC] = BoolAttr.from_bool(True)
    return get_next


def _roots(module: ModuleOp) -> list[GraphOp]:
    """The graphs no op of `module` names (callees and branches are not roots)."""
    named: set[str] = set()
    for op in module.walk():
        for value in op.properties.values():
            items = value.data if isinstance(value, ArrayAttr) else (value,)
            named.update(a.root_reference.data for a in items if isinstance(a, SymbolRefAttr))
    return [g for g in module.ops if isinstance(g, GraphOp) and g.sym_name.data not in named]


@dataclass(frozen=True)
class SinkInputsPass(ModulePass):
    """Feeds the root graph from a GetNext (TF's dataset sink: `IteratorV2` -> `GetNext`).

    Every input of the root becomes an output of one `graph.get_next` (named as the input,
    followed by its int32 shape); the root takes no arguments, and each run pulls its inputs
    from the queue of input sets `ge-run` (several `--inputs`) and the Session
    (`ge.dynamicNodeType=0`) give. With gears, `ge-expand-multibatch` then finds the gear on
    the device (`GetDynamicDims` over the shapes). `entry`: the root when there are several.
    """

    name = _SINK

    entry: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        roots = [g for g in _roots(op) if not self.entry or g.sym_name.data == self.entry]
        if self.entry and not roots:
            raise PassFailedException(f"{_SINK}: no root graph named @{self.entry}")
        if len(roots) != 1:
            names = ", ".join("@" + g.sym_name.data for g in roots) or "none"
            raise PassFailedException(
                f"{_SINK}: feeds exactly one root graph, found {names}; choose with entry="
            )
        root = roots[0]
        where = f"{_SINK}: @{root.sym_name.data}"
        if find_get_next(root) is not None:
            raise PassFailedException(f"{where} is fed by a graph.get_next already")
        block = root.body.block
        if not block.args:
            raise PassFailedException(f"{where} has no inputs to feed")
        for arg, name in zip(block.args, root.input_names, strict=True):
            if not isinstance(arg.type, TensorType):
                raise PassFailedException(
                    f"{where}: input '{name}' has type {arg.type}; GetNext yields ranked tensors"
                )
        names = root.input_names
        get_next = GetNextOp(names, block.arg_types)
        get_next.attributes[NODE_NAME] = StringAttr("IteratorGetNext")
        first_op = block.first_op
        assert first_op is not None
        Rewriter.insert_op(get_next, InsertPoint.before(first_op))
        args: list[BlockArgument] = list(block.args)
        for arg, result in zip(args, get_next.outputs, strict=False):
            result.name_hint = arg.name_hint
            arg.replace_all_uses_with(result)
        for arg in reversed(args):
            block.erase_arg(arg)
        root.arg_attrs = None
        _retype(root)
