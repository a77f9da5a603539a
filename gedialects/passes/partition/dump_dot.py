"""`ge-dump-dot`: a Graphviz picture of a module's graphs and partitions."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TextIO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from gedialects.base import (
    AICORE_ENGINE,
    AICPU_ENGINE,
    DVPP_ENGINE,
    ENGINE_NAME,
    GE_LOCAL_ENGINE,
    HOST_CPU_ENGINE,
    IS_UNKNOWN_SHAPE,
    NODE_NAME,
    RTS_ENGINE,
    VECTOR_ENGINE,
)
from gedialects.graph import GraphOp, NetOutputOp
from gedialects.partition import EndOp, PartitionedCallOp, PlaceHolderOp
from gedialects.passes.analysis.graph_view import bool_attr, called_symbols, ge_type, str_attr
from gedialects.target.engines import INPUT_NODES_SUBGRAPH

ENGINE_COLOURS: dict[str, str] = {
    AICORE_ENGINE: "#cfe2ff",
    VECTOR_ENGINE: "#d2f4ea",
    AICPU_ENGINE: "#fff3cd",
    DVPP_ENGINE: "#e2d9f3",
    HOST_CPU_ENGINE: "#f8d7da",
    GE_LOCAL_ENGINE: "#e9ecef",
    RTS_ENGINE: "#dee2e6",
    INPUT_NODES_SUBGRAPH: "#ffffff",
    "ffts_plus": "#cfe2ff",
}
"""Fill colour of nodes and engine subgraphs, per engine."""
KNOWN_COLOUR = "#d1e7dd"
UNKNOWN_COLOUR = "#ffe5d0"


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def type_label(t: Attribute) -> str:
    """`2x4xf32` for `tensor<2x4xf32>`."""
    text = str(t)
    return text[len("tensor<") : -1] if text.startswith("tensor<") else text


def graph_fill(graph: GraphOp) -> tuple[str, str]:
    """(fill colour, caption) of a graph's box: by engine, else by known/unknown shape."""
    engine = str_attr(graph, ENGINE_NAME)
    if engine is not None:
        return ENGINE_COLOURS.get(engine, "#ffffff"), engine or "(no composite engine)"
    unknown = bool_attr(graph, IS_UNKNOWN_SHAPE)
    if unknown is None:
        return "#ffffff", ""
    return (UNKNOWN_COLOUR, "unknown shape") if unknown else (KNOWN_COLOUR, "known shape")


def to_dot(module: ModuleOp) -> str:
    """The DOT text: one cluster per graph, coloured by engine or shape kind."""
    lines = [
        "digraph module {",
        "  compound=true; rankdir=TB; newrank=true;",
        '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica",'
        " fontsize=10];",
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    ids: dict[SSAValue, str] = {}
    op_ids: dict[Operation, str] = {}
    arg_ids: dict[str, list[str]] = {}
    outputs: dict[str, str] = {}
    ends: dict[int, str] = {}
    edges: list[str] = []
    graphs = [g for g in module.ops if isinstance(g, GraphOp)]
    for gi, graph in enumerate(graphs):
        name = graph.sym_name.data
        fill, caption = graph_fill(graph)
        label = f"@{name}" + (f"\n{caption}" if caption else "")
        lines.append(f"  subgraph cluster_{gi} {{")
        lines.append(f'    label={_quote(label)}; style="rounded,filled"; fillcolor="{fill}";')
        block = graph.body.block
        arg_ids[name] = []
        for i, (arg, arg_name) in enumerate(zip(block.args, graph.input_names, strict=True)):
            node = f"g{gi}_a{i}"
            ids[arg] = node
            arg_ids[name].append(node)
            text = f"Data\n{arg_name}\n{type_label(arg.type)}"
            lines.append(f'    {node} [label={_quote(text)}, shape=ellipse, fillcolor="#ffffff"];')
        for k, op in enumerate(block.ops):
            node = f"g{gi}_n{k}"
            op_ids[op] = node
            parts = [ge_type(op)]
            if (node_name := str_attr(op, NODE_NAME)) is not None:
                parts.append(node_name)
            if isinstance(op, EndOp | PlaceHolderOp):
                parts.append(f"peerIndex {op.peerIndex.value.data}")
            if op.results:
                parts.append(", ".join(type_label(r.type) for r in op.results))
            engine = str_attr(op, ENGINE_NAME)
            fill_node = ENGINE_COLOURS.get(engine, "#ffffff") if engine else "#ffffff"
            shape = ""
            if isinstance(op, NetOutputOp):
                shape, outputs[name] = ", shape=house", node
            elif isinstance(op, EndOp | PlaceHolderOp):
                shape = ", shape=cds"
            elif called_symbols(op):
                shape = ", shape=box3d"
            lines.append(
                f'    {node} [label={_quote(chr(10).join(parts))}, fillcolor="{fill_node}"{shape}];'
            )
            for r in op.results:
                ids[r] = node
            for v in op.operands:
                if v in ids:
                    edges.append(f"  {ids[v]} -> {node};")
            if isinstance(op, EndOp):
                ends[op.peerIndex.value.data] = node
        lines.append("  }")
    for graph in graphs:
        for op in graph.body.block.ops:
            if isinstance(op, PlaceHolderOp) and op.peerIndex.value.data in ends:
                peer = op.peerIndex.value.data
                edges.append(
                    f'  {ends[peer]} -> {op_ids[op]} [style=dashed, color="#c0392b", '
                    f'label="{peer}"];'
                )
            for callee in called_symbols(op):
                for i, node in enumerate(arg_ids.get(callee, [])):
                    if isinstance(op, PartitionedCallOp) and i < len(op.args):
                        edges.append(f"  {op_ids[op]} -> {node} [style=dotted];")
                if callee in outputs:
                    edges.append(
                        f"  {outputs[callee]} -> {op_ids[op]} [style=dotted, arrowhead=empty];"
                    )
    lines.extend(edges)
    lines.append("}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class DumpDotPass(ModulePass):
    """Writes the module as a Graphviz DOT picture and leaves the IR unchanged.

    One box per `graph.graph`, filled by its `_engine_name` (engine subgraphs) or by
    `_is_unknown_shape` (green known, orange unknown); nodes are labelled with GE type,
    `node_name` and result shapes and filled by their `_engine_name`. Dotted edges join a
    call to its callee's inputs and the callee's NetOutput back to the call; dashed red edges
    join each `partition.end` to its `partition.place_holder` (labelled with `peerIndex`).
    Option `file`: the output path, `-` (default) for stdout (send the IR elsewhere with `-o`).
    Render with `dot -Tsvg`.
    """

    name = "ge-dump-dot"

    file: str = "-"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        text = to_dot(op)
        if self.file == "-":
            _write(sys.stdout, text)
            return
        try:
            with open(self.file, "w", encoding="utf-8") as out:
                _write(out, text)
        except OSError as e:
            raise PassFailedException(f"ge-dump-dot: cannot write {self.file}: {e}") from None


def _write(out: TextIO, text: str) -> None:
    out.write(text)
    out.flush()
